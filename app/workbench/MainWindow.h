// The workbench main window: workspace and examples, IR editor, findings, IR graph, memory
// layout and timeline docks sharing one selection, job status.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/Actionable.h"
#include "cake/views/CompileSession.h"
#include "cake/views/SelectionModel.h"

#include <QJsonObject>
#include <QMainWindow>
#include <QTimer>

class QLabel;
class QMenu;
class QDialog;
class QDockWidget;

namespace cake::views {
struct RunSnapshot;
class CakeHighlighter;
class ProposalController;
class RunController;
class SelectionModel;
class JobsModel;
class LastGoodCheck;
class LineageController;
} // namespace cake::views

namespace cake::widgets {
class CodeEditor;
class FindingsPanel;
class GraphView;
class MemoryLayoutView;
class TimelineView;
class WorkspaceTree;
class PerformanceView;
class LoweredCodeView;
class JobsView;
class CompareView;
class ProposalsView;
class ProgressView;
class RunsView;
class FindBar;
class GoToLineBar;
class LineageView;
class HeatMapView;
} // namespace cake::widgets

namespace cake::app {

class MainWindow : public QMainWindow {
  Q_OBJECT
public:
  explicit MainWindow(views::CompileSession* session, QWidget* parent = nullptr);

  /// Loads the examples of a corpus directory (its manifest.json, else its *.cake files); its
  /// proposals/ folder and manifest feed the Proposals dock.
  void setCorpus(const QString& dir);
  /// Uses the workspace store in `dir` (created when missing; empty: none): the compiler
  /// overlays its head revision, proposals are evaluated in and approved into it.
  void openWorkspace(const QString& dir);
  views::ProposalController* proposals() const { return m_proposals; }
  /// Reads the proposal queue once (done when the Proposals dock is first shown).
  void scanProposals();
  widgets::ProposalsView* proposalsView() const { return m_proposalsView; }
  /// The Runs dock (issue 15 §5): `cake run` jobs of the open kernel, stored runs, calibration.
  views::RunController* runs() const { return m_runs; }
  widgets::RunsView* runsView() const { return m_runsView; }
  /// Opens a kernel file; returns false (and says why) when it cannot be read.
  bool openFile(const QString& path, QString* error = nullptr);
  QString defaultExample() const;
  /// Shows a folder's .cake files in the workspace dock (File > Open Folder).
  void openFolder(const QString& dir);
  QString folder() const { return m_folder; }
  /// Job id of the newest check that has delivered its result (0 before the first).
  quint64 shownJob() const { return m_shownJob; }
  /// Restores the window layout, the workspace folder, the findings filters and (when that
  /// file is opened next) the cursor line of the last session from QSettings.
  void restoreLayout();
  widgets::CodeEditor* editor() const { return m_editor; }
  widgets::FindingsPanel* findingsPanel() const { return m_findingsPanel; }
  /// The dock of a view: "findings", "graph", "layout", "timeline", "performance", "code",
  /// "jobs", "proposals" or "runs" (nullptr otherwise).
  QDockWidget* viewDock(const QString& name) const;
  /// The newest check is shown and every view has drawn it (the graph's layout included; the
  /// cost estimate, and the lowering with its ptxas report while the code view is visible).
  bool viewsReady() const;
  widgets::PerformanceView* performanceView() const { return m_performance; }
  widgets::LoweredCodeView* codeView() const { return m_code; }
  views::SelectionModel* selection() const { return m_selection; }
  widgets::GraphView* graphView() const { return m_graph; }
  widgets::CompareView* compareView() const { return m_compare; }
  /// Shows (creating it once) the non-modal shortcut reference, regenerated from the actions.
  QWidget* showShortcuts();

  /// Compares two kernel files in the Compare view (background job); false (and why) when one
  /// cannot be read.
  bool compareFiles(const QString& before, const QString& after, QString* error = nullptr);
  /// Pins the editor's kernel as the baseline (Performance > Pin Baseline).
  void pinCurrentAsBaseline();
  /// Pins a kernel file as the baseline; false (and why) when it cannot be read.
  bool pinBaselineFile(const QString& path, QString* error = nullptr);
  /// The status bar's baseline delta ("" without a baseline).
  QString baselineStatus() const;
  /// Sizes, dock rectangles and their overlaps, the editor's width, findings rows shown and the
  /// workspace tree's highlighted file, as JSON (`--layout-report`, MainWindowLayout.cpp).
  QJsonObject layoutReport() const;
  /// Dock sizes in proportion to the window (done on the first show unless a saved layout
  /// was restored).
  void applyDefaultDockSizes();

