// Timeline legend: one swatch and a word per kind of thing the timeline draws, wrapped into
// rows that fit the width (1024 px windows included).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "TimelineLegend.h"

#include <QResizeEvent>

#include "cake/views/ViewPalette.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>

namespace cake::widgets {

namespace {

enum class Swatch { Block, Wait, Triangle, Circle, Arrow, Finding, Band };

struct Entry {
  Swatch swatch;
  QString text;
  QColor color;
};

constexpr int kSwatch = 16, kRow = 18, kPad = 6;

QVector<Entry> entriesOf(const views::ViewPalette& vp) {
  using S = Swatch;
  return {
      {S::Block, QObject::tr("tensor op"), vp.opFamily(QStringLiteral("wgmma.mma_async"))},
      {S::Block, QObject::tr("async copy"), vp.opFamily(QStringLiteral("tma.load"))},
      {S::Block, QObject::tr("load/store"), vp.opFamily(QStringLiteral("ld.global"))},
      {S::Block, QObject::tr("mbarrier op"), vp.opFamily(QStringLiteral("mbarrier.wait"))},
      {S::Block, QObject::tr("sync/fence"), vp.opFamily(QStringLiteral("bar.sync"))},
      {S::Block, QObject::tr("other op"), vp.opFamily(QStringLiteral("add"))},
      {S::Wait, QObject::tr("waiting"), vp.border},
      {S::Triangle, QObject::tr("arrive/expect_tx"), vp.syncOther},
      {S::Triangle, QObject::tr("complete_tx"), vp.syncTx},
      {S::Triangle, QObject::tr("commit"), vp.syncCommit},
      {S::Circle, QObject::tr("phase complete"), vp.phaseDone},
      {S::Arrow, QObject::tr("phase → released wait (×N: merged)"), vp.syncOther},
      {S::Finding, QObject::tr("blocking"), vp.severity(0)},
      {S::Finding, QObject::tr("report"), vp.severity(1)},
      {S::Finding, QObject::tr("hint"), vp.severity(2)},
      {S::Band, QObject::tr("lanes: one per warp role"), vp.band[1]},
  };
}

QFont legendFont() {
  QFont f(QStringLiteral("DejaVu Sans"));
  f.setPixelSize(10);
  return f;
}

} // namespace

TimelineLegend::TimelineLegend(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("timelineLegend"));
  // Its rows for the width when there is room, less (clipped) when the dock is at its minimum:
  // the legend never makes the timeline dock, and so the window, taller than it must be.
  QSizePolicy sp(QSizePolicy::Preferred, QSizePolicy::Maximum);
  sp.setHeightForWidth(true);
  setSizePolicy(sp);
}

QStringList TimelineLegend::entries() const {
  QStringList out;
  for (const Entry& e : entriesOf(views::ViewPalette::forPalette(palette())))
    out << e.text;
  return out;
}

int TimelineLegend::layoutRows(int width, QVector<QRectF>* boxes) const {
  QFontMetrics fm(legendFont());
  double x = kPad, y = 2;
  for (const Entry& e : entriesOf(views::ViewPalette::forPalette(palette()))) {
    double w = kSwatch + 4 + fm.horizontalAdvance(e.text) + 12;
    if (x + w > width - kPad && x > kPad) {
      x = kPad;
      y += kRow;
    }
    if (boxes)
      *boxes << QRectF(x, y, w, kRow);
    x += w;
  }
  return int(y + kRow + 2);
}

int TimelineLegend::heightForWidth(int width) const { return layoutRows(width); }

QSize TimelineLegend::sizeHint() const {
  return {600, layoutRows(width() > 0 ? width() : 600)};
}

QSize TimelineLegend::minimumSizeHint() const { return {0, 0}; }

void TimelineLegend::resizeEvent(QResizeEvent* e) {
  if (layoutRows(e->size().width()) != layoutRows(e->oldSize().width()))
    updateGeometry(); // the row count changed: the layout asks heightForWidth again
}

void TimelineLegend::paintEvent(QPaintEvent*) {
  const views::ViewPalette& vp = views::ViewPalette::forPalette(palette());
  QPainter p(this);
  p.fillRect(rect(), vp.header);
  p.setRenderHint(QPainter::Antialiasing, true);
  p.setFont(legendFont());
  QVector<QRectF> boxes;
  layoutRows(width(), &boxes);
  QVector<Entry> entries = entriesOf(vp);
  for (int i = 0; i < entries.size() && i < boxes.size(); ++i) {
    const Entry& e = entries[i];
    QRectF sw(boxes[i].left(), boxes[i].top() + 3, kSwatch, kRow - 6);
    QPointF c = sw.center();
    p.setPen(Qt::NoPen);
    p.setBrush(e.color);
    switch (e.swatch) {
    case Swatch::Block:
      p.setPen(QPen(vp.dark ? e.color.lighter(170) : e.color.darker(140), 0.8));
      p.drawRoundedRect(sw, 2, 2);
      break;
    case Swatch::Wait:
      p.setBrush(vp.canvas);
      p.drawRect(sw.adjusted(0, 3, 0, -3));
      p.setBrush(QBrush(e.color, Qt::BDiagPattern));
      p.drawRect(sw.adjusted(0, 3, 0, -3));
      break;
    case Swatch::Triangle: {
      QPolygonF tri;
      tri << QPointF(c.x(), sw.top()) << QPointF(c.x() - 4, sw.bottom())
          << QPointF(c.x() + 4, sw.bottom());
      p.drawPolygon(tri);
      break;
    }
    case Swatch::Circle:
      p.drawEllipse(c, 3.5, 3.5);
      break;
    case Swatch::Arrow: {
      p.setPen(QPen(e.color, 1.2));
      p.drawLine(QPointF(sw.left(), c.y()), QPointF(sw.right() - 4, c.y()));
      p.setPen(Qt::NoPen);
      QPolygonF head;
      head << QPointF(sw.right(), c.y()) << QPointF(sw.right() - 6, c.y() - 3)
           << QPointF(sw.right() - 6, c.y() + 3);
      p.drawPolygon(head);
      break;
    }
    case Swatch::Finding: {
      QPolygonF tri;
      tri << QPointF(c.x(), sw.bottom()) << QPointF(c.x() - 6, sw.top())
          << QPointF(c.x() + 6, sw.top());
      p.drawPolygon(tri);
      break;
    }
    case Swatch::Band:
      p.setBrush(vp.band[0]);
      p.drawRect(QRectF(sw.left(), sw.top(), sw.width(), sw.height() / 2));
      p.setBrush(vp.band[1]);
      p.drawRect(QRectF(sw.left(), c.y(), sw.width(), sw.height() / 2));
      break;
    }
    p.setPen(vp.mutedText);
    p.drawText(boxes[i].adjusted(kSwatch + 4, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, e.text);
  }
}

} // namespace cake::widgets
