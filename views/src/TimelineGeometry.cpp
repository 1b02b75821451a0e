// Timeline geometry math: mapping, zoom around the cursor, pan, focus, clamping, hit testing,
// flow aggregation, label collision and the axis' number format.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/TimelineGeometry.h"

#include <QHash>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <cstdint>

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

QString TimelineFlowGroup::label(const TimelineData& data) const {
  if (first < 0 || first >= data.flows.size())
    return {};
  if (count <= 1)
    return data.flows[first].label;
  if (sameLabel)
    return QStringLiteral("%1 ×%2").arg(data.flows[first].label).arg(count);
  return QStringLiteral("%1 arrows").arg(count);
}

QVector<TimelineFlowGroup> groupFlows(const TimelineData& data, const TimelineGeometry& g,
                                      double bucketPx, const QVector<int>& keepBlocks) {
  QVector<TimelineFlowGroup> out;
  QHash<quint64, int> groupOf;
  QSet<int> keep(keepBlocks.begin(), keepBlocks.end());
  bucketPx = std::max(bucketPx, 1.0);
  for (int i = 0; i < data.flows.size(); ++i) {
    const TimelineFlow& f = data.flows[i];
    if (!g.visible(double(f.fromTime), double(f.toTime) + 1))
      continue;
    double x1 = g.xOf(double(f.fromTime)), x2 = g.xOf(double(f.toTime));
    if (!keep.contains(f.toBlock)) {
      // Lanes below 2^16 and buckets within ±2^31 of the axis give distinct keys.
      auto bucket = qint64(std::floor((x2 - g.left) / bucketPx));
      quint64 key = (quint64(quint16(f.fromLane)) << 48) | (quint64(quint16(f.toLane)) << 32) |
                    quint64(quint32(qint32(std::clamp<qint64>(bucket, INT32_MIN, INT32_MAX))));
      auto it = groupOf.constFind(key);
      if (it != groupOf.constEnd()) {
        TimelineFlowGroup& grp = out[*it];
        ++grp.count;
        grp.sameLabel = grp.sameLabel && f.label == data.flows[grp.first].label;
        continue;
      }
      groupOf.insert(key, int(out.size()));
    }
    TimelineFlowGroup grp;
    grp.first = i;
    grp.count = 1;
    grp.fromLane = f.fromLane;
    grp.toLane = f.toLane;
    grp.x1 = x1;
    grp.x2 = x2;
    out << grp;
  }
  return out;
}

QVector<int> placeLabels(const QVector<QRectF>& candidates, double gap) {
  // A grid of cells indexes the kept rectangles, so that each candidate is compared with its
  // neighbours only.
  constexpr double kCellW = 64, kCellH = 16;
  QHash<quint64, QVector<int>> cells;
  auto cellRange = [&](const QRectF& r, auto&& fn) {
    auto x0 = qint64(std::floor(r.left() / kCellW)), x1 = qint64(std::floor(r.right() / kCellW));
    auto y0 = qint64(std::floor(r.top() / kCellH)), y1 = qint64(std::floor(r.bottom() / kCellH));
    for (qint64 y = y0; y <= y1; ++y)
      for (qint64 x = x0; x <= x1; ++x)
        if (!fn((quint64(quint32(qint32(y))) << 32) | quint64(quint32(qint32(x)))))
          return false;
    return true;
  };
  QVector<int> kept;
  for (int i = 0; i < candidates.size(); ++i) {
    const QRectF& r = candidates[i];
    if (!r.isValid())
      continue;
    QRectF padded = r.adjusted(-gap, -gap, gap, gap);
    bool free = cellRange(padded, [&](quint64 key) {
      for (int k : cells.value(key))
        if (candidates[k].intersects(padded))
          return false;
      return true;
    });
    if (!free)
      continue;
    kept << i;
    cellRange(r, [&](quint64 key) {
      cells[key] << i;
      return true;
    });
  }
  std::sort(kept.begin(), kept.end());
  return kept;
}

namespace {

/// The unit of a predicted time with reference magnitude `us`: ns, µs or ms, and its scale.
std::pair<const char*, double> timeUnit(double us) {
  us = std::abs(us);
  if (us > 0 && us < 1)
    return {"ns", 1e3};
  if (us >= 1e3)
    return {"ms", 1e-3};
  return {"µs", 1};
}

QString number(double v, int decimals) {
  return QString::number(v, 'f', std::clamp(decimals, 0, 4));
}

} // namespace

QString formatTimelineTime(double units, double unitsPerUs, double span) {
  if (!(unitsPerUs > 0))
    return QString::number(qint64(std::llround(units)));
  double us = units / unitsPerUs, spanUs = span / unitsPerUs;
  auto [unit, scale] = timeUnit(spanUs > 0 ? spanUs * 10 : us);
  double step = spanUs > 0 ? spanUs * scale : std::abs(us * scale) / 100;
  int decimals = step > 0 ? int(std::ceil(-std::log10(step) - 1e-9)) : 0;
  return QStringLiteral("%1 %2").arg(number(us * scale, decimals), QString::fromUtf8(unit));
}

QString formatTimelineDuration(double units, double unitsPerUs) {
  if (!(unitsPerUs > 0)) {
    auto n = qint64(std::llround(units));
    return n == 1 ? QStringLiteral("1 step") : QStringLiteral("%1 steps").arg(n);
  }
  double us = units / unitsPerUs;
  auto [unit, scale] = timeUnit(us);
  double v = us * scale;
  // Three significant digits.
  int decimals = v != 0 ? 2 - int(std::floor(std::log10(std::abs(v)))) : 0;
  return QStringLiteral("%1 %2").arg(number(v, decimals), QString::fromUtf8(unit));
}

} // namespace cake::views