  /// Progress dock (MainWindowProgress.cpp): reads the workspace's campaigns in the
  /// background. While the Lineage dock's controller imports folders the read waits for its
  /// `imported` (or `failed`) signal: campaign imports have one path, importCampaign().
  void refreshProgress();
  /// Chooses the campaigns the chart overlays (applied when the store has been read).
  void showProgressCampaigns(const QStringList& names);
  /// No import or read is pending and the store has been read after the last import.
  bool progressReady() const;
  widgets::ProgressView* progressView() const { return m_progressView; }

  /// Imports a campaign folder into the workspace (background job) and shows its lineage; the
  /// folder is watched for appended candidates. False when `dir` is not a folder.
  bool importCampaign(const QString& dir);
  /// Shows a campaign stored in the workspace in the Lineage dock.
  bool showCampaign(const QString& name);
  views::LineageController* lineage() const { return m_lineage; }
  widgets::LineageView* lineageView() const { return m_lineageView; }
  /// No import or read is running and the shown lineage's layout is drawn.
  bool lineageReady() const;
  /// "NAME: N candidates (S shown), best ID, layout T ms (ENGINE)" for --screenshot.
  QString lineageSummary() const;

  /// Runs the editor's kernel on the CPU interpreter at small shapes (Run > Run on CPU) as a
  /// background job; its contract is found as `cake run --device cpu` finds it (or the one
  /// chosen for this file). False (and why) when there is nothing to run yet.
  bool runOnCpu(QString* error = nullptr);
  /// Uses `path` as the workload contract of the open kernel file (empty: the corpus
  /// manifest's); another file opened later goes back to the manifest's.
  void setRunWorkload(const QString& path) {
    m_runWorkload = path;
    m_runWorkloadFor = m_path;
  }
  /// The newest CPU run shown (null before the first, and after an edit made it stale).
  const std::shared_ptr<const views::RunSnapshot>& lastRun() const { return m_run; }
  /// Job id of the CPU run in progress (0: none).
  quint64 runJob() const { return m_runJob; }
  widgets::HeatMapView* heatMapView() const { return m_heatMap; }

Q_SIGNALS:
  void checkShown(quint64 jobId);
  /// A CPU run's result is shown (findings, heat map, status bar).
  void runShown(quint64 jobId);

protected:
  void closeEvent(QCloseEvent* event) override;
  void showEvent(QShowEvent* event) override;
  void changeEvent(QEvent* event) override;

private:
  void buildMenus();
  void scheduleCheck();
  void onCheckFinished(const views::CheckSnapshotPtr& snapshot);
  /// Hands a check whose text parsed and type-checked to every view.
  void showCheck(const views::CheckSnapshotPtr& snapshot);
  /// `view` under the stale banner (its location link moves the editor).
  QWidget* withBanner(QWidget* view);
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  bool saveFile();
  bool saveFileAs();
  /// Asks what to do with unsaved edits; false when the user cancels.
  bool maybeSave();
  /// Opens a file chosen in the UI (menus, workspace), after maybeSave().
  void openFromUi(const QString& path);
  void buildWorkspace();
  // Editing and help (MainWindowEditing.cpp).
  void setupEditorBars();
  void addEditActions(QMenu* edit);
  void populateExamples(const QString& dir);
  void buildHelpMenu();
  void setupApply();
  /// The folder holding workbench.md (installed share/cake/docs or the source tree's docs/),
  /// "" when neither exists.
  static QString documentationDir();
  void applyPalette();
  void buildViews();
  void buildCompare();
  /// Compares the pinned baseline with the editor's kernel.
  void compareWithBaseline();

