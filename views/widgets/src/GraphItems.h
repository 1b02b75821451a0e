// The IR graph's scene: items for nodes, edges and clusters painted from the shared palette
// and the label-placement model (views::GraphLabels), and the builder that makes them from a
// description and its layout. The interaction (search, keys, collapse, selection, overlays)
// stays in the view (GraphView.cpp).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/CompareData.h"
#include "cake/views/GraphLabels.h"
#include "cake/views/GraphLayout.h"
#include "cake/views/ViewPalette.h"

#include <QFont>
#include <QGraphicsItem>
#include <QImage>
#include <QPainterPath>
#include <QPen>
#include <QSet>

class QGraphicsScene;

namespace cake::widgets {

class GraphView;

/// Fonts of the graph (pixel sizes: the scene is in points at 72 dpi).
QFont graphTitleFont();
QFont graphDetailFont();
QFont graphLabelFont();
QFont graphClusterFont(bool role);

/// An edge's colour and pen (width and dash by kind; thicker when highlighted).
QColor graphEdgeColor(const views::GraphEdge& e, const views::ViewPalette& pal);
QPen graphEdgePen(const views::GraphEdge& e, bool highlighted, const views::ViewPalette& pal);
/// A Compare mark's colour (invalid for none).
QColor graphDiffColor(views::DiffMark mark, const views::ViewPalette& pal);

class NodeItem : public QGraphicsItem {
public:
  NodeItem(GraphView* owner, int index, const views::GraphNode& node,
           const views::NodeGeometry& geo);
  QRectF boundingRect() const override { return m_bounds; }
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) override;
  void setState(bool selected, bool match, bool currentMatch);
  int index() const { return m_index; }
  const views::GraphNode& node() const { return m_node; }

protected:
  void mousePressEvent(QGraphicsSceneMouseEvent* e) override;
  void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* e) override;

private:
  GraphView* m_owner;
  int m_index;
  views::GraphNode m_node;
  QSizeF m_size;
  QRectF m_bounds;
  bool m_selected = false, m_match = false, m_currentMatch = false;
};

class EdgeItem : public QGraphicsItem {
public:
  /// `diffColor` valid: an edge of this side only (Compare view).
  EdgeItem(const views::GraphEdge& edge, const views::EdgeGeometry& geo, QColor diffColor = {});
  QRectF boundingRect() const override;
  QPainterPath shape() const override;
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) override;
  void setHighlighted(bool h);
  /// The label's box where the layout put it (empty: no label).
  QRectF preferredLabelRect() const { return m_preferredLabel; }
  /// The outcome of label placement: drawn at `rect`, or not at all.
  void setLabelPlacement(const views::EdgeLabelPlacement& placement);
  bool labelVisible() const { return m_labelVisible; }
  QRectF labelRect() const { return m_labelRect; }
  const views::GraphEdge& edge() const { return m_edge; }
  bool diffMarked() const { return m_diffColor.isValid(); }

private:
  views::GraphEdge m_edge;
  QColor m_diffColor;
  QPainterPath m_path;
  QPolygonF m_arrow;
  QRectF m_bounds, m_preferredLabel, m_labelRect;
  bool m_highlighted = false;
  bool m_labelVisible = false;
};

class ClusterItem : public QGraphicsItem {
public:
  ClusterItem(GraphView* owner, const views::GraphCluster& cluster, const QRectF& box, int depth);
  QRectF boundingRect() const override { return m_box.adjusted(-2, -2, 2, 2); }
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) override;
  QRectF toggleRect() const;

protected:
  void mousePressEvent(QGraphicsSceneMouseEvent* e) override;

private:
  GraphView* m_owner;
  views::GraphCluster m_cluster;
  QRectF m_box;
  int m_depth;
};

/// What the builder put in the scene, index-aligned with the description's nodes and edges.
struct GraphSceneItems {
  QVector<NodeItem*> nodes;
  QVector<EdgeItem*> edges;
  QVector<ClusterItem*> clusters;
};

/// Fills `scene` (cleared first) with the clusters, edges and nodes of `graph` at `layout`,
/// edges of this side only (views::edgeDiffKey in `diffEdges`) in `edgeMark`'s colour, and
/// the edge labels placed by views::placeEdgeLabels; sets the scene rectangle around it all.
GraphSceneItems buildGraphScene(QGraphicsScene& scene, GraphView* owner,
                                const views::GraphDescription& graph,
                                const views::GraphLayout& layout, const QSet<QString>& diffEdges,
                                views::DiffMark edgeMark, const views::ViewPalette& pal);

/// The minimap's picture of a graph (boxes and straight edges, no text) for `sceneRect`,
/// at most 190 x 150 and at least 36 x 24 pixels: drawn from the layout's geometry, since a
/// scene render of thousands of items would hold the GUI thread for tens of milliseconds.
QImage renderGraphMinimap(const views::GraphDescription& graph, const views::GraphLayout& layout,
                          const QRectF& sceneRect, const views::ViewPalette& pal);

} // namespace cake::widgets
