// Happens-before over the instances of each role: every warp of a role has its own vector
// clock, so a release issued by one thread, a proxy fence or a TMA re-arm orders only what
// its own instance (and whoever synchronised with it) did. Driven by the role-level
// simulation (Simulation.cpp), which decides progress; private to the verifier.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "Analyses.h"
#include "cake/Verify/BarrierPlan.h"

#include <cstdint>
#include <deque>
#include <map>
#include <vector>

namespace cake::verify::detail {

using Clock = std::vector<std::uint64_t>;

inline void join(Clock& into, const Clock& from) {
  // A plain indexed loop over raw pointers: the hot path of the instance model (every wait,
  // rendezvous and synchronisation joins whole clocks).
  std::uint64_t* a = into.data();
  const std::uint64_t* b = from.data();
  const std::size_t n = into.size() < from.size() ? into.size() : from.size();
  for (std::size_t i = 0; i < n; ++i)
    a[i] = a[i] < b[i] ? b[i] : a[i];
}

/// An access as the role-level simulation performs it (at issue, or when its group retires).
struct InstanceAccess {
  const Step* step = nullptr;
  std::size_t role = 0;
  std::size_t operand = 0; ///< operand index of the step (per-warp footprints)
  bool write = false;
  bool asyncProxy = false;
  /// The role-level access's footprint; only read during the call it is passed to.
  const Footprint* footprint = nullptr;
  /// Role-level ordering: the role's own component (ordered by the issuer) or an
  /// asynchronous agent's (TMA per barrier element, tcgen05 per role), and its stamp.
  std::size_t component = 0;
  std::uint64_t stamp = 0;
  std::uint64_t issued = 0; ///< simulation time of the issue
};

/// Instance clocks and the checks only they can make. The component space extends the
/// role-level one (`agents` components: roles, tcgen05 agents, mbarrier elements) with one
/// component per warp of every role.
class InstanceModel {
public:
  InstanceModel(Context& ctx, std::size_t agents, std::vector<std::size_t> barrierBase);

  /// The step executes: its issuing warps advance (after the sync lowering puts in front of
  /// a partial-scope release, and as one warpgroup for warpgroup-collective instructions).
  void execute(std::size_t role, const Step& s, std::uint64_t time);
  /// The executing warps observe the completed phase of a barrier element.
  void wait(std::size_t role, const Step& s, std::size_t barrier, std::int64_t element);
  /// CTA / named barrier: a role arrives (once per rendezvous), then passes it.
  void syncArrive(std::pair<std::size_t, std::int64_t> key, std::size_t role);
  void syncPass(std::pair<std::size_t, std::int64_t> key, std::size_t role);
  /// A barrier among the role's own threads (reduce.cta).
  void roleSync(std::size_t role);
  /// An arrival, commit or transaction on a barrier element by the step's issuing warps;
  /// `agent` (with its stamp count) is published for completion mechanisms, else SIZE_MAX.
  void release(std::size_t role, const Step& s, std::size_t barrier, std::int64_t element,
               std::size_t agent, std::uint64_t agentCount);
  void phaseDone(std::size_t barrier, std::int64_t element);
  /// fence.proxy.async by the step's issuing warps.
  void proxyFence(std::size_t role, const Step& s);
  /// An asynchronous access issued now that completes later (its group's retirement): the
  /// accesses ordered before it are judged against the issuing warps' clocks now.
  void issue(const InstanceAccess& a, bool asyncProxyRead, const Clock& roleClock);
  /// An access takes effect (synchronous, TMA at issue, or a retired group).
  void perform(const InstanceAccess& a, bool asyncProxyRead, const Clock& roleClock);

private:
  struct Record {
    std::size_t role = 0;
    std::size_t warp = 0;
    bool write = false;
    const Footprint* footprint = nullptr; ///< owned by the step (Program outlives the model)
    std::size_t component = 0;
    std::uint64_t stamp = 0;
    std::size_t roleComponent = 0;
    std::uint64_t roleStamp = 0;
    const Step* step = nullptr;
    std::uint64_t issued = 0;
    bool tma = false; ///< written by a TMA load (completes on a barrier element)
  };
  struct GenericWrite {
    std::size_t role = 0;
    std::size_t warp = 0;
    const Footprint* footprint = nullptr;
    std::size_t component = 0;
    std::uint64_t stamp = 0;
    std::uint64_t fenceStamp = 0; ///< the instance's own clock at its fence; 0: none yet
    const Step* fence = nullptr;
    const Step* step = nullptr; ///< the write
  };
  struct Release {
    std::size_t role = 0;
    const Step* step = nullptr;
    std::uint64_t time = 0;
    /// Warps of the role whose accesses the arrival carries (bit per warp; a role has at
    /// most 32 warps).
    std::uint64_t covered = 0;
    std::size_t warp = 0;      ///< an arriving warp
    std::uint64_t stamp = 0;   ///< its own clock at the arrival
  };
  struct Element {
    Clock release;
    Clock completed;
  };

