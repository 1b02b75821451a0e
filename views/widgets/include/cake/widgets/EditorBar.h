// The shared frame of the editor's non-modal bars (find, go to line): a label and a field in a
// row under the editor, Enter / Shift+Enter handed to the bar, Esc closes and gives the editor
// back its focus.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QHBoxLayout;
class QLineEdit;
class QPlainTextEdit;
class QToolButton;

namespace cake::widgets {

/// Base of FindBar and GoToLineBar: owns the row layout, the labelled field and the key
/// handling both share; a subclass adds its widgets to layout() and reacts to Enter.
class EditorBar : public QWidget {
  Q_OBJECT
public:
  QLineEdit* field() const { return m_field; }

Q_SIGNALS:
  /// The bar closed (Esc, the close button, a finished action): the editor has the focus again.
  void closed();

protected:
  /// A hidden bar named `objectName` for `editor` (not owned; it must outlive the bar) with the
  /// buddy label `label` and the field `fieldName` in its row.
  EditorBar(QPlainTextEdit* editor, const QString& objectName, const QString& label,
            const QString& fieldName, QWidget* parent);

  /// Enter (or Shift+Enter: `modifiers`) pressed in the field.
  virtual void enterPressed(Qt::KeyboardModifiers modifiers) = 0;

  /// The bar's row: the label and the field come first.
  QHBoxLayout* rowLayout() const { return m_layout; }
  /// Appends a flat close button named `objectName` (tool tip "Close (Esc)") to the row.
  QToolButton* addCloseButton(const QString& objectName);
  /// Shows the bar, focuses its field and selects all of it so typing replaces it.
  void showAndFocus();
  /// Hides the bar, gives the editor the focus and emits closed().
  void close();

  bool eventFilter(QObject* watched, QEvent* event) override;

  QPlainTextEdit* m_textEditor;
  QLineEdit* m_field;

private:
  QHBoxLayout* m_layout;
};

} // namespace cake::widgets
