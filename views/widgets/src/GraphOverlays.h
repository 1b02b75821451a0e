// Overlays over the graph canvas: the minimap (the whole graph with the visible part framed;
// click or drag to move there) and the legend of line styles and marks.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QImage>
#include <QWidget>

class QGraphicsView;

namespace cake::widgets {

class GraphMinimap : public QWidget {
public:
  GraphMinimap(QGraphicsView* canvas, QWidget* parent);
  /// The picture (renderGraphMinimap) and the scene rectangle it shows; a null image hides it.
  void setImage(const QImage& image, const QRectF& sceneRect);
  /// Fits the minimap into `extent` (the picture scaled down, never up, aspect kept): on a
  /// small canvas (a 1024x640 screen) it must not cover the graph it maps.
  void fitInto(const QSize& extent);

protected:
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;

private:
  QRectF toMap(const QRectF& scene) const;
  QPointF toScene(QPointF p) const;
  QGraphicsView* m_canvas;
  QImage m_image;
  QRectF m_sceneRect;
  QSize m_extent{190, 150};
};

/// What the line styles, outlines and hatching mean.
class GraphLegend : public QWidget {
public:
  explicit GraphLegend(QWidget* parent);

protected:
  void paintEvent(QPaintEvent*) override;
};

} // namespace cake::widgets
