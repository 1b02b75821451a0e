// Main window wiring: editor edits → debounced background check → findings, marks, status;
// the graph, layout and timeline docks and the shared selection between all views.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "MainWindow.h"

#include "cake/views/CakeHighlighter.h"
#include "cake/views/FindingsModel.h"
#include "cake/views/LastGoodCheck.h"
#include "cake/views/RecentFiles.h"
#include "cake/widgets/CodeEditor.h"
#include "cake/widgets/CompareView.h"
#include "cake/widgets/FindingsPanel.h"
#include "cake/widgets/GraphView.h"
#include "cake/widgets/MemoryLayoutView.h"
#include "cake/widgets/TimelineView.h"
#include "cake/views/JobsModel.h"
#include "cake/widgets/JobsView.h"
#include "cake/widgets/LoweredCodeView.h"
#include "cake/widgets/PerformanceView.h"
#include "cake/views/ProposalController.h"
#include "cake/views/RunController.h"
#include "cake/widgets/ProposalsView.h"
#include "cake/widgets/StaleBanner.h"
#include "cake/widgets/WorkspaceTree.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QInputDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QSaveFile>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>

namespace cake::app {

MainWindow::MainWindow(views::CompileSession* session, QWidget* parent)
    : QMainWindow(parent), m_session(session), m_editor(new widgets::CodeEditor(this)),
      m_highlighter(new views::CakeHighlighter(m_editor->document())),
      m_selection(new views::SelectionModel(this)),
      m_findingsPanel(new widgets::FindingsPanel(m_selection, this)),
      m_findingsDock(new QDockWidget(tr("Findings"), this)),
      m_lastGood(new views::LastGoodCheck(this)), m_status(new QLabel(this)),
      m_revision(new QLabel(this)) {
  setObjectName(QStringLiteral("mainWindow"));
  setWindowTitle(tr("Cake Workbench"));
  setupEditorBars();
  // The editor follows the shared selection and publishes the operation under its cursor.
  m_editor->setSelectionModel(m_selection);
  connect(m_editor, &widgets::CodeEditor::statusMessage, this,
          [this](const QString& message) { statusBar()->showMessage(message, 4000); });
  connect(m_editor->document(), &QTextDocument::modificationChanged, this,
          &QWidget::setWindowModified);

  m_findingsDock->setObjectName(QStringLiteral("findingsDock"));
  m_findingsDock->setWidget(withBanner(m_findingsPanel));
  addDockWidget(Qt::BottomDockWidgetArea, m_findingsDock);
  // Enter / double click: the editor takes the keyboard at the finding (selection already
  // moved it there without the focus).
  connect(m_findingsPanel, &widgets::FindingsPanel::findingActivated, this, [this](int finding) {
    const views::FindingRow* f = m_findingsPanel->model()->finding(finding);
    const auto& snap = m_findingsPanel->model()->snapshot();
    if (f && f->line > 0 && snap && f->path == snap->path)
      m_editor->goTo(f->line, f->column);
  });
  connect(m_findingsPanel, &widgets::FindingsPanel::locationActivated, this,
          [this](const QString& path, int line, int column) {
            const auto& snap = m_findingsPanel->model()->snapshot();
            if (snap && path == snap->path)
              m_editor->goTo(line, column);
            else
              statusBar()->showMessage(tr("%1:%2:%3").arg(path).arg(line).arg(column), 8000);
          });
  buildViews();
  buildCompare();
  setupApply();

  m_status->setObjectName(QStringLiteral("checkStatus"));
  statusBar()->addWidget(m_status, 1);
  statusBar()->addPermanentWidget(m_revision);
  m_revision->setText(tr("loading compiler…"));

  m_debounce.setSingleShot(true);
  m_debounce.setInterval(widgets::CodeEditor::kCheckDebounceMs);
  connect(&m_debounce, &QTimer::timeout, this, &MainWindow::scheduleCheck);
  connect(m_editor, &QPlainTextEdit::textChanged, this, [this] { m_debounce.start(); });

  connect(m_session, &views::CompileSession::compilerReady, this, [this](const QString& rev) {
    m_revision->setText(m_session->workspace().isEmpty()
                            ? tr("compiler %1").arg(rev)
                            : tr("compiler %1 · workspace rev %2").arg(rev).arg(m_session->workspaceRevision()));
    m_revision->setToolTip(m_session->workspace());
    m_editor->setCompiler(m_session->compiler());
    m_findingsPanel->setCompiler(m_session->compiler());
    // A reload (another workspace, an approval): the open kernel is checked again with it.
    if (m_shownJob != 0)
      scheduleCheck();
  });
  connect(m_session, &views::CompileSession::compilerFailed, this, [this](const QString& msg) {
    m_revision->setText(tr("compiler data invalid"));
    m_status->setText(msg.section('\n', 0, 0));
  });
  connect(m_session, &views::CompileSession::checkFinished, this, &MainWindow::onCheckFinished);
  connect(m_lastGood, &views::LastGoodCheck::checkShown, this, &MainWindow::showCheck);

  buildWorkspace();
  buildProposals();
  setupProgressDock();
  setupRunsDock();
  buildMenus();
  setupLineageDock();
  setupRunDock();
  setupGutterMetrics();
  applyPalette();
  resize(1280, 800);
}

void MainWindow::buildViews() {
  m_graph = new widgets::GraphView(m_selection, this);
  m_layout = new widgets::MemoryLayoutView(m_selection, this);
  m_timeline = new widgets::TimelineView(m_selection, this);
  // Every view but the jobs panel shows the last good check, with the stale banner.
  auto dock = [this](QDockWidget*& d, const QString& title, const QString& name, QWidget* w) {
    d = new QDockWidget(title, this);
    d->setObjectName(name);
    d->setWidget(w == m_jobs ? w : withBanner(w));
  };
  dock(m_graphDock, tr("IR graph"), QStringLiteral("graphDock"), m_graph);
  dock(m_layoutDock, tr("Memory layout"), QStringLiteral("layoutDock"), m_layout);
  dock(m_timelineDock, tr("Timeline"), QStringLiteral("timelineDock"), m_timeline);
  addDockWidget(Qt::RightDockWidgetArea, m_graphDock);
  tabifyDockWidget(m_graphDock, m_layoutDock);
  m_graphDock->raise();
  splitDockWidget(m_findingsDock, m_timelineDock, Qt::Horizontal);
  resizeDocks({m_graphDock}, {760}, Qt::Horizontal);
  resizeDocks({m_findingsDock, m_timelineDock}, {460, 820}, Qt::Horizontal);
  resizeDocks({m_findingsDock}, {250}, Qt::Vertical);

  // Performance, lowered code (with the right-hand views) and jobs (with the timeline). The
  // cost job follows every accepted check; lowering and ptxas run only while the code view
  // can be seen, for the selector's choice.
  m_performance = new widgets::PerformanceView(m_selection, this);
  m_code = new widgets::LoweredCodeView(m_selection, this);
  m_jobsModel = new views::JobsModel(this);
  m_jobsModel->setSession(m_session);
  m_jobs = new widgets::JobsView(m_jobsModel, m_session, this);
  dock(m_performanceDock, tr("Performance"), QStringLiteral("performanceDock"), m_performance);
  dock(m_codeDock, tr("Lowered code"), QStringLiteral("codeDock"), m_code);
  dock(m_jobsDock, tr("Jobs"), QStringLiteral("jobsDock"), m_jobs);
  tabifyDockWidget(m_layoutDock, m_performanceDock);
  tabifyDockWidget(m_performanceDock, m_codeDock);
  tabifyDockWidget(m_timelineDock, m_jobsDock);
  m_graphDock->raise();
  m_timelineDock->raise();
  connect(m_session, &views::CompileSession::costFinished, m_performance, &widgets::PerformanceView::setCost);
  connect(m_session, &views::CompileSession::costFinished, m_timeline, &widgets::TimelineView::setCost);
  connect(m_session, &views::CompileSession::costFinished, this, [this](const views::CostSnapshotPtr& cost) {
    if (cost)
      m_graph->setCostShares(cost->checkJob, cost->shares);
  });
  connect(m_session, &views::CompileSession::lowerFinished, m_code, &widgets::LoweredCodeView::setLowered);
  connect(m_session, &views::CompileSession::ptxasFinished, m_code, &widgets::LoweredCodeView::setPtxas);
  connect(m_code, &widgets::LoweredCodeView::emitRequested, this, [this] { requestLowering(); });
  connect(m_codeDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
    // Deferred: the tab switch that shows the dock is still being laid out.
    if (visible)
      QTimer::singleShot(0, this, [this] {
        if (!m_code->ready())
          requestLowering();
      });
  });
}

