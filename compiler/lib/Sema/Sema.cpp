// Type checker: resolves names, evaluates constants, checks declarations and binds every
// operation to its primitive definition (operands, subscripts, attributes, constraints, target).
// This file holds the entry point, the kernel header and the symbol table; SemaContext.h lists
// where the other concerns live.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Sema/Sema.h"

#include "SemaContext.h"

namespace cake::sema {

using namespace ir;

namespace {
constexpr std::string_view kReserved[] = {
    "tid",  "lane", "warp",  "wg",    "tiles",     "all",      "kernel", "on",
    "for",  "in",   "const", "param", "tensormap", "grid",     "role",   "pipeline",
    "pool", "smem", "tmem",  "reg",   "mbarrier",  "nbarrier", "true",   "false"};

/// Operation and loop statements under `body` (iteratively: nesting depth is unbounded here).
std::pair<std::size_t, std::size_t> countOpsAndLoops(const std::vector<StmtPtr>& body) {
  std::size_t ops = 0, loops = 0;
  std::vector<const std::vector<StmtPtr>*> pending{&body};
  while (!pending.empty()) {
    const std::vector<StmtPtr>* list = pending.back();
    pending.pop_back();
    for (const StmtPtr& s : *list) {
      ops += s->kind == StmtKind::Op;
      loops += s->kind == StmtKind::For;
      if (!s->body.empty())
        pending.push_back(&s->body);
    }
  }
  return {ops, loops};
}
} // namespace

namespace detail {

KernelModel Checker::run() {
  if (!m_module.kernel)
    return std::move(m_model);
  const Kernel& k = *m_module.kernel;
  m_model.name = k.name.name;
  checkKernelHeader(k);
  collectNames(k);
  // Constants first, in source order (a constant sees only earlier constants).
  for (const Decl& d : k.decls)
    if (d.kind == DeclKind::Const)
      checkConst(d);
  for (DeclKind kind : {DeclKind::Grid, DeclKind::Role, DeclKind::Pipeline, DeclKind::Pool,
                        DeclKind::Param, DeclKind::TensorMap, DeclKind::Smem, DeclKind::Tmem,
                        DeclKind::Reg, DeclKind::MBarrier, DeclKind::NBarrier})
    for (const Decl& d : k.decls)
      if (d.kind == kind)
        checkDecl(d);
  checkKernelShape(k);
  // Sized up front: grown by doubling, these tables (one entry per operation) would keep up to
  // half again as much unused, and each growth step holds the old and the new copy at once.
  auto [ops, loops] = countOpsAndLoops(k.body);
  m_model.ops.reserve(ops);
  m_model.loops.reserve(loops);
  for (const StmtPtr& s : k.body)
    checkTopLevel(*s);
  return std::move(m_model);
}

void Checker::checkKernelHeader(const Kernel& k) {
  for (const Attribute& a : k.attributes) {
    if (a.key.name != "target") {
      Diagnostic* d = report(DiagId::SemUnknownAttribute, a.key.id,
                             "kernel has no attribute '" + a.key.name + "' (only target=)");
      std::vector<std::string> known{"target"};
      if (auto guess = closestMatch(a.key.name, known))
        setFix(d, "did you mean 'target'?", R(a.key.id), "target");
    }
  }
  const Attribute* t = k.attribute("target");
  if (!t && !m_module.syntaxErrors) {
    Diagnostic* d = report(DiagId::SemMissingAttribute, k.name.id,
                           "kernel '" + k.name.name + "' does not name its exact target");
    setFix(d, "add target=sm_90a (or another known target) to the kernel line");
    return;
  }
  if (!t)
    return;
  if (t->value->kind != ExprKind::Name && t->value->kind != ExprKind::String) {
    report(DiagId::SemAttributeType, t->value->id, "target must be a target name like sm_90a");
    return;
  }
  m_model.targetName = t->value->text();
  m_model.target = m_targets.find(m_model.targetName);
  if (!m_model.target) {
    auto names = m_targets.names();
    Diagnostic* d =
        report(DiagId::HwUnknownTarget, t->value->id,
               "target '" + m_model.targetName +
                   "' is not a target this compiler knows exactly (known: " + join(names, ", ") +
                   "); there is no fallback");
    if (auto guess = closestMatch(m_model.targetName, names))
      setFix(d, "did you mean '" + *guess + "'?", R(t->value->id), *guess);
  }
}

void Checker::collectNames(const Kernel& k) {
  for (const Decl& d : k.decls) {
    if (!declHasName(d.kind))
      continue;
    const std::string& n = d.name.name;
    if (isReservedName(n) || parseDType(n)) {
      report(DiagId::SemReservedName, d.name.id,
             "'" + n + "' is reserved and cannot name a declaration");
      continue;
    }
    if (const Symbol* prev = lookup(n)) {
      Diagnostic* diag =
          report(DiagId::SemDuplicateName, d.name.id, "'" + n + "' is already declared");
      noteDecl(diag, prev->decl, "previous declaration of '" + n + "'");
      continue;
    }
    m_symbols.emplace(n, Symbol{d.kind, &d});
  }
  std::size_t grids = 0;
  for (const Decl& d : k.decls) {
    if (d.kind != DeclKind::Grid)
      continue;
    if (++grids > 1) {
      Diagnostic* diag = report(DiagId::SemDuplicateName, d.id, "kernel declares 'grid' twice");
      for (const Decl& first : k.decls)
        if (first.kind == DeclKind::Grid) {
          addNote(diag, R(first.id), "first grid declaration");
          break;
        }
    }
  }
}

} // namespace detail

bool isReservedName(std::string_view name) {
  return std::find(std::begin(kReserved), std::end(kReserved), name) != std::end(kReserved);
}

KernelModel check(const Module& module, const reg::Registry& registry,
                  const target::TargetSet& targets, DiagnosticEngine& diags,
                  const std::map<std::string, std::int64_t>& scalarValues) {
  detail::Checker checker(module, registry, targets, diags);
  checker.bindScalars(scalarValues);
  KernelModel model = checker.run();
  // The op table was reserved for every operation statement; drop what statements that were
  // refused left unused (the verifier, cost model and lowering keep the table for the whole run).
  model.ops.shrink_to_fit();
  return model;
}

} // namespace cake::sema
