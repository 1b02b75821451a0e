// What the Lineage canvas draws, as plain data computed off the GUI thread from a laid-out
// lineage graph: node boxes with their texts and tooltips, edge paths with arrow heads and
// styles. The widget only turns it into items (in slices) and paints it with the palette.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/GraphLayout.h"
#include "cake/views/LineageData.h"

#include <QPainterPath>
#include <QPolygonF>
#include <QRectF>
#include <QString>
#include <QVector>
#include <memory>

namespace cake::views {

/// One candidate box: graph node `index` of the drawn LineageGraph.
struct LineageSceneNode {
  QRectF rect; ///< scene coordinates
  QString title, detail;
  QString tooltip; ///< "id — outcome\nauthor\nrationale\nfindings: …\npredicted … µs"
  CandidateOutcome outcome = CandidateOutcome::Correct;
  bool best = false;   ///< on the best path (outlined)
  bool dimmed = false; ///< shown only for the best path
};

/// One parent → child edge: graph edge `index` of the drawn LineageGraph.
struct LineageSceneEdge {
  QPainterPath path;  ///< the Bézier pieces of the layout, ending at the arrow's base
  QPolygonF arrow;    ///< the arrow head at the child (empty: none)
  EdgeKind kind = EdgeKind::Data; ///< Data derived-from, Sync inspiration, Order contracted
  bool best = false;  ///< between consecutive best-path candidates
  QString tooltip;
};

/// A laid-out lineage graph ready to draw; index-aligned with its graph's nodes and edges
/// (an edge without geometry has an empty path).
struct LineageScene {
  QVector<LineageSceneNode> nodes;
  QVector<LineageSceneEdge> edges;
  QRectF sceneRect; ///< the layout's bounds with a margin
};
using LineageScenePtr = std::shared_ptr<const LineageScene>;

/// Builds the scene data (thread-safe: reads its arguments only). Nodes or edges the layout
/// has no geometry for are left out of `nodes` / get an empty path.
LineageScene buildLineageScene(const Lineage& lineage, const LineageGraph& graph,
                               const GraphLayout& layout);

/// The tooltip of a candidate node (id, outcome, author, rationale, findings, times).
QString candidateTooltip(const LineageNode& node, const QString& title);

/// The arrow head of an edge ending at `base` and pointing at `tip` (empty when too short).
QPolygonF lineageArrowHead(QPointF base, QPointF tip);

} // namespace cake::views
