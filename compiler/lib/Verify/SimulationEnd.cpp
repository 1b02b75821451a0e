// The end of the joint execution: where unfinished roles stand, the deadlock diagnosis (a wait
// without a producer, barrier divergence, a wait cycle, or the consequence of a broken
// protocol), and the checks of the final state (aliased views clobbered while live, async
// writes never observed, tensor memory never freed).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Simulator.h"

#include <algorithm>
#include <set>
#include <functional>

namespace cake::verify::detail::sim {

void Simulator::checkViewLiveness() {
  for (auto& [bi, accesses] : m_viewAccesses) {
    const sema::BufferInfo& v = m_model.buffers[bi];
    std::sort(accesses.begin(), accesses.end(),
              [](const ViewAccess& x, const ViewAccess& y) { return x.issued < y.issued; });
    for (auto& entry : m_viewAccesses) {
      // Named, not a structured binding: clang 14 (the fuzz build) cannot capture bindings.
      const auto wi = entry.first;
      const std::vector<ViewAccess>& others = entry.second;
      const sema::BufferInfo& w = m_model.buffers[wi];
      if (wi == bi || w.pool != v.pool ||
          !(v.offset < w.offset + w.totalBytes() && w.offset < v.offset + v.totalBytes()))
        continue;
      // Live windows of v: [write issued, last read done] for reads before the next write.
      std::uint64_t start = 0;
      bool open = false;
      const ViewAccess* lastRead = nullptr;
      auto closeWindow = [&]() {
        if (!open || !lastRead)
          return false;
        for (const ViewAccess& o : others) {
          if (!o.write || o.issued <= start || o.issued >= lastRead->done)
            continue;
          Diagnostic* d = m_ctx.reporter.report(
              VerifyId::ViewOverlap, m_ctx.opRange(m_ctx.op(*o.step)),
              "'" + m_ctx.op(*o.step).primitive->name + "' writes '" + w.name + "' (" +
                  m_ctx.context(*o.step) + ") while '" + v.name + "', which shares bytes " +
                  std::to_string(std::max(v.offset, w.offset)) + ".." +
                  std::to_string(std::min(v.offset + v.totalBytes(), w.offset + w.totalBytes())) +
                  " of pool '" + v.pool + "' with it, still holds data that is read later");
          addNote(d, m_ctx.opRange(m_ctx.op(*lastRead->step)),
                  "'" + v.name + "' is read here afterwards (" + m_ctx.context(*lastRead->step) +
                      ")");
          addNote(d, m_ctx.declRange(v.decl), "'" + v.name + "' declared here");
          return true;
        }
        return false;
      };
      for (const ViewAccess& a : accesses) {
        if (a.write) {
          if (closeWindow())
            break;
          start = a.issued;
          open = true;
          lastRead = nullptr;
        } else if (open) {
          lastRead = &a;
        }
      }
      closeWindow();
    }
  }
}

void Simulator::checkUnobservedWrites() {
  if (m_ctx.program.boundReached)
    return;
  Clock seen(m_width, 0);
  for (const RoleState& rs : m_roles)
    join(seen, rs.clock);
  for (const AgentWrite& w : m_agentWrites) {
    const Access& a = w.access;
    if (seen[a.component] >= a.stamp)
      continue;
    const sema::OpInfo& op = m_ctx.op(*a.step);
    std::string through = w.barrier == SIZE_MAX ? "the tcgen05.commit that tracks it"
                                                : "phase " + std::to_string(w.phase) + " of '" +
                                                      m_ctx.element(w.barrier, w.element) + "'";
    Diagnostic* d = m_ctx.reporter.report(
        VerifyId::PhaseNeverWaited, m_ctx.opRange(op),
        "the asynchronous write of '" + op.primitive->name + "' to " +
            a.footprint.describe(m_model) + " (" + m_ctx.context(*a.step) + ") completes through " +
            through +
            ", but no role ever waits for it: the data is never consumed and may still be "
            "landing when the CTA exits (do the producer's and the consumers' loops run the "
            "same number of iterations?)");
    if (w.barrier != SIZE_MAX) {
      auto last = m_lastWait.find({w.barrier, w.element});
      if (last != m_lastWait.end())
        addNote(d, m_ctx.opRange(m_ctx.op(*last->second.first)),
                "the last wait on '" + m_ctx.element(w.barrier, w.element) + "' observes phase " +
                    std::to_string(last->second.second) + " (" +
                    m_ctx.context(*last->second.first) + ")");
      addNote(d, m_ctx.declRange(m_model.barriers[w.barrier].decl), "barrier declared here");
    }
    setFix(d, "wait for every phase the producer completes: give the consuming loop the "
              "producer's trip count, or stop issuing the copy");
    m_ctx.linkConsequence(d, a.footprint.buffer);
    return;
  }
}

void Simulator::finish() {
  checkViewLiveness();
  checkUnobservedWrites();
  for (std::size_t i = 0; i < m_tmemAlloc.size(); ++i) {
    const TmemState& t = m_tmemAlloc[i];
    if (t.live && t.step) {
      Diagnostic* d =
          m_ctx.reporter.report(VerifyId::TmemNotFreed, m_ctx.opRange(m_ctx.op(*t.step)),
                                "tensor memory '" + m_model.buffers[i].name +
                                    "' is never deallocated: the CTA must release its TMEM columns "
                                    "(tcgen05.dealloc) before it exits");
      addNote(d, m_ctx.declRange(m_model.buffers[i].decl), "tensor memory declared here");
      setFix(d, "add 'tcgen05.dealloc " + m_model.buffers[i].name +
                    "' after a cta.sync that follows the last TMEM access");
    }
  }
}

void Simulator::recordBlocked() {
  const auto& streams = m_ctx.program.roles;
  for (std::size_t r = 0; r < streams.size(); ++r) {
    if (m_roles[r].done)
      continue;
    const Step& s = streams[r].steps[m_roles[r].pc];
    const sema::OpInfo& op = m_ctx.op(s);
    StepContext sctx(op, s);
    BlockedRole b{r, s.op, {}, -1, -1, -1, m_ctx.context(s)};
    for (const reg::EffectDef& e : op.primitive->effects) {
      const StepOperand* so = operandOf(s, e);
      if (e.kind == reg::EffectKind::Wait && so && so->element >= 0) {
        const ElementState* es = element(*so, so->element);
        b.barrier = m_model.barriers[so->entityIndex].name;
        b.element = m_model.barriers[so->entityIndex].size > 1 ? so->element : -1;
        b.parity = quantity(e.parity, sctx, -1);
        b.phase = es ? es->phase : 0;
      } else if (e.kind == reg::EffectKind::Sync) {
        b.barrier = so ? m_model.barriers[so->entityIndex].name : "cta";
      }
    }
    m_ctx.result.blocked.push_back(std::move(b));
  }
}

void Simulator::diagnoseDeadlock() {
  const auto& streams = m_ctx.program.roles;
  std::size_t roles = streams.size();
  // What each blocked role waits for: the roles that could still unblock it.
  std::vector<std::vector<std::size_t>> blockers(roles);
  std::vector<const Step*> at(roles, nullptr);
  std::vector<std::string> what(roles);
  for (std::size_t r = 0; r < roles; ++r) {
    if (m_roles[r].done)
      continue;
    const Step& s = streams[r].steps[m_roles[r].pc];
    at[r] = &s;
    const sema::OpInfo& op = m_ctx.op(s);
    StepContext sctx(op, s);
    for (const reg::EffectDef& e : op.primitive->effects) {
      const StepOperand* so = operandOf(s, e);
      if (e.kind == reg::EffectKind::Wait && so && so->element >= 0) {
        ElementState* es = element(*so, so->element);
        std::string name = m_ctx.element(so->entityIndex, so->element);
        what[r] = "'" + m_model.roles[r].name + "' waits on " + name + " for parity " +
                  std::to_string(quantity(e.parity, sctx, -1)) + " (" + m_ctx.context(s) +
                  "; current phase " + std::to_string(es ? es->phase : 0) + ")";
        for (std::size_t o = 0; o < roles; ++o) {
          if (m_roles[o].done)
            continue;
          for (std::size_t k = m_roles[o].pc; k < streams[o].steps.size(); ++k) {
            if (signals(streams[o].steps[k], so->entityIndex, so->element)) {
              blockers[r].push_back(o);
              break;
            }
          }
        }
        if (blockers[r].empty() && !m_ctx.brokenBarriers.count(so->entityIndex)) {
          Diagnostic* d = m_ctx.reporter.report(
              VerifyId::DeadlockNoProducer, m_ctx.opRange(op),
              what[r] + ", but no role has an arrival left for that phase: the wait never "
                        "completes");
          addNote(d, m_ctx.declRange(m_model.barriers[so->entityIndex].decl),
                  "barrier declared here");
          return;
        }
      }
      if (e.kind == reg::EffectKind::Sync) {
        auto key = syncKey(r, s, e);
        auto people = participants(key.first);
        const Rendezvous& rv = m_rendezvous[key];
        std::string name =
            key.first == SIZE_MAX ? "cta.sync" : "'" + m_model.barriers[key.first].name + "'";
        what[r] = "'" + m_model.roles[r].name + "' waits at " + name + " #" +
                  std::to_string(key.second + 1) + " (" + m_ctx.context(s) + ")";
        for (std::size_t p : people) {
          if (std::find(rv.arrived.begin(), rv.arrived.end(), p) != rv.arrived.end())
            continue;
          if (m_roles[p].done && key.first != SIZE_MAX && m_ctx.brokenBarriers.count(key.first))
            return; // the declaration's roles= list is the reported cause
          if (m_roles[p].done) {
            VerifyId id = key.first == SIZE_MAX ? VerifyId::CtaSyncDivergence
                                                : VerifyId::NamedBarrierDivergence;
            Diagnostic* d = m_ctx.reporter.report(
                id, m_ctx.opRange(op),
                what[r] + ", but '" + m_model.roles[p].name + "' finished after reaching it only " +
                    std::to_string(key.first == SIZE_MAX ? m_roles[p].ctaSyncs
                                                         : m_roles[p].namedSyncs[key.first]) +
                    " time(s): every participant must reach each barrier equally often");
            // Point at the other party: its last barrier of this kind, else its last step.
            const Step* last = nullptr;
            for (const Step& st : streams[p].steps)
              for (const reg::EffectDef& e2 : m_ctx.op(st).primitive->effects)
                if (e2.kind == reg::EffectKind::Sync && (key.first == SIZE_MAX) == !e2.operandIndex)
                  last = &st;
            if (!last && !streams[p].steps.empty())
              last = &streams[p].steps.back();
            if (last)
              addNote(d, m_ctx.opRange(m_ctx.op(*last)),
                      "'" + m_model.roles[p].name + "' reaches its last barrier here (" +
                          m_ctx.context(*last) + ")");
            return;
          }
          blockers[r].push_back(p);
        }
      }
    }
  }
  // Find a cycle in the wait-for graph.
  std::vector<int> colour(roles, 0);
  std::vector<std::size_t> stack;
  std::vector<std::size_t> cycle;
  std::function<bool(std::size_t)> dfs = [&](std::size_t v) {
    colour[v] = 1;
    stack.push_back(v);
    for (std::size_t w : blockers[v]) {
      if (colour[w] == 1) {
        auto it = std::find(stack.begin(), stack.end(), w);
        cycle.assign(it, stack.end());
        return true;
      }
      if (colour[w] == 0 && dfs(w))
        return true;
    }
    stack.pop_back();
    colour[v] = 2;
    return false;
  };
  for (std::size_t r = 0; r < roles && cycle.empty(); ++r)
    if (colour[r] == 0 && at[r])
      dfs(r);
  if (cycle.empty()) {
    // Blocked without a cycle: report the first blocked role.
    for (std::size_t r = 0; r < roles; ++r)
      if (at[r]) {
        cycle.push_back(r);
        break;
      }
  }
  if (cycle.empty())
    return;
  std::size_t first = cycle.front();
  // The protocol analysis already named the cause when any blocked role waits on a barrier
  // it found broken.
  for (std::size_t r = 0; r < roles; ++r)
    if (at[r])
      for (const StepOperand& so : at[r]->operands)
        if (so.present && so.entity == sema::EntityKind::MBarrier &&
            m_ctx.brokenBarriers.count(so.entityIndex)) {
          // Its waits, as this execution blocks them, are consequences of that cause.
          for (std::size_t b = 0; b < roles; ++b)
            if (at[b] && !what[b].empty())
              m_ctx.noteBlocked(so.entityIndex, m_ctx.opRange(m_ctx.op(*at[b])), what[b]);
          return;
        }
  std::string chain;
  for (std::size_t r : cycle)
    chain += (chain.empty() ? "" : "; ") + what[r];
  if (reportSlotConvention(at, what, chain))
    return;
  std::string message =
      cycle.size() == 1
          ? what[first] + ", but the only arrival left for that phase is issued later by '" +
                m_model.roles[first].name + "' itself: it waits for its own future signal"
          : "roles wait on each other and none can proceed: " + chain;
  Diagnostic* d =
      m_ctx.reporter.report(VerifyId::WaitCycle, m_ctx.opRange(m_ctx.op(*at[first])), message);
  for (std::size_t k = 1; k < cycle.size(); ++k)
    addNote(d, m_ctx.opRange(m_ctx.op(*at[cycle[k]])), what[cycle[k]]);
}

void Simulator::checkRacyWait(std::size_t r, const Step& s, const sema::OpInfo& op,
                              const StepOperand& so, ElementState& es) {
  // When the protocol analysis found a broken barrier, its cause is reported and unordered
  // arrivals elsewhere follow from it.
  if (es.racyReported || es.waitRole == SIZE_MAX || es.waitRole == r ||
      m_roles[r].clock[es.waitRole] >= es.waitStamp || !m_ctx.brokenBarriers.empty())
    return;
  // Unordered with the wait: had this arrival come first, it would have completed the phase
  // after the one the wait observed, and the wait, which tests one parity, would have blocked
  // (or passed) the other way.
  es.racyReported = true;
  const sema::OpInfo& waitOp = m_ctx.op(*es.waitStep);
  std::string name = m_ctx.element(so.entityIndex, so.element);
  std::string waiter = "'" + m_model.roles[es.waitRole].name + "'";
  Diagnostic* d = m_ctx.reporter.report(
      VerifyId::WaitCycle, m_ctx.opRange(op),
      "'" + m_model.roles[r].name + "' arrives on " + name + " (" + m_ctx.context(s) +
          ") with nothing ordering the arrival after " + waiter + "'s wait on it (" +
          m_ctx.context(*es.waitStep) + "): if the arrival comes first it completes the phase " +
          "after the one that wait observes, so the wait tests the wrong parity and blocks " +
          "(or passes early) depending on timing; on hardware the kernel can hang");
  addNote(d, m_ctx.opRange(waitOp), waiter + " waits on " + name + " here (" +
                                        m_ctx.context(*es.waitStep) + ")");
  if (so.ringSlot >= 0 && so.element != so.ringSlot)
    for (std::size_t i = 0; i < s.operands.size(); ++i)
      if (&s.operands[i] == &so)
        setSlotFix(d, op, i, so);
}

void Simulator::setSlotFix(Diagnostic* d, const sema::OpInfo& op, std::size_t operand,
                           const StepOperand& so) const {
  const ir::Stmt& st = *op.stmt;
  if (operand >= st.operands.size() || st.operands[operand].indices.empty() ||
      !st.operands[operand].indices[0].start)
    return;
  const sema::BarrierInfo& b = m_model.barriers[so.entityIndex];
  setFix(d, "index '" + b.name + "' with the slot of this iteration: " + b.pipeline + ".slot",
         m_ctx.reporter.range(st.operands[operand].indices[0].start->id), b.pipeline + ".slot");
}

bool Simulator::reportSlotConvention(const std::vector<const Step*>& at,
                                     const std::vector<std::string>& what,
                                     const std::string& chain) {
  // The barriers the blocked roles wait on.
  std::set<std::size_t> waited;
  for (const Step* s : at)
    if (s)
      for (const reg::EffectDef& e : m_ctx.op(*s).primitive->effects)
        if (e.kind == reg::EffectKind::Wait)
          if (const StepOperand* so = operandOf(*s, e); so && so->present)
            waited.insert(so->entityIndex);
  // The first signal or wait on one of them, executed or blocked, that indexes another element
  // than the slot its pipeline iteration uses: the decision that broke the ring.
  const auto& streams = m_ctx.program.roles;
  for (std::size_t r = 0; r < streams.size(); ++r) {
    std::size_t end = std::min(streams[r].steps.size(), m_roles[r].pc + 1);
    for (std::size_t k = 0; k < end; ++k) {
      const Step& s = streams[r].steps[k];
      for (std::size_t i = 0; i < s.operands.size(); ++i) {
        const StepOperand& so = s.operands[i];
        if (!so.present || so.entity != sema::EntityKind::MBarrier ||
            !waited.count(so.entityIndex) || so.ringSlot < 0 || so.element < 0 ||
            so.element == so.ringSlot)
          continue;
        const sema::OpInfo& op = m_ctx.op(s);
        const sema::BarrierInfo& b = m_model.barriers[so.entityIndex];
        bool waits = false;
        for (const reg::EffectDef& e : op.primitive->effects)
          waits |= e.kind == reg::EffectKind::Wait && operandOf(s, e) == &so;
        std::string p = b.pipeline;
        Diagnostic* d = m_ctx.reporter.report(
            VerifyId::WaitCycle, m_ctx.opRange(op),
            "'" + m_model.roles[r].name + "' " + (waits ? "waits on " : "signals ") +
                m_ctx.element(so.entityIndex, so.element) + " on its visit of slot " +
                std::to_string(so.ringSlot) + " of pipeline '" + p + "' (" + m_ctx.context(s) +
                "): '" + b.name + "' is bound to '" + p + "', and by the ring convention a " +
                "visit of slot s signals and waits on element s (" + p + ".slot); on another " +
                "element the barrier's phases no longer follow the ring and the roles end up " +
                "waiting on each other: " + chain);
        for (std::size_t o = 0; o < at.size(); ++o)
          if (at[o] && !what[o].empty())
            addNote(d, m_ctx.opRange(m_ctx.op(*at[o])), what[o]);
        setSlotFix(d, op, i, so);
        return true;
      }
    }
  }
  return false;
}

bool Simulator::signals(const Step& s, std::size_t barrier, std::int64_t el) {
  for (const reg::EffectDef& e : m_ctx.op(s).primitive->effects) {
    if (e.kind != reg::EffectKind::Arrive && e.kind != reg::EffectKind::Commit &&
        e.kind != reg::EffectKind::CompleteTx)
      continue;
    const StepOperand* so = operandOf(s, e);
    if (so && so->entity == sema::EntityKind::MBarrier && so->entityIndex == barrier &&
        (so->element == el || so->element == -1))
      return true;
  }
  return false;
}

} // namespace cake::verify::detail::sim
