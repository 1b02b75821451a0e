// Root causes and their consequences: what a barrier orders (the buffers its waiters read or
// overwrite after the wait), and the links from findings a broken protocol causes (races on
// those buffers, blocked waits) back to the finding that names the broken decision.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Analyses.h"

#include <algorithm>

namespace cake::verify::detail {

namespace {

/// Shared or tensor memory buffers a step reads and writes (registers and global memory are
/// private to a thread or not ordered by an mbarrier of this CTA).
void accesses(const Context& ctx, const Step& s, std::set<std::size_t>* reads,
              std::set<std::size_t>* writes) {
  for (const reg::EffectDef& e : ctx.op(s).primitive->effects) {
    if ((e.kind != reg::EffectKind::Read && e.kind != reg::EffectKind::Write) ||
        !e.operandIndex || *e.operandIndex >= s.operands.size())
      continue;
    const StepOperand& so = s.operands[*e.operandIndex];
    if (!so.present || so.entity != sema::EntityKind::Buffer)
      continue;
    ir::Space space = ctx.model.buffers[so.entityIndex].space;
    if (space != ir::Space::Smem && space != ir::Space::Tmem)
      continue;
    std::set<std::size_t>* into = e.kind == reg::EffectKind::Read ? reads : writes;
    if (into)
      into->insert(so.entityIndex);
  }
}

bool waitsOn(const Context& ctx, const Step& s, std::size_t barrier) {
  for (const reg::EffectDef& e : ctx.op(s).primitive->effects)
    if (e.kind == reg::EffectKind::Wait && e.operandIndex && *e.operandIndex < s.operands.size() &&
        s.operands[*e.operandIndex].entity == sema::EntityKind::MBarrier &&
        s.operands[*e.operandIndex].entityIndex == barrier)
      return true;
  return false;
}

} // namespace

WaitGuard guardOf(const Context& ctx, const Step& wait, std::size_t barrier,
                  const std::vector<std::size_t>& signallers) {
  WaitGuard g;
  if (ctx.roleReads.empty()) {
    ctx.roleReads.resize(ctx.model.roles.size());
    ctx.roleWrites.resize(ctx.model.roles.size());
    for (const RoleStream& stream : ctx.program.roles)
      for (const Step& s : stream.steps)
        accesses(ctx, s, &ctx.roleReads[stream.role], &ctx.roleWrites[stream.role]);
  }
  std::set<std::size_t> read, written, theirReads, theirWrites;
  for (std::size_t r : signallers) {
    theirReads.insert(ctx.roleReads[r].begin(), ctx.roleReads[r].end());
    theirWrites.insert(ctx.roleWrites[r].begin(), ctx.roleWrites[r].end());
  }
  for (const RoleStream& stream : ctx.program.roles) {
    if (stream.role != wait.role || stream.steps.empty() || &wait < stream.steps.data() ||
        &wait >= stream.steps.data() + stream.steps.size())
      continue;
    // What the waiter does until it waits on this barrier again.
    for (std::size_t i = std::size_t(&wait - stream.steps.data()) + 1; i < stream.steps.size();
         ++i) {
      if (waitsOn(ctx, stream.steps[i], barrier))
        break;
      accesses(ctx, stream.steps[i], &read, &written);
    }
  }
  for (std::size_t b : read)
    if (theirWrites.count(b))
      g.reads.insert(b);
  for (std::size_t b : written)
    if (theirReads.count(b) || theirWrites.count(b))
      g.writes.insert(b);
  return g;
}

bool usedForSignal(const Context& ctx, const std::vector<const Step*>& visit,
                   const std::set<std::size_t>& buffers, bool writesOnly) {
  if (visit.empty())
    return false;
  auto touches = [&](const Step& s) {
    std::set<std::size_t> r, w;
    accesses(ctx, s, &r, &w);
    for (std::size_t b : buffers)
      if (w.count(b) || (!writesOnly && r.count(b)))
        return true;
    return false;
  };
  for (const Step* s : visit)
    if (touches(*s))
      return true;
  // Back from the visit's first step to the role's last CTA or named barrier: what it does to
  // get to the signal.
  const Step& first = *visit.front();
  for (const RoleStream& stream : ctx.program.roles) {
    if (stream.role != first.role || &first < stream.steps.data() ||
        &first >= stream.steps.data() + stream.steps.size())
      continue;
    for (std::size_t i = std::size_t(&first - stream.steps.data()); i-- > 0;) {
      const Step& s = stream.steps[i];
      bool sync = false;
      for (const reg::EffectDef& e : ctx.op(s).primitive->effects)
        sync |= e.kind == reg::EffectKind::Sync;
      if (sync)
        break;
      if (touches(s))
        return true;
    }
  }
  return false;
}

void Context::linkConsequence(Diagnostic* d, std::size_t buffer) {
  if (!d || d->causedBy)
    return;
  for (RootCause& c : causes) {
    if (!c.buffers.count(buffer))
      continue;
    d->causedBy = DiagCause{c.code, c.range};
    d->severity = Severity::Report;
    d->notes.push_back({c.range, "consequence of the " + c.code + " finding here"});
    c.consequences.push_back({d->range, "consequence: " + d->message});
    return;
  }
}

void Context::noteBlocked(std::size_t barrier, SourceRange at, std::string what) {
  for (RootCause& c : causes)
    if (c.barrier == barrier) {
      c.consequences.push_back({at, "consequence: " + std::move(what)});
      return;
    }
}

void Context::attachConsequences() {
  for (RootCause& c : causes) {
    if (c.consequences.empty())
      continue;
    Diagnostic* d = reporter.diags().find(c.code, c.range);
    if (!d)
      continue;
    for (DiagNote& n : c.consequences)
      d->notes.push_back(std::move(n));
    c.consequences.clear();
  }
}

} // namespace cake::verify::detail
