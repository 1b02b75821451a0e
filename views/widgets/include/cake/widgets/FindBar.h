// The editor's non-modal find bar (B23): a field under the editor, next/previous, the match
// count ("3 of 12"), Enter / Shift+Enter to step, Esc to close and give the editor back its
// focus. Replaces the modal Find dialog; the text stays editable while the bar is open.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/widgets/EditorBar.h"

class QLabel;
class QPlainTextEdit;
class QToolButton;

namespace cake::widgets {

class FindBar : public EditorBar {
  Q_OBJECT
public:
  /// Searches `editor` (not owned; it must outlive the bar). Hidden until open().
  explicit FindBar(QPlainTextEdit* editor, QWidget* parent = nullptr);

  /// Shows the bar and focuses its field, seeded with the editor's selection when it is on one
  /// line (otherwise the last search), all of it selected so typing replaces it.
  void open();
  /// Selects the next (or previous) match from the cursor, wrapping at the ends; false when
  /// the text has no match. Updates the count.
  bool findNext();
  bool findPrevious();
  QString text() const;
  void setText(const QString& text);
  /// Matches of the field's text in the whole document (case-insensitive, like the search).
  int matchCount() const { return m_matches; }
  /// 1-based index of the selected match, 0 when the selection is on none.
  int currentMatch() const { return m_current; }
  /// "3 of 12", "12 matches", "no match" or "" (empty field).
  QString countText() const;

protected:
  /// Enter steps to the next match, Shift+Enter to the previous one.
  void enterPressed(Qt::KeyboardModifiers modifiers) override;

private:
  bool find(bool backward);
  /// Counts the matches and the index of the one the editor's selection is on.
  void recount();

  QLabel* m_count;
  QToolButton* m_prev;
  QToolButton* m_next;
  int m_matches = 0;
  int m_current = 0;
};

} // namespace cake::widgets
