// The joint execution of all roles (the simulator behind simulate()): its state per role,
// barrier element, rendezvous and asynchronous agent, and the class whose stepping
// (Simulation.cpp), memory model (SimulationMemory.cpp) and end-state checks with deadlock
// diagnosis (SimulationEnd.cpp) live in three files. Private to the verifier.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "Analyses.h"
#include "Instances.h"

#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace cake::verify::detail::sim {

/// A shared- or tensor-memory access of a role as it takes effect.
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
  /// Checked for races when it was issued (group-completed asynchronous accesses): the access
  /// may land any time between issue and retirement, so the issue point is the one that must
  /// be ordered after the other roles' accesses; retirement does not check (or report) again.
  bool racesChecked = false;
};

/// One access of a pool view, for the liveness check of aliasing views.
struct ViewAccess {
  bool write = false;
  std::uint64_t issued = 0;
  std::uint64_t done = 0;
  const Step* step = nullptr;
  std::size_t role = 0;
};

/// A generic-proxy write to shared memory, until a fence.proxy.async of its role covers it.
struct GenericWrite {
  std::size_t role = 0;
  Footprint footprint;
  const Step* step = nullptr;
  bool fenced = false;
  std::uint64_t stamp = 0;
};

/// One mbarrier element: its phase, pending arrivals and transaction bytes, the clocks its
/// arrivals release, and its initialisation.
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
  /// The latest wait on this element: its role, that role's clock component right after it,
  /// and the step. An arrival of another role that is not ordered after it could have come
  /// first and changed what the wait observed.
  std::size_t waitRole = SIZE_MAX;
  std::uint64_t waitStamp = 0;
  const Step* waitStep = nullptr;
  bool racyReported = false;
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
  std::vector<std::uint64_t> stamps; ///< each arrival's own clock component (parallel)
  std::vector<const Step*> steps;    ///< each arrival's step (parallel)
  Clock joined;
  std::uint64_t firstArrival = 0;
  bool complete = false;
};

struct TmemState {
  bool live = false;
  std::size_t role = 0;
  std::uint64_t stamp = 0;
  const Step* step = nullptr;
  bool freed = false;
};

/// Executes every role's step stream together, one step per role and round.
class Simulator {
public:
  explicit Simulator(Context& ctx);

  void run();

private:
  // ------------------------------------------------------------------ stepping
  ElementState* element(const StepOperand& so, std::int64_t el);

  const StepOperand* operandOf(const Step& s, const reg::EffectDef& e);

  /// Rendezvous key of a sync effect: (named barrier index or SIZE_MAX for the CTA, count).
  std::pair<std::size_t, std::int64_t> syncKey(std::size_t r, const Step& s,
                                               const reg::EffectDef& e);

  std::vector<std::size_t> participants(std::size_t named) const;

  /// Returns false when the step must wait (a barrier phase or a rendezvous).
  bool tryStep(std::size_t r, const Step& s);

  /// record() of an event that names no barrier (SIZE_MAX names the CTA barrier).
  static constexpr std::size_t kNoBarrier = SIZE_MAX - 1;

  /// The trace's string id of a barrier name (SIZE_MAX: the CTA barrier), interned once.
  /// bar.arrive at use `key.second` of a named barrier: reports ps-named-barrier-overrun when
  /// the previous use is not complete as far as role `r` has observed.
  void checkArriveOverrun(std::size_t r, const Step& s, std::pair<std::size_t, std::int64_t> key,
                          const std::vector<std::size_t>& people);
  std::uint32_t barrierText(std::size_t barrier);

  TraceEvent& record(TraceEvent::Kind kind, std::size_t r, const Step& s, std::size_t barrier,
                     std::int64_t element, std::int64_t phase, std::int64_t parity,
                     std::int64_t amount);

  void checkInit(std::size_t r, const Step& s, const StepOperand& so, const sema::OpInfo& op,
                 const reg::EffectDef& e);

  /// The async proxy (a TMA completion, tcgen05.commit) signals a barrier: its initialisation
  /// must have been published to that proxy by fence.mbarrier_init in the initialising role,
  /// ordered before this step. A CTA barrier orders the generic proxy only.
  void checkInitFence(std::size_t r, const Step& s, const StepOperand& so, const sema::OpInfo& op,
                      const ElementState& es);

