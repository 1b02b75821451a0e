// Label placement of the IR graph: where a node's title, detail, finding badge, cost share and
// diff tag go and how they are elided, where a cluster's title and toggle go, and which edge
// labels are drawn where without covering a node or another label. Plain geometry in scene
// units, unit tested (tst_graphlabels) as TimelineGeometry is for the timeline; the graph
// view's items only paint the result.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/GraphDescription.h"

#include <QRectF>
#include <QString>
#include <QVector>
#include <functional>

namespace cake::views {

/// The width of a text in scene units (QFontMetricsF::horizontalAdvance of the font it is drawn
/// in; a fixed advance per character in tests).
using TextMeasure = std::function<double(const QString&)>;

/// `text` cut at the right and ended with "…" so that it fits `width`: the text itself when it
/// fits, the longest such prefix otherwise, "" when not even "…" fits. Never splits a UTF-16
/// surrogate pair.
QString elideToWidth(const QString& text, double width, const TextMeasure& measure);

/// The text on a node's finding badge: the count up to 9, "9+" above.
QString findingBadgeText(int findings);

/// What a node shows, besides its box.
struct NodeLabelInput {
  QSizeF size;
  QString title;  ///< primitive name (bold)
  QString detail; ///< operands (monospace)
  int findings = 0;
  double costShare = -1; ///< share of the predicted time; shown from kMinCostShare on
  bool diffMark = false; ///< a Compare mark (+, −, ~) on the node
};

/// Where a node's parts go, in node coordinates (the box is QRectF(QPointF(0, 0), size)).
/// Empty rectangles are parts that are not drawn.
struct NodeLabels {
  QRectF title, detail; ///< the boxes the (elided) texts are drawn in
  QString titleText, detailText;
  QRectF badge; ///< finding count, on the top right corner
  QString badgeText;
  QRectF costText; ///< "12%" at the top right, inside the box
  QString costLabel;
  QRectF costBar; ///< along the bottom edge, as long as the share
  QRectF diffTag; ///< the +, − or ~ disc on the top left corner
  /// Everything painted, for the item's bounding rectangle.
  QRectF bounds;
};

/// Shares below this are not drawn on nodes (1 % of the predicted time).
inline constexpr double kMinCostShare = 0.01;

/// Lays out a node's texts and badges: the title and detail elided to the box's inner width,
/// the title also clear of the cost percentage and the badge; the badge and the diff tag
/// straddle their corners; the cost bar grows with the share up to the inner width.
NodeLabels layoutNodeLabels(const NodeLabelInput& node, const TextMeasure& titleMeasure,
                            const TextMeasure& detailMeasure);

/// Where a cluster's title and its collapse toggle go (scene coordinates).
struct ClusterLabels {
  QRectF title;
  QString titleText; ///< elided to the room left of the toggle
  QRectF toggle;
};
ClusterLabels layoutClusterLabels(const QRectF& box, const QString& label,
                                  const TextMeasure& measure);

/// The order edge labels claim room in: synchronization (barrier, slot, phase) first, then
/// data (buffer names), then the rest (0, 1, 2).
int edgeLabelPriority(EdgeKind kind);

/// An edge label to place: its preferred box (centred on the layout's label position) and its
/// priority (edgeLabelPriority).
struct EdgeLabelRequest {
  QRectF rect;
  int priority = 2;
};

/// The label box of a text at `center`: the text's width plus 8, a line plus 2 high.
QRectF edgeLabelRect(const QPointF& center, const QString& text, const TextMeasure& measure,
                     double lineHeight);

struct EdgeLabelPlacement {
  QRectF rect;          ///< where it is drawn (its preferred box, or moved)
  bool visible = false; ///< false: no free place (the edge's tool tip still has the text)
};

/// The offsets tried, in order, from a label's preferred box: along the edge's normal first
/// (up, down, twice), then sideways.
const QVector<QPointF>& edgeLabelOffsets();

/// Places edge labels by priority, then by index, each at the first offset (edgeLabelOffsets)
/// where it overlaps no obstacle (the node boxes, grown by 2) and no label placed before it
/// (grown by 1); a label with no such place is hidden. Index-aligned with `labels`. A coarse
/// grid over the placed boxes keeps this linear in the number of labels (2,000-op graphs).
QVector<EdgeLabelPlacement> placeEdgeLabels(const QVector<QRectF>& obstacles,
                                            const QVector<EdgeLabelRequest>& labels);

} // namespace cake::views
