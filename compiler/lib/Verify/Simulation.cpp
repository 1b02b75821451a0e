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
// issuing thread.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Analyses.h"
#include "Instances.h"

#include "cake/Support/StringUtil.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

namespace cake::verify::detail {

namespace {

struct Access {
  std::size_t role = 0;
  bool write = false;
  Footprint footprint;
  std::uint64_t stamp = 0; ///< value of clock component `component` when it took effect
  /// Clock component that orders it: the issuing role, or the asynchronous agent (TMA per
  /// barrier element, tcgen05 per role) whose completion publishes it.
  std::size_t component = 0;
  const Step* step = nullptr;
  bool asyncProxy = false;
  std::uint64_t issued = 0; ///< simulation time the access was issued
  std::uint64_t done = 0;   ///< simulation time it completed (retirement for async work)
  std::size_t operand = 0;  ///< operand index of the step (per-instance footprints)
};

/// One access of a pool view, for the liveness check of aliasing views.
struct ViewAccess {
  bool write = false;
  std::uint64_t issued = 0;
  std::uint64_t done = 0;
  const Step* step = nullptr;
  std::size_t role = 0;
};

struct GenericWrite {
  std::size_t role = 0;
  Footprint footprint;
  const Step* step = nullptr;
  bool fenced = false;
  std::uint64_t stamp = 0;
};

struct ElementState {
  std::int64_t phase = 0;
  std::int64_t remaining = 0;
  std::int64_t tx = 0;
  Clock release;
  Clock completed;
  std::int64_t completeEvent = -1;
  bool initialized = false;
  std::size_t initRole = 0;
  std::uint64_t initStamp = 0;
  const Step* initStep = nullptr;
  /// fence.mbarrier_init executed by the initialising role after the init, at its clock.
  bool initFenced = false;
  std::uint64_t fenceStamp = 0;
};

struct PendingAccess {
  Access access;
  bool proxyRead = false;
};

struct RoleState {
  std::size_t pc = 0;
  bool done = false;
  Clock clock;
  bool blocked = false;
  std::uint64_t blockedSince = 0;
  std::int64_t ctaSyncs = 0;
  std::map<std::size_t, std::int64_t> namedSyncs;
  // Async groups of this role: open (not yet committed) and committed, oldest first.
  // Transparent comparators: a step's completion names its group inside a longer string.
  std::map<std::string, std::vector<PendingAccess>, std::less<>> open;
  std::map<std::string, std::deque<std::vector<PendingAccess>>, std::less<>> committed;
  /// The role's clock at its last tcgen05.fence_after: TMEM accesses of other roles it had
  /// observed by then are ordered before its later tcgen05 operations.
  Clock fenceAfter;
  /// Own clock values of its tcgen05.fence_before (and tcgen05.commit) executions, ascending.
  std::vector<std::uint64_t> fenceBefore;
  /// Its last thread synchronisation (mbarrier wait, CTA or named barrier), for notes.
  const Step* lastSync = nullptr;
};

/// An asynchronous write completed by an mbarrier (TMA) or a tcgen05.commit, checked at the
/// end: a write no role ever observed may still be in flight when the CTA exits.
struct AgentWrite {
  Access access;
  std::size_t barrier = SIZE_MAX; ///< the mbarrier it completes on (TMA), else SIZE_MAX
  std::int64_t element = 0;
  std::int64_t phase = 0;
};

struct Rendezvous {
  std::vector<std::size_t> arrived;
  Clock joined;
  std::uint64_t firstArrival = 0;
  bool complete = false;
};

class Simulator {
public:
  explicit Simulator(Context& ctx) : m_ctx(ctx), m_model(ctx.model) {
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

  void run() {
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

private:
  // ------------------------------------------------------------------ stepping
  ElementState* element(const StepOperand& so, std::int64_t el) {
    if (!so.present || so.entity != sema::EntityKind::MBarrier || el < 0)
      return nullptr;
    auto& elems = m_barriers[so.entityIndex];
    return std::size_t(el) < elems.size() ? &elems[std::size_t(el)] : nullptr;
  }

  const StepOperand* operandOf(const Step& s, const reg::EffectDef& e) {
    if (!e.operandIndex || *e.operandIndex >= s.operands.size())
      return nullptr;
    const StepOperand& so = s.operands[*e.operandIndex];
    return so.present ? &so : nullptr;
  }

  /// Rendezvous key of a sync effect: (named barrier index or SIZE_MAX for the CTA, count).
  std::pair<std::size_t, std::int64_t> syncKey(std::size_t r, const Step& s, const reg::EffectDef& e) {
    const StepOperand* so = operandOf(s, e);
    if (so && so->entity == sema::EntityKind::NBarrier)
      return {so->entityIndex, m_roles[r].namedSyncs[so->entityIndex]};
    return {SIZE_MAX, m_roles[r].ctaSyncs};
  }

  std::vector<std::size_t> participants(std::size_t named) const {
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

  /// Returns false when the step must wait (a barrier phase or a rendezvous).
  bool tryStep(std::size_t r, const Step& s) {
    const sema::OpInfo& op = m_ctx.op(s);
    RoleState& rs = m_roles[r];
    StepContext sctx(op, s);
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
          if (rv.arrived.empty()) {
            rv.joined.assign(m_width, 0);
            rv.firstArrival = m_time;
          }
          rv.arrived.push_back(r);
          join(rv.joined, rs.clock);
          m_inst->syncArrive(key, r);
        }
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
        m_inst->wait(r, s, so->entityIndex, so->element);
        rs.lastSync = &s;
        m_lastWait[{so->entityIndex, so->element}] = {&s, es->phase - 1};
        TraceEvent& ev = record(TraceEvent::Kind::Wait, r, s, so->entityIndex,
                                so->element, es->phase - 1, quantity(e.parity, sctx, -1), 0);
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
        std::int64_t amount = 0;
        TraceEvent::Kind kind = TraceEvent::Kind::Arrive;
        if (e.kind == reg::EffectKind::Arrive) {
          amount = quantity(e.count, sctx, 1) * s.instances;
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
          amount = quantity(e.bytes, sctx, 0) * s.instances;
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
        record(kind, r, s, so->entityIndex, so->element, es->phase, -1,
               amount);
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

  /// record() of an event that names no barrier (SIZE_MAX names the CTA barrier).
  static constexpr std::size_t kNoBarrier = SIZE_MAX - 1;

  /// The trace's string id of a barrier name (SIZE_MAX: the CTA barrier), interned once.
  std::uint32_t barrierText(std::size_t barrier) {
    if (m_barrierText.empty())
      m_barrierText.assign(m_model.barriers.size() + 1, UINT32_MAX);
    std::uint32_t& id = m_barrierText[barrier == SIZE_MAX ? m_model.barriers.size() : barrier];
    if (id == UINT32_MAX)
      id = m_ctx.result.trace.intern(barrier == SIZE_MAX ? std::string_view("cta")
                                                         : m_model.barriers[barrier].name);
    return id;
  }

  TraceEvent& record(TraceEvent::Kind kind, std::size_t r, const Step& s, std::size_t barrier,
                     std::int64_t element, std::int64_t phase, std::int64_t parity,
                     std::int64_t amount) {
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

  void checkInit(std::size_t r, const Step& s, const StepOperand& so, const sema::OpInfo& op,
                 const reg::EffectDef& e) {
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
    if (!es->initialized ||
        (es->initRole != r && m_roles[r].clock[es->initRole] < es->initStamp)) {
      Diagnostic* d = m_ctx.reporter.report(
          VerifyId::BarrierBeforeInit, at,
          "'" + m_model.roles[r].name + "' uses '" + b.name + "' (" + m_ctx.context(s) +
              ") before its initialisation is visible: a CTA barrier (cta.sync) must follow "
              "mbarrier.init before other roles use it");
      addNote(d, m_ctx.declRange(b.decl), "barrier declared here");
    }
  }

  /// The async proxy (a TMA completion, tcgen05.commit) signals a barrier: its initialisation
  /// must have been published to that proxy by fence.mbarrier_init in the initialising role,
  /// ordered before this step. A CTA barrier orders the generic proxy only.
  void checkInitFence(std::size_t r, const Step& s, const StepOperand& so, const sema::OpInfo& op,
                      const ElementState& es) {
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
            (es.initFenced ? "the fence.mbarrier_init that follows its mbarrier.init in '" +
                                 initRole + "' is not ordered before this step"
                           : "its mbarrier.init in '" + initRole +
                                 "' is not followed by fence.mbarrier_init") +
            ": the asynchronous unit may find the barrier uninitialised and the completion is "
            "lost");
    addNote(d, m_ctx.opRange(m_ctx.op(*es.initStep)),
            "'" + b.name + "' initialised here by '" + initRole + "'");
    setFix(d, "add 'fence.mbarrier_init' after the mbarrier.init ops in '" + initRole +
                  "', before the cta.sync that publishes them");
  }

  // ------------------------------------------------------------------ memory
  static bool tracked(const sema::BufferInfo& b) {
    return b.space == ir::Space::Smem || b.space == ir::Space::Tmem;
  }

  void dataEffect(std::size_t r, const Step& s, const sema::OpInfo& op, const reg::EffectDef& e,
                  const StepOperand* so) {
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
      open->second.push_back({a, a.asyncProxy && !a.write});
      a.stamp = rs.clock[r];
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
          m_agentWrites.push_back(
              {a, bo.entityIndex, bo.element, m_barriers[bo.entityIndex][std::size_t(bo.element)].phase});
        perform(a, a.asyncProxy && !a.write);
        return;
      }
    }
    a.stamp = rs.clock[r];
    perform(a, a.asyncProxy && !a.write);
  }

  static constexpr std::size_t kIssuer = SIZE_MAX;

  /// Retires a group's accesses: on the issuing role's clock (a wait by the issuer), or, for a
  /// tcgen05.commit, on the role's tcgen05 agent, which only the commit's arrival publishes.
  void retireGroup(std::size_t r, const std::string& group, std::int64_t keep, bool includeOpen,
                   std::size_t agent = kIssuer) {
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

  std::size_t commitAgent(std::size_t role) const { return m_model.roles.size() + role; }

  /// The completion's arrival carries every asynchronous write its agent has finished so far.
  void publishAgent(ElementState& es, std::size_t agent) {
    es.release[agent] = std::max(es.release[agent], m_agentCount[agent]);
  }

  /// tcgen05 ordering around thread synchronisation, for a TMEM access `a` of role `r` at its
  /// issue: another role's TMEM access that a synchronisation orders before it must be
  /// followed by tcgen05.fence_before in that role (before its release) and preceded by
  /// tcgen05.fence_after in this one (after its acquire). Unordered pairs are races, reported
  /// by perform().
  void checkTcgenFences(std::size_t r, const Access& a) {
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
                "thread synchronisation that orders it behind '" + other.primitive->name +
                "' of '" + otherRole + "' (" + m_ctx.context(*x.step) + "), but '" + myRole +
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
                " it, " + m_ctx.context(*a.step) + ") through a thread synchronisation, but "
                "executes no tcgen05.fence_before between its '" + other.primitive->name + "' (" +
                m_ctx.context(*x.step) + ") and that synchronisation: the tensor-memory access "
                "may still be pending when the other role proceeds",
            std::to_string(x.step->op));
        addNote(d, m_ctx.opRange(mine), "'" + myRole + "' accesses the tensor memory here");
        setFix(d, "add 'tcgen05.fence_before' after the last tensor-memory access, before the "
                  "arrive or barrier that releases it");
      }
    }
  }

