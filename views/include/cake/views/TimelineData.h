// The barrier / pipeline timeline as plain data: one lane per warp role from the verifier's
// event trace (logical time), operation blocks, wait spans, barrier marks, arrive→wait flows and
// the findings placed on the events where they happen, and on a deadlock the wait each role is
// stuck in with the finding that explains it. Built off the GUI thread.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QHash>
#include <QString>
#include <QStringList>
#include <QVector>
#include <vector>

namespace cake::driver {
struct CheckResult;
}
namespace cake::cost {
struct EventTime;
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
  qint64 start = 0, end = 0; ///< time (TimelineData::unitsPerUs), half-open [start, end)
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

/// A role that never got past a wait (deadlock): where it stopped, what it waits for, and the
/// blocking finding that explains it. The wait is the root cause when that finding is located
/// on it (the decision that breaks the protocol: a parity, a missing arrival); it is a
/// consequence when the finding sits elsewhere and names this wait in a note.
struct TimelineBlocked {
  int lane = 0;
  int op = -1;
  int line = 0;      ///< 1-based source line of the blocked operation
  qint64 time = 0;   ///< where the wait starts on the lane (after the role's last block)
  QString barrier;   ///< "empty[0]", "cta", a named barrier; empty when not a barrier wait
  qint64 phase = -1; ///< the phase the wait needs completed (mbarrier waits), else -1
  qint64 parity = -1;
  QString context;        ///< "tile 0 k=0"
  int finding = -1;       ///< index into the check result's diagnostics, -1 when none
  QString code;           ///< that finding's code
  int causeLine = 0;      ///< that finding's line
  bool rootCause = false; ///< the finding is located on this wait
  QString what;           ///< "waits for phase 0 of empty[0] (parity 0), which never completes"
  QString cause;          ///< "root cause: line 32 [ps-wait-cycle]", "consequence of line 32 [...]"
  QString label;          ///< "blocked: <what> (<cause>)"
};

struct TimelineData {
  QStringList lanes;      ///< role names
  QStringList laneDetail; ///< "warps 0..4"
  qint64 endTime = 0;     ///< one past the last event
  /// The x axis: 0 for logical steps of the verifier's trace (one unit a step); else predicted
  /// time of the cost model, this many units a µs (one CTA of the busiest SM, its analysed
  /// tiles).
  double unitsPerUs = 0;
  bool inTime() const { return unitsPerUs > 0; }
  QVector<TimelineBlock> blocks; ///< sorted by lane, then start
  QVector<TimelineMark> marks;
  QVector<TimelineFlow> flows;
  QVector<TimelineFinding> findings;
  QVector<TimelineBlocked> blocked;    ///< one per role the deadlock stopped, in role order
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

/// Time units per µs of a timeline in predicted time: picoseconds (an issue slot is ~1 ns).
constexpr double kTimelineUnitsPerUs = 1e6;

/// The same timeline on the cost model's time axis: every block, mark, flow and finding at the
/// predicted time of its trace event (`schedule`, one entry per event of the trace the steps
/// timeline was built from). Waits the model predicts to take no time are dropped. Returns the
/// steps timeline unchanged (unitsPerUs 0) when the schedule does not match the trace.
TimelineData timelineInTime(const TimelineData& steps, const std::vector<cost::EventTime>& schedule,
                            std::size_t traceEvents);
} // namespace cake::views
