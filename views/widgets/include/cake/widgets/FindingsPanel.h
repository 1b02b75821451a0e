// The findings panel: severity/family/text filters with a "N of M shown" count, the findings
// tree (notes and fix under each finding), a detail pane (notes with locations, fix, the rule's
// `cake explain` text) and copy as text/JSON/SARIF. Selecting a finding selects it in the shared
// selection, so the editor, graph, timeline and layout follow.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/CompileSession.h"
#include "cake/views/FindingsModel.h"

#include <QVariantMap>
#include <QWidget>
#include <memory>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QTextBrowser;
class QTreeView;
class QModelIndex;
class QSplitter;

namespace cake::views {
class FindingsModel;
class FindingsFilterModel;
class SelectionModel;
struct Selection;
enum class SelectionOrigin : quint8;
enum class FindingsFormat;
} // namespace cake::views

namespace cake::widgets {

class FindingsPanel : public QWidget {
  Q_OBJECT
public:
  explicit FindingsPanel(views::SelectionModel* selection, QWidget* parent = nullptr);

  void setSnapshot(const views::CheckSnapshotPtr& snapshot);
  /// Shows a CPU run's verdict and findings after the check's findings while the check is of
  /// `text` (FindingsModel::setRunRows); selecting one selects the operation on its line.
  void setRunRows(const QString& text, std::vector<views::FindingRow> rows);
  /// The compiler whose rules and writers serve Explain and Copy.
  void setCompiler(std::shared_ptr<const driver::Compiler> compiler);

  views::FindingsModel* model() const { return m_model; }
  views::FindingsFilterModel* filter() const { return m_filter; }
  QTreeView* view() const { return m_view; }
  /// "12 of 40 shown".
  QString countText() const;

  /// Makes a finding (diagnostic index) current; false when it is filtered out or absent.
  bool selectFinding(int finding);
  /// Activates the current item, as Enter or a double click does: the finding (or the note's
  /// location) is selected and findingActivated/locationActivated follow.
  void activateCurrent();
  /// Diagnostic indices of the selected findings (a note counts for its finding), sorted.
  std::vector<std::size_t> selectedFindings() const;
  /// The selected (or, with `all`, every shown) finding in a CLI format.
  QString exportText(views::FindingsFormat format, bool all) const;
  /// Copies exportText() to the clipboard.
  void copy(views::FindingsFormat format, bool all);
  /// Shows `cake explain` for the current finding in the detail pane; returns the text.
  QString explainCurrent();
  QString detailText() const;

  /// Filter settings, for QSettings.
  QVariantMap filterState() const;
  void setFilterState(const QVariantMap& state);

protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
  /// A narrow panel (a dock beside the editor) puts the explanation below the list.
  void resizeEvent(QResizeEvent* event) override;

Q_SIGNALS:
  /// Enter or double click on a finding (its diagnostic index).
  void findingActivated(int finding);
  /// Enter or double click on a note: its location (1-based).
  void locationActivated(const QString& path, int line, int column);
  void filterChanged();
  /// "Apply" on the fix of finding `finding` (its fix carries an edit of the checked file).
  void applyFixRequested(int finding);

private:
  /// Columns at their contents' width, capped in a narrow view so the message stays readable
  /// (the cut text elides); the explanation beside the list, or below it in a tall, narrow panel.
  void fitToWidth();
  void onCurrentChanged(const QModelIndex& current);
  void onActivated(const QModelIndex& index);
  void onSelectionChanged(const views::Selection& selection, views::SelectionOrigin origin);
  /// Counts, families, expansion and column sizes after the model changed.
  void refresh();
  /// Moves the shared selection to a finding (a run row: the operation on its line).
  void selectOnFinding(int finding);
  void updateCount();
  void updateFamilies();
  void showDetail(int finding);

  views::SelectionModel* m_selection;
  views::FindingsModel* m_model;
  views::FindingsFilterModel* m_filter;
  std::shared_ptr<const driver::Compiler> m_compiler;
  QCheckBox* m_severity[3];
  QComboBox* m_family;
  QLineEdit* m_text;
  QLabel* m_count;
  QTreeView* m_view;
  QTextBrowser* m_detail;
  QSplitter* m_split;
  QList<int> m_contentWidths; ///< widths of the columns before the message, fitted to contents
  QString m_wantedFamily;     ///< restored family filter, applied when that family appears
  bool m_following = false;   ///< the current row follows the shared selection
};

} // namespace cake::widgets