void MainWindow::requestLowering() {
  const views::CheckSnapshotPtr& snapshot = m_selection->snapshot();
  // A dock behind another tab can still report isVisible() while the window lays out.
  bool shown = m_codeDock->isVisible() && !m_codeDock->visibleRegion().isEmpty();
  if (shown && snapshot && snapshot->result.accepted && snapshot->jobId == m_lastGood->shownJob())
    m_session->requestLower(snapshot, m_code->emitKind());
}

QDockWidget* MainWindow::viewDock(const QString& name) const {
  if (name == QLatin1String("findings"))
    return m_findingsDock;
  if (name == QLatin1String("graph"))
    return m_graphDock;
  if (name == QLatin1String("layout"))
    return m_layoutDock;
  if (name == QLatin1String("timeline"))
    return m_timelineDock;
  if (name == QLatin1String("performance"))
    return m_performanceDock;
  if (name == QLatin1String("code"))
    return m_codeDock;
  if (name == QLatin1String("jobs"))
    return m_jobsDock;
  if (name == QLatin1String("compare"))
    return m_compareDock;
  if (name == QLatin1String("proposals"))
    return m_proposalsDock;
  if (name == QLatin1String("progress"))
    return m_progressDock;
  if (name == QLatin1String("runs"))
    return m_runsDock;
  if (name == QLatin1String("lineage"))
    return m_lineageDock;
  if (name == QLatin1String("run"))
    return m_runDock;
  return nullptr;
}

