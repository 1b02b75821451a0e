// Elided status label: QLabel keeps the text (setText, text()), this paints it elided.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/ElidedLabel.h"

#include <QEvent>
#include <QHelpEvent>
#include <QPainter>
#include <QStyle>
#include <QToolTip>

namespace cake::widgets {

ElidedLabel::ElidedLabel(QWidget* parent) : QLabel(parent) {
  setTextFormat(Qt::PlainText);
  setWordWrap(false);
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
}

QSize ElidedLabel::minimumSizeHint() const {
  QSize hint = QLabel::minimumSizeHint();
  int few = fontMetrics().horizontalAdvance(QStringLiteral("0000…")) + contentsMargins().left() +
            contentsMargins().right();
  return {std::min(hint.width(), few), hint.height()};
}

QString ElidedLabel::shownText() const {
  return fontMetrics().elidedText(text(), Qt::ElideRight, contentsRect().width());
}

void ElidedLabel::paintEvent(QPaintEvent*) {
  QPainter p(this);
  style()->drawItemText(&p, contentsRect(), int(alignment()) | Qt::TextSingleLine, palette(),
                        isEnabled(), shownText(), foregroundRole());
}

bool ElidedLabel::event(QEvent* e) {
  // The whole text as the tooltip when it does not fit (unless a tooltip was set).
  if (e->type() == QEvent::ToolTip && toolTip().isEmpty() && shownText() != text()) {
    QToolTip::showText(static_cast<QHelpEvent*>(e)->globalPos(), text(), this);
    return true;
  }
  return QLabel::event(e);
}

} // namespace cake::widgets
