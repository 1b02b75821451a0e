// Usage of declarations: writes into input parameters, staged buffers indexed by another
// pipeline's slot, and declared resources nothing uses.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Analyses.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <set>

namespace cake::verify::detail {

namespace {
/// Names of pipelines whose `.slot` appears in an expression.
void slotsIn(const ir::Expr& e, std::set<std::string>& out) {
  if (e.kind == ir::ExprKind::Member && e.text() == "slot" && e.children[0]->kind == ir::ExprKind::Name)
    out.insert(std::string(e.children[0]->text()));
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
  // Programmatic dependent launch: with pdl=on the previous kernel on the stream may still run,
  // writing this kernel's inputs or reading its outputs, until griddep.wait returns. Each role's
  // first global access (a parameter or a tensor map operand) must follow a griddep.wait of that
  // role in program order; reported once per role.
  if (m.grid && m.grid->pdl) {
    std::set<std::string> waited, reported;
    for (const sema::OpInfo& op : m.ops) {
      if (!op.primitive)
        continue;
      if (op.primitive->name == "griddep.wait") {
        for (const std::string& r : op.roles)
          waited.insert(r);
        continue;
      }
      std::optional<std::size_t> global;
      std::string what;
      for (std::size_t i = 0; i < op.operands.size() && !global; ++i) {
        const sema::OperandInfo& o = op.operands[i];
        if (!o.facts.present)
          continue;
        if (o.entity == sema::EntityKind::Buffer && o.entityIndex < m.buffers.size() &&
            m.buffers[o.entityIndex].kind == ir::DeclKind::Param) {
          global = i;
          what = "parameter '" + m.buffers[o.entityIndex].name + "'";
        } else if (o.entity == sema::EntityKind::TensorMap && o.entityIndex < m.tensorMaps.size()) {
          global = i;
          what = "tensor map '" + m.tensorMaps[o.entityIndex].name + "'";
        }
      }
      if (!global)
        continue;
      for (const std::string& r : op.roles) {
        if (waited.count(r) || !reported.insert(r).second)
          continue;
        Diagnostic* d = rep.report(
            VerifyId::PdlAccessBeforeWait, ctx.operandRange(op, *global),
            "'" + op.primitive->name + "' accesses global memory (" + what + ") in role '" + r +
                "' before the role's griddep.wait; with pdl=on the previous kernel may still be "
                "writing the inputs or reading the outputs");
        addNote(d, ctx.declRange(m.grid->decl), "launched with pdl=on here");
        setFix(d, "put griddep.wait before the role's first global access, or launch without "
                  "pdl=on");
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
  // Named barriers that list a role which never reaches them: the hardware barrier waits for
  // every listed thread, so the roles that do sync on it hang there. The decision that breaks
  // the protocol is the roles= list, reported there with the blocked barriers as notes (the
  // simulation then leaves the barrier to this finding).
  for (std::size_t bi = 0; bi < m.barriers.size(); ++bi) {
    const sema::BarrierInfo& b = m.barriers[bi];
    if (!b.named)
      continue;
    std::vector<const sema::OpInfo*> syncs;
    std::set<std::string> reaching;
    for (const sema::OpInfo& op : m.ops)
      for (std::size_t i = 0; i < op.operands.size(); ++i)
        if (op.operands[i].facts.present && op.operands[i].entity == sema::EntityKind::NBarrier &&
            op.operands[i].entityIndex == bi) {
          syncs.push_back(&op);
          reaching.insert(op.roles.begin(), op.roles.end());
        }
    if (syncs.empty())
      continue; // perf-unused
    std::vector<std::string> listed;
    for (const std::string& r : b.roles)
      if (r == "all")
        for (const sema::RoleInfo& ri : m.roles)
          listed.push_back(ri.name);
      else
        listed.push_back(r);
    std::int64_t threads = 0, arriving = 0;
    for (const sema::RoleInfo& ri : m.roles)
      if (std::find(listed.begin(), listed.end(), ri.name) != listed.end()) {
        threads += 32 * ri.warps();
        arriving += reaching.count(ri.name) ? 32 * ri.warps() : 0;
      }
    for (const std::string& r : listed) {
      if (reaching.count(r))
        continue;
      const ir::Attribute* rolesAttr = b.decl ? b.decl->attribute("roles") : nullptr;
      Diagnostic* d = rep.report(
          VerifyId::NamedBarrierDivergence,
          rolesAttr ? rep.range(rolesAttr->id) : ctx.declRange(b.decl),
          "named barrier '" + b.name + "' lists role '" + r +
              "', which never executes a barrier on it: the hardware barrier waits for " +
              std::to_string(threads) + " threads, the roles that reach it bring " +
              std::to_string(arriving) + ", and they wait there forever");
      for (const sema::OpInfo* op : syncs)
        addNote(d, ctx.opRange(*op),
                "'" + (op->roles.empty() ? std::string("?") : op->roles.front()) +
                    "' blocks here waiting for '" + r + "'");
      setFix(d, "remove '" + r + "' from roles=, or make it execute 'bar.sync " + b.name +
                    "' as often as the other roles");
      ctx.brokenBarriers.insert(bi);
      break;
    }
  }
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