bool MainWindow::viewsReady() const {
  if (m_shownJob == 0 || m_graph->shownSnapshot() != m_lastGood->shownJob() || m_graph->layoutPending())
    return false;
  if (m_performance->pending())
    return false;
  bool codeShown = m_codeDock->isVisible() && !m_codeDock->visibleRegion().isEmpty();
  if (m_compareRequested && !m_compare->ready())
    return false;
  return !codeShown || m_code->ready();
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(tr("&Open…"), this, [this] {
    QString path = QFileDialog::getOpenFileName(this, tr("Open kernel"), m_folder.isEmpty() ? m_workspace : m_folder,
                                                tr("Cake IR (*.cake);;All files (*)"));
    if (!path.isEmpty())
      openFromUi(path);
  });
  open->setShortcut(QKeySequence::Open);
  QAction* openFolderAction = file->addAction(tr("Open &Folder…"), this, [this] {
    QString dir = QFileDialog::getExistingDirectory(this, tr("Open folder"), m_folder);
    if (!dir.isEmpty())
      openFolder(dir);
  });
  openFolderAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  file->addAction(tr("Open &Workspace…"), this, [this] {
    QString dir = QFileDialog::getExistingDirectory(
        this, tr("Open or create a workspace (an empty folder becomes a new one)"),
        m_session->workspace());
    if (!dir.isEmpty())
      openWorkspace(dir);
  });
  file->addAction(tr("Open &Proposal Folder…"), this, [this] {
    QString dir = QFileDialog::getExistingDirectory(this, tr("Open proposal folder"), m_workspace);
    if (dir.isEmpty())
      return;
    m_proposals->addFolder(dir);
    m_proposals->open(dir);
    m_proposalsDock->show();
    m_proposalsDock->raise();
  });
  m_recent = file->addMenu(tr("Open &Recent"));
  file->addSeparator();
  QAction* save = file->addAction(tr("&Save"), this, &MainWindow::saveFile);
  save->setShortcut(QKeySequence::Save);
  QAction* saveAs = file->addAction(tr("Save &As…"), this, &MainWindow::saveFileAs);
  saveAs->setShortcut(QKeySequence::SaveAs);
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
  quit->setShortcut(QKeySequence::Quit);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  addEditActions(edit);
  edit->addSeparator();
  QAction* definition = edit->addAction(tr("Go to &Definition"), m_editor,
                                        &widgets::CodeEditor::goToDefinition);
  definition->setShortcut(QKeySequence(Qt::Key_F12));
  QAction* complete = edit->addAction(tr("&Complete"), m_editor, [this] { m_editor->complete(true); });
  complete->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Space));
  // Shortcuts of the findings panel, listed here so they can be found.
  // F1 inside the findings panel.
  edit->addAction(tr("E&xplain Finding"), m_findingsPanel, [this] { m_findingsPanel->explainCurrent(); });
  m_examples = menuBar()->addMenu(tr("&Examples"));
  m_examples->setObjectName(QStringLiteral("examplesMenu"));
  QMenu* view = menuBar()->addMenu(tr("&View"));
  view->addAction(m_workspaceDock->toggleViewAction());
  view->addAction(m_findingsDock->toggleViewAction());
  view->addAction(m_graphDock->toggleViewAction());
  view->addAction(m_layoutDock->toggleViewAction());
  view->addAction(m_timelineDock->toggleViewAction());
  view->addAction(m_performanceDock->toggleViewAction());
  view->addAction(m_codeDock->toggleViewAction());
  view->addAction(m_jobsDock->toggleViewAction());
  view->addAction(m_progressDock->toggleViewAction());
  view->addAction(m_compareDock->toggleViewAction());
  QMenu* compare = menuBar()->addMenu(tr("&Compare"));
  compare->addAction(tr("&Pin Current Kernel as Baseline"), this, [this] { pinCurrentAsBaseline(); });
  compare->addAction(tr("Pin Baseline from &File…"), this, [this] {
    QString path = QFileDialog::getOpenFileName(this, tr("Baseline kernel"), m_folder.isEmpty() ? m_workspace : m_folder,
                                                tr("Cake IR (*.cake);;All files (*)"));
    QString error;
    if (!path.isEmpty() && !pinBaselineFile(path, &error))
      QMessageBox::warning(this, tr("Pin baseline"), error);
  });
  compare->addAction(tr("&Unpin Baseline"), this, [this] { m_session->clearBaseline(); });
  compare->addSeparator();
  compare->addAction(tr("Compare with &Baseline"), this, [this] { compareWithBaseline(); });
  compare->addAction(tr("Compare &Files…"), this, [this] {
    QString dir = m_folder.isEmpty() ? m_workspace : m_folder;
    QString a = QFileDialog::getOpenFileName(this, tr("Older kernel"), dir, tr("Cake IR (*.cake)"));
    if (a.isEmpty())
      return;
    QString b = QFileDialog::getOpenFileName(this, tr("Newer kernel"), dir, tr("Cake IR (*.cake)"));
    QString error;
    if (!b.isEmpty() && !compareFiles(a, b, &error))
      QMessageBox::warning(this, tr("Compare"), error);
  });
  view->addAction(m_proposalsDock->toggleViewAction());
  view->addAction(m_runsDock->toggleViewAction());
  buildHelpMenu();
  rebuildRecentMenu();
}