  // ------------------------------------------------------------------ memory
  static bool tracked(const sema::BufferInfo& b);

  void dataEffect(std::size_t r, const Step& s, const sema::OpInfo& op, const reg::EffectDef& e,
                  const StepOperand* so);

  static constexpr std::size_t kIssuer = SIZE_MAX;

  /// Retires a group's accesses: on the issuing role's clock (a wait by the issuer), or, for a
  /// tcgen05.commit, on the role's tcgen05 agent, which only the commit's arrival publishes.
  void retireGroup(std::size_t r, const std::string& group, std::int64_t keep, bool includeOpen,
                   std::size_t agent = kIssuer);

  std::size_t commitAgent(std::size_t role) const { return m_model.roles.size() + role; }

  /// The completion's arrival carries every asynchronous write its agent has finished so far.
  void publishAgent(ElementState& es, std::size_t agent);

  /// tcgen05 ordering around thread synchronisation, for a TMEM access `a` of role `r` at its
  /// issue: another role's TMEM access that a synchronisation orders before it must be
  /// followed by tcgen05.fence_before in that role (before its release) and preceded by
  /// tcgen05.fence_after in this one (after its acquire). Unordered pairs are races, reported
  /// by perform().
  void checkTcgenFences(std::size_t r, const Access& a);

  static InstanceAccess instance(const Access& a);

  void perform(const Access& a, bool asyncProxyRead);
  /// Cross-role races of `a` at the current clock of its role: other roles' asynchronous
  /// accesses still in flight and their performed accesses not ordered before it.
  void checkCrossRoleRaces(const Access& a);

  void checkTmem(std::size_t r, const Step& s, const sema::OpInfo& op, const sema::BufferInfo& b);

  // ------------------------------------------------------------------ end states
  /// Views of one pool that share bytes: the data a view holds is live from a write until its
  /// last read before the next write; another view writing the shared bytes inside that window
  /// clobbers it.
  void checkViewLiveness();

  /// Asynchronous writes whose completion no role ever observed: the phase (or commit) that
  /// covers them is never waited for, so they may still be in flight when the CTA exits.
  void checkUnobservedWrites();

  void finish();

  /// Where each unfinished role stands, for `cake trace` and the timeline.
  void recordBlocked();

  void diagnoseDeadlock();
  /// An arrival on `es` by role r that is not ordered after the latest wait of another role
  /// on it: whether that wait passes depends on the interleaving (ps-wait-cycle at the arrival).
  void checkRacyWait(std::size_t r, const Step& s, const sema::OpInfo& op, const StepOperand& so,
                     ElementState& es);
  /// The fix of a finding at a ring-bound barrier operand indexed off its slot: `P.slot`.
  void setSlotFix(Diagnostic* d, const sema::OpInfo& op, std::size_t operand,
                  const StepOperand& so) const;
  /// A wait cycle caused by a signal or wait on a ring-bound barrier element other than the
  /// iteration's slot: reported there (ps-wait-cycle) with the blocked waits as notes.
  bool reportSlotConvention(const std::vector<const Step*>& at,
                            const std::vector<std::string>& what, const std::string& chain);

  bool signals(const Step& s, std::size_t barrier, std::int64_t el);

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
  std::size_t m_width = 0;                 ///< clock components
  std::vector<std::size_t> m_barrierBase;  ///< first clock component of each mbarrier
  std::vector<std::uint64_t> m_agentCount; ///< stamps handed out per agent component
  std::vector<AgentWrite> m_agentWrites;
  std::map<std::pair<std::size_t, std::int64_t>, std::pair<const Step*, std::int64_t>> m_lastWait;
  std::unordered_map<std::uint64_t, std::uint32_t> m_contexts; ///< trace text per iteration
  std::map<std::size_t, std::vector<ViewAccess>> m_viewAccesses;
  std::optional<InstanceModel> m_inst;
  std::vector<std::uint32_t> m_barrierText; ///< interned barrier names, last: "cta"
  std::uint64_t m_time = 0;
};

} // namespace cake::verify::detail::sim
