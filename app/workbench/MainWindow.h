// The workbench main window: workspace and examples, IR editor, findings, IR graph, memory
// layout and timeline docks sharing one selection, job status.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/CompileSession.h"
#include "cake/views/SelectionModel.h"

#include <QMainWindow>
#include <QTimer>

class QLabel;
class QTableView;
class QMenu;
class QDockWidget;

namespace cake::views {
class FindingsModel;
class CakeHighlighter;
class SelectionModel;
} // namespace cake::views

namespace cake::widgets {
class GraphView;
class MemoryLayoutView;
class TimelineView;
} // namespace cake::widgets

namespace cake::app {

class CodeEditor;

class MainWindow : public QMainWindow {
  Q_OBJECT
public:
  explicit MainWindow(views::CompileSession* session, QWidget* parent = nullptr);

  /// Loads the examples of a workspace directory (its manifest.json, else its *.cake files).
  void setWorkspace(const QString& dir);
  /// Opens a kernel file; returns false (and says why) when it cannot be read.
  bool openFile(const QString& path, QString* error = nullptr);
  QString defaultExample() const;
  /// Job id of the newest check that has delivered its result (0 before the first).
  quint64 shownJob() const { return m_shownJob; }
  void restoreLayout();
  /// The dock of a view: "findings", "graph", "layout" or "timeline" (nullptr otherwise).
  QDockWidget* viewDock(const QString& name) const;
  /// The newest check is shown and every view has drawn it (the graph's layout included).
  bool viewsReady() const;
  views::SelectionModel* selection() const { return m_selection; }
  widgets::GraphView* graphView() const { return m_graph; }

Q_SIGNALS:
  void checkShown(quint64 jobId);

protected:
  void closeEvent(QCloseEvent* event) override;
  void changeEvent(QEvent* event) override;

private:
  void buildMenus();
  void scheduleCheck();
  void onCheckFinished(const views::CheckSnapshotPtr& snapshot);
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  void saveFile();
  void applyPalette();
  void buildViews();
  void onSelectionChanged(const views::Selection& selection, views::SelectionOrigin origin);

  views::CompileSession* m_session;
  CodeEditor* m_editor;
  views::CakeHighlighter* m_highlighter;
  views::FindingsModel* m_findings;
  QTableView* m_findingsView;
  QDockWidget* m_findingsDock;
  views::SelectionModel* m_selection;
  widgets::GraphView* m_graph = nullptr;
  widgets::MemoryLayoutView* m_layout = nullptr;
  widgets::TimelineView* m_timeline = nullptr;
  QDockWidget* m_graphDock = nullptr;
  QDockWidget* m_layoutDock = nullptr;
  QDockWidget* m_timelineDock = nullptr;
  bool m_movingCursor = false; ///< the editor cursor follows the selection (not the user)
  QLabel* m_status;
  QLabel* m_revision;
  QMenu* m_examples;
  QMenu* m_recent;
  QTimer m_debounce;
  QString m_path;
  QString m_workspace;
  QList<QPair<QString, QString>> m_exampleFiles; ///< (id, path)
  quint64 m_shownJob = 0;
  bool m_jumpToFirstFinding = false; ///< set on open, so edits never move the cursor
};

} // namespace cake::app
