// The lowered-code view: the .cake IR beside its PTX, LLVM IR, CUDA C++ or SASS (a selector),
// linked through the shared selection — an operation or editor line highlights the lowered
// lines it produced (PTX `.loc`, LLVM `!dbg`, CUDA `// L<n>:`, nvdisasm `//## File`), clicking a
// lowered line selects its IR line — and the ptxas resource report (registers, spills, shared
// memory, barriers, per-role budget against need; for SASS the report of the compile that made
// its cubin). Lowering, ptxas and SASS run in the façade's background jobs; the view asks for
// them through emitRequested() and says why when there is no code (for SASS without nvdisasm:
// what to install).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/LoweredCode.h"
#include "cake/views/SelectionModel.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace cake::widgets {

class LoweredCodeView : public QWidget {
  Q_OBJECT
public:
  explicit LoweredCodeView(views::SelectionModel* selection, QWidget* parent = nullptr);

  /// A new check arrived: shows its IR; its lowering is requested with emitRequested().
  void setCheck(const views::CheckSnapshotPtr& snapshot);
  void setLowered(const views::LowerSnapshotPtr& lowered);
  void setPtxas(const views::PtxasSnapshotPtr& report);

  views::LoweredEmit emitKind() const { return m_emit; }
  /// Switches the selector (emits emitRequested when it changes).
  void setEmitKind(views::LoweredEmit kind);
  /// The check shown has its lowering (and, for PTX, its ptxas report) or the reason why not.
  bool ready() const;
  const views::LowerSnapshotPtr& lowered() const { return m_lowered; }
  const views::PtxasSnapshotPtr& ptxas() const { return m_ptxas; }
  /// IR line and lowered lines highlighted for the current selection.
  int highlightedSourceLine() const { return m_line; }
  QVector<int> highlightedLoweredLines() const;
  /// As a click on lowered line `line` (1-based): selects the IR line it comes from.
  void activateLoweredLine(int line);
  QPlainTextEdit* loweredText() const { return m_code; }
  QPlainTextEdit* sourceText() const { return m_source; }
  QString statusText() const;
  QString resourcesText() const;
  /// The PTX filters (hide `.loc`, hide inline-asm markers); line numbers in this API stay
  /// those of the unfiltered text, the pane shows the filtered one.
  void setFilter(const views::LoweredFilter& filter);
  views::LoweredFilter filter() const { return m_filter; }
  /// Shown line (1-based) of the pane for a line of the unfiltered text, 0 when hidden.
  int shownLine(int loweredLine) const;

Q_SIGNALS:
  /// The view needs `emit` of the current check (selector changed, or a new check arrived).
  void emitRequested(cake::views::LoweredEmit kind);

protected:
  void changeEvent(QEvent* event) override;

private:
  void onSelectionChanged(const views::Selection& selection, views::SelectionOrigin origin);
  void highlight(int sourceLine, bool scrollSource, bool scrollCode);
  void renderResources();
  void renderSassResources();
  void showMessage(const QString& text);
  /// Puts the lowered text, filtered for PTX, into the pane.
  void showCode();

  views::SelectionModel* m_selection;
  views::CheckSnapshotPtr m_check;
  views::LowerSnapshotPtr m_lowered;
  views::PtxasSnapshotPtr m_ptxas;
  views::LoweredEmit m_emit = views::LoweredEmit::Ptx;
  int m_line = 0;
  bool m_internal = false;
  QComboBox* m_selector;
  QPushButton* m_showCuda;
  QLabel* m_status;
  QPlainTextEdit* m_source;
  QPlainTextEdit* m_code;
  QLabel* m_resources;
  QCheckBox* m_hideLoc;
  QCheckBox* m_hideAsm;
  views::LoweredFilter m_filter;
  views::FilteredLines m_shown; ///< the pane's lines (the lowered text's when unfiltered)
};

} // namespace cake::widgets