  views::CompileSession* m_session;
  widgets::CodeEditor* m_editor;
  views::CakeHighlighter* m_highlighter;
  views::SelectionModel* m_selection;
  widgets::FindingsPanel* m_findingsPanel;
  QDockWidget* m_findingsDock;
  views::LastGoodCheck* m_lastGood; ///< what the views show while the text is broken
  QDockWidget* m_workspaceDock = nullptr;
  widgets::WorkspaceTree* m_workspaceTree = nullptr;
  QString m_folder;
  QString m_restorePath; ///< last session's file: its cursor line is restored when it opens
  int m_restoreLine = 0;
  widgets::FindBar* m_findBar = nullptr;
  widgets::GoToLineBar* m_goToLineBar = nullptr;
  QDialog* m_shortcutDialog = nullptr;
  views::ApplyFigures m_applyBefore; ///< the figures before the last Apply, until its Δ shows
  QString m_applyWhat;
  bool m_applyPending = false;
  widgets::GraphView* m_graph = nullptr;
  widgets::MemoryLayoutView* m_layout = nullptr;
  widgets::TimelineView* m_timeline = nullptr;
  QDockWidget* m_graphDock = nullptr;
  QDockWidget* m_layoutDock = nullptr;
  QDockWidget* m_timelineDock = nullptr;
  // Performance, lowered code and jobs (issue #5 items 7-9).
  void requestLowering();
  widgets::PerformanceView* m_performance = nullptr;
  widgets::LoweredCodeView* m_code = nullptr;
  widgets::JobsView* m_jobs = nullptr;
  views::JobsModel* m_jobsModel = nullptr;
  QDockWidget* m_performanceDock = nullptr;
  QDockWidget* m_codeDock = nullptr;
  QDockWidget* m_jobsDock = nullptr;
  // Baseline and Compare (issue #13 section 2).
  widgets::CompareView* m_compare = nullptr;
  QDockWidget* m_compareDock = nullptr;
  QLabel* m_baselineLabel = nullptr;
  bool m_compareRequested = false;
  // Lineage (issue #13 section 3): MainWindowLineage.cpp.
  void setupLineageDock();
  /// The editor's file is a candidate of the shown campaign: select and centre its node.
  void lineageFollowEditor();
  views::LineageController* m_lineage = nullptr;
  widgets::LineageView* m_lineageView = nullptr;
  QDockWidget* m_lineageDock = nullptr;
  // Run on CPU and the output heat map (issue #14 section 5, MainWindowRun.cpp).
  void setupRunDock();
  widgets::HeatMapView* m_heatMap = nullptr;
  QDockWidget* m_runDock = nullptr;
  QLabel* m_runLabel = nullptr;
  quint64 m_runJob = 0;
  std::shared_ptr<const views::RunSnapshot> m_run;
  QString m_runWorkload;
  QString m_runWorkloadFor; ///< the kernel file m_runWorkload was chosen for
  // Proposals (issue #12 section 4).
  void buildProposals();
  views::ProposalController* m_proposals = nullptr;
  widgets::ProposalsView* m_proposalsView = nullptr;
  QDockWidget* m_proposalsDock = nullptr;
  bool m_proposalsScanned = false; ///< the queue was read once (the dock was shown)
  // Progress (issue #13 section 3).
  void setupProgressDock();
  /// Reads the new workspace's campaigns when the dock has been read before.
  void progressWorkspaceChanged();
  widgets::ProgressView* m_progressView = nullptr;
  QDockWidget* m_progressDock = nullptr;
  quint64 m_progressJob = 0;      ///< the pending read
  bool m_progressDeferred = false; ///< a read waits for the running imports
  QStringList m_progressCampaigns;
  // Runs (issue 15 §5), MainWindowRuns.cpp.
  void setupRunsDock();
  // The editor gutter's metrics columns (issue 17 item 6), MainWindowGutter.cpp.
  void setupGutterMetrics();
  views::RunController* m_runs = nullptr;
  widgets::RunsView* m_runsView = nullptr;
  QDockWidget* m_runsDock = nullptr;
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
  bool m_layoutRestored = false; ///< restoreLayout() found a saved state: keep its dock sizes
  bool m_shownOnce = false;
};

} // namespace cake::app
