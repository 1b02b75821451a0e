// The simulation's memory model: shared/tensor-memory accesses as they take effect (at issue,
// at their group's retirement, or through their completion mechanism), cross-role races
// through vector clocks, in-flight asynchronous accesses, proxy fences, tcgen05 ordering
// around thread synchronisation and the tensor-memory allocation lifetime.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Simulator.h"

#include <algorithm>

namespace cake::verify::detail::sim {

bool Simulator::tracked(const sema::BufferInfo& b) {
  return b.space == ir::Space::Smem || b.space == ir::Space::Tmem;
}

void Simulator::dataEffect(std::size_t r, const Step& s, const sema::OpInfo& op,
                           const reg::EffectDef& e, const StepOperand* so) {
  if (!so || !so->footprint)
    return;
  const sema::BufferInfo& b = m_model.buffers[so->footprint->buffer];
  if (!tracked(b))
    return;
  RoleState& rs = m_roles[r];
  Access a;
  a.role = r;
  a.write = e.kind == reg::EffectKind::Write;
  a.footprint = *so->footprint;
  a.step = &s;
  a.asyncProxy = e.proxy == "async";
  a.issued = m_time;
  a.component = r;
  a.operand = *e.operandIndex;
  if (b.space == ir::Space::Tmem) {
    checkTmem(r, s, op, b);
    checkTcgenFences(r, a);
  }
  if (e.completion.rfind("group:", 0) == 0) {
    std::string_view group = std::string_view(e.completion).substr(6);
    auto open = rs.open.find(group);
    if (open == rs.open.end())
      open = rs.open.emplace(std::string(group), std::vector<PendingAccess>{}).first;
    a.stamp = rs.clock[r];
    // tcgen05.st / tcgen05.ld / tcgen05.mma / cp.async touch the memory any time between issue
    // and retirement: a P written with tcgen05.st before the MMA still reading the previous P
    // has retired races even though the store is waited for only after that MMA completed.
    checkCrossRoleRaces(a);
    a.racesChecked = true;
    open->second.push_back({a, a.asyncProxy && !a.write});
    m_inst->issue(instance(a), a.asyncProxy && !a.write, rs.clock);
    return;
  }
  if (e.completion.rfind("barrier:", 0) == 0) {
    // Lands when the mbarrier phase it completes on is observed (TMA complete_tx).
    std::string name = e.completion.substr(8);
    const auto& defs = op.primitive->operands;
    for (std::size_t i = 0; i < defs.size() && i < s.operands.size(); ++i) {
      const StepOperand& bo = s.operands[i];
      if (defs[i].name != name || !element(bo, bo.element))
        continue;
      a.component = m_barrierBase[bo.entityIndex] + std::size_t(bo.element);
      a.stamp = ++m_agentCount[a.component];
      if (a.write)
        m_agentWrites.push_back({a, bo.entityIndex, bo.element,
                                 m_barriers[bo.entityIndex][std::size_t(bo.element)].phase});
      perform(a, a.asyncProxy && !a.write);
      return;
    }
  }
  a.stamp = rs.clock[r];
  perform(a, a.asyncProxy && !a.write);
}

void Simulator::retireGroup(std::size_t r, const std::string& group, std::int64_t keep,
                            bool includeOpen, std::size_t agent) {
  RoleState& rs = m_roles[r];
  auto retire = [&](PendingAccess& p) {
    if (agent == kIssuer) {
      p.access.stamp = rs.clock[r];
    } else {
      p.access.component = agent;
      p.access.stamp = ++m_agentCount[agent];
      if (p.access.write)
        m_agentWrites.push_back({p.access, SIZE_MAX, 0, 0});
    }
    perform(p.access, p.proxyRead);
  };
  auto& committed = rs.committed[group];
  while (std::int64_t(committed.size()) > keep) {
    for (PendingAccess& p : committed.front())
      retire(p);
    committed.pop_front();
  }
  if (includeOpen) {
    for (PendingAccess& p : rs.open[group])
      retire(p);
    rs.open[group].clear();
  }
}

void Simulator::publishAgent(ElementState& es, std::size_t agent) {
  es.release[agent] = std::max(es.release[agent], m_agentCount[agent]);
}

void Simulator::checkTcgenFences(std::size_t r, const Access& a) {
  const RoleState& rs = m_roles[r];
  auto it = m_history.find(a.footprint.buffer);
  if (it == m_history.end())
    return;
  const sema::OpInfo& mine = m_ctx.op(*a.step);
  for (const Access& x : it->second) {
    if (x.role == r || (!x.write && !a.write) || !x.footprint.overlaps(a.footprint) ||
        rs.clock[x.component] < x.stamp)
      continue;
    const sema::OpInfo& other = m_ctx.op(*x.step);
    std::string otherRole = m_model.roles[x.role].name;
    std::string myRole = m_model.roles[r].name;
    if (rs.fenceAfter[x.component] < x.stamp) {
      Diagnostic* d = m_ctx.reporter.report(
          VerifyId::TcgenFenceAfter, m_ctx.opRange(mine),
          "'" + mine.primitive->name + "' " + (a.write ? "writes" : "reads") + " " +
              a.footprint.describe(m_model) + " (" + m_ctx.context(*a.step) + ") after the " +
              "thread synchronisation that orders it behind '" + other.primitive->name + "' of '" +
              otherRole + "' (" + m_ctx.context(*x.step) + "), but '" + myRole +
              "' executes no tcgen05.fence_after between that synchronisation and this "
              "tcgen05 operation: the tensor-memory access may be reordered before it",
          std::to_string(x.step->op));
      addNote(d, m_ctx.opRange(other),
              "the other role's tensor-memory " + std::string(x.write ? "write" : "read"));
      if (rs.lastSync)
        addNote(d, m_ctx.opRange(m_ctx.op(*rs.lastSync)),
                "the last synchronisation of '" + myRole + "' before it (" +
                    m_ctx.context(*rs.lastSync) + ")");
      setFix(d, "add 'tcgen05.fence_after' right after the wait or barrier, before '" +
                    mine.primitive->name + "'");
    }
    // Work a tcgen05.commit tracks is fenced by the commit itself.
    if (x.component != x.role)
      continue;
    const auto& fences = m_roles[x.role].fenceBefore;
    auto f = std::lower_bound(fences.begin(), fences.end(), x.stamp);
    if (f == fences.end() || *f > rs.clock[x.role]) {
      Diagnostic* d = m_ctx.reporter.report(
          VerifyId::TcgenFenceBefore, m_ctx.opRange(other),
          "'" + otherRole + "' hands " + x.footprint.describe(m_model) + " to '" + myRole +
              "' (whose '" + mine.primitive->name + "' " + (a.write ? "writes" : "reads") +
              " it, " + m_ctx.context(*a.step) +
              ") through a thread synchronisation, but "
              "executes no tcgen05.fence_before between its '" +
              other.primitive->name + "' (" + m_ctx.context(*x.step) +
              ") and that synchronisation: the tensor-memory access "
              "may still be pending when the other role proceeds",
          std::to_string(x.step->op));
      addNote(d, m_ctx.opRange(mine), "'" + myRole + "' accesses the tensor memory here");
      setFix(d, "add 'tcgen05.fence_before' after the last tensor-memory access, before the "
                "arrive or barrier that releases it");
    }
  }
}

InstanceAccess Simulator::instance(const Access& a) {
  return {a.step,       a.role,      a.operand, a.write, a.asyncProxy,
          &a.footprint, a.component, a.stamp,   a.issued};
}

void Simulator::perform(const Access& a, bool asyncProxyRead) {
  const RoleState& rs = m_roles[a.role];
  // Group-completed reads were checked against proxy fences at their issue.
  m_inst->perform(instance(a), asyncProxyRead && a.issued == m_time, rs.clock);
  if (!m_model.buffers[a.footprint.buffer].pool.empty())
    m_viewAccesses[a.footprint.buffer].push_back({a.write, a.issued, m_time, a.step, a.role});
  // Proxy fences: an async-proxy read of data written through the generic proxy.
  // fence.proxy.async orders generic-proxy accesses of shared and global memory with the async
  // proxy; tensor-memory writes (tcgen05.st) reach tcgen05.mma through tcgen05.wait::st and
  // the tcgen05 fences instead, so a TMEM operand never asks for the proxy fence.
  bool proxied = m_model.buffers[a.footprint.buffer].space != ir::Space::Tmem;
  if (asyncProxyRead && proxied) {
    for (const GenericWrite& w : m_generic) {
      if (w.fenced || !w.footprint.overlaps(a.footprint))
        continue;
      const sema::OpInfo& reader = m_ctx.op(*a.step);
      Diagnostic* d = m_ctx.reporter.report(
          VerifyId::MissingProxyFence, m_ctx.opRange(reader),
          "'" + reader.primitive->name + "' reads " + a.footprint.describe(m_model) +
              " through the async proxy, but it was written through the generic proxy by '" +
              m_ctx.op(*w.step).primitive->name + "' with no fence.proxy.async in between");
      addNote(d, m_ctx.opRange(m_ctx.op(*w.step)),
              "generic-proxy write by '" + m_model.roles[w.role].name + "' (" +
                  m_ctx.context(*w.step) + ")");
      setFix(d, "add 'fence.proxy.async' after the write, before the barrier that orders it "
                "with the read");
      break;
    }
  }
  if (a.write && !a.asyncProxy && proxied) {
    m_generic.erase(std::remove_if(m_generic.begin(), m_generic.end(),
                                   [&](const GenericWrite& w) {
                                     return w.role == a.role && w.fenced &&
                                            a.footprint.overlaps(w.footprint);
                                   }),
                    m_generic.end());
    m_generic.push_back({a.role, a.footprint, a.step, false, a.stamp});
  } else if (a.write && a.asyncProxy) {
    // Async-proxy writes replace earlier generic data: nothing left to fence there.
    for (GenericWrite& w : m_generic)
      if (w.footprint.overlaps(a.footprint))
        w.fenced = true;
  }
  // A group-completed access checked at its issue is checked again as it retires: an access
  // of another role that landed in between and is not ordered with it races too (reported
  // once: a race found at issue is not reported again).
  checkCrossRoleRaces(a);
  // Keep the history small: a later access of the same role and kind covering an earlier one
  // subsumes it for race detection.
  auto& history = m_history[a.footprint.buffer];
  history.erase(std::remove_if(history.begin(), history.end(),
                               [&](const Access& x) {
                                 if (x.role != a.role || x.write != a.write)
                                   return false;
                                 if (x.footprint.buffer != a.footprint.buffer ||
                                     x.footprint.stage.lo < a.footprint.stage.lo ||
                                     x.footprint.stage.hi > a.footprint.stage.hi)
                                   return false;
                                 for (std::size_t i = 0; i < x.footprint.box.size(); ++i)
                                   if (x.footprint.box[i].lo < a.footprint.box[i].lo ||
                                       x.footprint.box[i].hi > a.footprint.box[i].hi)
                                     return false;
                                 return true;
                               }),
                history.end());
  history.push_back(a);
  history.back().done = m_time;
}

void Simulator::checkCrossRoleRaces(const Access& a) {
  const RoleState& rs = m_roles[a.role];
  // At the retirement of an access checked at its issue, only what happened since is new.
  std::uint64_t since = a.racesChecked ? a.issued : 0;
  // Asynchronous accesses of other roles still in flight are ordered with nothing until
  // their group retires.
  for (std::size_t o = 0; o < m_roles.size(); ++o) {
    if (o == a.role)
      continue;
    auto check = [&](const PendingAccess& p) {
      if ((!p.access.write && !a.write) || !p.access.footprint.overlaps(a.footprint) ||
          (since && p.access.issued < since))
        return false;
      const sema::OpInfo& later = m_ctx.op(*a.step);
      const sema::OpInfo& pending = m_ctx.op(*p.access.step);
      Diagnostic* d = m_ctx.reporter.report(
          VerifyId::CrossRoleRace, m_ctx.opRange(later),
          std::string(p.access.write ? (a.write ? "WAW" : "RAW") : "WAR") + " race on " +
              a.footprint.describe(m_model) + ": '" + m_model.roles[a.role].name + "' " +
              (a.write ? "writes" : "reads") + " it with '" + later.primitive->name + "' (" +
              m_ctx.context(*a.step) + ") while the asynchronous " +
              (p.access.write ? "write" : "read") + " of '" + pending.primitive->name + "' by '" +
              m_model.roles[o].name + "' (" + m_ctx.context(*p.access.step) +
              ") has not been waited for",
          std::to_string(p.access.step->op));
      addNote(d, m_ctx.opRange(pending), "asynchronous access still in flight");
      m_ctx.linkConsequence(d, a.footprint.buffer);
      return true;
    };
    bool found = false;
    for (auto& [group, list] : m_roles[o].open)
      for (const PendingAccess& p : list)
        if (!found && check(p))
          found = true;
    for (auto& [group, groups] : m_roles[o].committed)
      for (const auto& g : groups)
        for (const PendingAccess& p : g)
          if (!found && check(p))
            found = true;
  }
  // Races with other roles.
  for (const Access& x : m_history[a.footprint.buffer]) {
    if (x.role == a.role || (!x.write && !a.write) || !x.footprint.overlaps(a.footprint) ||
        (since && x.done < since))
      continue;
    if (rs.clock[x.component] >= x.stamp)
      continue; // ordered: x happens before a
    const sema::OpInfo& later = m_ctx.op(*a.step);
    const sema::OpInfo& earlier = m_ctx.op(*x.step);
    // Name the hazard by issue order: an asynchronous read retired late was still issued
    // before the write that races with it.
    bool aFirst = a.issued < x.issued;
    const Access& first = aFirst ? a : x;
    const Access& second = aFirst ? x : a;
    std::string kind = first.write && second.write ? "WAW" : first.write ? "RAW" : "WAR";
    Diagnostic* d = m_ctx.reporter.report(
        VerifyId::CrossRoleRace, m_ctx.opRange(later),
        kind + " race on " + a.footprint.describe(m_model) + ": '" + m_model.roles[a.role].name +
            "' " + (a.write ? "writes" : "reads") + " it with '" + later.primitive->name + "' (" +
            m_ctx.context(*a.step) + "), while '" + m_model.roles[x.role].name + "' " +
            (x.write ? "writes" : "reads") + " it with '" + earlier.primitive->name + "' (" +
            m_ctx.context(*x.step) + ") and no barrier orders the two",
        std::to_string(x.step->op));
    addNote(d, m_ctx.opRange(earlier), "the other access, by '" + m_model.roles[x.role].name + "'");
    m_ctx.linkConsequence(d, a.footprint.buffer);
    break;
  }
}

void Simulator::checkTmem(std::size_t r, const Step& s, const sema::OpInfo& op,
                          const sema::BufferInfo& b) {
  std::size_t index = std::size_t(&b - m_model.buffers.data());
  const TmemState& t = m_tmemAlloc[index];
  bool visible = t.live && (t.role == r || m_roles[r].clock[t.role] >= t.stamp);
  if (visible)
    return;
  Diagnostic* d = m_ctx.reporter.report(
      VerifyId::TmemNotAllocated, m_ctx.opRange(op),
      "'" + m_model.roles[r].name + "' accesses tensor memory '" + b.name + "' (" +
          m_ctx.context(s) + ") " +
          (t.freed  ? "after it was deallocated"
           : t.live ? "before its allocation is visible (a cta.sync must follow tcgen05.alloc)"
                    : "but it is not allocated (tcgen05.alloc)"));
  if (t.step)
    addNote(d, m_ctx.opRange(m_ctx.op(*t.step)), "allocated here");
  addNote(d, m_ctx.declRange(b.decl), "tensor memory declared here");
}

} // namespace cake::verify::detail::sim
