// The timeline's legend: what the block colours, hatching, marks, arrows and finding marks
// mean, in a strip under the lanes (TimelineView shows or hides it).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

namespace cake::widgets {

class TimelineLegend : public QWidget {
public:
  explicit TimelineLegend(QWidget* parent = nullptr);
  /// The legend entries' texts, in drawing order (tests).
  QStringList entries() const;
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

protected:
  void paintEvent(QPaintEvent*) override;
  void resizeEvent(QResizeEvent*) override;

private:
  /// Lays the entries out in rows of `width`; returns the height they take.
  int layoutRows(int width, QVector<QRectF>* boxes = nullptr) const;
};

} // namespace cake::widgets
