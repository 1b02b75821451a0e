// Timeline geometry: time ↔ x, lanes ↔ y, zoom around a point, pan, focus, visible range, hit
// testing, the level of detail (flow arrows aggregated per pixel bucket, labels that do not
// collide) and the axis' number format. Plain math, unit tested; the widget only paints with it.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/TimelineData.h"

#include <QPointF>
#include <QRectF>
#include <QString>

namespace cake::views {

struct TimelineGeometry {
  double viewStart = 0; ///< logical time at the left edge of the time axis
  double viewEnd = 100; ///< logical time at the right edge
  double left = 0;      ///< x of the time axis' left edge (after the lane headers)
  double width = 800;   ///< pixels of the time axis
  double top = 0;       ///< y of lane 0
  double laneHeight = 30;
  double laneGap = 8;
  double bottom = 30; ///< room under the last lane (the key help line)
  /// Lane heights a lane label and its blocks stay readable in, and no taller.
  static constexpr double kMinLaneHeight = 34;
  static constexpr double kMaxLaneHeight = 64;
  /// Zoom limits: the smallest and largest visible span in logical time units.
  double minSpan = 4;
  double maxSpan = 1e9;

  double span() const { return viewEnd - viewStart; }
  double pixelsPerUnit() const { return span() > 0 ? width / span() : 1; }
  double xOf(double time) const { return left + (time - viewStart) * pixelsPerUnit(); }
  double timeAt(double x) const { return viewStart + (x - left) / pixelsPerUnit(); }
  double laneTop(int lane) const { return top + lane * (laneHeight + laneGap); }
  double laneCenter(int lane) const { return laneTop(lane) + laneHeight / 2; }
  /// Shares `viewportHeight` between `lanes` lanes, each within [kMinLaneHeight,
  /// kMaxLaneHeight]: lanes that do not fit at the minimum make the content taller than the
  /// viewport, and the view scrolls vertically.
  void fitLanes(double viewportHeight, int lanes);
  /// Height of the content with `lanes` lanes: y of the last lane's end plus the bottom room.
  double contentHeight(int lanes) const { return laneTop(lanes) + bottom; }
  /// Lane under y, or -1 (gaps between lanes and outside belong to none).
  int laneAt(double y, int lanes) const;
  QRectF blockRect(qint64 start, qint64 end, int lane) const;

  /// Shows [start, end) of time.
  void setRange(double start, double end);
  /// Multiplies the visible span by `factor` (< 1 zooms in) keeping the time under x fixed.
  void zoomAround(double x, double factor);
  /// Moves the view by `dx` pixels (positive: later times come into view).
  void panPixels(double dx);
  /// Shows [start, end) with `margin` (a fraction of the span) on each side.
  void focus(double start, double end, double margin = 0.1);
  /// Keeps the view inside [0, total] when the span fits, else pins the span at [0, total].
  void clampTo(double total);
  /// Whether [start, end) of time intersects the view.
  bool visible(double start, double end) const { return end > viewStart && start < viewEnd; }
};

/// What lies under a point of the timeline: a finding mark, a blocked wait's bar (from where
/// the role stopped to the end of the lane), a block, else a mark near it.
struct TimelineHit {
  int block = -1;
  int mark = -1;
  int finding = -1;
  int blocked = -1; ///< a blocked wait's bar (deadlock), index into TimelineData::blocked
};

/// Flow arrows drawn as one: those between the same two lanes whose heads fall into the same
/// pixel bucket (level of detail when zoomed out).
struct TimelineFlowGroup {
  int first = -1;     ///< index into TimelineData::flows of the group's first flow
  int count = 0;      ///< flows in the group
  bool sameLabel = true; ///< all of them carry the first one's label
  int fromLane = 0, toLane = 0;
  double x1 = 0, x2 = 0; ///< pixel x of the tail and the head (the first flow's)
  /// The label to draw: the flow's own, "label ×N" or "N arrows".
  QString label(const TimelineData& data) const;
};

/// The visible flows of `data` grouped per (from lane, to lane, bucket of `bucketPx` pixels of
/// the head's x), in the order of their first flow. A flow in `keep` (highlighted) is never
/// merged into a group.
QVector<TimelineFlowGroup> groupFlows(const TimelineData& data, const TimelineGeometry& geometry,
                                      double bucketPx = 8, const QVector<int>& keepBlocks = {});

/// Greedy label placement: keeps each candidate rectangle, in priority order, that keeps `gap`
/// pixels from every one kept before; returns the kept indices, ascending.
QVector<int> placeLabels(const QVector<QRectF>& candidates, double gap = 2);

/// A time on the axis of `data`: "12" (steps) or "1.25 µs" / "350 ns" (predicted time);
/// `span` (the tick step or visible span, in units) chooses the precision.
QString formatTimelineTime(double units, double unitsPerUs, double span = 0);
/// A duration: "12 steps" or "1.25 µs".
QString formatTimelineDuration(double units, double unitsPerUs);

/// Hit test at `pos` with `slop` pixels of tolerance around marks and thin blocks.
TimelineHit hitTest(const TimelineData& data, const TimelineGeometry& geometry, QPointF pos,
                    double slop = 3);

} // namespace cake::views