void MainWindow::applyPalette() {
  bool dark = palette().color(QPalette::Base).lightness() < 128;
  m_highlighter->setDark(dark);
}

void MainWindow::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange)
    applyPalette();
  QMainWindow::changeEvent(event);
}

void MainWindow::buildProposals() {
  m_proposals = new views::ProposalController(m_session, this);
  m_proposalsView = new widgets::ProposalsView(m_proposals, this);
  m_proposalsDock = new QDockWidget(tr("Proposals"), this);
  m_proposalsDock->setObjectName(QStringLiteral("proposalsDock"));
  // The review pane needs ~480 px of height; in a shorter dock (1024x640) it scrolls instead
  // of making the whole window taller than the screen (B5/B6).
  auto* scroll = new QScrollArea(this);
  scroll->setObjectName(QStringLiteral("proposalsScroll"));
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setWidgetResizable(true);
  scroll->setWidget(m_proposalsView);
  m_proposalsDock->setWidget(scroll);
  tabifyDockWidget(m_codeDock, m_proposalsDock);
  m_graphDock->raise();
  connect(m_proposalsView, &widgets::ProposalsView::openKernelRequested, this,
          [this](const QString& path) { openFromUi(path); });
  // The queue is read (and its first proposal opened and lowered) when the dock is first
  // shown: a session that never looks at proposals pays nothing for them.
  connect(m_proposalsDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
    if (visible)
      scanProposals();
  });
}

