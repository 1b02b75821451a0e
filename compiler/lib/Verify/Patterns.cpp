// Pattern rules (executable data from compiler/rules/) and the built-in layout checks that
// need kernel-level facts (TMA multicast needs a cluster).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Analyses.h"

#include <algorithm>

namespace cake::verify::detail {

namespace {

/// A single bound operand `x`.
class OneOperand : public reg::DefContext {
public:
  explicit OneOperand(const reg::OperandFacts& facts) : m_facts(facts) {}
  const reg::OperandFacts* operand(std::size_t i) const override { return i == 0 ? &m_facts : nullptr; }
  reg::DefValue attribute(std::size_t) const override { return {}; }

private:
  const reg::OperandFacts& m_facts;
};

bool failed(const reg::DefValue& v) { return v.kind == reg::DefValue::Kind::Bool && !v.b; }

reg::OperandFacts declFacts(const sema::BufferInfo& b) {
  reg::OperandFacts f;
  f.present = true;
  f.isBuffer = true;
  f.space = b.space;
  f.dtype = b.dtype;
  f.shape = b.shape;
  f.stages = b.stages;
  f.swizzle = reg::swizzleName(b.swizzle);
  if (b.space == ir::Space::Smem) {
    f.baseOffset = b.offset;
    f.stageBytes = b.stageBytes();
  }
  if (!b.shape.empty())
    f.bufferRowBytes = (b.shape.back() * ir::info(b.dtype).bits + 7) / 8;
  return f;
}

} // namespace

void checkPatterns(Context& ctx) {
  const sema::KernelModel& m = ctx.model;
  Reporter& rep = ctx.reporter;
  for (const Rule* rule : ctx.rules.patterns()) {
    const PatternRule& p = *rule->pattern;
    switch (p.target) {
    case MatchTarget::Primitives:
      for (const sema::OpInfo& op : m.ops) {
        auto it = p.perPrimitive.find(op.primitive->name);
        if (it == p.perPrimitive.end())
          continue;
        sema::OpDefContext defs(op);
        if (!failed(reg::evaluate(it->second, defs)))
          continue;
        Diagnostic* d = rep.reportRule(*rule, ctx.opRange(op),
                                       p.message + " [" + reg::explainFalse(it->second, defs) + "]");
        for (std::size_t i = 0; i < op.operands.size(); ++i)
          if (std::string what = reg::describe(op.operands[i].facts); !what.empty())
            addNote(d, ctx.operandRange(op, i), "'" + op.primitive->operands[i].name + "' is " + what);
      }
      break;
    case MatchTarget::Operand:
      for (const sema::OpInfo& op : m.ops) {
        for (std::size_t i = 0; i < op.operands.size(); ++i) {
          const reg::OperandFacts& f = op.operands[i].facts;
          if (!f.present || !f.isBuffer)
            continue;
          if (!p.spaces.empty() && std::find(p.spaces.begin(), p.spaces.end(), f.space) == p.spaces.end())
            continue;
          if (p.swizzledOnly && f.swizzle == "none")
            continue;
          OneOperand x(f);
          if (!failed(reg::evaluate(*p.condition, x)))
            continue;
          Diagnostic* d = rep.reportRule(*rule, ctx.operandRange(op, i),
                                         p.message + " ['" + op.primitive->operands[i].name +
                                             "' of '" + op.primitive->name +
                                             "': " + reg::explainFalse(*p.condition, x) + "]");
          addNote(d, ctx.operandRange(op, i), "the operand is " + reg::describe(f));
        }
      }
      break;
    case MatchTarget::Declaration:
      if (p.declaration == "tensormap") {
        for (const sema::TensorMapInfo& t : m.tensorMaps) {
          reg::OperandFacts f;
          f.present = true;
          f.isTensorMap = true;
          f.space = ir::Space::Global;
          f.dtype = t.dtype;
          f.shape = t.box;
          f.swizzle = reg::swizzleName(t.swizzle);
          OneOperand x(f);
          if (failed(reg::evaluate(*p.condition, x)))
            rep.reportRule(*rule, ctx.declRange(t.decl),
                           "'" + t.name + "': " + p.message + " [" +
                               reg::explainFalse(*p.condition, x) + "]");
        }
        break;
      }
      for (const sema::BufferInfo& b : m.buffers) {
        if (ir::keyword(b.kind) != p.declaration)
          continue;
        reg::OperandFacts f = declFacts(b);
        OneOperand x(f);
        if (failed(reg::evaluate(*p.condition, x)))
          rep.reportRule(*rule, ctx.declRange(b.decl),
                         "'" + b.name + "' (" + reg::describe(f) + "): " + p.message + " [" +
                             reg::explainFalse(*p.condition, x) + "]");
      }
      break;
    }
  }

  // TMA multicast needs a cluster of more than one CTA.
  std::int64_t cluster = 1;
  if (m.grid)
    for (std::int64_t c : m.grid->cluster)
      cluster *= c;
  for (const sema::OpInfo& op : m.ops) {
    auto idx = op.primitive->attributeIndex("multicast");
    if (!idx || *idx >= op.attributes.size())
      continue;
    const reg::DefValue& v = op.attributes[*idx];
    if (v.kind != reg::DefValue::Kind::Int || v.i == 0)
      continue;
    if (cluster <= 1 || v.i >= (std::int64_t(1) << cluster)) {
      Diagnostic* d = rep.report(
          VerifyId::MulticastWithoutCluster, ctx.opRange(op),
          "'" + op.primitive->name + "' multicasts to CTA mask " + std::to_string(v.i) +
              ", but the cluster has " + std::to_string(cluster) + " CTA(s)");
      if (m.grid)
        addNote(d, ctx.declRange(m.grid->decl), "grid (cluster) declared here");
    }
  }
}

} // namespace cake::verify::detail
