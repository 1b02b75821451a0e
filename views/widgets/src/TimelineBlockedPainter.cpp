// The blocked waits of a deadlock on the timeline: a hatched bar from where each role stopped,
// a stop sign (filled on the root cause, hollow on a consequence), what the role waits for and
// the finding that explains it. Painted by the timeline widget with its geometry.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "TimelineBlockedPainter.h"

#include "cake/views/ViewData.h"

#include <QCoreApplication>
#include <QFontMetrics>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace cake::widgets {

void paintBlockedWaits(QPainter& p, const views::TimelineGeometry& geo,
                       const views::TimelineData& d, const QFont& bold, const QFont& plain,
                       const views::ViewPalette& pal) {
  QFontMetrics fb(bold), fp(plain);
  for (const views::TimelineBlocked& b : d.blocked) {
    double x = std::max(geo.xOf(double(b.time)), geo.left - 2);
    double right = geo.left + geo.width + 12;
    if (x >= right)
      continue;
    QRectF bar(x, geo.laneTop(b.lane) + 2, right - x, geo.laneHeight - 4);
    QColor c = b.rootCause ? pal.severity(0) : pal.syncOther;
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(c.red(), c.green(), c.blue(), b.rootCause ? 40 : 22));
    p.drawRect(bar);
    p.setBrush(QBrush(QColor(c.red(), c.green(), c.blue(), b.rootCause ? 90 : 60),
                      b.rootCause ? Qt::FDiagPattern : Qt::BDiagPattern));
    p.drawRect(bar);
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(c, b.rootCause ? 2.2 : 1.4, b.rootCause ? Qt::SolidLine : Qt::DashLine));
    p.drawRect(bar.adjusted(1, 1, -1, -1));
    double r = std::clamp(bar.height() / 2 - 5, 5.0, 10.0);
    QPointF centre(x + r + 6, bar.center().y());
    QPolygonF octagon;
    for (int k = 0; k < 8; ++k)
      octagon << centre + QPointF(r * std::cos(M_PI / 8 + k * M_PI / 4),
                                  r * std::sin(M_PI / 8 + k * M_PI / 4));
    p.setPen(QPen(b.rootCause ? pal.onAccent : c, 1.5));
    p.setBrush(b.rootCause ? c : pal.canvas);
    p.drawPolygon(octagon);
    p.setPen(QPen(b.rootCause ? pal.onAccent : c, 2.2));
    p.drawLine(centre - QPointF(r * 0.5, 0), centre + QPointF(r * 0.5, 0));
    // Two lines on a plate: what the role waits for, then the cause and iteration.
    QRectF area = bar.adjusted(2 * r + 14, 3, -8, -3);
    if (area.width() < 40)
      continue;
    QString first =
        fb.elidedText(QCoreApplication::translate("TimelineView", "blocked: %1").arg(b.what),
                      Qt::ElideRight, int(area.width()));
    QString second = fp.elidedText(
        b.cause.isEmpty() ? b.context : QStringLiteral("%1 · %2").arg(b.cause, b.context),
        Qt::ElideRight, int(area.width()));
    double h = fb.height() + fp.height();
    QRectF plate(area.left() - 4, area.center().y() - h / 2 - 1,
                 std::max(fb.horizontalAdvance(first), fp.horizontalAdvance(second)) + 8, h + 2);
    p.setPen(Qt::NoPen);
    p.setBrush(pal.plate);
    p.drawRoundedRect(plate, 3, 3);
    p.setPen(pal.dark ? c.lighter(120) : c.darker(130));
    p.setFont(bold);
    p.drawText(QRectF(area.left(), plate.top() + 1, area.width(), fb.height()),
               Qt::AlignLeft | Qt::AlignVCenter, first);
    p.setFont(plain);
    p.setPen(pal.text);
    p.drawText(QRectF(area.left(), plate.top() + 1 + fb.height(), area.width(), fp.height()),
               Qt::AlignLeft | Qt::AlignVCenter, second);
  }
}

} // namespace cake::widgets
