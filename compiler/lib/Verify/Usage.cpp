// Usage of declarations: writes into input parameters, staged buffers indexed by another
// pipeline's slot, and declared resources nothing uses.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Analyses.h"

#include <functional>
#include <set>

namespace cake::verify::detail {

namespace {
/// Names of pipelines whose `.slot` appears in an expression.
void slotsIn(const ir::Expr& e, std::set<std::string>& out) {
  if (e.kind == ir::ExprKind::Member && e.text == "slot" && e.children[0]->kind == ir::ExprKind::Name)
    out.insert(e.children[0]->text);
  for (const ir::ExprPtr& c : e.children)
    slotsIn(*c, out);
}
} // namespace

void checkUsage(Context& ctx) {
  const sema::KernelModel& m = ctx.model;
  Reporter& rep = ctx.reporter;
  std::set<std::string> used;
  for (const sema::OpInfo& op : m.ops) {
    for (std::size_t i = 0; i < op.operands.size(); ++i) {
      const sema::OperandInfo& o = op.operands[i];
      if (!o.facts.present)
        continue;
      std::string name = op.stmt->operands[i].name.name;
      used.insert(name);
      // A pipelined barrier array indexed with another pipeline's slot.
      if (o.entity == sema::EntityKind::MBarrier) {
        const sema::BarrierInfo& bar = m.barriers[o.entityIndex];
        const ir::Operand& ref = op.stmt->operands[i];
        if (!bar.pipeline.empty() && ref.subscripted && !ref.indices.empty() && ref.indices[0].start) {
          std::set<std::string> slots;
          slotsIn(*ref.indices[0].start, slots);
          for (const std::string& p : slots)
            if (p != bar.pipeline) {
              Diagnostic* d = rep.report(VerifyId::PipelineSlot, rep.range(ref.indices[0].id),
                                         "'" + bar.name + "' belongs to pipeline '" + bar.pipeline +
                                             "' but its element is selected with " + p + ".slot");
              addNote(d, ctx.declRange(bar.decl), "declared with pipeline=" + bar.pipeline);
            }
        }
      }
      if (o.entity != sema::EntityKind::Buffer)
        continue;
      const sema::BufferInfo& b = m.buffers[o.entityIndex];
      // Writes into inputs.
      for (const reg::EffectDef& e : op.primitive->effects) {
        if (e.kind == reg::EffectKind::Write && e.operandIndex && *e.operandIndex == i &&
            b.kind == ir::DeclKind::Param && b.paramRole == "input") {
          Diagnostic* d = rep.report(VerifyId::WriteToInput, ctx.operandRange(op, i),
                                     "'" + op.primitive->name + "' writes '" + b.name +
                                         "', which is declared role=input");
          addNote(d, ctx.declRange(b.decl), "declared here");
          setFix(d, "declare it role=output (or role=state when it is read and written)");
        }
      }
      // Stage index of a pipelined buffer taken from another pipeline.
      const ir::Operand& ref = op.stmt->operands[i];
      if (!b.pipeline.empty() && b.stages > 1 && ref.subscripted && !ref.indices.empty() &&
          ref.indices[0].start) {
        std::set<std::string> slots;
        slotsIn(*ref.indices[0].start, slots);
        for (const std::string& p : slots)
          if (p != b.pipeline) {
            Diagnostic* d = rep.report(VerifyId::PipelineSlot, rep.range(ref.indices[0].id),
                                       "'" + b.name + "' belongs to pipeline '" + b.pipeline +
                                           "' but its stage is selected with " + p + ".slot");
            addNote(d, ctx.declRange(b.decl), "declared with pipeline=" + b.pipeline);
          }
      }
    }
  }
  // Declarations that nothing uses.
  for (const sema::TensorMapInfo& t : m.tensorMaps)
    used.insert(t.source);
  for (const sema::LoopInfo& l : m.loops)
    if (!l.pipeline.empty())
      used.insert(l.pipeline);
  for (const sema::BufferInfo& b : m.buffers) {
    if (!b.pipeline.empty() && used.count(b.name))
      used.insert(b.pipeline);
    if (!b.pool.empty() && used.count(b.name))
      used.insert(b.pool);
  }
  for (const sema::BarrierInfo& b : m.barriers)
    if (!b.pipeline.empty() && used.count(b.name))
      used.insert(b.pipeline);
  auto unused = [&](const ir::Decl* d, const std::string& name, const std::string& what) {
    if (!d || used.count(name))
      return;
    Diagnostic* diag = rep.report(VerifyId::Unused, ctx.declRange(d),
                                  what + " '" + name + "' is declared but never used");
    setFix(diag, "remove the declaration or use it");
  };
  for (const sema::BufferInfo& b : m.buffers)
    unused(b.decl, b.name, std::string(ir::keyword(b.kind)) == "param" ? "parameter"
                               : std::string(ir::keyword(b.kind)) + " buffer");
  for (const sema::TensorMapInfo& t : m.tensorMaps)
    unused(t.decl, t.name, "tensor map");
  for (const sema::BarrierInfo& b : m.barriers)
    unused(b.decl, b.name, b.named ? "named barrier" : "mbarrier");
  for (const sema::PipelineInfo& p : m.pipelines)
    unused(p.decl, p.name, "pipeline");
  for (const sema::PoolInfo& p : m.pools)
    unused(p.decl, p.name, "pool");
  // Roles that execute nothing.
  std::set<std::string> active;
  for (const sema::OpInfo& op : m.ops)
    for (const std::string& r : op.roles)
      active.insert(r);
  for (const sema::RoleInfo& r : m.roles)
    if (!active.count(r.name)) {
      Diagnostic* d = rep.report(VerifyId::Unused, ctx.declRange(r.decl),
                                 "role '" + r.name + "' (" + std::to_string(r.warps()) +
                                     " warps) executes no operation: its warps are launched idle");
      setFix(d, "remove the role or give it work");
    }
}

} // namespace cake::verify::detail
