// Go to line bar of the editor: "LINE[:COLUMN]", Enter jumps, Esc closes.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/GoToLineBar.h"

#include "cake/widgets/CodeEditor.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>

namespace cake::widgets {

GoToLineBar::GoToLineBar(CodeEditor* editor, QWidget* parent)
    : EditorBar(editor, QStringLiteral("goToLineBar"), tr("Go to line:"),
                QStringLiteral("goToLineField"), parent),
      m_editor(editor), m_hint(new QLabel(this)) {
  m_field->setPlaceholderText(tr("line[:column]"));
  m_hint->setObjectName(QStringLiteral("goToLineHint"));
  rowLayout()->addWidget(m_hint);
}

void GoToLineBar::open() {
  m_field->setText(QString::number(m_editor->cursorLine()));
  m_hint->setText(tr("1–%1").arg(m_editor->document()->blockCount()));
  showAndFocus();
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

void GoToLineBar::enterPressed(Qt::KeyboardModifiers) {
  accept();
}

} // namespace cake::widgets
