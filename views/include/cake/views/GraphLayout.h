// Graph layout behind a plain interface: a GraphDescription in, node positions, edge splines
// and cluster boxes out. Graphviz `dot` does the work (in exactly one file, GraphvizLayout.cpp);
// a trivial layered layout by program order takes over when Graphviz fails.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/GraphDescription.h"

#include <QByteArray>
#include <QPointF>
#include <QRectF>
#include <QString>
#include <QVector>

namespace cake::views {

struct LayoutOptions {
  /// Graphviz layout engine. Anything but "dot" is for tests: an unknown engine makes Graphviz
  /// fail, which must end in the fallback layout.
  QString engine = QStringLiteral("dot");
  /// false: skip Graphviz and use the fallback layout directly.
  bool useGraphviz = true;
  /// Mirror dot's layout when that puts the roles closer to declaration order
  /// (orderRolesByDeclaration); false for tests that measure dot alone.
  bool orderRoles = true;
};

struct NodeGeometry {
  QPointF center; ///< scene coordinates (points at 72 dpi, y grows downwards)
  QSizeF size;
  QRectF rect() const { return {center.x() - size.width() / 2, center.y() - size.height() / 2, size.width(), size.height()}; }
};

struct EdgeGeometry {
  /// Cubic Bézier pieces: start, then (control, control, end) per piece; a straight edge is one
  /// piece with controls on the line.
  QVector<QPointF> points;
  /// Where the arrow head's tip is (the path ends at its base); equals points.last() when none.
  QPointF arrowTip;
  bool hasArrow = true;
  QPointF labelPos;
  bool hasLabel = false;
};

struct ClusterGeometry {
  QRectF box;
};

struct GraphLayout {
  QVector<NodeGeometry> nodes;     ///< index-aligned with GraphDescription::nodes
  QVector<EdgeGeometry> edges;     ///< index-aligned with GraphDescription::edges
  QVector<ClusterGeometry> clusters; ///< index-aligned with GraphDescription::clusters
  QRectF bounds;
  bool fallback = false; ///< Graphviz failed (or was not asked); `error` says why
  QString error;
  QString engine;        ///< "dot" or "fallback"
  qint64 elapsedMs = 0;

  /// Every node has a finite position and a size.
  bool complete(const GraphDescription& graph) const;
};

enum class NavDirection : quint8 { Up, Down, Left, Right };

/// Keyboard navigation: the node nearest to `from` in a direction (within a 45° cone on either
/// side, else anywhere in that half-plane; the sideways offset weighs double), or -1.
int neighbourInDirection(const GraphLayout& layout, int from, NavDirection direction);

/// Puts the top-level role clusters as close to declaration order, left to right, as dot's
/// layout allows. dot's crossing minimisation may place two roles either way round, and adding
/// or removing one operation can flip them (every node jumps to the other side); dot honours no
/// order constraint between clusters (flat edges, `ordering=out` and rank anchors between them
/// were tried and ignored). A mirrored layout has the same crossings, so the layout is mirrored
/// (x ↦ left + right − x for nodes, splines, labels, clusters) when more pairs of roles are out
/// of declaration order than in it. True when it mirrored.
bool orderRolesByDeclaration(const GraphDescription& graph, GraphLayout& layout);

/// Graphviz first, the fallback when it fails. Thread-safe: Graphviz calls are serialized.
GraphLayout layoutGraph(const GraphDescription& graph, const LayoutOptions& options = {});

/// Layered by program order: one column per role, one row per operation in order, clusters as
/// the boxes around their nodes, straight edges.
GraphLayout fallbackLayout(const GraphDescription& graph);

/// What the DOT text carries.
struct DotOptions {
  /// Back edges (constraint=false) and rendezvous edges; without them they are routed by us.
  bool backEdges = true;
  /// Edge labels (dot reserves room for them); without them labels sit on the spline's middle.
  bool edgeLabels = true;
  /// One network-simplex pass for ranks and positions (nslimit, nslimit1): about half the time
  /// on large graphs, at the price of less straight columns.
  bool quick = false;
};

/// Graphs up to this many nodes get back edges and labels laid out by Graphviz. Above it,
/// Graphviz 2.42 corrupts its heap on constraint=false edges between clusters (seen on the
/// generated 2,000-op kernel) and label nodes make `dot` ten times slower, so both are ours;
/// and `dot` gets the quick settings.
inline constexpr int kGraphvizFullFeatureNodes = 400;

/// The DOT text of a graph (newrank, fixed node sizes at 72 dpi, constraint=false on back
/// edges, clusters per role and loop). With default options, the "Export DOT" format.
QByteArray toDot(const GraphDescription& graph, const DotOptions& options = {});
/// The options layoutGraph() hands to Graphviz for this graph.
DotOptions layoutDotOptions(const GraphDescription& graph);

namespace detail {
/// Routes the edges a layout has no points for (side curves, arrow at the target) and puts the
/// labels dot did not place on the middle of their edge.
void routeMissingEdges(const GraphDescription& graph, GraphLayout& layout);

/// Runs Graphviz on the DOT text of `graph`; false (and `error`) when it fails. Defined in
/// GraphvizLayout.cpp, the only file that includes Graphviz. Serialized by a global lock.
bool graphvizLayout(const GraphDescription& graph, const LayoutOptions& options, GraphLayout& out,
                    QString& error);
} // namespace detail

} // namespace cake::views
