// Timeline geometry math: mapping, zoom around the cursor, pan, focus, clamping, hit testing.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/TimelineGeometry.h"

#include <algorithm>
#include <cmath>

namespace cake::views {

void TimelineGeometry::fitLanes(double viewportHeight, int lanes) {
  lanes = std::max(1, lanes);
  laneHeight =
      std::clamp((viewportHeight - top - bottom) / lanes - laneGap, kMinLaneHeight, kMaxLaneHeight);
}

int TimelineGeometry::laneAt(double y, int lanes) const {
  if (y < top)
    return -1;
  double pitch = laneHeight + laneGap;
  int lane = int(std::floor((y - top) / pitch));
  if (lane < 0 || lane >= lanes || y - laneTop(lane) >= laneHeight)
    return -1;
  return lane;
}

QRectF TimelineGeometry::blockRect(qint64 start, qint64 end, int lane) const {
  double x0 = xOf(double(start)), x1 = xOf(double(end));
  return {x0, laneTop(lane), std::max(1.0, x1 - x0), laneHeight};
}

void TimelineGeometry::setRange(double start, double end) {
  if (!(end > start))
    end = start + minSpan;
  viewStart = start;
  viewEnd = end;
}

void TimelineGeometry::zoomAround(double x, double factor) {
  if (!(factor > 0))
    return;
  double anchor = timeAt(x);
  double newSpan = std::clamp(span() * factor, minSpan, maxSpan);
  double fraction = width > 0 ? (x - left) / width : 0.5;
  viewStart = anchor - fraction * newSpan;
  viewEnd = viewStart + newSpan;
}

void TimelineGeometry::panPixels(double dx) {
  double dt = dx / pixelsPerUnit();
  viewStart += dt;
  viewEnd += dt;
}

void TimelineGeometry::focus(double start, double end, double margin) {
  double s = std::max(end - start, minSpan);
  double pad = s * margin;
  setRange(start - pad, start + s + pad);
}

void TimelineGeometry::clampTo(double total) {
  double s = span();
  double lo = -s * 0.05, hi = std::max(total, 1.0) + s * 0.05;
  if (s >= hi - lo) {
    viewStart = lo;
    viewEnd = lo + s;
    return;
  }
  if (viewStart < lo) {
    viewStart = lo;
    viewEnd = lo + s;
  }
  if (viewEnd > hi) {
    viewEnd = hi;
    viewStart = hi - s;
  }
}

TimelineHit hitTest(const TimelineData& data, const TimelineGeometry& g, QPointF pos, double slop) {
  TimelineHit hit;
  int lane = g.laneAt(pos.y(), int(data.lanes.size()));
  if (lane < 0)
    return hit;
  double tolerance = slop / g.pixelsPerUnit();
  double t = g.timeAt(pos.x());
  // Findings first (drawn on top), then blocks, then marks.
  double best = slop + 1;
  for (int i = 0; i < data.findings.size(); ++i) {
    const TimelineFinding& f = data.findings[i];
    if (f.lane != lane)
      continue;
    double d = std::abs(g.xOf(double(f.time)) - pos.x());
    if (d <= slop + 4 && d < best && pos.y() < g.laneTop(lane) + g.laneHeight * 0.45) {
      best = d;
      hit.finding = i;
    }
  }
  if (hit.finding >= 0)
    return hit;
  for (int i = 0; i < data.blocked.size(); ++i)
    if (data.blocked[i].lane == lane && pos.x() >= g.xOf(double(data.blocked[i].time))) {
      hit.blocked = i;
      return hit;
    }
  QVector<int> near = data.blocksInRange(lane, qint64(std::floor(t - tolerance)),
                                          qint64(std::floor(t + tolerance)) + 1);
  double bestBlock = 1e300;
  for (int b : near) {
    const TimelineBlock& blk = data.blocks[b];
    double x0 = g.xOf(double(blk.start)), x1 = std::max(g.xOf(double(blk.end)), x0 + 1);
    double d = pos.x() < x0 ? x0 - pos.x() : pos.x() > x1 ? pos.x() - x1 : 0;
    // Inside an op block beats a wait span under the same pixel.
    double score = d + (blk.kind == TimelineBlock::Kind::Op ? 0 : 0.5);
    if (d <= slop && score < bestBlock) {
      bestBlock = score;
      hit.block = b;
    }
  }
  if (hit.block >= 0)
    return hit;
  double bestMark = slop + 1;
  for (int i = 0; i < data.marks.size(); ++i) {
    const TimelineMark& m = data.marks[i];
    if (m.lane != lane)
      continue;
    double d = std::abs(g.xOf(double(m.time)) - pos.x());
    if (d <= slop && d < bestMark) {
      bestMark = d;
      hit.mark = i;
    }
  }
  return hit;
}

} // namespace cake::views
