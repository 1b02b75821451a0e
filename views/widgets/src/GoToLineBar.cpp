// Go to line bar of the editor: "LINE[:COLUMN]", Enter jumps, Esc closes.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/GoToLineBar.h"

#include "cake/widgets/CodeEditor.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>

namespace cake::widgets {

GoToLineBar::GoToLineBar(CodeEditor* editor, QWidget* parent)
    : QWidget(parent), m_editor(editor), m_field(new QLineEdit(this)), m_hint(new QLabel(this)) {
  setObjectName(QStringLiteral("goToLineBar"));
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(4, 2, 4, 2);
  auto* label = new QLabel(tr("Go to line:"), this);
  label->setBuddy(m_field);
  m_field->setObjectName(QStringLiteral("goToLineField"));
  m_field->setPlaceholderText(tr("line[:column]"));
  m_field->installEventFilter(this);
  m_hint->setObjectName(QStringLiteral("goToLineHint"));
  layout->addWidget(label);
  layout->addWidget(m_field, 1);
  layout->addWidget(m_hint);
  hide();
}

void GoToLineBar::open() {
  m_field->setText(QString::number(m_editor->cursorLine()));
  m_hint->setText(tr("1–%1").arg(m_editor->document()->blockCount()));
  show();
  m_field->setFocus(Qt::ShortcutFocusReason);
  m_field->selectAll();
}

bool GoToLineBar::parse(const QString& text, int lines, int* line, int* column) {
  static const QRegularExpression re(
      QStringLiteral("^\\s*(\\d{1,9})\\s*(?::\\s*(\\d{1,9})\\s*)?$"));
  QRegularExpressionMatch m = re.match(text);
  if (!m.hasMatch())
    return false;
  int l = m.captured(1).toInt();
  int c = m.captured(2).isEmpty() ? 1 : m.captured(2).toInt();
  if (l < 1 || l > lines || c < 1)
    return false;
  *line = l;
  *column = c;
  return true;
}

bool GoToLineBar::accept() {
  int line = 0, column = 0;
  const int lines = m_editor->document()->blockCount();
  if (!parse(m_field->text(), lines, &line, &column)) {
    m_hint->setText(tr("not a line in 1–%1").arg(lines));
    return false;
  }
  close();
  // goTo clamps the column to the line; the cursor move publishes the op on that line.
  m_editor->goTo(line, column, true);
  return true;
}

void GoToLineBar::close() {
  hide();
  m_editor->setFocus(Qt::OtherFocusReason);
  Q_EMIT closed();
}

bool GoToLineBar::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_field && event->type() == QEvent::KeyPress) {
    auto* key = static_cast<QKeyEvent*>(event);
    if (key->key() == Qt::Key_Escape) {
      close();
      return true;
    }
    if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
      accept();
      return true;
    }
  }
  if (watched == m_field && event->type() == QEvent::ShortcutOverride &&
      static_cast<QKeyEvent*>(event)->key() == Qt::Key_Escape) {
    event->accept();
    return true;
  }
  return QWidget::eventFilter(watched, event);
}

} // namespace cake::widgets
