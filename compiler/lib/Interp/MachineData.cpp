// CPU semantics taken from the registry's data, so a primitive defined (or approved) in a data
// file runs without interpreter code: a template primitive's semantic form evaluated per element,
// an expansion's steps executed in order as operations of their own (nested expansions too).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Machine.h"
#include "cake/IR/Clone.h"

#include "cake/Interp/Semantics.h"
#include "cake/Reference/Rounding.h"
#include "cake/Registry/Semantics.h"

#include <cmath>

namespace cake::interp::detail {

bool Machine::executeSemanticForm(RoleProc& p, const sema::OpInfo& op) {
  const reg::SemanticsDef& sem = *op.primitive->semantics;
  const ir::Stmt& s = *op.stmt;
  const std::string& name = op.primitive->name;
  auto noSemantics = [&](const std::string& why) {
    fail(DiagId::HwNoCpuSemantics, s, "'" + name + "': its semantic form cannot run: " + why);
    return false;
  };
  // Attribute values once per operation (numeric attributes only, checked at load).
  std::vector<double> attrs(op.primitive->attributes.size(), 0.0);
  for (std::size_t i = 0; i < attrs.size(); ++i) {
    reg::DefValue v = attribute(op, op.primitive->attributes[i].name, p);
    if (v.kind == reg::DefValue::Kind::Float)
      attrs[i] = v.f;
    else if (v.kind == reg::DefValue::Kind::Int)
      attrs[i] = double(v.i);
    else if (v.kind == reg::DefValue::Kind::Bool)
      attrs[i] = v.b ? 1.0 : 0.0;
  }
  auto round = [&](double x) {
    return sem.dtype == ir::DType::F64 ? x : ref::roundTo(sem.dtype, x);
  };
  Grain g = opGrain(*this, op);
  std::int64_t n = instances(p.role, g);
  struct Pending {
    View view;
    std::int64_t regInst;
    std::vector<double> values;
    std::int64_t inst;
  };
  std::vector<Pending> writes;
  // Every instance reads before any writes (as the built-in elementwise operations do).
  for (std::int64_t i = 0; i < n; ++i) {
    auto operandView = [&](std::size_t k) -> std::optional<std::pair<View, std::int64_t>> {
      if (k >= s.operands.size() || k >= op.operands.size())
        return std::nullopt;
      auto v = view(s.operands[k], op.operands[k], p, g, i);
      if (!v)
        return std::nullopt;
      std::int64_t ri = 0;
      if (v->entity == sema::EntityKind::Buffer && model.buffers[v->index].space == ir::Space::Reg)
        ri = regInstance(model.buffers[v->index].scope, g, i);
      return std::make_pair(*v, ri);
    };
    auto dst = operandView(sem.dst);
    if (!dst)
      return noSemantics("the subscripts of '" + op.primitive->operands[sem.dst].name +
                         "' cannot be evaluated");
    std::size_t count = static_cast<std::size_t>(dst->first.count());
    std::vector<std::vector<double>> values(op.primitive->operands.size());
    for (std::size_t k : sem.reads) {
      auto v = operandView(k);
      if (!v)
        return noSemantics("operand '" + op.primitive->operands[k].name +
                           "' is not given or its subscripts cannot be evaluated");
      values[k] = gather(v->first, p, v->second);
      if (values[k].size() != count && values[k].size() != 1)
        return noSemantics("operand '" + op.primitive->operands[k].name + "' has " +
                           std::to_string(values[k].size()) + " elements, '" +
                           op.primitive->operands[sem.dst].name + "' " + std::to_string(count) +
                           " (an elementwise form maps equal counts or broadcasts one value)");
    }
    std::vector<double> out(count);
    for (std::size_t e = 0; e < count; ++e)
      out[e] = reg::evaluateSemantics(
          sem.expr,
          [&](std::size_t k) { return values[k].size() == 1 ? values[k][0] : values[k][e]; },
          [&](std::size_t a) { return attrs[a]; }, round);
    writes.push_back({dst->first, dst->second, std::move(out), i});
  }
  for (const Pending& w : writes)
    scatter(w.view, p, w.regInst, w.values, s, g, w.inst);
  return !failed;
}

const sema::OpInfo* Machine::expansionStep(const sema::OpInfo& op, std::size_t index) {
  auto key = std::make_pair(op.stmt, index);
  if (auto it = m_expanded.find(key); it != m_expanded.end())
    return &it->second->op;
  const reg::ExpansionStep& step = op.primitive->lowering.steps[index];
  if (!step.resolved)
    return nullptr;
  auto x = std::make_unique<ExpandedStep>();
  const ir::Stmt& outer = *op.stmt;
  // The outer statement's node and name: findings and last writers point at its line.
  x->stmt.kind = ir::StmtKind::Op;
  x->stmt.id = outer.id;
  x->stmt.opName = outer.opName;
  x->op.stmt = &x->stmt;
  x->op.primitive = step.resolved;
  x->op.roles = op.roles;
  x->op.loops = op.loops;
  for (std::size_t k : step.operands) {
    if (k >= outer.operands.size() || k >= op.operands.size())
      break; // an optional operand the operation does not pass
    x->stmt.operands.push_back(ir::cloneOperand(outer.operands[k]));
    x->op.operands.push_back(op.operands[k]);
  }
  // Attributes: the step primitive's defaults, then the step's literals and substitutions; a
  // substituted run-time attribute keeps the outer expression, evaluated when the step runs.
  const reg::Primitive& target = *step.resolved;
  x->op.attributes.assign(target.attributes.size(), reg::DefValue{});
  for (std::size_t i = 0; i < target.attributes.size(); ++i)
    if (target.attributes[i].defaultValue)
      x->op.attributes[i] = reg::defValueFromJson(*target.attributes[i].defaultValue);
  for (const reg::ExpansionStep::Attr& a : step.attributes) {
    if (a.literal) {
      x->op.attributes[a.index] = reg::defValueFromJson(*a.literal);
    } else if (a.fromAttr) {
      x->op.attributes[a.index] =
          *a.fromAttr < op.attributes.size() ? op.attributes[*a.fromAttr] : reg::DefValue{};
      const ir::Attribute* src = outer.attribute(op.primitive->attributes[*a.fromAttr].name);
      if (src && src->value) {
        ir::Attribute c;
        c.key = src->key;
        c.key.name = target.attributes[a.index].name;
        c.value = ir::cloneExpr(*src->value);
        x->stmt.attributes.push_back(std::move(c));
      }
    }
  }
  const sema::OpInfo* out = &x->op;
  m_expanded.emplace(key, std::move(x));
  return out;
}

bool Machine::executeExpansion(RoleProc& p, const sema::OpInfo& op) {
  const auto& steps = op.primitive->lowering.steps;
  // Resumes at the step that waited last time (the steps before it already ran).
  std::size_t& pos = p.expansionPos[op.stmt];
  for (; pos < steps.size(); ++pos) {
    const sema::OpInfo* step = expansionStep(op, pos);
    m_expanding.emplace_back(&op, pos);
    bool ok = step && execute(p, *step);
    if (!step)
      fail(DiagId::HwNoCpuSemantics, *op.stmt,
           "'" + op.primitive->name + "' has no CPU semantics: its expansion step '" +
               steps[pos].primitive + "' is not resolved");
    m_expanding.pop_back();
    if (!ok)
      return false; // failed, or the step waits (resumed at `pos` next time)
  }
  p.expansionPos.erase(op.stmt);
  return true;
}

} // namespace cake::interp::detail

