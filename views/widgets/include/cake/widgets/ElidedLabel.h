// A one-line label for status text in narrow docks: elided with "…" to its width, the whole
// text in the tooltip, and a small minimum width so it never widens its view (B5/B6).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLabel>

namespace cake::widgets {

class ElidedLabel : public QLabel {
  Q_OBJECT
public:
  explicit ElidedLabel(QWidget* parent = nullptr);
  /// Minimum width: a few characters, whatever the text.
  QSize minimumSizeHint() const override;
  /// The text as painted (elided to the current width).
  QString shownText() const;

protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;
};

} // namespace cake::widgets
