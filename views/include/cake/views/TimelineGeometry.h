// Timeline geometry: logical time ↔ x, lanes ↔ y, zoom around a point, pan, focus, visible
// range and hit testing. Plain math, unit tested; the timeline widget only paints with it.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/TimelineData.h"

#include <QPointF>
#include <QRectF>

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

/// Hit test at `pos` with `slop` pixels of tolerance around marks and thin blocks.
TimelineHit hitTest(const TimelineData& data, const TimelineGeometry& geometry, QPointF pos,
                    double slop = 3);

} // namespace cake::views
