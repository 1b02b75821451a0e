// Label placement: clamp into the plot area, then the nearest free vertical slot.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/LabelPlacement.h"

#include <algorithm>
#include <cmath>

namespace cake::views {

QRectF preferredLabelRect(const LabelRequest& l) {
  const double w = l.size.width(), h = l.size.height();
  double x = l.anchor.x() - w / 2, y = l.anchor.y() - h / 2;
  if (l.align & Qt::AlignLeft)
    x = l.anchor.x();
  else if (l.align & Qt::AlignRight)
    x = l.anchor.x() - w;
  if (l.align & Qt::AlignTop)
    y = l.anchor.y();
  else if (l.align & Qt::AlignBottom)
    y = l.anchor.y() - h;
  return {x, y, w, h};
}

namespace {

QRectF clampInto(QRectF r, const QRectF& bounds) {
  // Right/bottom first, so a box wider than the bounds keeps its start visible.
  r.moveRight(std::min(r.right(), bounds.right()));
  r.moveLeft(std::max(r.left(), bounds.left()));
  r.moveBottom(std::min(r.bottom(), bounds.bottom()));
  r.moveTop(std::max(r.top(), bounds.top()));
  return r;
}

QPointF nearestPoint(const QRectF& r, const QPointF& p) {
  return {std::clamp(p.x(), r.left(), r.right()), std::clamp(p.y(), r.top(), r.bottom())};
}

} // namespace

QVector<PlacedLabel> placeLabels(const QVector<LabelRequest>& labels, const QRectF& bounds,
                                 double maxShift) {
  QVector<PlacedLabel> out;
  out.reserve(labels.size());
  auto free = [&](const QRectF& r) {
    return std::none_of(out.cbegin(), out.cend(),
                        [&](const PlacedLabel& p) { return p.rect.intersects(r); });
  };
  for (const LabelRequest& l : labels) {
    QRectF start = clampInto(preferredLabelRect(l), bounds);
    QRectF best = start;
    if (!free(start)) {
      const double step = std::max(2.0, l.size.height() / 2);
      for (double d = step; d <= maxShift; d += step) {
        bool found = false;
        for (double dy : {d, -d}) {
          QRectF r = start.translated(0, dy);
          if (r.top() >= bounds.top() - 1e-9 && r.bottom() <= bounds.bottom() + 1e-9 && free(r)) {
            best = r;
            found = true;
            break;
          }
        }
        if (found)
          break;
      }
    }
    PlacedLabel p;
    p.rect = best;
    p.leaderEnd = nearestPoint(best, l.anchor);
    // Touching (or within 2 px of) its anchor needs no line.
    p.leader = std::hypot(p.leaderEnd.x() - l.anchor.x(), p.leaderEnd.y() - l.anchor.y()) > 2;
    out << p;
  }
  return out;
}

} // namespace cake::views
