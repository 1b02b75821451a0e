// The Cake IR editor: line-number gutter with finding markers, squiggles over finding ranges,
// hover text, go-to-definition from the check's name index, registry-driven completion, and the
// editor side of the shared selection.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/Actionable.h"
#include "cake/views/CompileSession.h"
#include "cake/views/GutterMetrics.h"

#include <QList>
#include <QPlainTextEdit>
#include <memory>

class QAction;
class QCompleter;
class QStringListModel;

namespace cake::views {
class SelectionModel;
struct Selection;
enum class SelectionOrigin : quint8;
} // namespace cake::views

namespace cake::widgets {

class CodeEditor : public QPlainTextEdit {
  Q_OBJECT
public:
  explicit CodeEditor(QWidget* parent = nullptr);
  ~CodeEditor() override;

  /// The workbench re-checks the text this long after the last keystroke: long enough to skip
  /// the text between keystrokes of fluent typing, short enough that keystroke → fresh findings
  /// stays under 150 ms (a corpus check takes 1–11 ms).
  static constexpr int kCheckDebounceMs = 100;

  /// A finding shown in the text (severity 0 blocking, 1 report, 2 hint; 1-based, end exclusive).
  struct Mark {
    int line, column, endLine, endColumn, severity;
    QString message;
  };
  /// Marks lines with findings (gutter) and underlines their ranges (squiggles).
  void setMarks(const QList<Mark>& marks);
  const QList<Mark>& marks() const { return m_marks; }
  /// Adopts a check result: its findings in this file become marks; its names serve
  /// go-to-definition.
  void setSnapshot(const views::CheckSnapshotPtr& snapshot);
  /// Follows the shared selection (ops, buffers, findings picked in other views) and publishes
  /// the operation under the cursor.
  void setSelectionModel(views::SelectionModel* selection);
  /// The registry used for completion.
  void setCompiler(std::shared_ptr<const driver::Compiler> compiler);

  /// Moves the cursor to a 1-based position and centres it; `focus` also gives it the focus.
  void goTo(int line, int column, bool focus = true);
  int cursorLine() const;   ///< 1-based
  int cursorColumn() const; ///< 1-based

  /// Jumps to the definition of the name under the cursor (F12, Ctrl+click); on a primitive
  /// name, shows its registry entry (primitiveEntryShown()); false when the position names
  /// nothing the last check or the registry resolves.
  bool goToDefinition();
  /// The registry entry (rich text) the last go-to-definition on a primitive showed.
  QString primitiveEntryShown() const { return m_lastPrimitiveEntry; }
  /// The finding messages shown when hovering a 1-based position (or the gutter of its line,
  /// then with the line's gutter metrics).
  QString hoverText(int line, int column, bool gutter) const;

  /// Opens the completion popup for the cursor position (Ctrl+Space); returns the candidates.
  QStringList complete(bool forced = true);
  QCompleter* completer() const { return m_completer; }

  /// Applies replacements of `basedOn` (the checked text their byte offsets refer to) as one
  /// undoable edit, so Edit > Undo restores the text byte for byte; false (nothing changed)
  /// when the editor no longer holds `basedOn`, or the edits are empty, overlap or fall
  /// outside it.
  bool applyReplacements(const QString& basedOn, const QList<views::TextReplacement>& edits);

  /// Finds `text` from the cursor, wrapping around; false when absent.
  bool findText(const QString& text, bool backward = false);

  /// Per-line metrics for the gutter's optional columns (time share, bank ways, PTX/SASS
  /// instructions, heat strip; issue 17 item 6); metrics of another check are kept until the
  /// caller replaces them.
  void setGutterMetrics(const views::GutterMetrics& metrics);
  const views::GutterMetrics& gutterMetrics() const { return m_metrics; }
  /// The optional columns shown (views::GutterColumn flags; default all). A column with no
  /// value on any line takes no room.
  void setGutterColumns(unsigned columns);
  unsigned gutterColumns() const { return m_columns; }
  /// The checkable actions that toggle the columns (the gutter's context menu; a View menu).
  QList<QAction*> gutterColumnActions() const { return m_columnActions; }
  /// Where a column is drawn in the gutter (x range; empty when not shown). GutterLineNumbers:
  /// the line numbers and finding dots, to the gutter's right edge.
  QRect gutterColumnRect(views::GutterColumn column) const;
  /// The header row over the gutter naming each shown column (tool tips: unit and scope);
  /// shown while an optional column is, 0 high otherwise.
  QWidget* gutterHeader() const { return m_header; }
  int gutterHeaderHeight() const;
  /// The column under x (gutter coordinates), or 0 for none.
  views::GutterColumn gutterColumnAt(int x) const;
  void paintGutterHeader(QPaintEvent* event);

  int gutterWidth() const;
  void paintGutter(QPaintEvent* event);
  void gutterContextMenu(const QPoint& globalPos);

Q_SIGNALS:
  /// A short message for the status bar (e.g. "no definition for 'x'").
  void statusMessage(const QString& message);

protected:
  void resizeEvent(QResizeEvent* event) override;
  bool event(QEvent* e) override;
  bool viewportEvent(QEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;

private:
  void updateGutter(const QRect& rect, int dy);
  void insertCompletion(const QString& completion);
  void onSelectionChanged(const views::Selection& selection, views::SelectionOrigin origin);
  void refreshExtraSelections();
  bool showHover(QPoint viewportPos, QPoint globalPos, bool gutter);

  void updateGutterGeometry();

  QWidget* m_gutter;
  QWidget* m_header;
  QList<Mark> m_marks;
  QList<QTextEdit::ExtraSelection> m_markSelections;
  views::CheckSnapshotPtr m_snapshot;
  views::SelectionModel* m_selection = nullptr;
  std::shared_ptr<const driver::Compiler> m_compiler;
  QString m_lastPrimitiveEntry; ///< the registry entry the last go-to-definition showed
  QCompleter* m_completer;
  QStringListModel* m_completions;
  int m_completionStart = 0;
  views::GutterMetrics m_metrics;
  unsigned m_columns = views::GutterDefaultColumns;
  QList<QAction*> m_columnActions;
  bool m_movingCursor = false; ///< the cursor follows the selection (not the user)
};

} // namespace cake::widgets
