// Label placement of the IR graph: node texts and badges, cluster titles, edge labels.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/GraphLabels.h"

#include <QHash>
#include <algorithm>
#include <cmath>
#include <numeric>

namespace cake::views {

QString elideToWidth(const QString& text, double width, const TextMeasure& measure) {
  if (measure(text) <= width)
    return text;
  const QString ellipsis(QChar(0x2026));
  if (measure(ellipsis) > width)
    return {};
  // The fitting prefixes are a range [0, n]: search its end.
  qsizetype lo = 0, hi = text.size() - 1;
  while (lo < hi) {
    qsizetype mid = (lo + hi + 1) / 2;
    if (measure(text.left(mid) + ellipsis) <= width)
      lo = mid;
    else
      hi = mid - 1;
  }
  if (lo > 0 && text.at(lo - 1).isHighSurrogate())
    --lo;
  return text.left(lo) + ellipsis;
}

QString findingBadgeText(int findings) {
  if (findings <= 0)
    return {};
  return findings > 9 ? QStringLiteral("9+") : QString::number(findings);
}

namespace {
// Node geometry (scene units at 72 dpi). The title line sits 4 below the top, the detail line
// 16 below it; both keep 8 from the sides. The cost percentage takes 36 of the title line's
// right end; the badge's disc (15) straddles the top right corner and reaches 12 into it.
constexpr double kPadX = 8, kPadY = 4, kTitleHeight = 15, kDetailGap = 16, kDetailHeight = 14;
constexpr double kCostWidth = 36, kCostRightGap = 8, kCostTop = 3, kCostHeight = 14;
constexpr double kBadge = 15, kBadgeInset = 7, kBadgeReach = 12;
constexpr double kTag = 14;
} // namespace

NodeLabels layoutNodeLabels(const NodeLabelInput& node, const TextMeasure& titleMeasure,
                            const TextMeasure& detailMeasure) {
  NodeLabels out;
  const double w = node.size.width(), h = node.size.height();
  const double inner = std::max(0.0, w - 2 * kPadX);
  const bool cost = node.costShare >= kMinCostShare;
  double titleWidth = inner;
  if (node.findings > 0) {
    titleWidth -= kBadgeReach;
    out.badge = QRectF(w - kBadgeInset, -kBadgeInset, kBadge, kBadge);
    out.badgeText = findingBadgeText(node.findings);
  }
  if (cost) {
    titleWidth -= kCostWidth;
    out.costText = QRectF(w - kCostRightGap - kCostWidth, kCostTop, kCostWidth, kCostHeight);
    out.costLabel = QStringLiteral("%1%").arg(int(std::lround(node.costShare * 100)));
    out.costBar = QRectF(4, h - 3, (w - 8) * std::min(1.0, node.costShare), 2);
  }
  titleWidth = std::max(0.0, titleWidth);
  out.title = QRectF(kPadX, kPadY, titleWidth, kTitleHeight);
  out.titleText = elideToWidth(node.title, titleWidth, titleMeasure);
  out.detail = QRectF(kPadX, kPadY + kDetailGap, inner, kDetailHeight);
  out.detailText = elideToWidth(node.detail, inner, detailMeasure);
  if (node.diffMark)
    out.diffTag = QRectF(-6, -8, kTag, kTag);
  // The selection ring (3 outside) and the diff ring (2 outside) plus half their pens.
  out.bounds = QRectF(QPointF(0, 0), node.size).adjusted(-5, -5, 5, 5);
  for (const QRectF& r : {out.badge, out.diffTag})
    if (!r.isEmpty())
      out.bounds |= r.adjusted(-1, -1, 1, 1);
  return out;
}

ClusterLabels layoutClusterLabels(const QRectF& box, const QString& label,
                                  const TextMeasure& measure) {
  ClusterLabels out;
  out.toggle = QRectF(box.right() - 20, box.top() + 5, 14, 14);
  // The title keeps 9 from the left edge and 5 from the toggle.
  double width = std::max(0.0, out.toggle.left() - 5 - (box.left() + 9));
  out.title = QRectF(box.left() + 9, box.top() + 4, width, 16);
  out.titleText = elideToWidth(label, width, measure);
  return out;
}

int edgeLabelPriority(EdgeKind kind) {
  switch (kind) {
  case EdgeKind::Sync:
    return 0;
  case EdgeKind::Data:
    return 1;
  case EdgeKind::Order:
  case EdgeKind::Rendezvous:
    break;
  }
  return 2;
}

QRectF edgeLabelRect(const QPointF& center, const QString& text, const TextMeasure& measure,
                     double lineHeight) {
  QSizeF s(measure(text) + 8, lineHeight + 2);
  return {center - QPointF(s.width() / 2, s.height() / 2), s};
}

const QVector<QPointF>& edgeLabelOffsets() {
  static const QVector<QPointF> offsets = [] {
    QVector<QPointF> o;
    for (double dy : {0.0, -13.0, 13.0, -26.0, 26.0})
      for (double dx : {0.0, 30.0, -30.0})
        o << QPointF(dx, dy);
    return o;
  }();
  return offsets;
}

namespace {
/// Placed boxes bucketed by a coarse grid: a query looks at the few boxes of the cells it
/// touches, not at all of them.
class BoxGrid {
public:
  void add(const QRectF& r) {
    int i = int(m_boxes.size());
    m_boxes << r;
    forCells(r, [&](quint64 key) {
      m_cells[key] << i;
      return true;
    });
  }
  bool free(const QRectF& r) const {
    return forCells(r, [&](quint64 key) {
      auto it = m_cells.constFind(key);
      if (it == m_cells.constEnd())
        return true;
      return std::none_of(it->begin(), it->end(), [&](int i) { return m_boxes[i].intersects(r); });
    });
  }

private:
  static constexpr double kCell = 128;
  template <class Fn> static bool forCells(const QRectF& r, Fn&& fn) {
    int x0 = int(std::floor(r.left() / kCell)), x1 = int(std::floor(r.right() / kCell));
    int y0 = int(std::floor(r.top() / kCell)), y1 = int(std::floor(r.bottom() / kCell));
    for (int x = x0; x <= x1; ++x)
      for (int y = y0; y <= y1; ++y)
        if (!fn((quint64(quint32(x)) << 32) | quint32(y)))
          return false;
    return true;
  }
  QVector<QRectF> m_boxes;
  QHash<quint64, QVector<int>> m_cells;
};
} // namespace

QVector<EdgeLabelPlacement> placeEdgeLabels(const QVector<QRectF>& obstacles,
                                            const QVector<EdgeLabelRequest>& labels) {
  QVector<EdgeLabelPlacement> out(labels.size());
  BoxGrid grid;
  for (const QRectF& r : obstacles)
    grid.add(r.adjusted(-2, -2, 2, 2));
  QVector<int> order(labels.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return labels[a].priority < labels[b].priority; });
  for (int i : order) {
    const QRectF& want = labels[i].rect;
    out[i].rect = want;
    if (want.isEmpty())
      continue;
    for (const QPointF& d : edgeLabelOffsets()) {
      QRectF moved = want.translated(d);
      if (grid.free(moved)) {
        out[i] = {moved, true};
        grid.add(moved.adjusted(-1, -1, 1, 1));
        break;
      }
    }
  }
  return out;
}

} // namespace cake::views
