// The schedule decisions `cake evolve` edits, each as a text edit at the source range of the
// decision in the parsed kernel (pipeline depth and grid schedule reuse the cost model's
// what-if rewrites, which also move the shared-memory layout).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Campaign/Evolve.h"

#include "cake/Cost/CostModel.h"

#include <algorithm>
#include <set>

namespace cake::campaign {

namespace {

/// The parent text with `range` replaced.
std::string replaced(const driver::CheckResult& k, SourceRange range, const std::string& with) {
  std::string text(k.sources->text(k.file));
  text.replace(range.begin, range.end - range.begin, with);
  return text;
}

/// The parent text with every edit applied (non-overlapping ranges).
std::string applied(const driver::CheckResult& k, std::vector<cost::TextEdit> edits) {
  std::string text(k.sources->text(k.file));
  std::sort(edits.begin(), edits.end(), [](const cost::TextEdit& a, const cost::TextEdit& b) {
    return a.range.begin > b.range.begin;
  });
  for (const cost::TextEdit& e : edits)
    text.replace(e.range.begin, e.range.end - e.range.begin, e.replacement);
  return text;
}

/// Names used in the shapes of the kernel's parameters: the problem size, never a tile.
std::set<std::string> problemNames(const ir::Kernel& kernel) {
  std::set<std::string> out;
  std::vector<const ir::Expr*> work;
  for (const ir::Decl& d : kernel.decls)
    if (d.kind == ir::DeclKind::Param && d.type)
      for (const ir::ExprPtr& e : d.type->shape)
        work.push_back(e.get());
  while (!work.empty()) {
    const ir::Expr* e = work.back();
    work.pop_back();
    if (!e)
      continue;
    if (e->kind == ir::ExprKind::Name)
      out.insert(std::string(e->text()));
    for (std::size_t i = 0; i < e->children.size(); ++i)
      work.push_back(e->children[i].get());
  }
  return out;
}

const ir::Expr* intValue(const ir::Attribute* a) {
  return a && a->value && a->value->kind == ir::ExprKind::Int ? a->value.get() : nullptr;
}

} // namespace

std::vector<ScheduleEdit> scheduleEdits(const driver::CheckResult& k) {
  std::vector<ScheduleEdit> out;
  if (!k.module.kernel)
    return out;
  const ir::Kernel& kernel = *k.module.kernel;
  const ir::SourceMap& map = k.module.sourceMap;
  auto add = [&](std::string decision, std::string from, std::string to, std::string text) {
    out.push_back({std::move(decision), std::move(from), std::move(to), std::move(text)});
  };
  std::string why;
  // Pipeline depth.
  for (const ir::Decl& d : kernel.decls) {
    const ir::Expr* stages =
        d.kind == ir::DeclKind::Pipeline ? intValue(d.attribute("stages")) : nullptr;
    if (!stages)
      continue;
    std::int64_t s = stages->intValue;
    for (std::int64_t to : {s - 1, s + 1}) {
      if (to < 2 || to > 8)
        continue;
      if (auto text = cost::withPipelineStages(k, d.name.name, to, why))
        add("pipeline " + d.name.name + " stages", std::to_string(s), std::to_string(to),
            std::move(*text));
    }
  }
  // Grid schedule.
  for (const ir::Decl& d : kernel.decls) {
    if (d.kind != ir::DeclKind::Grid)
      continue;
    const ir::Attribute* a = d.attribute("schedule");
    std::string from = a && a->value ? std::string(a->value->text()) : "static";
    std::string to = from == "persistent" ? "static" : "persistent";
    if (auto text = cost::withSchedule(k, to, why))
      add("grid schedule", from, to, std::move(*text));
  }
  // Tile and vector constants: halved (down to 1) and doubled (up to 512).
  std::set<std::string> problem = problemNames(kernel);
  for (const ir::Decl& d : kernel.decls) {
    if (d.kind != ir::DeclKind::Const || !d.value || d.value->kind != ir::ExprKind::Int ||
        problem.count(d.name.name))
      continue;
    std::int64_t v = d.value->intValue;
    for (std::int64_t to : {v / 2, v * 2})
      if (v % 2 == 0 && to >= 1 && to <= 512)
        if (auto text = cost::withConsts(k, {{d.name.name, to}}, why))
          add("const " + d.name.name, std::to_string(v), std::to_string(to), std::move(*text));
  }
  // Register split: one role's setmaxnreg budget by one step of 8.
  for (const ir::Decl& d : kernel.decls) {
    const ir::Attribute* regs = d.kind == ir::DeclKind::Role ? d.attribute("regs") : nullptr;
    const ir::Expr* v = intValue(regs);
    if (!v)
      continue;
    for (std::int64_t to : {v->intValue - 8, v->intValue + 8})
      if (to >= 24 && to <= 256)
        add("role " + d.name.name + " regs", std::to_string(v->intValue), std::to_string(to),
            replaced(k, map.range(regs->value->id), std::to_string(to)));
  }
  // Swizzle mode: every swizzle=X of the kernel to a neighbouring width together (the
  // tensor maps and the buffers they fill must agree).
  static const std::vector<std::string> kWidths{"none", "32B", "64B", "128B"};
  std::set<std::string> modes;
  for (const ir::Decl& d : kernel.decls)
    if (const ir::Attribute* a = d.attribute("swizzle"); a && a->value)
      modes.insert(std::string(a->value->text()));
  for (const std::string& from : modes) {
    auto at = std::find(kWidths.begin(), kWidths.end(), from);
    if (at == kWidths.end())
      continue;
    std::vector<std::string> tos;
    if (at != kWidths.begin())
      tos.push_back(*(at - 1));
    if (at + 1 != kWidths.end())
      tos.push_back(*(at + 1));
    for (const std::string& to : tos) {
      std::vector<cost::TextEdit> edits;
      for (const ir::Decl& d : kernel.decls)
        if (const ir::Attribute* a = d.attribute("swizzle");
            a && a->value && a->value->text() == from)
          edits.push_back({map.range(a->value->id), to});
      add("swizzle", from, to, applied(k, edits));
    }
  }
  // MMA groups in flight: `pending=` of the MMA wait operations.
  std::vector<const ir::Stmt*> work;
  for (const ir::StmtPtr& s : kernel.body)
    work.push_back(s.get());
  std::vector<const ir::Stmt*> waits;
  while (!work.empty()) {
    const ir::Stmt* s = work.back();
    work.pop_back();
    if (s->kind == ir::StmtKind::Op) {
      if (s->opName.name.find("mma") != std::string::npos &&
          s->opName.name.find("wait") != std::string::npos && intValue(s->attribute("pending")))
        waits.push_back(s);
      continue;
    }
    for (const ir::StmtPtr& c : s->body)
      work.push_back(c.get());
  }
  std::sort(waits.begin(), waits.end(), [&](const ir::Stmt* a, const ir::Stmt* b) {
    return map.range(a->id).begin < map.range(b->id).begin;
  });
  for (const ir::Stmt* s : waits) {
    const ir::Attribute* a = s->attribute("pending");
    std::int64_t v = a->value->intValue;
    LineColumn lc = k.sources->lineColumn(k.file, map.range(s->id).begin);
    for (std::int64_t to : {v - 1, v + 1})
      if (to >= 0 && to <= 4)
        add(s->opName.name + " pending (line " + std::to_string(lc.line) + ")", std::to_string(v),
            std::to_string(to), replaced(k, map.range(a->value->id), std::to_string(to)));
  }
  return out;
}

} // namespace cake::campaign
