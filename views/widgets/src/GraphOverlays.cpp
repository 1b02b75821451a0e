// The graph canvas' minimap and legend overlays.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "GraphOverlays.h"

#include "GraphItems.h"
#include "cake/views/ViewPalette.h"

#include <QGraphicsView>
#include <QMouseEvent>
#include <QPainter>
#include <algorithm>

namespace cake::widgets {

GraphMinimap::GraphMinimap(QGraphicsView* canvas, QWidget* parent)
    : QWidget(parent), m_canvas(canvas) {
  setObjectName(QStringLiteral("graphMinimap"));
  setCursor(Qt::PointingHandCursor);
  setToolTip(QStringLiteral("minimap: click or drag to move"));
}

void GraphMinimap::setImage(const QImage& image, const QRectF& sceneRect) {
  m_image = image;
  m_sceneRect = sceneRect;
  setVisible(!image.isNull());
  fitInto(m_extent);
}

void GraphMinimap::fitInto(const QSize& extent) {
  m_extent = extent;
  if (m_image.isNull()) {
    setFixedSize(0, 0);
    return;
  }
  double s = std::min(
      {1.0, (extent.width() - 4.0) / m_image.width(), (extent.height() - 4.0) / m_image.height()});
  QSize size = (QSizeF(m_image.size()) * std::max(0.0, s)).toSize().expandedTo(QSize(8, 8));
  setFixedSize(size + QSize(4, 4));
  update();
}

QRectF GraphMinimap::toMap(const QRectF& scene) const {
  double sx = (width() - 4) / m_sceneRect.width(), sy = (height() - 4) / m_sceneRect.height();
  return {2 + (scene.left() - m_sceneRect.left()) * sx, 2 + (scene.top() - m_sceneRect.top()) * sy,
          scene.width() * sx, scene.height() * sy};
}

QPointF GraphMinimap::toScene(QPointF p) const {
  double sx = (width() - 4) / m_sceneRect.width(), sy = (height() - 4) / m_sceneRect.height();
  return {m_sceneRect.left() + (p.x() - 2) / sx, m_sceneRect.top() + (p.y() - 2) / sy};
}

void GraphMinimap::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const views::ViewPalette& pal = views::ViewPalette::forPalette(palette());
  p.fillRect(rect(), pal.plate);
  p.setPen(pal.headerEdge);
  p.drawRect(rect().adjusted(0, 0, -1, -1));
  p.setRenderHint(QPainter::SmoothPixmapTransform);
  p.drawImage(QRectF(2, 2, width() - 4, height() - 4), m_image);
  QRectF visible = m_canvas->mapToScene(m_canvas->viewport()->rect()).boundingRect();
  QRectF frame = toMap(visible).intersected(QRectF(rect()).adjusted(1, 1, -1, -1));
  p.setPen(QPen(pal.selection, 1.5));
  p.setBrush(views::ViewPalette::tint(pal.selection, 30));
  p.drawRect(frame);
}

void GraphMinimap::mousePressEvent(QMouseEvent* e) {
  m_canvas->centerOn(toScene(e->position()));
}

void GraphMinimap::mouseMoveEvent(QMouseEvent* e) {
  if (e->buttons() & Qt::LeftButton)
    m_canvas->centerOn(toScene(e->position()));
}

GraphLegend::GraphLegend(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("graphLegend"));
  setAttribute(Qt::WA_TransparentForMouseEvents);
  setFixedSize(176, 16 * 8 + 10);
}

void GraphLegend::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const views::ViewPalette& pal = views::ViewPalette::forPalette(palette());
  p.setPen(pal.headerEdge);
  p.setBrush(pal.plate);
  p.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 5, 5);
  p.setFont(graphLabelFont());
  struct Row {
    views::EdgeKind kind;
    views::SyncMechanism mech;
    const char* text;
  };
  const Row rows[] = {
      {views::EdgeKind::Order, views::SyncMechanism::None, "program order"},
      {views::EdgeKind::Data, views::SyncMechanism::None, "data (buffer)"},
      {views::EdgeKind::Sync, views::SyncMechanism::CompleteTx, "TMA complete_tx"},
      {views::EdgeKind::Sync, views::SyncMechanism::Arrive, "arrive / expect_tx"},
      {views::EdgeKind::Sync, views::SyncMechanism::Commit, "tcgen05.commit"},
      {views::EdgeKind::Rendezvous, views::SyncMechanism::None, "CTA / named barrier"}};
  double y = 12;
  auto text = [&](const QString& t) {
    p.setPen(pal.text);
    p.drawText(QRectF(50, y - 8, 124, 16), Qt::AlignLeft | Qt::AlignVCenter, t);
    y += 16;
  };
  for (const Row& r : rows) {
    views::GraphEdge e;
    e.kind = r.kind;
    e.mechanism = r.mech;
    p.setPen(graphEdgePen(e, false, pal));
    p.drawLine(QPointF(10, y), QPointF(42, y));
    text(QString::fromLatin1(r.text));
  }
  for (int s = 0; s < 3; ++s) {
    p.setPen(QPen(pal.severity(s), 2));
    p.setBrush(pal.canvas);
    p.drawRoundedRect(QRectF(10 + s * 12, y - 5, 9, 10), 2, 2);
  }
  text(QStringLiteral("finding on op"));
  p.setPen(QPen(pal.border, 1, Qt::DashLine));
  p.setBrush(QBrush(pal.hatch, Qt::BDiagPattern));
  p.drawRoundedRect(QRectF(10, y - 5, 32, 10), 2, 2);
  text(QStringLiteral("collapsed cluster"));
}

} // namespace cake::widgets