void MainWindow::scanProposals() {
  if (m_proposalsScanned)
    return;
  m_proposalsScanned = true;
  m_proposals->refresh();
}

void MainWindow::openWorkspace(const QString& dir) {
  m_proposals->setWorkspace(dir);
  m_runs->setWorkspace(dir);
  // The compiler overlays the workspace's head: load it again unless it already does.
  if (dir != m_session->workspace())
    m_session->start(m_session->dataPaths(), dir);
  progressWorkspaceChanged();
  if (!m_proposalsScanned)
    return;
  m_proposals->refresh();
  if (!m_proposals->current().isEmpty())
    m_proposals->open(m_proposals->current());
}

void MainWindow::setCorpus(const QString& dir) {
  m_workspace = dir;
  m_proposals->setRoots({QDir(dir).filePath(QStringLiteral("proposals"))});
  if (QFileInfo::exists(QDir(dir).filePath(QStringLiteral("manifest.json"))))
    m_proposals->setManifest(QDir(dir).filePath(QStringLiteral("manifest.json")));
  if (m_proposalsScanned)
    m_proposals->refresh();
  populateExamples(dir);
  if (m_folder.isEmpty())
    openFolder(dir);
}

QString MainWindow::defaultExample() const {
  for (const auto& [id, path] : m_exampleFiles)
    if (id.contains(QStringLiteral("hopper")))
      return path;
  return m_exampleFiles.isEmpty() ? QString() : m_exampleFiles.first().second;
}

bool MainWindow::openFile(const QString& path, QString* error) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    if (error)
      *error = tr("cannot read '%1': %2").arg(path, f.errorString());
    return false;
  }
  QByteArray bytes = f.read(64 << 20);
  m_path = path;
  m_workspaceTree->setOpenFile(m_path);
  m_editor->setPlainText(QString::fromUtf8(bytes));
  m_editor->document()->setModified(false);
  setWindowTitle(tr("%1[*] — Cake Workbench").arg(QFileInfo(path).fileName()));
  addRecent(path);
  m_jumpToFirstFinding = true;
  if (!m_restorePath.isEmpty() && m_restorePath == path && m_restoreLine > 0) {
    // Reopening the last session's file: back to where the user was, not the first finding.
    m_editor->goTo(m_restoreLine, 1, false);
    m_jumpToFirstFinding = false;
  }
  m_restorePath.clear();
  m_lastGood->reset(); // nothing of the previous file is kept while this one does not parse
  m_debounce.stop();
  scheduleCheck();
  lineageFollowEditor();
  return true;
}

bool MainWindow::saveFile() {
  if (m_path.isEmpty())
    return saveFileAs();
  QSaveFile out(m_path);
  if (!out.open(QIODevice::WriteOnly) || out.write(m_editor->toPlainText().toUtf8()) < 0 ||
      !out.commit()) {
    QMessageBox::warning(this, tr("Save"), tr("cannot write '%1': %2").arg(m_path, out.errorString()));
    return false;
  }
  m_editor->document()->setModified(false);
  statusBar()->showMessage(tr("saved %1").arg(m_path), 3000);
  return true;
}

