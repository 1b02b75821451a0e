// Cluster facts shared by the one-CTA analyses (Protocol.cpp, Simulation.cpp) and the cluster
// protocol model (Cluster.cpp). Private to the verifier.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "Analyses.h"

#include <cstdint>
#include <string_view>

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
struct RankZeroView {
  std::int64_t arrivals = 1; ///< factor on the arrivals of an Arrive effect
  bool skip = false;         ///< the execution has no effect in CTA rank 0
};
RankZeroView rankZeroView(const sema::KernelModel& model, const sema::OpInfo& op, const Step& step);

} // namespace cake::verify::detail
