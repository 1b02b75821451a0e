// The barrier / pipeline timeline as plain data: one lane per warp role from the verifier's
// event trace (logical time), operation blocks, wait spans, barrier marks, arrive→wait flows and
// the findings placed on the events where they happen. Built off the GUI thread.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QHash>
#include <QString>
#include <QStringList>
#include <QVector>

namespace cake::driver {
struct CheckResult;
}

namespace cake::views {

struct ViewData;

struct TimelineBlock {
  enum class Kind : quint8 {
    Op,   ///< one operation issue: until the role's next block, at most one round of the roles
    Wait, ///< an mbarrier wait, from when the role started waiting to when the phase arrived
    Sync, ///< a CTA / named barrier rendezvous, from the first arrival to the release
  };
  Kind kind = Kind::Op;
  qint64 start = 0, end = 0; ///< logical time, half-open [start, end)
  int lane = 0;
  int op = -1;
  int event = -1; ///< index into the verifier's trace
  QString label;  ///< op name, "wait full[2] p1", "sync cta"
  QString context; ///< "t=0 k=3 ring=3"
};

/// A point event on a lane: arrive, expect_tx, complete_tx, commit, phase completion.
struct TimelineMark {
  enum class Kind : quint8 { Arrive, ExpectTx, CompleteTx, Commit, PhaseDone };
  Kind kind = Kind::Arrive;
  qint64 time = 0;
  int lane = 0;
  int op = -1;
  int event = -1;
  QString label; ///< "arrive full[0] φ0 +1"
};

/// A flow arrow: the arrival that completed a barrier phase → the wait it released.
struct TimelineFlow {
  int fromEvent = -1, toEvent = -1;
  qint64 fromTime = 0, toTime = 0;
  int fromLane = 0, toLane = 0;
  int toBlock = -1; ///< the wait block
  QString label;    ///< "full[2] φ1 p1" (barrier, slot, phase, parity)
};

/// A finding placed on the timeline.
struct TimelineFinding {
  qint64 time = 0;
  int lane = 0;
  int severity = 0; ///< int(Severity)
  int finding = -1; ///< index into the check result's diagnostics
  int op = -1;
  bool blocked = false; ///< the role never got past the operation (deadlock, divergence)
  QString text;         ///< "[code] message"
};

struct TimelineData {
  QStringList lanes;      ///< role names
  QStringList laneDetail; ///< "warps 0..4"
  qint64 endTime = 0;     ///< one past the last event
  QVector<TimelineBlock> blocks; ///< sorted by lane, then start
  QVector<TimelineMark> marks;
  QVector<TimelineFlow> flows;
  QVector<TimelineFinding> findings;
  QHash<int, QVector<int>> blocksOfOp; ///< op → block indices
  bool verified = false;
  bool deadlock = false;
  bool boundReached = false;
  qint64 tilesAnalysed = 0;
  QString note; ///< why the timeline is empty, when it is

  /// Block indices of one lane in [from, to) of time (binary search on the sorted blocks).
  QVector<int> blocksInRange(int lane, qint64 from, qint64 to) const;
  /// First block of each lane, filled by the builder.
  QVector<int> laneStart;
};

TimelineData buildTimelineData(const driver::CheckResult& result, const ViewData& data);

} // namespace cake::views
