// Painting of the timeline's marks, flow arrows, overview strip and measured interval
// (TimelineView.cpp draws the rest): arrows merged per pixel bucket when zoomed out
// (views::groupFlows) and labels placed without collisions (views::placeLabels).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "TimelinePainters.h"

#include <QPainter>
#include <QPainterPath>
#include <QSet>

#include <algorithm>
#include <cmath>

namespace cake::widgets {

namespace {

QColor markColor(views::TimelineMark::Kind k, const views::ViewPalette& pal) {
  switch (k) {
  case views::TimelineMark::Kind::CompleteTx:
    return pal.syncTx;
  case views::TimelineMark::Kind::Commit:
    return pal.syncCommit;
  case views::TimelineMark::Kind::PhaseDone:
    return pal.phaseDone;
  default:
    return pal.syncOther;
  }
}

} // namespace

void paintMarks(QPainter& p, const views::TimelineGeometry& geo, const views::TimelineData& d,
                const views::ViewPalette& vp) {
  auto first = std::partition_point(d.marks.begin(), d.marks.end(), [&](const views::TimelineMark& m) {
    return double(m.time) < geo.viewStart - 1;
  });
  double lastX[64];
  std::fill(std::begin(lastX), std::end(lastX), -1e9);
  for (auto it = first; it != d.marks.end() && double(it->time) <= geo.viewEnd + 1; ++it) {
    double x = geo.xOf(double(it->time));
    if (it->lane < 64) {
      if (x - lastX[it->lane] < 3)
        continue; // too dense to tell apart
      lastX[it->lane] = x;
    }
    double y = geo.laneTop(it->lane) + geo.laneHeight - 1;
    QColor c = markColor(it->kind, vp);
    p.setPen(Qt::NoPen);
    p.setBrush(c);
    if (it->kind == views::TimelineMark::Kind::PhaseDone) {
      p.drawEllipse(QPointF(x, y - 2), 3, 3);
    } else {
      QPolygonF tri;
      tri << QPointF(x, y - 7) << QPointF(x - 3.5, y) << QPointF(x + 3.5, y);
      p.drawPolygon(tri);
    }
  }
}

void paintFlows(QPainter& p, const views::TimelineGeometry& geo, const views::TimelineData& d,
                const QVector<int>& highlighted, const QFont& font, const views::ViewPalette& vp) {
  if (d.flows.isEmpty())
    return;
  p.setFont(font);
  QFontMetrics fm(font);
  QSet<int> hl(highlighted.begin(), highlighted.end());
  // Level of detail: arrows between the same lanes ending in the same 8-pixel bucket are one
  // arrow with a count; highlighted ones stay apart.
  QVector<views::TimelineFlowGroup> groups = views::groupFlows(d, geo, 8, highlighted);
  struct Label {
    QRectF rect;
    QString text;
    QColor color;
  };
  QVector<Label> labels;
  QVector<int> strongFirst; // label candidates: highlighted arrows first, then in time order
  for (const views::TimelineFlowGroup& g : groups) {
    const views::TimelineFlow& fl = d.flows[g.first];
    double x1 = g.x1, x2 = g.x2;
    double y1 = geo.laneCenter(fl.fromLane), y2 = geo.laneCenter(fl.toLane);
    if (fl.fromLane == fl.toLane) {
      y1 -= geo.laneHeight / 2 - 2;
      y2 = y1;
    }
    bool strong = hl.contains(fl.toBlock);
    QColor c = vp.syncOther;
    if (strong)
      c = vp.dark ? c.lighter(120) : c.darker(115);
    else
      c.setAlpha(g.count > 1 ? 230 : 185);
    QPainterPath path(QPointF(x1, y1));
    double dy = y2 - y1;
    path.cubicTo(QPointF(x1, y1 + dy * 0.6), QPointF(x2, y2 - dy * 0.6), QPointF(x2, y2));
    // A merged arrow is drawn heavier, so that density reads at a glance.
    double penWidth =
        strong ? 2.0 : g.count > 1 ? std::min(3.0, 1.1 + std::log2(double(g.count)) * 0.4) : 1.1;
    p.setPen(QPen(c, penWidth));
    p.setBrush(Qt::NoBrush);
    p.drawPath(path);
    // Arrow head pointing into the wait.
    QPointF tip(x2, y2), dir = dy >= 0 ? QPointF(0, 1) : QPointF(0, -1);
    if (std::abs(dy) < 1)
      dir = QPointF(1, 0);
    QPointF n(-dir.y(), dir.x());
    QPolygonF head;
    head << tip << tip - dir * 6 + n * 3 << tip - dir * 6 - n * 3;
    p.setPen(Qt::NoPen);
    p.setBrush(c);
    p.drawPolygon(head);
    if (std::abs(x2 - x1) > 30 || strong || g.count > 1) {
      QString text = g.label(d);
      QSizeF sz(fm.horizontalAdvance(text) + 6, fm.height());
      QPointF mid((x1 + x2) / 2, (y1 + y2) / 2);
      if (strong)
        strongFirst << int(labels.size());
      labels.push_back({QRectF(mid - QPointF(sz.width() / 2, sz.height() / 2), sz), text, c});
    }
  }
  // Labels only where they do not cover another one (the highlighted ones win).
  QVector<int> order = strongFirst;
  QSet<int> isStrong(strongFirst.begin(), strongFirst.end());
  for (int i = 0; i < labels.size(); ++i)
    if (!isStrong.contains(i))
      order << i;
  QVector<QRectF> rects;
  rects.reserve(order.size());
  for (int i : order)
    rects << labels[i].rect;
  for (int k : views::placeLabels(rects, 1)) {
    const Label& l = labels[order[k]];
    p.setBrush(vp.plate);
    p.setPen(QPen(l.color, 0.7));
    p.drawRoundedRect(l.rect, 3, 3);
    p.setPen(vp.dark ? l.color.lighter(130) : l.color.darker(150));
    p.drawText(l.rect, Qt::AlignCenter, l.text);
  }
}

void paintOverview(QPainter& p, const views::TimelineGeometry& geo, const views::TimelineData& d,
                   const QRectF& strip, const views::ViewPalette& vp) {
  const double kOverview = strip.height();
  auto overviewX = [&](double t, double end) { return geo.left + geo.width * t / std::max(end, 1.0); };
  double end = double(std::max<qint64>(d.endTime, 1));
  p.fillRect(strip, vp.header);
  // Density of operation issues per pixel column.
  QVector<int> perColumn(int(geo.width) + 1, 0);
  for (const views::TimelineBlock& b : d.blocks)
    if (b.kind == views::TimelineBlock::Kind::Op) {
      int c = int(overviewX(double(b.start), end) - geo.left);
      if (c >= 0 && c < perColumn.size())
        ++perColumn[c];
    }
  int most = *std::max_element(perColumn.begin(), perColumn.end());
  p.setPen(Qt::NoPen);
  for (int c = 0; c < perColumn.size(); ++c)
    if (perColumn[c] > 0) {
      double h = (kOverview - 2) * std::min(1.0, 0.3 + double(perColumn[c]) / std::max(most, 1));
      p.fillRect(QRectF(geo.left + c, strip.bottom() - h, 1, h), vp.border);
    }
  for (const views::TimelineFinding& f : d.findings) {
    p.setBrush(vp.severity(f.severity));
    double x = overviewX(double(f.time), end);
    p.drawRect(QRectF(x - 1, strip.top(), 2.5, kOverview));
  }
  QRectF window(overviewX(std::max(geo.viewStart, 0.0), end), strip.top(),
                std::max(3.0, overviewX(std::min(geo.viewEnd, end), end) - overviewX(std::max(geo.viewStart, 0.0), end)),
                kOverview);
  QColor frame = vp.selection;
  p.setPen(QPen(frame, 1.2));
  frame.setAlpha(40);
  p.setBrush(frame);
  p.drawRect(window);
}

void paintMeasuredArea(QPainter& p, const views::TimelineGeometry& geo, double from, double to,
                       const QString& readout, const QRectF& lanes, double plateTop,
                       const QFont& font, const views::ViewPalette& vp) {
  double x0 = geo.xOf(from), x1 = std::max(geo.xOf(to), x0 + 1);
  QColor fill = vp.selection;
  fill.setAlpha(38);
  p.fillRect(QRectF(x0, lanes.top(), x1 - x0, lanes.height()), fill);
  p.setPen(QPen(vp.selection, 1, Qt::DashLine));
  p.drawLine(QPointF(x0, lanes.top()), QPointF(x0, lanes.bottom()));
  p.drawLine(QPointF(x1, lanes.top()), QPointF(x1, lanes.bottom()));
  p.setFont(font);
  QFontMetrics fm(font);
  QSizeF sz(fm.horizontalAdvance(readout) + 12, fm.height() + 4);
  // Over the middle of the interval, kept inside the time axis.
  double cx = std::clamp((x0 + x1) / 2, geo.left + sz.width() / 2,
                         std::max(geo.left + sz.width() / 2, geo.left + geo.width - sz.width() / 2));
  QRectF plate(cx - sz.width() / 2, plateTop, sz.width(), sz.height());
  p.setBrush(vp.plate);
  p.setPen(QPen(vp.selection, 1));
  p.drawRoundedRect(plate, 3, 3);
  p.setPen(vp.text);
  p.drawText(plate, Qt::AlignCenter, readout);
}

} // namespace cake::widgets
