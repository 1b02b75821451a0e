// Timeline data from the verifier's event trace: lanes per role, blocks, marks, flows from the
// phase completion to each wait it released, findings on the events where they happen.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/TimelineData.h"

#include "cake/Cost/CostModel.h"
#include "cake/Driver/Compiler.h"
#include "cake/views/ViewData.h"

#include <QSet>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace cake::views {

QVector<int> TimelineData::blocksInRange(int lane, qint64 from, qint64 to) const {
  QVector<int> out;
  if (lane < 0 || lane + 1 >= laneStart.size())
    return out;
  int lo = laneStart[lane], hi = laneStart[lane + 1];
  // Blocks of a lane do not overlap, so their ends are sorted like their starts.
  auto first = std::partition_point(blocks.begin() + lo, blocks.begin() + hi,
                                    [from](const TimelineBlock& b) { return b.end <= from; });
  for (auto it = first; it != blocks.begin() + hi && it->start < to; ++it)
    out << int(it - blocks.begin());
  return out;
}

namespace {

QString text(std::string_view s) {
  return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

QString element(const verify::Trace& trace, const verify::TraceEvent& e) {
  QString name = text(trace.barrier(e));
  return e.element >= 0 ? QStringLiteral("%1[%2]").arg(name).arg(e.element) : name;
}

/// 1-based line of a range in the checked file, 0 when it lies elsewhere (a data file).
int lineIn(const driver::CheckResult& r, const SourceRange& range) {
  if (!r.sources || range.file != r.file || !r.sources->contains(range.file))
    return 0;
  return int(r.sources->lineColumn(range.file, range.begin).line);
}

/// The blocked waits of a deadlock, each linked to the blocking finding that explains it: one
/// located on the wait (the root cause), else one with a note on the wait's line (the wait is
/// a consequence), else the first blocking finding.
QVector<TimelineBlocked> blockedWaits(const driver::CheckResult& r, const ViewData& data,
                                      const TimelineData& t) {
  QVector<TimelineBlocked> out;
  const verify::VerifyResult& v = r.verification;
  for (const verify::BlockedRole& b : v.blocked) {
    TimelineBlocked w;
    w.lane = int(b.role);
    w.op = int(b.op);
    w.line = w.op >= 0 && w.op < data.ops.size() ? data.ops[w.op].span.line : 0;
    int last = t.laneStart.value(w.lane + 1, 0) - 1;
    w.time = last >= t.laneStart.value(w.lane, 0) && last >= 0 ? t.blocks[last].end : 0;
    w.barrier = text(b.barrier);
    if (b.element >= 0)
      w.barrier += QStringLiteral("[%1]").arg(b.element);
    w.parity = b.parity;
    w.phase = b.parity >= 0 ? b.phase : -1;
    w.context = text(b.context);
    int atWait = -1, noted = -1, first = -1;
    for (int d = 0; d < int(r.diagnostics.size()); ++d) {
      const Diagnostic& diag = r.diagnostics[std::size_t(d)];
      if (diag.severity != Severity::Blocking)
        continue;
      if (first < 0)
        first = d;
      if (atWait < 0 && data.findingOp.value(d, -1) == w.op)
        atWait = d;
      for (const DiagNote& n : diag.notes)
        if (noted < 0 && w.line > 0 && lineIn(r, n.range) == w.line)
          noted = d;
    }
    w.rootCause = atWait >= 0;
    w.finding = atWait >= 0 ? atWait : noted >= 0 ? noted : first;
    if (w.parity >= 0)
      w.what = QStringLiteral("waits for phase %1 of %2 (parity %3), which never completes")
                   .arg(w.phase)
                   .arg(w.barrier)
                   .arg(w.parity);
    else if (w.barrier == QLatin1String("cta"))
      w.what = QStringLiteral("waits at cta.sync for roles that never arrive");
    else if (!w.barrier.isEmpty())
      w.what = QStringLiteral("waits at '%1' for roles that never arrive").arg(w.barrier);
    else
      w.what = QStringLiteral("cannot proceed");
    if (w.finding >= 0) {
      const Diagnostic& diag = r.diagnostics[std::size_t(w.finding)];
      w.code = QString::fromStdString(diag.code);
      w.causeLine = lineIn(r, diag.range);
      w.cause = (w.rootCause ? QStringLiteral("root cause: line %1 [%2]")
                             : QStringLiteral("consequence of line %1 [%2]"))
                    .arg(w.causeLine)
                    .arg(w.code);
      w.label = QStringLiteral("blocked: %1 (%2)").arg(w.what, w.cause);
    } else {
      w.label = QStringLiteral("blocked: %1").arg(w.what);
    }
    out << w;
  }
  return out;
}

/// Lane starts and the blocks of each op, from blocks sorted by lane, then start.
void indexBlocks(TimelineData& t) {
  t.laneStart.fill(int(t.blocks.size()), int(t.lanes.size()) + 1);
  for (int k = int(t.blocks.size()) - 1; k >= 0; --k)
    if (t.blocks[k].lane >= 0 && t.blocks[k].lane < t.lanes.size())
      t.laneStart[t.blocks[k].lane] = k;
  for (int l = int(t.lanes.size()) - 1; l >= 0; --l)
    t.laneStart[l] = std::min(t.laneStart[l], t.laneStart[l + 1]);
  t.blocksOfOp.clear();
  for (int k = 0; k < t.blocks.size(); ++k)
    t.blocksOfOp[t.blocks[k].op] << k;
}

/// Where a lane's last block ends (a blocked role's stopping point), 0 without blocks.
qint64 laneEnd(const TimelineData& t, int lane) {
  int last = t.laneStart.value(lane + 1, 0) - 1;
  return last >= t.laneStart.value(lane, 0) && last >= 0 ? t.blocks[last].end : 0;
}

} // namespace

TimelineData timelineInTime(const TimelineData& steps, const std::vector<cost::EventTime>& schedule,
                            std::size_t traceEvents) {
  if (schedule.empty() || schedule.size() != traceEvents)
    return steps;
  TimelineData t = steps;
  t.unitsPerUs = kTimelineUnitsPerUs;
  auto at = [&](double us) { return qint64(std::llround(us * kTimelineUnitsPerUs)); };
  auto event = [&](int e) -> const cost::EventTime* {
    return e >= 0 && std::size_t(e) < schedule.size() ? &schedule[std::size_t(e)] : nullptr;
  };
  // Blocks: an issue from its start to when the role may issue again, a wait from when the role
  // reached it to its release; a wait the model predicts no waiting for is no block.
  QVector<int> newIndex(steps.blocks.size(), -1);
  QVector<TimelineBlock> kept;
  QVector<int> from;
  for (int k = 0; k < steps.blocks.size(); ++k) {
    TimelineBlock b = steps.blocks[k];
    const cost::EventTime* e = event(b.event);
    if (!e)
      continue;
    b.start = at(e->startUs);
    b.end = at(e->endUs);
    if (b.kind == TimelineBlock::Kind::Op)
      b.end = std::max(b.end, b.start + 1);
    else if (b.end <= b.start)
      continue;
    kept << b;
    from << k;
  }
  // A wait the steps showed as no span (released within a step) may still take predicted time:
  // it becomes a span too.
  QSet<int> waitEvents;
  for (const TimelineBlock& b : kept)
    if (b.kind != TimelineBlock::Kind::Op)
      waitEvents.insert(b.event);
  for (const TimelineFlow& f : steps.flows) {
    const cost::EventTime* e = event(f.toEvent);
    if (!e || waitEvents.contains(f.toEvent) || at(e->endUs) <= at(e->startUs))
      continue;
    TimelineBlock b;
    b.kind = TimelineBlock::Kind::Wait;
    b.start = at(e->startUs);
    b.end = at(e->endUs);
    b.lane = f.toLane;
    b.op = f.toBlock >= 0 ? steps.blocks[f.toBlock].op : -1;
    b.event = f.toEvent;
    b.label = QStringLiteral("wait %1").arg(f.label);
    b.context = f.toBlock >= 0 ? steps.blocks[f.toBlock].context : QString();
    waitEvents.insert(f.toEvent);
    kept << b;
    from << -1;
  }
  QVector<int> order(kept.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return std::pair(kept[a].lane, kept[a].start) < std::pair(kept[b].lane, kept[b].start);
  });
  t.blocks.clear();
  t.blocks.reserve(kept.size());
  for (int k = 0; k < order.size(); ++k) {
    if (from[order[k]] >= 0)
      newIndex[from[order[k]]] = k;
    t.blocks << kept[order[k]];
  }
  // Within a lane the model's intervals follow each other; clip rounding overlaps so that the
  // lane's blocks stay sorted by their ends too (blocksInRange).
  for (int k = 1; k < t.blocks.size(); ++k)
    if (t.blocks[k].lane == t.blocks[k - 1].lane && t.blocks[k - 1].end > t.blocks[k].start)
      t.blocks[k - 1].end = std::max(t.blocks[k - 1].start + 1, t.blocks[k].start);
  indexBlocks(t);
  t.endTime = 0;
  for (const TimelineBlock& b : t.blocks)
    t.endTime = std::max(t.endTime, b.end);
  for (TimelineMark& m : t.marks) {
    if (const cost::EventTime* e = event(m.event))
      m.time = at(e->startUs);
    t.endTime = std::max(t.endTime, m.time);
  }
  // Marks are drawn from the first visible one on (sorted by time).
  std::stable_sort(t.marks.begin(), t.marks.end(),
                   [](const TimelineMark& a, const TimelineMark& b) { return a.time < b.time; });
  for (TimelineFlow& f : t.flows) {
    if (const cost::EventTime* e = event(f.fromEvent))
      f.fromTime = at(e->startUs);
    if (const cost::EventTime* e = event(f.toEvent))
      f.toTime = at(e->endUs);
    f.toBlock = newIndex.value(f.toBlock, -1);
    t.endTime = std::max(t.endTime, f.toTime);
  }
  for (TimelineFinding& f : t.findings) {
    if (f.blocked) {
      f.time = laneEnd(t, f.lane);
      continue;
    }
    for (int k : t.blocksOfOp.value(f.op))
      if (t.blocks[k].lane == f.lane && t.blocks[k].kind == TimelineBlock::Kind::Op) {
        f.time = t.blocks[k].start;
        break;
      }
  }
  for (TimelineBlocked& b : t.blocked)
    b.time = laneEnd(t, b.lane);
  return t;
}

