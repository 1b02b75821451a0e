// Go to line (Ctrl+L, B23): a small non-modal bar under the editor that takes "LINE" or
// "LINE:COLUMN", moves the editor's cursor there (so the shared selection, and with it every
// view, follows the operation on that line) and closes; Esc closes without moving.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/widgets/EditorBar.h"

class QLabel;

namespace cake::widgets {

class CodeEditor;

class GoToLineBar : public EditorBar {
  Q_OBJECT
public:
  /// Moves `editor` (not owned; it must outlive the bar). Hidden until open().
  explicit GoToLineBar(CodeEditor* editor, QWidget* parent = nullptr);

  /// Shows the bar with the cursor's line selected in its field and the valid range.
  void open();
  /// Parses "LINE" or "LINE:COLUMN" (1-based; spaces allowed); false when it is neither or the
  /// line is outside 1..lines.
  static bool parse(const QString& text, int lines, int* line, int* column);
  /// Goes to the field's position and closes; false (the bar stays open and says why) when
  /// the text is not a position in the document.
  bool accept();

protected:
  /// Enter goes to the field's position (accept()).
  void enterPressed(Qt::KeyboardModifiers modifiers) override;

private:
  CodeEditor* m_editor;
  QLabel* m_hint;
};

} // namespace cake::widgets
