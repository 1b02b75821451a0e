// The cluster-wide timeline from the cluster protocol model's schedule: lanes per CTA x role,
// operation, wait and sync blocks, and arrows for the signals that cross CTAs.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/ClusterTimeline.h"

#include "cake/Driver/Compiler.h"
#include "cake/Verify/ClusterTrace.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

namespace cake::views {

TimelineData clusterTimelineData(const verify::ClusterTrace& trace, const driver::CheckResult& r) {
  TimelineData d;
  const sema::KernelModel& m = r.model;
  if (trace.ctas <= 1 || trace.roles.empty()) {
    d.note = QStringLiteral("no thread-block cluster: the timeline of one CTA shows everything");
    return d;
  }
  const int roles = int(trace.roles.size());
  std::map<std::size_t, int> slot; // KernelModel role -> index among the trace's roles
  for (int i = 0; i < roles; ++i)
    slot[trace.roles[std::size_t(i)]] = i;
  for (std::int64_t c = 0; c < trace.ctas; ++c)
    for (int i = 0; i < roles; ++i) {
      const sema::RoleInfo& role = m.roles[trace.roles[std::size_t(i)]];
      d.lanes << QStringLiteral("CTA %1 · %2").arg(c).arg(QString::fromStdString(role.name));
      d.laneDetail
          << QStringLiteral("rank %1, warps %2..%3").arg(c).arg(role.warpBegin).arg(role.warpEnd);
    }
  auto laneOf = [&](std::int64_t cta, std::size_t role) {
    auto it = slot.find(role);
    return int(cta) * roles + (it == slot.end() ? 0 : it->second);
  };
  auto opName = [&](std::size_t op) {
    return op < m.ops.size() && m.ops[op].primitive
               ? QString::fromStdString(m.ops[op].primitive->name)
               : QStringLiteral("op");
  };
  // Blocks per lane in time order (the events are in round order already).
  struct Pending {
    const verify::ClusterEvent* signal;
    int fromLane;
  };
  std::vector<Pending> crossing;
  QVector<QString> barrierOf; // per block: the barrier element its step waits on ("" if none)
  for (const verify::ClusterEvent& e : trace.events) {
    int lane = laneOf(e.cta, e.role);
    if (e.kind == verify::ClusterEvent::Kind::Step) {
      QString ctx = QString::fromStdString(e.context);
      if (e.start < e.time) {
        TimelineBlock w;
        bool sync = e.barrier == "cluster" || e.barrier == "cta" ||
                    (!e.barrier.empty() && e.barrier.find('[') == std::string::npos);
        w.kind = sync ? TimelineBlock::Kind::Sync : TimelineBlock::Kind::Wait;
        w.start = qint64(e.start);
        w.end = qint64(e.time);
        w.lane = lane;
        w.op = int(e.op);
        w.label = (sync ? QStringLiteral("sync ") : QStringLiteral("wait ")) +
                  QString::fromStdString(e.barrier);
        w.context = ctx;
        d.blocks << w;
        barrierOf << QString::fromStdString(e.barrier);
      }
      TimelineBlock b;
      b.kind = TimelineBlock::Kind::Op;
      b.start = qint64(e.time);
      b.end = qint64(e.time) + 1;
      b.lane = lane;
      b.op = int(e.op);
      b.label = opName(e.op);
      b.context = ctx;
      d.blocks << b;
      // A step that did not have to wait still observes the barrier it names (try_wait).
      barrierOf << (e.start < e.time ? QString() : QString::fromStdString(e.barrier));
      continue;
    }
    if (e.kind == verify::ClusterEvent::Kind::PhaseDone)
      continue;
    TimelineMark mark;
    bool multicast = e.kind == verify::ClusterEvent::Kind::Delivery;
    mark.kind = multicast ? TimelineMark::Kind::CompleteTx : TimelineMark::Kind::Arrive;
    mark.time = qint64(e.time);
    mark.lane = lane;
    mark.op = int(e.op);
    mark.label = multicast ? QStringLiteral("multicast %1 B → CTA %2 %3")
                                 .arg(e.amount)
                                 .arg(e.target)
                                 .arg(QString::fromStdString(e.barrier))
                           : QStringLiteral("remote arrive +%1 → CTA %2 %3")
                                 .arg(e.amount)
                                 .arg(e.target)
                                 .arg(QString::fromStdString(e.barrier));
    d.marks << mark;
    crossing.push_back({&e, lane});
  }
  // Blocks by lane, then start (blocksInRange's order); their barriers move with them.
  QVector<int> order(d.blocks.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return std::tie(d.blocks[a].lane, d.blocks[a].start) <
           std::tie(d.blocks[b].lane, d.blocks[b].start);
  });
  QVector<TimelineBlock> sorted;
  QVector<QString> sortedBarrier;
  for (int i : order) {
    sorted << d.blocks[i];
    sortedBarrier << barrierOf[i];
  }
  d.blocks = sorted;
  // Arrows: each cross-CTA signal to the first step of the receiving CTA that waits on (or
  // tests) the same barrier element at or after it: the wait that signal counts towards.
  for (const Pending& s : crossing) {
    const verify::ClusterEvent& e = *s.signal;
    const QString barrier = QString::fromStdString(e.barrier);
    int best = -1;
    for (int i = 0; i < d.blocks.size(); ++i) {
      const TimelineBlock& b = d.blocks[i];
      if (b.lane / roles != int(e.target) || b.end < qint64(e.time) || sortedBarrier[i] != barrier)
        continue;
      if (best < 0 || b.end < d.blocks[best].end)
        best = i;
    }
    TimelineFlow f;
    f.fromLane = s.fromLane;
    f.fromTime = qint64(e.time);
    if (best >= 0) {
      f.toLane = d.blocks[best].lane;
      // Into the end of a wait (where it is released), the start of a step that did not wait.
      const TimelineBlock& b = d.blocks[best];
      f.toTime = b.kind == TimelineBlock::Kind::Op ? b.start : b.end;
      f.toBlock = best;
    } else {
      // No wait observed it (it was already satisfied): point at the receiving CTA's lane of
      // the same role.
      f.toLane = int(e.target) * roles + s.fromLane % roles;
      f.toTime = qint64(e.time);
    }
    f.label = (e.kind == verify::ClusterEvent::Kind::Delivery ? QStringLiteral("multicast ")
                                                              : QStringLiteral("remote ")) +
              QString::fromStdString(e.barrier) + QStringLiteral(" → CTA ") +
              QString::number(e.target);
    d.flows << f;
  }
  d.endTime = qint64(trace.rounds);
  // Lane starts (lanes + 1 entries, as blocksInRange reads them) and the blocks of each op.
  d.laneStart.fill(int(d.blocks.size()), int(d.lanes.size()) + 1);
  for (int k = int(d.blocks.size()) - 1; k >= 0; --k)
    d.laneStart[d.blocks[k].lane] = k;
  for (int l = int(d.lanes.size()) - 1; l >= 0; --l)
    d.laneStart[l] = std::min(d.laneStart[l], d.laneStart[l + 1]);
  for (int k = 0; k < d.blocks.size(); ++k)
    d.blocksOfOp[d.blocks[k].op] << k;
  d.verified = true;
  d.deadlock = !trace.stuck.empty();
  QStringList stuck;
  for (auto [cta, i] : trace.stuck)
    stuck << d.lanes.value(int(cta) * roles + int(i));
  d.note =
      stuck.isEmpty()
          ? QStringLiteral("cluster of %1 CTAs: every CTA x role ran to its end").arg(trace.ctas)
          : QStringLiteral("never finished: %1").arg(stuck.join(QStringLiteral(", ")));
  return d;
}

TimelineData buildClusterTimeline(const driver::CheckResult& r) {
  if (!r.module.kernel || !r.verification.ran)
    return {};
  verify::ClusterTrace trace = verify::traceCluster(r.module, r.model);
  if (trace.ctas <= 1)
    return {};
  return clusterTimelineData(trace, r);
}

} // namespace cake::views
