// The cluster-wide timeline: one lane per CTA x role of one thread-block cluster from the
// verifier's cluster protocol model (verify::traceCluster), with the signals that cross CTAs
// (multicast deliveries, remote arrivals) as arrows into the receiving CTA's lanes.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/TimelineData.h"

namespace cake::verify {
struct ClusterTrace;
}

namespace cake::views {

/// The timeline of a cluster schedule (logical rounds on the x axis): lane `cta * roles + r`
/// is role `r` of CTA `cta` ("CTA 1 · consumer"); each executed operation is a block one round
/// long, a step that had to wait is preceded by a wait block (mbarrier waits) or a sync block
/// (cta / named / cluster barriers) from its first failed attempt; a multicast delivery or a
/// remote arrival is a mark on the issuing lane and an arrow to the first step of the receiving
/// CTA that waits on that barrier element at or after the signal (to the issuing lane's CTA
/// lanes when no wait follows). Lanes of agents that never finished are listed in `note`.
/// Empty (no lanes, `note` says why) for a trace without a cluster.
TimelineData clusterTimelineData(const verify::ClusterTrace& trace, const driver::CheckResult& r);

/// clusterTimelineData of verify::traceCluster(r.module, r.model) for an accepted or refused
/// kernel that type-checked; empty without a cluster of 2..16 CTAs.
TimelineData buildClusterTimeline(const driver::CheckResult& r);

} // namespace cake::views
