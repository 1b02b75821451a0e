// Non-modal find bar of the editor: incremental search, next/previous, match count, Esc.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/FindBar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTextBlock>
#include <QTextDocument>
#include <QToolButton>

namespace cake::widgets {

FindBar::FindBar(QPlainTextEdit* editor, QWidget* parent)
    : EditorBar(editor, QStringLiteral("findBar"), tr("Find:"), QStringLiteral("findField"),
                parent),
      m_count(new QLabel(this)), m_prev(new QToolButton(this)), m_next(new QToolButton(this)) {
  m_field->setPlaceholderText(tr("text in the kernel"));
  m_field->setClearButtonEnabled(true);
  m_prev->setObjectName(QStringLiteral("findPrevious"));
  m_prev->setArrowType(Qt::UpArrow);
  m_prev->setToolTip(tr("Previous match (Shift+Enter, Shift+F3)"));
  m_next->setObjectName(QStringLiteral("findNext"));
  m_next->setArrowType(Qt::DownArrow);
  m_next->setToolTip(tr("Next match (Enter, F3)"));
  m_count->setObjectName(QStringLiteral("findCount"));
  m_count->setMinimumWidth(m_count->fontMetrics().horizontalAdvance(QStringLiteral("888 of 888")));
  rowLayout()->addWidget(m_prev);
  rowLayout()->addWidget(m_next);
  rowLayout()->addWidget(m_count);
  addCloseButton(QStringLiteral("findClose"));
  connect(m_prev, &QToolButton::clicked, this, [this] { findPrevious(); });
  connect(m_next, &QToolButton::clicked, this, [this] { findNext(); });
  // Incremental: each keystroke searches again from the start of the current match, so a
  // longer prefix keeps the match it extends instead of jumping to the next one.
  connect(m_field, &QLineEdit::textEdited, this, [this] {
    QTextCursor c = m_textEditor->textCursor();
    c.setPosition(c.selectionStart());
    m_textEditor->setTextCursor(c);
    if (!m_field->text().isEmpty())
      find(false);
    else
      recount();
  });
  // Edits change the number of matches while the bar is open.
  connect(m_textEditor->document(), &QTextDocument::contentsChanged, this, [this] {
    if (isVisible())
      recount();
  });
}

void FindBar::open() {
  QString selected = m_textEditor->textCursor().selectedText();
  // A multi-line selection reads U+2029 between its blocks: not a search for one line.
  if (!selected.isEmpty() && !selected.contains(QChar::ParagraphSeparator))
    m_field->setText(selected);
  showAndFocus();
  recount();
}

QString FindBar::text() const {
  return m_field->text();
}

void FindBar::setText(const QString& text) {
  m_field->setText(text);
  recount();
}

bool FindBar::findNext() {
  return find(false);
}
bool FindBar::findPrevious() {
  return find(true);
}

bool FindBar::find(bool backward) {
  const QString needle = m_field->text();
  if (needle.isEmpty()) {
    recount();
    return false;
  }
  QTextDocument::FindFlags flags;
  if (backward)
    flags |= QTextDocument::FindBackward;
  QTextDocument* doc = m_textEditor->document();
  QTextCursor from = m_textEditor->textCursor();
  QTextCursor hit = doc->find(needle, from, flags);
  if (hit.isNull()) {
    // Wrap around at the end (or the start when searching backwards).
    QTextCursor edge(doc);
    if (backward)
      edge.movePosition(QTextCursor::End);
    hit = doc->find(needle, edge, flags);
  }
  if (!hit.isNull())
    m_textEditor->setTextCursor(hit);
  recount();
  return !hit.isNull();
}

void FindBar::recount() {
  m_matches = 0;
  m_current = 0;
  const QString needle = m_field->text();
  if (!needle.isEmpty()) {
    QTextDocument* doc = m_textEditor->document();
    const QTextCursor sel = m_textEditor->textCursor();
    for (QTextCursor c = doc->find(needle, 0); !c.isNull(); c = doc->find(needle, c)) {
      ++m_matches;
      if (c.selectionStart() == sel.selectionStart() && c.selectionEnd() == sel.selectionEnd())
        m_current = m_matches;
    }
  }
  m_count->setText(countText());
  // A field with no match turns red, as in every editor's find bar.
  QPalette p = palette();
  if (!needle.isEmpty() && m_matches == 0)
    p.setColor(QPalette::Base, p.color(QPalette::Base).lightness() < 128
                                   ? QColor(0x5a, 0x1e, 0x1e)
                                   : QColor(0xfd, 0xe2, 0xe2));
  m_field->setPalette(p);
  m_prev->setEnabled(m_matches > 0);
  m_next->setEnabled(m_matches > 0);
}

QString FindBar::countText() const {
  if (m_field->text().isEmpty())
    return {};
  if (m_matches == 0)
    return tr("no match");
  if (m_current > 0)
    return tr("%1 of %2").arg(m_current).arg(m_matches);
  return m_matches == 1 ? tr("1 match") : tr("%1 matches").arg(m_matches);
}

void FindBar::enterPressed(Qt::KeyboardModifiers modifiers) {
  find(modifiers & Qt::ShiftModifier);
}

} // namespace cake::widgets