  static InstanceAccess instance(const Access& a) {
    return {a.step, a.role, a.operand, a.write, a.asyncProxy, &a.footprint, a.component, a.stamp,
            a.issued};
  }

  void perform(const Access& a, bool asyncProxyRead) {
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
    // Asynchronous accesses of other roles still in flight are ordered with nothing until
    // their group retires.
    for (std::size_t o = 0; o < m_roles.size(); ++o) {
      if (o == a.role)
        continue;
      auto check = [&](const PendingAccess& p) {
        if ((!p.access.write && !a.write) || !p.access.footprint.overlaps(a.footprint))
          return false;
        const sema::OpInfo& later = m_ctx.op(*a.step);
        const sema::OpInfo& pending = m_ctx.op(*p.access.step);
        Diagnostic* d = m_ctx.reporter.report(
            VerifyId::CrossRoleRace, m_ctx.opRange(later),
            std::string(p.access.write ? (a.write ? "WAW" : "RAW") : "WAR") + " race on " +
                a.footprint.describe(m_model) + ": '" + m_model.roles[a.role].name + "' " +
                (a.write ? "writes" : "reads") + " it with '" + later.primitive->name + "' (" +
                m_ctx.context(*a.step) + ") while the asynchronous " +
                (p.access.write ? "write" : "read") + " of '" + pending.primitive->name +
                "' by '" + m_model.roles[o].name + "' (" + m_ctx.context(*p.access.step) +
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
    auto& history = m_history[a.footprint.buffer];
    for (const Access& x : history) {
      if (x.role == a.role || (!x.write && !a.write) || !x.footprint.overlaps(a.footprint))
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
          kind + " race on " + a.footprint.describe(m_model) + ": '" +
              m_model.roles[a.role].name + "' " + (a.write ? "writes" : "reads") + " it with '" +
              later.primitive->name + "' (" + m_ctx.context(*a.step) + "), while '" +
              m_model.roles[x.role].name + "' " + (x.write ? "writes" : "reads") +
              " it with '" + earlier.primitive->name + "' (" + m_ctx.context(*x.step) +
              ") and no barrier orders the two",
          std::to_string(x.step->op));
      addNote(d, m_ctx.opRange(earlier), "the other access, by '" + m_model.roles[x.role].name + "'");
      m_ctx.linkConsequence(d, a.footprint.buffer);
      break;
    }
    // Keep the history small: a later access of the same role and kind covering an earlier one
    // subsumes it for race detection.
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

  struct TmemState {
    bool live = false;
    std::size_t role = 0;
    std::uint64_t stamp = 0;
    const Step* step = nullptr;
    bool freed = false;
  };

  void checkTmem(std::size_t r, const Step& s, const sema::OpInfo& op, const sema::BufferInfo& b) {
    std::size_t index = std::size_t(&b - m_model.buffers.data());
    const TmemState& t = m_tmemAlloc[index];
    bool visible = t.live && (t.role == r || m_roles[r].clock[t.role] >= t.stamp);
    if (visible)
      return;
    Diagnostic* d = m_ctx.reporter.report(
        VerifyId::TmemNotAllocated, m_ctx.opRange(op),
        "'" + m_model.roles[r].name + "' accesses tensor memory '" + b.name + "' (" +
            m_ctx.context(s) + ") " +
            (t.freed ? "after it was deallocated"
             : t.live ? "before its allocation is visible (a cta.sync must follow tcgen05.alloc)"
                      : "but it is not allocated (tcgen05.alloc)"));
    if (t.step)
      addNote(d, m_ctx.opRange(m_ctx.op(*t.step)), "allocated here");
    addNote(d, m_ctx.declRange(b.decl), "tensor memory declared here");
  }

  // ------------------------------------------------------------------ end states
  /// Views of one pool that share bytes: the data a view holds is live from a write until its
  /// last read before the next write; another view writing the shared bytes inside that window
  /// clobbers it.
  void checkViewLiveness() {
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
                    "'" + v.name + "' is read here afterwards (" + m_ctx.context(*lastRead->step) + ")");
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

  /// Asynchronous writes whose completion no role ever observed: the phase (or commit) that
  /// covers them is never waited for, so they may still be in flight when the CTA exits.
  void checkUnobservedWrites() {
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
      std::string through =
          w.barrier == SIZE_MAX
              ? "the tcgen05.commit that tracks it"
              : "phase " + std::to_string(w.phase) + " of '" + m_ctx.element(w.barrier, w.element) + "'";
      Diagnostic* d = m_ctx.reporter.report(
          VerifyId::PhaseNeverWaited, m_ctx.opRange(op),
          "the asynchronous write of '" + op.primitive->name + "' to " +
              a.footprint.describe(m_model) + " (" + m_ctx.context(*a.step) +
              ") completes through " + through +
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

  void finish() {
    checkViewLiveness();
    checkUnobservedWrites();
    for (std::size_t i = 0; i < m_tmemAlloc.size(); ++i) {
      const TmemState& t = m_tmemAlloc[i];
      if (t.live && t.step) {
        Diagnostic* d = m_ctx.reporter.report(
            VerifyId::TmemNotFreed, m_ctx.opRange(m_ctx.op(*t.step)),
            "tensor memory '" + m_model.buffers[i].name +
                "' is never deallocated: the CTA must release its TMEM columns "
                "(tcgen05.dealloc) before it exits");
        addNote(d, m_ctx.declRange(m_model.buffers[i].decl), "tensor memory declared here");
        setFix(d, "add 'tcgen05.dealloc " + m_model.buffers[i].name +
                      "' after a cta.sync that follows the last TMEM access");
      }
    }
  }

  /// Where each unfinished role stands, for `cake trace` and the timeline.
  void recordBlocked() {
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

  void diagnoseDeadlock() {
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
          std::string name = key.first == SIZE_MAX ? "cta.sync" : "'" + m_model.barriers[key.first].name + "'";
          what[r] = "'" + m_model.roles[r].name + "' waits at " + name + " #" +
                    std::to_string(key.second + 1) + " (" + m_ctx.context(s) + ")";
          for (std::size_t p : people) {
            if (std::find(rv.arrived.begin(), rv.arrived.end(), p) != rv.arrived.end())
              continue;
            if (m_roles[p].done && key.first != SIZE_MAX &&
                m_ctx.brokenBarriers.count(key.first))
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
    std::string message =
        cycle.size() == 1
            ? what[first] + ", but the only arrival left for that phase is issued later by '" +
                  m_model.roles[first].name + "' itself: it waits for its own future signal"
            : "roles wait on each other and none can proceed: " + chain;
    Diagnostic* d = m_ctx.reporter.report(VerifyId::WaitCycle, m_ctx.opRange(m_ctx.op(*at[first])),
                                          message);
    for (std::size_t k = 1; k < cycle.size(); ++k)
      addNote(d, m_ctx.opRange(m_ctx.op(*at[cycle[k]])), what[cycle[k]]);
  }

  bool signals(const Step& s, std::size_t barrier, std::int64_t el) {
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

  Context& m_ctx;
  const sema::KernelModel& m_model;
  std::vector<RoleState> m_roles;
  std::vector<std::vector<ElementState>> m_barriers;
  std::vector<bool> m_initSomewhere;
  std::set<std::size_t> m_reportedUninit;
  std::set<std::size_t> m_reportedInitFence;
  std::map<std::pair<std::size_t, std::int64_t>, Rendezvous> m_rendezvous;
  std::map<std::size_t, std::vector<Access>> m_history;
  std::vector<GenericWrite> m_generic;
  std::vector<TmemState> m_tmemAlloc;
  std::size_t m_width = 0;                  ///< clock components
  std::vector<std::size_t> m_barrierBase;   ///< first clock component of each mbarrier
  std::vector<std::uint64_t> m_agentCount;  ///< stamps handed out per agent component
  std::vector<AgentWrite> m_agentWrites;
  std::map<std::pair<std::size_t, std::int64_t>, std::pair<const Step*, std::int64_t>> m_lastWait;
  std::unordered_map<std::uint64_t, std::uint32_t> m_contexts; ///< trace text per iteration
  std::map<std::size_t, std::vector<ViewAccess>> m_viewAccesses;
  std::optional<InstanceModel> m_inst;
  std::vector<std::uint32_t> m_barrierText; ///< interned barrier names, last: "cta"
  std::uint64_t m_time = 0;
};

} // namespace

void simulate(Context& ctx) { Simulator(ctx).run(); }

} // namespace cake::verify::detail