  std::size_t comp(std::size_t role, std::size_t warp) const { return m_base[role] + warp; }
  std::size_t warps(std::size_t role) const;
  /// Role-relative warps that issue a step: first, first + stride, ... below end.
  struct Warps {
    std::size_t first = 0, stride = 1, limit = 1;
    struct It {
      std::size_t w, stride;
      std::size_t operator*() const { return w; }
      It& operator++() {
        w += stride;
        return *this;
      }
      bool operator!=(const It& o) const { return w < o.w; }
    };
    It begin() const { return {first, stride}; }
    It end() const { return {limit, stride}; }
  };
  /// One elected warp, the warpgroup leaders, or all warps.
  Warps issuers(std::size_t role, const Step& s) const;
  /// The warps whose accesses of an operand are recorded: the issuers, or the leaders of a
  /// warpgroup-collective instruction whose warps address the same data.
  Warps accessors(const InstanceAccess& a) const;
  /// Joins the clocks of warps [first, first + count) of a role (a barrier among them).
  void rendezvous(std::size_t role, std::size_t first, std::size_t count);
  /// The warps `touched` changed their clocks differently from the rest of their warpgroup.
  void diverge(std::size_t role, const Warps& touched);
  void pruneHistory(std::vector<Record>& history);
  const Footprint* warpFootprint(const InstanceAccess& a, std::size_t warp);
  void judge(const InstanceAccess& a, std::size_t warp, const Footprint& f, bool write, bool tma,
             const Clock& roleClock);
  void checkProxy(const InstanceAccess& a, std::size_t warp, const Footprint& f);
  bool aliases(const Footprint& a, const Footprint& b) const;
  const Release* releaseBetween(const Record& x, std::size_t readerRole, std::size_t warp) const;
  void reportPartialRelease(const Record& x, const InstanceAccess& a, const Footprint& f,
                            const Release* rel);
  void reportTma(const Record& x, const InstanceAccess& a, std::size_t warp, const Footprint& f,
                 bool rearm);
  void reportViewClobber(const Record& x, const InstanceAccess& a, std::size_t warp,
                         const Footprint& f);
  std::string who(std::size_t role, std::size_t warp) const;

  Context& m_ctx;
  const sema::KernelModel& m_model;
  BarrierPlan m_plan;
  std::size_t m_agents = 0;
  std::vector<std::size_t> m_barrierBase;
  std::vector<std::size_t> m_base;          ///< first instance component of each role
  std::vector<std::vector<Clock>> m_clocks; ///< per role, per warp
  /// Per role and warpgroup (warps 4g..4g+3): whether its warps' clocks are equal, which lets
  /// a rendezvous or a warpgroup-collective tick skip the whole-clock joins (most wgmma steps).
  std::vector<std::vector<char>> m_synced;
  std::vector<std::vector<Element>> m_elements;
  std::map<std::pair<std::size_t, std::int64_t>, Clock> m_joined;
  /// Per buffer, reads (2 * buffer) and writes (2 * buffer + 1): a read is judged against
  /// writes only.
  std::vector<std::vector<Record>> m_history;
  std::vector<std::size_t> m_pruned; ///< history size after its last pruning
  /// Per op: 0 elected, 1 one per warpgroup, 2 every warp, 3 every warp as a warpgroup.
  mutable std::vector<std::int8_t> m_scopes;
  std::vector<std::int8_t> m_syncs; ///< per role and op: the ReleaseSync lowering adds
  Clock m_scratch;
  std::vector<GenericWrite> m_generic;
  std::deque<Footprint> m_owned; ///< footprints no step operand holds (not expected)
  std::vector<Release> m_releases;
  std::size_t m_records = 0;
  bool m_bounded = false;
  std::uint64_t m_time = 0;
  std::size_t m_width = 0;
};

} // namespace cake::verify::detail
