// Joint execution of all roles under the mbarrier phase model. Roles advance one operation per
// round; a wait passes when the barrier's current phase parity differs from the awaited one;
// CTA and named barriers are rendezvous. Happens-before is tracked with vector clocks
// (arrivals release, waits acquire, rendezvous join), so shared- and tensor-memory accesses of
// different roles that no barrier orders are races. Asynchronous accesses take effect when
// their group retires (wait_group, by the issuing thread) or through their own completion
// mechanism: a TMA write, and the tcgen05 operations a tcgen05.commit tracks, belong to an
// asynchronous agent with its own clock component (one per mbarrier element for TMA, one per
// role for tcgen05), which only the arrival of that completion carries. A thread sees such a
// write only after observing a phase that covers it, never through a later plain signal of the
// issuing thread. This file: construction, the rounds and the stepping of barriers and
// rendezvous (the memory model is in SimulationMemory.cpp, the end states in SimulationEnd.cpp).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Cluster.h"
#include "Simulator.h"

#include <algorithm>

namespace cake::verify::detail::sim {

Simulator::Simulator(Context& ctx) : m_ctx(ctx), m_model(ctx.model) {
  std::size_t roles = m_model.roles.size();
  // Clock components: one per role, one per role's tcgen05 agent, one per mbarrier element
  // (the TMA writes completing on it).
  m_width = 2 * roles;
  m_barriers.resize(m_model.barriers.size());
  m_barrierBase.resize(m_model.barriers.size());
  for (std::size_t b = 0; b < m_model.barriers.size(); ++b) {
    m_barriers[b].resize(std::size_t(std::max<std::int64_t>(1, m_model.barriers[b].size)));
    m_barrierBase[b] = m_width;
    m_width += m_barriers[b].size();
  }
  m_agentCount.assign(m_width, 0);
  m_roles.resize(roles);
  for (RoleState& r : m_roles) {
    r.clock.assign(m_width, 0);
    r.fenceAfter.assign(m_width, 0);
  }
  for (std::size_t b = 0; b < m_model.barriers.size(); ++b) {
    for (ElementState& e : m_barriers[b]) {
      e.remaining = m_model.barriers[b].count;
      e.release.assign(m_width, 0);
      e.completed.assign(m_width, 0);
    }
  }
  // Which barriers are ever initialised (anywhere in any role's program).
  m_initSomewhere.assign(m_model.barriers.size(), false);
  for (const RoleStream& s : ctx.program.roles)
    for (const Step& step : s.steps)
      for (const reg::EffectDef& e : ctx.op(step).primitive->effects)
        if (e.kind == reg::EffectKind::Init && e.operandIndex &&
            step.operands[*e.operandIndex].present)
          m_initSomewhere[step.operands[*e.operandIndex].entityIndex] = true;
  m_tmemAlloc.assign(m_model.buffers.size(), {false, 0, 0, nullptr, false});
  m_inst.emplace(ctx, m_width, m_barrierBase);
}

void Simulator::run() {
  const auto& streams = m_ctx.program.roles;
  while (true) {
    bool progress = false, allDone = true;
    for (std::size_t r = 0; r < streams.size(); ++r) {
      RoleState& rs = m_roles[r];
      if (rs.done)
        continue;
      if (rs.pc >= streams[r].steps.size()) {
        rs.done = true;
        continue;
      }
      allDone = false;
      if (tryStep(r, streams[r].steps[rs.pc])) {
        ++rs.pc;
        rs.blocked = false;
        progress = true;
        if (rs.pc >= streams[r].steps.size())
          rs.done = true;
      } else if (!rs.blocked) {
        rs.blocked = true;
        rs.blockedSince = m_time;
      }
    }
    if (allDone)
      break;
    if (!progress) {
      // A truncated program (analysis bound) cannot be judged for deadlock.
      recordBlocked();
      if (!m_ctx.program.boundReached)
        diagnoseDeadlock();
      m_ctx.result.deadlock = true;
      return;
    }
  }
  finish();
}

ElementState* Simulator::element(const StepOperand& so, std::int64_t el) {
  if (!so.present || so.entity != sema::EntityKind::MBarrier || el < 0)
    return nullptr;
  auto& elems = m_barriers[so.entityIndex];
  return std::size_t(el) < elems.size() ? &elems[std::size_t(el)] : nullptr;
}

const StepOperand* Simulator::operandOf(const Step& s, const reg::EffectDef& e) {
  if (!e.operandIndex || *e.operandIndex >= s.operands.size())
    return nullptr;
  const StepOperand& so = s.operands[*e.operandIndex];
  return so.present ? &so : nullptr;
}

std::pair<std::size_t, std::int64_t> Simulator::syncKey(std::size_t r, const Step& s,
                                                        const reg::EffectDef& e) {
  const StepOperand* so = operandOf(s, e);
  if (so && so->entity == sema::EntityKind::NBarrier)
    return {so->entityIndex, m_roles[r].namedSyncs[so->entityIndex]};
  return {SIZE_MAX, m_roles[r].ctaSyncs};
}

std::vector<std::size_t> Simulator::participants(std::size_t named) const {
  std::vector<std::size_t> out;
  if (named == SIZE_MAX) {
    for (std::size_t r = 0; r < m_model.roles.size(); ++r)
      out.push_back(r);
    return out;
  }
  const sema::BarrierInfo& b = m_model.barriers[named];
  for (std::size_t r = 0; r < m_model.roles.size(); ++r)
    if (std::find(b.roles.begin(), b.roles.end(), m_model.roles[r].name) != b.roles.end() ||
        std::find(b.roles.begin(), b.roles.end(), "all") != b.roles.end())
      out.push_back(r);
  return out;
}

bool Simulator::tryStep(std::size_t r, const Step& s) {
  const sema::OpInfo& op = m_ctx.op(s);
  RoleState& rs = m_roles[r];
  StepContext sctx(op, s);
  // The simulation is CTA rank 0 of the cluster: a multicast copy whose mask leaves it out is
  // issued and received by other CTAs only (Cluster.cpp models those).
  RankZeroView view = rankZeroView(m_model, op, s);
  if (view.skip)
    return true;
  // Blocking effects first.
  for (const reg::EffectDef& e : op.primitive->effects) {
    if (e.kind == reg::EffectKind::Wait) {
      const StepOperand* so = operandOf(s, e);
      if (!so || so->element < 0)
        continue;
      ElementState* es = element(*so, so->element);
      if (!es)
        continue;
      checkInit(r, s, *so, op, e);
      std::int64_t parity = quantity(e.parity, sctx, -1);
      if (parity >= 0 && (es->phase & 1) == parity)
        return false;
    } else if (e.kind == reg::EffectKind::Sync) {
      if (!e.operandIndex && e.syncScope == "role")
        continue; // a barrier among this role's own threads
      auto key = syncKey(r, s, e);
      auto people = participants(key.first);
      if (std::find(people.begin(), people.end(), r) == people.end()) {
        const StepOperand* so = operandOf(s, e);
        Diagnostic* d = m_ctx.reporter.report(
            VerifyId::NamedBarrierDivergence, m_ctx.opRange(op),
            "role '" + m_model.roles[r].name + "' syncs on '" +
                (so ? m_model.barriers[so->entityIndex].name : std::string("?")) +
                "', which does not list it among its roles: the hardware thread count of the "
                "barrier is exceeded");
        if (so)
          addNote(d, m_ctx.declRange(m_model.barriers[so->entityIndex].decl),
                  "named barrier declared here");
        continue;
      }
      Rendezvous& rv = m_rendezvous[key];
      if (std::find(rv.arrived.begin(), rv.arrived.end(), r) == rv.arrived.end()) {
        if (e.syncArrive)
          checkArriveOverrun(r, s, key, people);
        if (rv.arrived.empty()) {
          rv.joined.assign(m_width, 0);
          rv.firstArrival = m_time;
        }
        rv.arrived.push_back(r);
        rv.stamps.push_back(rs.clock[r]);
        rv.steps.push_back(&s);
        join(rv.joined, rs.clock);
        m_inst->syncArrive(key, r);
      }
      if (e.syncArrive)
        continue; // bar.arrive counts towards the barrier and does not wait
      if (rv.arrived.size() < people.size())
        return false;
      rv.complete = true;
    }
  }
  // The step executes.
  ++m_time;
  m_inst->execute(r, s, m_time);
  ++rs.clock[r];
  record(TraceEvent::Kind::Issue, r, s, kNoBarrier, -1, -1, -1, 0);
  for (const reg::EffectDef& e : op.primitive->effects) {
    const StepOperand* so = operandOf(s, e);
    switch (e.kind) {
    case reg::EffectKind::Wait: {
      if (!so || so->element < 0)
        break;
      ElementState* es = element(*so, so->element);
      if (!es)
        break;
      join(rs.clock, es->completed);
      es->waitRole = r;
      es->waitStamp = rs.clock[r];
      es->waitStep = &s;
      m_inst->wait(r, s, so->entityIndex, so->element);
      rs.lastSync = &s;
      m_lastWait[{so->entityIndex, so->element}] = {&s, es->phase - 1};
      TraceEvent& ev = record(TraceEvent::Kind::Wait, r, s, so->entityIndex, so->element,
                              es->phase - 1, quantity(e.parity, sctx, -1), 0);
      ev.start = rs.blocked ? rs.blockedSince : m_time;
      ev.cause = es->completeEvent;
      break;
    }
    case reg::EffectKind::Sync: {
      if (!e.operandIndex && e.syncScope == "role") {
        m_inst->roleSync(r);
        break;
      }
      auto key = syncKey(r, s, e);
      auto it = m_rendezvous.find(key);
      if (it == m_rendezvous.end())
        break;
      if (e.syncArrive) {
        // The producer side acquires nothing: it only counts towards this use.
        record(TraceEvent::Kind::Sync, r, s, key.first, -1, -1, -1, 0);
        ++rs.namedSyncs[key.first];
        break;
      }
      join(rs.clock, it->second.joined);
      m_inst->syncPass(key, r);
      rs.lastSync = &s;
      TraceEvent& ev = record(TraceEvent::Kind::Sync, r, s, key.first, -1, -1, -1, 0);
      ev.start = it->second.firstArrival;
      if (key.first == SIZE_MAX)
        ++rs.ctaSyncs;
      else
        ++rs.namedSyncs[key.first];
      break;
    }
    case reg::EffectKind::Init: {
      if (!so)
        break;
      for (ElementState& es : m_barriers[so->entityIndex]) {
        es.initialized = true;
        es.initRole = r;
        es.initStamp = rs.clock[r];
        es.initStep = &s;
        es.initFenced = false;
      }
      break;
    }
    case reg::EffectKind::Arrive:
    case reg::EffectKind::Commit:
    case reg::EffectKind::ExpectTx:
    case reg::EffectKind::CompleteTx: {
      if (e.kind == reg::EffectKind::Commit) {
        // tcgen05.commit implies tcgen05.fence::before_thread_sync and tracks every prior
        // tcgen05 operation of the issuing thread: they complete on its agent's clock.
        retireGroup(r, e.group, 0, /*includeOpen=*/true, commitAgent(r));
        rs.fenceBefore.push_back(rs.clock[r]);
      }
      if (!so || so->element < 0)
        break;
      ElementState* es = element(*so, so->element);
      if (!es)
        break;
      // Only the arrival of the completion mechanism publishes the asynchronous writes.
      if (e.kind == reg::EffectKind::Commit)
        publishAgent(*es, commitAgent(r));
      else if (e.kind == reg::EffectKind::CompleteTx)
        publishAgent(*es, m_barrierBase[so->entityIndex] + std::size_t(so->element));
      checkInit(r, s, *so, op, e);
      if (e.kind == reg::EffectKind::CompleteTx || e.kind == reg::EffectKind::Commit)
        checkInitFence(r, s, *so, op, *es);
      if (e.kind == reg::EffectKind::Arrive)
        checkRacyWait(r, s, op, *so, *es);
      std::int64_t amount = 0;
      TraceEvent::Kind kind = TraceEvent::Kind::Arrive;
      if (e.kind == reg::EffectKind::Arrive) {
        amount = quantity(e.count, sctx, 1) * s.instances * view.arrivals;
        es->remaining -= amount;
      } else if (e.kind == reg::EffectKind::Commit) {
        amount = s.instances;
        es->remaining -= amount;
        kind = TraceEvent::Kind::Commit;
      } else if (e.kind == reg::EffectKind::ExpectTx) {
        amount = quantity(e.bytes, sctx, 0) * s.instances;
        es->tx += amount;
        kind = TraceEvent::Kind::ExpectTx;
      } else {
        amount = quantity(e.bytes, sctx, 0) * s.instances * view.bytes;
        es->tx -= amount;
        kind = TraceEvent::Kind::CompleteTx;
      }
      join(es->release, rs.clock);
      {
        std::size_t agent = e.kind == reg::EffectKind::Commit ? commitAgent(r)
                            : e.kind == reg::EffectKind::CompleteTx
                                ? m_barrierBase[so->entityIndex] + std::size_t(so->element)
                                : SIZE_MAX;
        m_inst->release(r, s, so->entityIndex, so->element, agent,
                        agent == SIZE_MAX ? 0 : m_agentCount[agent]);
      }
      record(kind, r, s, so->entityIndex, so->element, es->phase, -1, amount);
      if (es->remaining <= 0 && es->tx == 0) {
        record(TraceEvent::Kind::PhaseDone, r, s, so->entityIndex, so->element, es->phase, -1, 0);
        es->completeEvent = std::int64_t(m_ctx.result.trace.size()) - 1;
        es->completed = es->release;
        es->release.assign(m_width, 0);
        es->remaining += m_model.barriers[so->entityIndex].count;
        ++es->phase;
        m_inst->phaseDone(so->entityIndex, so->element);
      }
      break;
    }
    case reg::EffectKind::Read:
    case reg::EffectKind::Write:
      dataEffect(r, s, op, e, so);
      break;
    case reg::EffectKind::Fence:
      if (e.proxy == "tcgen05_after")
        rs.fenceAfter = rs.clock;
      else if (e.proxy == "tcgen05_before")
        rs.fenceBefore.push_back(rs.clock[r]);
      if (e.proxy == "async") {
        for (GenericWrite& w : m_generic)
          if (w.role == r)
            w.fenced = true;
        m_inst->proxyFence(r, s);
      }
      // Makes this role's earlier mbarrier.init visible to the async proxy.
      if (e.proxy == "mbarrier_init")
        for (auto& elements : m_barriers)
          for (ElementState& es : elements)
            if (es.initialized && es.initRole == r && !es.initFenced) {
              es.initFenced = true;
              es.fenceStamp = rs.clock[r];
            }
      break;
    case reg::EffectKind::CommitGroup: {
      auto& open = rs.open[e.group];
      rs.committed[e.group].push_back(std::move(open));
      open.clear();
      break;
    }
    case reg::EffectKind::WaitGroup: {
      std::int64_t pending = quantity(e.pending, sctx, 0);
      bool hasCommit = e.group == "cp.async" || e.group == "bulk" || e.group == "wgmma";
      retireGroup(r, e.group, pending, !hasCommit);
      break;
    }
    case reg::EffectKind::Alloc:
      if (so && so->footprint) {
        auto& a = m_tmemAlloc[so->footprint->buffer];
        a = {true, r, rs.clock[r], &s, false};
      }
      break;
    case reg::EffectKind::Dealloc:
      if (so && so->footprint) {
        // Releasing the columns must happen after every other role's last TMEM access.
        Access a;
        a.role = r;
        a.write = true;
        a.footprint = *so->footprint;
        a.step = &s;
        a.issued = m_time;
        a.stamp = rs.clock[r];
        a.component = r;
        a.operand = *e.operandIndex;
        perform(a, false);
        auto& t = m_tmemAlloc[so->footprint->buffer];
        t.live = false;
        t.freed = true;
      }
      break;
    case reg::EffectKind::Registers:
      break;
    }
  }
  return true;
}

void Simulator::checkArriveOverrun(std::size_t r, const Step& s,
                                   std::pair<std::size_t, std::int64_t> key,
                                   const std::vector<std::size_t>& people) {
  if (key.second == 0)
    return;
  auto prev = m_rendezvous.find({key.first, key.second - 1});
  if (prev == m_rendezvous.end())
    return;
  // Use n - 1 is complete for this arrival when every participant arrived in it and this
  // role has observed each of those arrivals (happens-before): otherwise some interleaving
  // lets both arrivals of this role count towards use n - 1.
  const Rendezvous& rv = prev->second;
  const RoleState& rs = m_roles[r];
  std::string missing;
  for (std::size_t p : people) {
    auto at = std::find(rv.arrived.begin(), rv.arrived.end(), p);
    if (p == r)
      continue;
    if (at == rv.arrived.end() || rs.clock[p] <= rv.stamps[std::size_t(at - rv.arrived.begin())]) {
      missing = m_model.roles[p].name;
      break;
    }
  }
  if (missing.empty())
    return;
  const sema::BarrierInfo& b = m_model.barriers[key.first];
  const sema::OpInfo& op = m_ctx.op(s);
  Diagnostic* d = m_ctx.reporter.report(
      VerifyId::NamedBarrierOverrun, m_ctx.opRange(op),
      "'" + m_model.roles[r].name + "' arrives on '" + b.name + "' for use #" +
          std::to_string(key.second + 1) + " (" + m_ctx.context(s) + ") before use #" +
          std::to_string(key.second) + " is complete: '" + missing +
          "' has not been seen to reach it, so the hardware may count both arrivals of '" +
          m_model.roles[r].name + "' towards one use and release a waiter early");
  if (!d)
    return;
  for (std::size_t i = 0; i < rv.arrived.size(); ++i)
    if (rv.arrived[i] == r)
      addNote(d, m_ctx.opRange(m_ctx.op(*rv.steps[i])),
              "the previous arrival of '" + m_model.roles[r].name + "' (" +
                  m_ctx.context(*rv.steps[i]) + ")");
  addNote(d, m_ctx.declRange(b.decl), "named barrier declared here");
  setFix(d, "wait for the token (a bar.sync on the barrier the other role arrives on) "
            "before arriving on '" +
                b.name + "' again");
}

std::uint32_t Simulator::barrierText(std::size_t barrier) {
  if (m_barrierText.empty())
    m_barrierText.assign(m_model.barriers.size() + 1, UINT32_MAX);
  std::uint32_t& id = m_barrierText[barrier == SIZE_MAX ? m_model.barriers.size() : barrier];
  if (id == UINT32_MAX)
    id = m_ctx.result.trace.intern(barrier == SIZE_MAX ? std::string_view("cta")
                                                       : m_model.barriers[barrier].name);
  return id;
}

TraceEvent& Simulator::record(TraceEvent::Kind kind, std::size_t r, const Step& s,
                              std::size_t barrier, std::int64_t element, std::int64_t phase,
                              std::int64_t parity, std::int64_t amount) {
  TraceEvent ev;
  ev.kind = kind;
  ev.time = m_time;
  ev.start = m_time;
  ev.role = static_cast<std::uint32_t>(r);
  ev.op = static_cast<std::uint32_t>(s.op);
  ev.barrierText = barrier == kNoBarrier ? 0 : barrierText(barrier);
  ev.element = element;
  ev.phase = phase;
  ev.parity = parity;
  ev.amount = amount;
  // Steps of one loop iteration share their context text.
  std::uint64_t key = (std::uint64_t(r) << 48) ^ s.iteration;
  auto it = m_contexts.find(key);
  if (it == m_contexts.end())
    it = m_contexts.emplace(key, m_ctx.result.trace.add(m_ctx.context(s))).first;
  ev.contextText = it->second;
  return m_ctx.result.trace.push_back(ev);
}

void Simulator::checkInit(std::size_t r, const Step& s, const StepOperand& so,
                          const sema::OpInfo& op, const reg::EffectDef& e) {
  (void)e;
  ElementState* es = element(so, so.element < 0 ? 0 : so.element);
  if (!es)
    return;
  const sema::BarrierInfo& b = m_model.barriers[so.entityIndex];
  SourceRange at = m_ctx.opRange(op);
  if (!m_initSomewhere[so.entityIndex]) {
    if (!m_reportedUninit.insert(so.entityIndex).second)
      return;
    Diagnostic* d = m_ctx.reporter.report(
        VerifyId::BarrierNotInitialized, at,
        "'" + b.name + "' is used but never initialised (no mbarrier.init in any role)");
    addNote(d, m_ctx.declRange(b.decl), "barrier declared here");
    setFix(d, "add 'mbarrier.init " + b.name + "' to one role, followed by a cta.sync");
    return;
  }
  if (!es->initialized || (es->initRole != r && m_roles[r].clock[es->initRole] < es->initStamp)) {
    Diagnostic* d = m_ctx.reporter.report(
        VerifyId::BarrierBeforeInit, at,
        "'" + m_model.roles[r].name + "' uses '" + b.name + "' (" + m_ctx.context(s) +
            ") before its initialisation is visible: a CTA barrier (cta.sync) must follow "
            "mbarrier.init before other roles use it");
    addNote(d, m_ctx.declRange(b.decl), "barrier declared here");
  }
}

void Simulator::checkInitFence(std::size_t r, const Step& s, const StepOperand& so,
                               const sema::OpInfo& op, const ElementState& es) {
  if (!es.initialized || !es.initStep)
    return;
  bool visible =
      es.initFenced && (r == es.initRole || m_roles[r].clock[es.initRole] >= es.fenceStamp);
  if (visible || !m_reportedInitFence.insert(so.entityIndex).second)
    return;
  const sema::BarrierInfo& b = m_model.barriers[so.entityIndex];
  const std::string& initRole = m_model.roles[es.initRole].name;
  Diagnostic* d = m_ctx.reporter.report(
      VerifyId::BarrierInitNotFenced, m_ctx.opRange(op),
      "'" + op.primitive->name + "' signals '" + b.name + "' through the async proxy (" +
          m_ctx.context(s) + "), but " +
          (es.initFenced
               ? "the fence.mbarrier_init that follows its mbarrier.init in '" + initRole +
                     "' is not ordered before this step"
               : "its mbarrier.init in '" + initRole + "' is not followed by fence.mbarrier_init") +
          ": the asynchronous unit may find the barrier uninitialised and the completion is "
          "lost");
  addNote(d, m_ctx.opRange(m_ctx.op(*es.initStep)),
          "'" + b.name + "' initialised here by '" + initRole + "'");
  setFix(d, "add 'fence.mbarrier_init' after the mbarrier.init ops in '" + initRole +
                "', before the cta.sync that publishes them");
}

} // namespace cake::verify::detail::sim

namespace cake::verify::detail {

void simulate(Context& ctx) {
  sim::Simulator(ctx).run();
}

} // namespace cake::verify::detail
