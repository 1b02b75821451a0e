// The workbench main window: workspace and examples, IR editor, findings dock, job status.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/CompileSession.h"

#include <QMainWindow>
#include <QTimer>

class QLabel;
class QTableView;
class QMenu;
class QDockWidget;

namespace cake::views {
class FindingsModel;
class CakeHighlighter;
} // namespace cake::views

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

  views::CompileSession* m_session;
  CodeEditor* m_editor;
  views::CakeHighlighter* m_highlighter;
  views::FindingsModel* m_findings;
  QTableView* m_findingsView;
  QDockWidget* m_findingsDock;
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
