// Cluster facts shared by the one-CTA analyses (Protocol.cpp, Simulation.cpp) and the cluster
// protocol model (Cluster.cpp). Private to the verifier.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "Analyses.h"

#include <cstdint>
#include <string_view>
#include <unordered_set>

namespace cake::verify::detail {

/// CTAs per cluster (product of the grid's cluster=[X, Y, Z]; 1 without clusters).
std::int64_t clusterSize(const sema::KernelModel& model);

/// Integer attribute `name` of one execution of `op` (run-time value when evaluated per step),
/// `fallback` when the primitive has no such attribute or its value is not an integer.
std::int64_t intAttribute(const sema::OpInfo& op, const Step& step, std::string_view name,
                          std::int64_t fallback);

/// What one execution means to CTA rank 0 of the cluster, the CTA the one-CTA analyses model.
/// Every CTA of the cluster runs the same program, so:
/// - an mbarrier.arrive with cta_mask M arrives on the barrier of every CTA in M from every
///   CTA of the cluster: rank 0 receives `clusterSize` arrivals per issuing instance when bit 0
///   of M is set, none otherwise (`arrivals`);
/// - a tma.load with multicast M is issued by the lowest-ranked CTA of M only and writes every
///   CTA of M: rank 0 issues and receives it when bit 0 of M is set; otherwise the execution
///   does nothing in rank 0 (`skip`).
/// - a tma.load with cta_group=2 completes its bytes on the barrier of the pair's leader (the
///   even-ranked CTA): rank 0 receives its own copy and its peer's (`bytes` 2).
struct RankZeroView {
  std::int64_t arrivals = 1; ///< factor on the arrivals of an Arrive effect
  std::int64_t bytes = 1;    ///< factor on the bytes of a CompleteTx effect
  bool skip = false;         ///< the execution has no effect in CTA rank 0
};
RankZeroView rankZeroView(const sema::KernelModel& model, const sema::OpInfo& op, const Step& step);

/// The operation statements of `on … cta=leader` blocks: they run in the leader (even-ranked)
/// CTA of each CTA pair only (CUTLASS's is_mma_leader_cta), the peer skips them.
std::unordered_set<const ir::Stmt*> leaderOnlyStmts(const ir::Module& module);

/// The execution of `op` belongs to the pair's leader only: it lies in a `cta=leader` block, or
/// it is an `mbarrier.arrive_expect_tx … cta_group=2` (the leader announces the bytes both
/// CTAs' cta_group::2 copies deliver into its barrier; the peer announces nothing).
bool leaderOnly(const std::unordered_set<const ir::Stmt*>& leaderStmts, const sema::OpInfo& op,
                const Step& step);

} // namespace cake::verify::detail