bool MainWindow::saveFileAs() {
  QString path = QFileDialog::getSaveFileName(this, tr("Save kernel"),
                                              m_path.isEmpty() ? m_folder : m_path,
                                              tr("Cake IR (*.cake);;All files (*)"));
  if (path.isEmpty())
    return false;
  QString previous = m_path;
  m_path = path;
  if (!saveFile()) {
    m_path = previous;
    return false;
  }
  setWindowTitle(tr("%1[*] — Cake Workbench").arg(QFileInfo(path).fileName()));
  addRecent(path);
  m_workspaceTree->setOpenFile(m_path);
  scheduleCheck(); // findings now name the new path
  return true;
}

bool MainWindow::maybeSave() {
  if (!m_editor->document()->isModified())
    return true;
  auto answer = QMessageBox::warning(
      this, tr("Unsaved changes"),
      tr("'%1' has unsaved changes. Save them?")
          .arg(m_path.isEmpty() ? tr("untitled") : QFileInfo(m_path).fileName()),
      QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  if (answer == QMessageBox::Save)
    return saveFile();
  return answer == QMessageBox::Discard;
}

void MainWindow::openFromUi(const QString& path) {
  // Whatever happens (opened, cancelled in the save prompt, unreadable), the workspace tree
  // highlights the file that is open afterwards, not the one that was clicked (B3).
  if (path != m_path || m_editor->document()->isModified()) {
    QString error;
    if (maybeSave() && !openFile(path, &error))
      QMessageBox::warning(this, tr("Open kernel"), error);
  }
  m_workspaceTree->setOpenFile(m_path);
}

void MainWindow::buildWorkspace() {
  m_workspaceTree = new widgets::WorkspaceTree(this);
  connect(m_workspaceTree, &widgets::WorkspaceTree::fileActivated, this,
          [this](const QString& path) { openFromUi(path); });
  m_workspaceDock = new QDockWidget(tr("Workspace"), this);
  m_workspaceDock->setObjectName(QStringLiteral("workspaceDock"));
  m_workspaceDock->setWidget(m_workspaceTree);
  addDockWidget(Qt::LeftDockWidgetArea, m_workspaceDock);
  resizeDocks({m_workspaceDock}, {200}, Qt::Horizontal);
}

void MainWindow::openFolder(const QString& dir) {
  m_folder = QDir(dir).absolutePath();
  m_workspaceTree->setFolder(m_folder);
  m_workspaceDock->setWindowTitle(tr("Workspace — %1").arg(QDir(m_folder).dirName()));
  m_workspaceDock->setToolTip(m_folder);
  m_workspaceDock->show();
}

void MainWindow::scheduleCheck() {
  m_status->setText(tr("checking…"));
  m_session->requestCheck(m_path.isEmpty() ? QStringLiteral("untitled.cake") : m_path,
                          m_editor->toPlainText());
}

QWidget* MainWindow::withBanner(QWidget* view) {
  QWidget* box = widgets::StaleBanner::wrap(view, m_lastGood);
  connect(widgets::StaleBanner::of(box), &widgets::StaleBanner::locationActivated, this,
          [this](int line, int column) { m_editor->goTo(line, column); });
  return box;
}

void MainWindow::showCheck(const views::CheckSnapshotPtr& snapshot) {
  // A snapshot of text that was edited since is still shown; a newer job follows.
  m_selection->setSnapshot(snapshot);
  m_findingsPanel->setSnapshot(snapshot);
  m_graph->setSnapshot(snapshot);
  m_layout->setSnapshot(snapshot);
  m_timeline->setSnapshot(snapshot);
  m_performance->setCheck(snapshot);
  m_code->setCheck(snapshot);
}

void MainWindow::onCheckFinished(const views::CheckSnapshotPtr& snapshot) {
  // The editor marks every check (squiggles, gutter); the views get it only when its text
  // parsed and type-checked, else they keep the last good one under the stale banner.
  m_editor->setSnapshot(snapshot);
  m_lastGood->submit(snapshot);
  const auto& r = snapshot->result;
  QString kernel = r.module.kernel ? QString::fromStdString(r.module.kernel->name.name) : tr("(no kernel)");
  QString took = snapshot->elapsedMs > 0 ? tr("%1 ms").arg(snapshot->elapsedMs) : tr("under 1 ms");
  if (m_lastGood->isStale())
    m_status->setText(tr("%1: %2 — the views show the last good check — checked in %3")
                          .arg(kernel, m_lastGood->staleAt()->text(), took));
  else
    m_status->setText(tr("%1 on %2: %3 — %4 finding(s), %5 blocking — checked in %6")
                          .arg(kernel, QString::fromStdString(r.model.targetName),
                               r.accepted ? tr("accepted") : tr("refused"))
                          .arg(m_findingsPanel->model()->rowCount())
                          .arg(m_findingsPanel->model()->blockingCount())
                          .arg(took));
  const views::FindingsModel* findings = m_findingsPanel->model();
  if (m_jumpToFirstFinding && !m_lastGood->isStale() && findings->rowCount() > 0) {
    // The first blocking finding when there is one: it is why the kernel is refused.
    int row = 0;
    for (int i = findings->rowCount() - 1; i >= 0; --i)
      if (findings->finding(i)->severity == Severity::Blocking)
        row = i;
    m_findingsPanel->selectFinding(row);
    if (const views::FindingRow* f = findings->finding(row); f && f->line > 0 && f->path == snapshot->path)
      m_editor->goTo(f->line, f->column);
  }
  m_jumpToFirstFinding = false;
  m_shownJob = snapshot->jobId;
  requestLowering(); // the code view's lowering of this check, when it is visible
  Q_EMIT checkShown(snapshot->jobId);
}

void MainWindow::addRecent(const QString& path) {
  QSettings s;
  views::addRecentFile(s, path);
  s.setValue(QStringLiteral("lastFile"), QFileInfo(path).absoluteFilePath());
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  m_recent->clear();
  const QStringList recent = views::recentFiles(QSettings());
  for (const QString& p : recent)
    m_recent->addAction(p, this, [this, p] { openFromUi(p); });
  m_recent->setEnabled(!recent.isEmpty());
}

void MainWindow::restoreLayout() {
  QSettings s;
  restoreGeometry(s.value(QStringLiteral("geometry")).toByteArray());
  m_layoutRestored = restoreState(s.value(QStringLiteral("windowState")).toByteArray());
  QString folder = s.value(QStringLiteral("workspaceFolder")).toString();
  if (!folder.isEmpty() && QFileInfo(folder).isDir())
    openFolder(folder);
  m_findingsPanel->setFilterState(s.value(QStringLiteral("findingsFilters")).toMap());
  m_restorePath = s.value(QStringLiteral("lastFile")).toString();
  m_restoreLine = s.value(QStringLiteral("cursorLine"), 0).toInt();
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  if (!m_shownOnce && !m_layoutRestored)
    applyDefaultDockSizes();
  m_shownOnce = true;
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!maybeSave()) {
    event->ignore();
    return;
  }
  QSettings s;
  s.setValue(QStringLiteral("geometry"), saveGeometry());
  s.setValue(QStringLiteral("windowState"), saveState());
  s.setValue(QStringLiteral("workspaceFolder"), m_folder);
  s.setValue(QStringLiteral("findingsFilters"), m_findingsPanel->filterState());
  if (!m_path.isEmpty()) {
    s.setValue(QStringLiteral("lastFile"), m_path);
    s.setValue(QStringLiteral("cursorLine"), m_editor->cursorLine());
  }
  m_session->waitForIdle();
  event->accept();
}

} // namespace cake::app