TimelineData buildTimelineData(const driver::CheckResult& r, const ViewData& data) {
  TimelineData t;
  const verify::VerifyResult& v = r.verification;
  t.lanes = data.roles;
  t.laneDetail = data.roleDetail;
  t.verified = v.ran;
  t.deadlock = v.deadlock;
  t.boundReached = v.boundReached;
  t.tilesAnalysed = v.tilesAnalysed;
  if (!v.ran)
    t.note = QStringLiteral("no trace: the kernel did not pass type checking, so the verifier did "
                            "not simulate it");
  else if (v.trace.empty())
    t.note = QStringLiteral("the simulation recorded no events");

  const auto& trace = v.trace;
  QVector<int> issueBlock(int(trace.size()), -1);
  // Per lane: the issue time of the current and of the previous operation. A wait or sync span
  // starts no earlier than the role's previous operation (a rendezvous records when its first
  // participant arrived, maybe while this role was still busy).
  QVector<qint64> lastIssue(t.lanes.size(), 0), previousIssue(t.lanes.size(), 0);
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const verify::TraceEvent& e = trace[i];
    qint64 time = qint64(e.time);
    int lane = int(e.role);
    QString context = text(trace.context(e));
    switch (e.kind) {
    case verify::TraceEvent::Kind::Issue: {
      if (lane >= 0 && lane < lastIssue.size()) {
        previousIssue[lane] = lastIssue[lane];
        lastIssue[lane] = time;
      }
      TimelineBlock b;
      b.kind = TimelineBlock::Kind::Op;
      b.start = time - 1;
      b.end = time;
      b.lane = lane;
      b.op = int(e.op);
      b.event = int(i);
      b.label = data.ops.value(int(e.op)).name;
      b.context = context;
      issueBlock[int(i)] = int(t.blocks.size());
      t.blocks << b;
      break;
    }
    case verify::TraceEvent::Kind::Wait:
    case verify::TraceEvent::Kind::Sync: {
      bool wait = e.kind == verify::TraceEvent::Kind::Wait;
      qint64 from = std::max(qint64(e.start), lane >= 0 && lane < previousIssue.size() ? previousIssue[lane] : 0);
      if (from < time - 1) {
        TimelineBlock b;
        b.kind = wait ? TimelineBlock::Kind::Wait : TimelineBlock::Kind::Sync;
        b.start = from;
        b.end = time - 1;
        b.lane = lane;
        b.op = int(e.op);
        b.event = int(i);
        b.label = wait ? QStringLiteral("wait %1 p%2").arg(element(trace, e)).arg(e.parity)
                       : QStringLiteral("sync %1").arg(text(trace.barrier(e)));
        b.context = context;
        t.blocks << b;
      }
      if (wait && e.cause >= 0 && std::size_t(e.cause) < trace.size()) {
        const verify::TraceEvent& c = trace[std::size_t(e.cause)];
        TimelineFlow f;
        f.fromEvent = int(e.cause);
        f.toEvent = int(i);
        f.fromTime = qint64(c.time);
        f.toTime = time;
        f.fromLane = int(c.role);
        f.toLane = lane;
        f.label = QStringLiteral("%1 φ%2 p%3").arg(element(trace, e)).arg(e.phase).arg(e.parity);
        t.flows << f;
      }
      break;
    }
    default: {
      TimelineMark mk;
      mk.time = time;
      mk.lane = lane;
      mk.op = int(e.op);
      mk.event = int(i);
      QString what;
      switch (e.kind) {
      case verify::TraceEvent::Kind::Arrive:
        mk.kind = TimelineMark::Kind::Arrive;
        what = QStringLiteral("arrive %1 φ%2 +%3").arg(element(trace, e)).arg(e.phase).arg(e.amount);
        break;
      case verify::TraceEvent::Kind::ExpectTx:
        mk.kind = TimelineMark::Kind::ExpectTx;
        what = QStringLiteral("expect_tx %1 φ%2 %3 B").arg(element(trace, e)).arg(e.phase).arg(e.amount);
        break;
      case verify::TraceEvent::Kind::CompleteTx:
        mk.kind = TimelineMark::Kind::CompleteTx;
        what = QStringLiteral("complete_tx %1 φ%2 %3 B").arg(element(trace, e)).arg(e.phase).arg(e.amount);
        break;
      case verify::TraceEvent::Kind::Commit:
        mk.kind = TimelineMark::Kind::Commit;
        what = QStringLiteral("commit %1 φ%2").arg(element(trace, e)).arg(e.phase);
        break;
      default:
        mk.kind = TimelineMark::Kind::PhaseDone;
        what = QStringLiteral("phase %1 of %2 complete").arg(e.phase).arg(element(trace, e));
        break;
      }
      mk.label = what;
      t.marks << mk;
      break;
    }
    }
    t.endTime = std::max(t.endTime, time);
  }
  // Sort blocks per lane by start, keeping the indices the flows refer to consistent.
  QVector<int> order(t.blocks.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const TimelineBlock &x = t.blocks[a], &y = t.blocks[b];
    return std::pair(x.lane, x.start) < std::pair(y.lane, y.start);
  });
  QVector<int> newIndex(t.blocks.size());
  QVector<TimelineBlock> sorted;
  sorted.reserve(t.blocks.size());
  for (int k = 0; k < order.size(); ++k) {
    newIndex[order[k]] = k;
    sorted << t.blocks[order[k]];
  }
  t.blocks = std::move(sorted);
  // An operation's block lasts until its role's next block, at most one round of the roles
  // (they take turns, one step each), so that a lane reads as a sequence of slices.
  qint64 round = std::max<qint64>(1, t.lanes.size());
  for (int k = 0; k < t.blocks.size(); ++k) {
    TimelineBlock& b = t.blocks[k];
    if (b.kind != TimelineBlock::Kind::Op)
      continue;
    qint64 next = k + 1 < t.blocks.size() && t.blocks[k + 1].lane == b.lane ? t.blocks[k + 1].start
                                                                             : b.start + round;
    b.end = std::max(b.end, std::min(next, b.start + round));
  }
  for (TimelineFlow& f : t.flows) {
    int b = issueBlock.value(f.toEvent, -1);
    // The wait's issue event precedes its Wait event at the same time.
    for (int k = f.toEvent - 1; b < 0 && k >= 0 && k >= f.toEvent - 4; --k)
      if (trace[std::size_t(k)].kind == verify::TraceEvent::Kind::Issue &&
          trace[std::size_t(k)].role == trace[std::size_t(f.toEvent)].role)
        b = issueBlock[k];
    f.toBlock = b >= 0 ? newIndex[b] : -1;
  }
  indexBlocks(t);

  // Findings: on the first execution of their operation in each lane that runs it; a role
  // that never got past the operation (deadlock, divergence) is marked where it stopped.
  for (int d = 0; d < data.findingOp.size(); ++d) {
    if (!v.ran || d >= int(r.diagnostics.size()))
      continue;
    const Diagnostic& diag = r.diagnostics[std::size_t(d)];
    // The finding's own op, plus (in a deadlock) the ops its notes name: the other roles of a
    // wait cycle are blocked there too.
    QVector<int> ops;
    if (data.findingOp[d] >= 0)
      ops << data.findingOp[d];
    if (v.deadlock && r.sources)
      for (const DiagNote& n : diag.notes)
        if (n.range.file == r.file && r.sources->contains(n.range.file)) {
          int noteOp = data.opAtLine.value(int(r.sources->lineColumn(n.range.file, n.range.begin).line), -1);
          if (noteOp >= 0 && !ops.contains(noteOp))
            ops << noteOp;
        }
    for (int k = 0; k < ops.size(); ++k) {
    int op = ops[k];
    bool note = k > 0;
    for (int lane : data.ops[op].roles) {
      TimelineFinding f;
      f.lane = lane;
      f.severity = int(diag.severity);
      f.finding = d;
      f.op = op;
      f.text = QStringLiteral("[%1] %2").arg(QString::fromStdString(diag.code),
                                             QString::fromStdString(diag.message));
      const TimelineBlock* first = nullptr;
      for (int k : t.blocksOfOp.value(op))
        if (t.blocks[k].lane == lane && t.blocks[k].kind == TimelineBlock::Kind::Op) {
          first = &t.blocks[k];
          break;
        }
      if (first && !note) {
        f.time = first->start;
      } else if (v.deadlock && !first && diag.severity == Severity::Blocking) {
        // Only a blocking finding says where a role stopped; a report at an operation the
        // deadlock kept a role from reaching (a coverage finding) is no stopping point.
        f.blocked = true;
        int last = t.laneStart.value(lane + 1, 0) - 1;
        f.time = last >= t.laneStart.value(lane, 0) && last >= 0 ? t.blocks[last].end : 0;
      } else {
        continue;
      }
      t.findings << f;
    }
    }
  }
  if (v.deadlock)
    t.blocked = blockedWaits(r, data, t);
  return t;
}

} // namespace cake::views
