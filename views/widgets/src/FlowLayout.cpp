// Wrapping row layout for narrow tool bars: rows, expanding items, height for width.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/FlowLayout.h"

#include <QWidget>

#include <algorithm>

namespace cake::widgets {

FlowLayout::FlowLayout(QWidget* parent, int hSpacing, int vSpacing)
    : QLayout(parent), m_hSpacing(hSpacing), m_vSpacing(vSpacing) {}

FlowLayout::~FlowLayout() {
  while (QLayoutItem* item = takeAt(0))
    delete item;
}

void FlowLayout::addItem(QLayoutItem* item) {
  m_items.append(item);
}

int FlowLayout::count() const {
  return int(m_items.size());
}

QLayoutItem* FlowLayout::itemAt(int index) const {
  return m_items.value(index);
}

QLayoutItem* FlowLayout::takeAt(int index) {
  return index >= 0 && index < m_items.size() ? m_items.takeAt(index) : nullptr;
}

Qt::Orientations FlowLayout::expandingDirections() const {
  return {};
}

bool FlowLayout::hasHeightForWidth() const {
  return true;
}

int FlowLayout::heightForWidth(int width) const {
  return doLayout(QRect(0, 0, width, 0), false);
}

QSize FlowLayout::minimumSize() const {
  QSize size;
  for (const QLayoutItem* item : m_items)
    if (!item->isEmpty())
      size = size.expandedTo(item->minimumSize());
  const QMargins m = contentsMargins();
  return size + QSize(m.left() + m.right(), m.top() + m.bottom());
}

QSize FlowLayout::sizeHint() const {
  // One row: every item at its preferred width.
  int width = 0, height = 0, shown = 0;
  for (const QLayoutItem* item : m_items) {
    if (item->isEmpty())
      continue;
    width += item->sizeHint().width();
    height = std::max(height, item->sizeHint().height());
    ++shown;
  }
  const QMargins m = contentsMargins();
  return {width + std::max(0, shown - 1) * m_hSpacing + m.left() + m.right(),
          height + m.top() + m.bottom()};
}

void FlowLayout::setGeometry(const QRect& rect) {
  QLayout::setGeometry(rect);
  doLayout(rect, true);
}

int FlowLayout::rowCount(int width) const {
  int rows = 0;
  doLayout(QRect(0, 0, width, 0), false, &rows);
  return rows;
}

int FlowLayout::doLayout(const QRect& rect, bool apply, int* rows) const {
  const QRect area = rect.marginsRemoved(contentsMargins());
  const int top = area.y();
  int y = top;
  int rowCount = 0;
  // Items go row by row; a row is placed once it is complete, so that its spare width can go
  // to its expanding items.
  QList<QLayoutItem*> row;
  int rowWidth = 0;
  auto placeRow = [&] {
    if (row.isEmpty())
      return;
    int height = 0, expanding = 0;
    for (QLayoutItem* item : row) {
      height = std::max(height, item->sizeHint().height());
      expanding += (item->expandingDirections() & Qt::Horizontal) ? 1 : 0;
    }
    if (apply) {
      const int spare = std::max(0, area.width() - rowWidth);
      int x = area.x(), given = 0;
      for (QLayoutItem* item : row) {
        int w = std::min(item->sizeHint().width(), area.width());
        if (expanding > 0 && (item->expandingDirections() & Qt::Horizontal)) {
          // The last expanding item takes the rounding remainder.
          int share = spare / expanding;
          if (++given == expanding)
            share = spare - share * (expanding - 1);
          w += share;
        }
        item->setGeometry(
            QRect(x, y + (height - item->sizeHint().height()) / 2, w, item->sizeHint().height()));
        x += w + m_hSpacing;
      }
    }
    y += height + m_vSpacing;
    ++rowCount;
    row.clear();
    rowWidth = 0;
  };
  for (QLayoutItem* item : m_items) {
    if (item->isEmpty())
      continue;
    const int w = std::min(item->sizeHint().width(), area.width());
    if (!row.isEmpty() && rowWidth + m_hSpacing + w > area.width())
      placeRow();
    rowWidth += (row.isEmpty() ? 0 : m_hSpacing) + w;
    row.append(item);
  }
  placeRow();
  if (rows)
    *rows = rowCount;
  const int used = rowCount > 0 ? y - top - m_vSpacing : 0;
  const QMargins m = contentsMargins();
  return used + m.top() + m.bottom();
}

} // namespace cake::widgets
