// A layout that places its items in a row and wraps them onto further rows when the width runs
// out (Qt's "Flow Layout" example), so a tool bar of filters stays usable in a narrow dock.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLayout>
#include <QList>

namespace cake::widgets {

/// Items left to right, wrapped at the width; on each row the items whose horizontal size
/// policy expands share the row's spare width. The minimum width is the widest single item, the
/// height follows the width (heightForWidth).
class FlowLayout : public QLayout {
public:
  explicit FlowLayout(QWidget* parent = nullptr, int hSpacing = 6, int vSpacing = 2);
  ~FlowLayout() override;

  void addItem(QLayoutItem* item) override;
  int count() const override;
  QLayoutItem* itemAt(int index) const override;
  QLayoutItem* takeAt(int index) override;
  Qt::Orientations expandingDirections() const override;
  bool hasHeightForWidth() const override;
  int heightForWidth(int width) const override;
  QSize minimumSize() const override;
  QSize sizeHint() const override;
  void setGeometry(const QRect& rect) override;

  /// How many rows the items take at `width` (the layout's contents margins included).
  int rowCount(int width) const;

private:
  /// Lays the items out in `rect` (only measures when `apply` is false); the height used.
  int doLayout(const QRect& rect, bool apply, int* rows = nullptr) const;

  QList<QLayoutItem*> m_items;
  int m_hSpacing;
  int m_vSpacing;
};

} // namespace cake::widgets
