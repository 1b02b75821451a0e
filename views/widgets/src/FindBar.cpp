// Non-modal find bar of the editor: incremental search, next/previous, match count, Esc.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/FindBar.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTextBlock>
#include <QTextDocument>
#include <QToolButton>

namespace cake::widgets {

FindBar::FindBar(QPlainTextEdit* editor, QWidget* parent)
    : QWidget(parent), m_editor(editor), m_field(new QLineEdit(this)), m_count(new QLabel(this)),
      m_prev(new QToolButton(this)), m_next(new QToolButton(this)) {
  setObjectName(QStringLiteral("findBar"));
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(4, 2, 4, 2);
  auto* label = new QLabel(tr("Find:"), this);
  label->setBuddy(m_field);
  m_field->setObjectName(QStringLiteral("findField"));
  m_field->setPlaceholderText(tr("text in the kernel"));
  m_field->setClearButtonEnabled(true);
  m_field->installEventFilter(this);
  m_prev->setObjectName(QStringLiteral("findPrevious"));
  m_prev->setArrowType(Qt::UpArrow);
  m_prev->setToolTip(tr("Previous match (Shift+Enter, Shift+F3)"));
  m_next->setObjectName(QStringLiteral("findNext"));
  m_next->setArrowType(Qt::DownArrow);
  m_next->setToolTip(tr("Next match (Enter, F3)"));
  m_count->setObjectName(QStringLiteral("findCount"));
  m_count->setMinimumWidth(m_count->fontMetrics().horizontalAdvance(QStringLiteral("888 of 888")));
  auto* close = new QToolButton(this);
  close->setObjectName(QStringLiteral("findClose"));
  close->setText(QStringLiteral("✕"));
  close->setAutoRaise(true);
  close->setToolTip(tr("Close (Esc)"));
  layout->addWidget(label);
  layout->addWidget(m_field, 1);
  layout->addWidget(m_prev);
  layout->addWidget(m_next);
  layout->addWidget(m_count);
  layout->addWidget(close);
  connect(m_prev, &QToolButton::clicked, this, [this] { findPrevious(); });
  connect(m_next, &QToolButton::clicked, this, [this] { findNext(); });
  connect(close, &QToolButton::clicked, this, [this] { this->close(); });
  // Incremental: each keystroke searches again from the start of the current match, so a
  // longer prefix keeps the match it extends instead of jumping to the next one.
  connect(m_field, &QLineEdit::textEdited, this, [this] {
    QTextCursor c = m_editor->textCursor();
    c.setPosition(c.selectionStart());
    m_editor->setTextCursor(c);
    if (!m_field->text().isEmpty())
      find(false);
    else
      recount();
  });
  // Edits change the number of matches while the bar is open.
  connect(m_editor->document(), &QTextDocument::contentsChanged, this, [this] {
    if (isVisible())
      recount();
  });
  hide();
}

void FindBar::open() {
  QString selected = m_editor->textCursor().selectedText();
  // A multi-line selection reads U+2029 between its blocks: not a search for one line.
  if (!selected.isEmpty() && !selected.contains(QChar::ParagraphSeparator))
    m_field->setText(selected);
  show();
  m_field->setFocus(Qt::ShortcutFocusReason);
  m_field->selectAll();
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
  QTextDocument* doc = m_editor->document();
  QTextCursor from = m_editor->textCursor();
  QTextCursor hit = doc->find(needle, from, flags);
  if (hit.isNull()) {
    // Wrap around at the end (or the start when searching backwards).
    QTextCursor edge(doc);
    if (backward)
      edge.movePosition(QTextCursor::End);
    hit = doc->find(needle, edge, flags);
  }
  if (!hit.isNull())
    m_editor->setTextCursor(hit);
  recount();
  return !hit.isNull();
}

void FindBar::recount() {
  m_matches = 0;
  m_current = 0;
  const QString needle = m_field->text();
  if (!needle.isEmpty()) {
    QTextDocument* doc = m_editor->document();
    const QTextCursor sel = m_editor->textCursor();
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

void FindBar::close() {
  hide();
  m_editor->setFocus(Qt::OtherFocusReason);
  Q_EMIT closed();
}

bool FindBar::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_field && event->type() == QEvent::KeyPress) {
    auto* key = static_cast<QKeyEvent*>(event);
    if (key->key() == Qt::Key_Escape) {
      close();
      return true;
    }
    if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
      find(key->modifiers() & Qt::ShiftModifier);
      return true;
    }
  }
  // Esc also closes while the field is focused in a shortcut context (ShortcutOverride first).
  if (watched == m_field && event->type() == QEvent::ShortcutOverride &&
      static_cast<QKeyEvent*>(event)->key() == Qt::Key_Escape) {
    event->accept();
    return true;
  }
  return QWidget::eventFilter(watched, event);
}

} // namespace cake::widgets