namespace cake::interp {

std::string_view toString(CpuSemantics kind) {
  switch (kind) {
  case CpuSemantics::Builtin:
    return "builtin";
  case CpuSemantics::SemanticForm:
    return "semantic form";
  case CpuSemantics::Expansion:
    return "expansion";
  case CpuSemantics::None:
    break;
  }
  return "none";
}

const std::set<std::string, std::less<>>& builtinCpuSemantics() {
  // Kept equal to MachineOps.cpp's dispatch: execute() refuses a name missing here.
  // clang-format off
  static const std::set<std::string, std::less<>> names = {
      "bar.arrive", "bar.sync", "bulk.commit_group", "bulk.wait_group", "cast", "cluster.sync",
      "cp.async", "cp.async.commit", "cp.async.wait", "cta.sync", "epilogue.store", "ew.binary", "ew.fill",
      "ew.fma", "ew.mask", "ew.unary", "fence.mbarrier_init", "fence.proxy.async",
      "griddep.launch_dependents", "griddep.wait", "ld.global",
      "ld.shared", "ldmatrix", "mbarrier.arrive", "mbarrier.arrive_expect_tx",
      "mbarrier.expect_tx", "mbarrier.init", "mbarrier.try_wait", "mma.sync", "reduce.argmax",
      "reduce.argmin", "reduce.cta", "reduce.warp", "setmaxnreg", "softmax.rescale", "st.global",
      "st.shared", "stmatrix", "tcgen05.alloc", "tcgen05.commit", "tcgen05.dealloc",
      "tcgen05.fence_after", "tcgen05.fence_before", "tcgen05.ld", "tcgen05.mma",
      "tcgen05.relinquish", "tcgen05.st", "tcgen05.wait_ld", "tcgen05.wait_st", "tma.load",
      "tma.store", "wgmma.commit", "wgmma.fence", "wgmma.mma", "wgmma.wait"};
  // clang-format on
  return names;
}

namespace {

CpuSemanticsInfo describe(const reg::Primitive& prim, int depth) {
  CpuSemanticsInfo info;
  if (prim.semantics) {
    info.kind = CpuSemantics::SemanticForm;
    info.text = "semantic form: " + reg::printSemantics(*prim.semantics, prim) + " (" +
                std::string(ir::toString(prim.semantics->dtype)) + ")";
    return info;
  }
  if (prim.lowering.strategy == reg::LoweringStrategy::Expansion && depth < 32) {
    std::string steps;
    for (const reg::ExpansionStep& st : prim.lowering.steps) {
      steps += (steps.empty() ? "" : ", ") + st.primitive;
      CpuSemanticsInfo inner;
      if (st.resolved)
        inner = describe(*st.resolved, depth + 1);
      if (inner.kind == CpuSemantics::None) {
        info.missing = inner.missing.empty() ? st.primitive : inner.missing;
        info.text = "none: step '" + info.missing + "' has no CPU semantics";
        return info;
      }
    }
    info.kind = CpuSemantics::Expansion;
    info.text = "expansion: " + steps;
    return info;
  }
  if (builtinCpuSemantics().count(prim.name) &&
      prim.lowering.strategy != reg::LoweringStrategy::Expansion) {
    info.kind = CpuSemantics::Builtin;
    info.text = "builtin";
    return info;
  }
  info.text = "none";
  return info;
}

} // namespace

CpuSemanticsInfo cpuSemantics(const reg::Primitive& prim) {
  return describe(prim, 0);
}

} // namespace cake::interp
