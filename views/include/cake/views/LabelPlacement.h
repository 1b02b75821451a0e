// Point labels of a chart placed without clipping or overlap: each label starts where its
// alignment puts it next to its anchor, is pushed inside the plot area, then moved to the
// nearest free slot above or below; a label that moved away from its anchor gets a leader line.
// Plain geometry, unit tested (tst_perf); the plot adapter only draws the result.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QPointF>
#include <QRectF>
#include <QVector>

namespace cake::views {

struct LabelRequest {
  QPointF anchor;           ///< the point the label names (pixels)
  QSizeF size;              ///< the label's box (pixels)
  Qt::Alignment align = {}; ///< which side of the box the anchor is on (as QCPItemText)
};

struct PlacedLabel {
  QRectF rect;
  /// The box no longer touches its anchor: draw a line from the anchor to leaderEnd.
  bool leader = false;
  QPointF leaderEnd; ///< the point of the box nearest to the anchor
};

/// The box a label takes at its anchor before placement.
QRectF preferredLabelRect(const LabelRequest& label);

/// Places `labels` in order inside `bounds` (a box larger than the bounds keeps its top-left
/// corner inside): none overlaps an earlier one while a free slot within `maxShift` pixels
/// above or below exists.
QVector<PlacedLabel> placeLabels(const QVector<LabelRequest>& labels, const QRectF& bounds,
                                 double maxShift = 200);

} // namespace cake::views
