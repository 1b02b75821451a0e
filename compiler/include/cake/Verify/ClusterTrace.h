// The schedule of the cluster protocol model (every CTA x role of one thread-block cluster, one
// step per agent and round) as data for the views: operation steps, waits and rendezvous, and
// the signals that cross CTAs (multicast deliveries, remote arrivals).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/IR/Kernel.h"
#include "cake/Sema/KernelModel.h"
#include "cake/Verify/Verifier.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cake::verify {

/// One event of one agent (a role of one CTA) in the cluster model's round-robin schedule.
struct ClusterEvent {
  enum class Kind : std::uint8_t {
    Step,      ///< an operation executed (started waiting at `start` when it had to wait)
    Delivery,  ///< multicast bytes written into CTA `target`'s shared memory and barrier
    Remote,    ///< an arrival on CTA `target`'s barrier (mbarrier.arrive cta_mask=)
    PhaseDone, ///< a barrier phase of CTA `cta` completed (by this agent's signal)
  };
  Kind kind = Kind::Step;
  std::int64_t cta = 0;
  std::size_t role = 0;     ///< index into KernelModel::roles
  std::size_t op = 0;       ///< index into KernelModel::ops
  std::uint64_t time = 0;   ///< the round
  std::uint64_t start = 0;  ///< Step: the round of its first failed attempt (== time: no wait)
  std::int64_t target = -1; ///< Delivery, Remote, PhaseDone: the CTA whose barrier it signals
  std::string barrier;      ///< "full[0]" for signals and waits, "cluster"/"cta" for syncs
  std::int64_t amount = 0;  ///< arrivals or bytes
  std::string context;      ///< "tile 0 k=1"
};

struct ClusterTrace {
  std::int64_t ctas = 0;            ///< 0: the kernel has no cluster model (one CTA, > 16, refused)
  std::vector<std::size_t> roles;   ///< the roles of the agents of one CTA (KernelModel indices)
  std::vector<ClusterEvent> events; ///< in round order
  std::uint64_t rounds = 0;
  /// Agents (CTA, role index into `roles`) that never finished their program.
  std::vector<std::pair<std::int64_t, std::size_t>> stuck;
};

/// Runs the cluster protocol model of verify() once more and records its schedule (findings
/// are not reported here: verify() reports them). Empty (ctas 0) without a cluster of 2..16
/// CTAs, for a kernel without roles or beyond the analysis bound.
ClusterTrace traceCluster(const ir::Module& module, const sema::KernelModel& model,
                          const VerifyOptions& options = {});

} // namespace cake::verify
