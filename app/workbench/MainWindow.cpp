// Main window wiring: editor edits → debounced background check → findings, marks, status;
// the graph, layout and timeline docks and the shared selection between all views.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "MainWindow.h"

#include "CodeEditor.h"
#include "cake/views/CakeHighlighter.h"
#include "cake/views/FindingsModel.h"
#include "cake/widgets/GraphView.h"
#include "cake/widgets/MemoryLayoutView.h"
#include "cake/widgets/TimelineView.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QSaveFile>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>

namespace cake::app {

MainWindow::MainWindow(views::CompileSession* session, QWidget* parent)
    : QMainWindow(parent), m_session(session), m_editor(new CodeEditor(this)),
      m_highlighter(new views::CakeHighlighter(m_editor->document())),
      m_findings(new views::FindingsModel(this)), m_findingsView(new QTableView(this)),
      m_findingsDock(new QDockWidget(tr("Findings"), this)),
      m_selection(new views::SelectionModel(this)), m_status(new QLabel(this)),
      m_revision(new QLabel(this)) {
  setObjectName(QStringLiteral("mainWindow"));
  setWindowTitle(tr("Cake Workbench"));
  setCentralWidget(m_editor);

  m_findingsView->setObjectName(QStringLiteral("findingsView"));
  m_findingsView->setModel(m_findings);
  m_findingsView->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_findingsView->setSelectionMode(QAbstractItemView::SingleSelection);
  m_findingsView->verticalHeader()->hide();
  m_findingsView->horizontalHeader()->setStretchLastSection(true);
  m_findingsView->setWordWrap(false);
  m_findingsDock->setObjectName(QStringLiteral("findingsDock"));
  m_findingsDock->setWidget(m_findingsView);
  addDockWidget(Qt::BottomDockWidgetArea, m_findingsDock);
  connect(m_findingsView, &QTableView::activated, this, [this](const QModelIndex& index) {
    if (const views::FindingRow* f = m_findings->finding(index.row()); f && f->line > 0)
      m_editor->goTo(f->line, f->column);
  });
  // Moving through the findings keeps the keyboard there; the other views follow.
  connect(m_findingsView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& index) {
            const views::FindingRow* f = m_findings->finding(index.row());
            if (!f)
              return;
            if (f->line > 0) {
              m_movingCursor = true;
              m_editor->goTo(f->line, f->column, false);
              m_movingCursor = false;
            }
            m_selection->selectFinding(index.row(), views::SelectionOrigin::Findings);
          });
  buildViews();

  m_status->setObjectName(QStringLiteral("checkStatus"));
  statusBar()->addWidget(m_status, 1);
  statusBar()->addPermanentWidget(m_revision);
  m_revision->setText(tr("loading compiler…"));

  m_debounce.setSingleShot(true);
  m_debounce.setInterval(250);
  connect(&m_debounce, &QTimer::timeout, this, &MainWindow::scheduleCheck);
  connect(m_editor, &QPlainTextEdit::textChanged, this, [this] { m_debounce.start(); });

  connect(m_session, &views::CompileSession::compilerReady, this, [this](const QString& rev) {
    m_revision->setText(tr("compiler %1").arg(rev));
  });
  connect(m_session, &views::CompileSession::compilerFailed, this, [this](const QString& msg) {
    m_revision->setText(tr("compiler data invalid"));
    m_status->setText(msg.section('\n', 0, 0));
  });
  connect(m_session, &views::CompileSession::checkFinished, this, &MainWindow::onCheckFinished);

  buildMenus();
  applyPalette();
  resize(1280, 800);
}

void MainWindow::buildViews() {
  m_graph = new widgets::GraphView(m_selection, this);
  m_layout = new widgets::MemoryLayoutView(m_selection, this);
  m_timeline = new widgets::TimelineView(m_selection, this);
  auto dock = [this](QDockWidget*& d, const QString& title, const QString& name, QWidget* w) {
    d = new QDockWidget(title, this);
    d->setObjectName(name);
    d->setWidget(w);
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

  connect(m_editor, &QPlainTextEdit::cursorPositionChanged, this, [this] {
    if (!m_movingCursor)
      m_selection->selectLine(m_editor->textCursor().blockNumber() + 1, views::SelectionOrigin::Editor);
  });
  connect(m_selection, &views::SelectionModel::selectionChanged, this, &MainWindow::onSelectionChanged);
}

void MainWindow::onSelectionChanged(const views::Selection& selection, views::SelectionOrigin origin) {
  if (origin == views::SelectionOrigin::Editor || origin == views::SelectionOrigin::Program)
    return;
  views::SourceSpan span = m_selection->sourceOf(selection);
  if (origin != views::SelectionOrigin::Findings && span.valid()) {
    m_movingCursor = true;
    m_editor->goTo(span.line, span.column, false);
    m_movingCursor = false;
  }
  // A finding picked in another view (the timeline's marks) becomes the current finding row.
  if (selection.finding >= 0 && origin != views::SelectionOrigin::Findings &&
      selection.finding < m_findings->rowCount()) {
    QSignalBlocker block(m_findingsView->selectionModel());
    m_findingsView->selectRow(selection.finding);
  }
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
  return nullptr;
}

bool MainWindow::viewsReady() const {
  return m_shownJob != 0 && m_graph->shownSnapshot() == m_shownJob && !m_graph->layoutPending();
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(tr("&Open…"), this, [this] {
    QString path = QFileDialog::getOpenFileName(this, tr("Open kernel"), m_workspace,
                                                tr("Cake IR (*.cake);;All files (*)"));
    QString error;
    if (!path.isEmpty() && !openFile(path, &error))
      QMessageBox::warning(this, tr("Open kernel"), error);
  });
  open->setShortcut(QKeySequence::Open);
  QAction* save = file->addAction(tr("&Save"), this, &MainWindow::saveFile);
  save->setShortcut(QKeySequence::Save);
  m_recent = file->addMenu(tr("Open &Recent"));
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
  quit->setShortcut(QKeySequence::Quit);
  m_examples = menuBar()->addMenu(tr("&Examples"));
  m_examples->setObjectName(QStringLiteral("examplesMenu"));
  QMenu* view = menuBar()->addMenu(tr("&View"));
  view->addAction(m_findingsDock->toggleViewAction());
  view->addAction(m_graphDock->toggleViewAction());
  view->addAction(m_layoutDock->toggleViewAction());
  view->addAction(m_timelineDock->toggleViewAction());
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

void MainWindow::setWorkspace(const QString& dir) {
  m_workspace = dir;
  m_exampleFiles.clear();
  m_examples->clear();
  QFile manifest(QDir(dir).filePath(QStringLiteral("manifest.json")));
  if (manifest.open(QIODevice::ReadOnly)) {
    const QJsonArray cases =
        QJsonDocument::fromJson(manifest.readAll()).object().value("cases").toArray();
    for (const QJsonValue& c : cases) {
      QJsonObject o = c.toObject();
      m_exampleFiles.append({o.value("id").toString(),
                             QDir(dir).filePath(o.value("path").toString())});
    }
  } else {
    const QFileInfoList files = QDir(dir).entryInfoList({"*.cake"}, QDir::Files, QDir::Name);
    for (const QFileInfo& f : files)
      m_exampleFiles.append({f.completeBaseName(), f.filePath()});
  }
  for (const auto& [id, path] : m_exampleFiles) {
    QString p = path;
    m_examples->addAction(id, this, [this, p] {
      QString error;
      if (!openFile(p, &error))
        QMessageBox::warning(this, tr("Open example"), error);
    });
  }
  if (m_exampleFiles.isEmpty())
    m_examples->addAction(tr("(no examples in %1)").arg(dir))->setEnabled(false);
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
  setWindowTitle(tr("%1 — Cake Workbench").arg(QFileInfo(path).fileName()));
  m_editor->setPlainText(QString::fromUtf8(bytes));
  addRecent(path);
  m_jumpToFirstFinding = true;
  m_debounce.stop();
  scheduleCheck();
  return true;
}

void MainWindow::saveFile() {
  if (m_path.isEmpty())
    return;
  QSaveFile out(m_path);
  if (!out.open(QIODevice::WriteOnly) || out.write(m_editor->toPlainText().toUtf8()) < 0 ||
      !out.commit())
    QMessageBox::warning(this, tr("Save"), tr("cannot write '%1': %2").arg(m_path, out.errorString()));
}

void MainWindow::scheduleCheck() {
  m_status->setText(tr("checking…"));
  m_session->requestCheck(m_path.isEmpty() ? QStringLiteral("untitled.cake") : m_path,
                          m_editor->toPlainText());
}

void MainWindow::onCheckFinished(const views::CheckSnapshotPtr& snapshot) {
  // A snapshot of text that was edited since is still shown; a newer job follows.
  m_selection->setSnapshot(snapshot);
  m_findings->setSnapshot(snapshot);
  m_graph->setSnapshot(snapshot);
  m_layout->setSnapshot(snapshot);
  m_timeline->setSnapshot(snapshot);
  m_findingsView->resizeColumnsToContents();
  QList<CodeEditor::Mark> marks;
  for (int i = 0; i < m_findings->rowCount(); ++i) {
    const views::FindingRow* f = m_findings->finding(i);
    if (f->line > 0 && f->path == snapshot->path)
      marks << CodeEditor::Mark{f->line, f->column, f->endLine, f->endColumn, int(f->severity),
                                "[" + f->code + "] " + f->message};
  }
  m_editor->setMarks(marks);
  const auto& r = snapshot->result;
  QString kernel = r.module.kernel ? QString::fromStdString(r.module.kernel->name.name) : tr("(no kernel)");
  m_status->setText(tr("%1 on %2: %3 — %4 finding(s), %5 blocking — checked in %6 ms")
                        .arg(kernel, QString::fromStdString(r.model.targetName),
                             r.accepted ? tr("accepted") : tr("refused"))
                        .arg(m_findings->rowCount())
                        .arg(m_findings->blockingCount())
                        .arg(snapshot->elapsedMs));
  if (m_jumpToFirstFinding && m_findings->rowCount() > 0) {
    // The first blocking finding when there is one: it is why the kernel is refused.
    int row = 0;
    for (int i = m_findings->rowCount() - 1; i >= 0; --i)
      if (m_findings->finding(i)->severity == Severity::Blocking)
        row = i;
    m_findingsView->selectRow(row);
    if (const views::FindingRow* f = m_findings->finding(row); f && f->line > 0)
      m_editor->goTo(f->line, f->column);
  }
  m_jumpToFirstFinding = false;
  m_shownJob = snapshot->jobId;
  Q_EMIT checkShown(snapshot->jobId);
}

void MainWindow::addRecent(const QString& path) {
  QSettings s;
  QStringList recent = s.value(QStringLiteral("recentFiles")).toStringList();
  recent.removeAll(path);
  recent.prepend(path);
  while (recent.size() > 10)
    recent.removeLast();
  s.setValue(QStringLiteral("recentFiles"), recent);
  s.setValue(QStringLiteral("lastFile"), path);
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  m_recent->clear();
  const QStringList recent = QSettings().value(QStringLiteral("recentFiles")).toStringList();
  for (const QString& p : recent)
    m_recent->addAction(p, this, [this, p] {
      QString error;
      if (!openFile(p, &error))
        QMessageBox::warning(this, tr("Open recent"), error);
    });
  m_recent->setEnabled(!recent.isEmpty());
}

void MainWindow::restoreLayout() {
  QSettings s;
  restoreGeometry(s.value(QStringLiteral("geometry")).toByteArray());
  restoreState(s.value(QStringLiteral("windowState")).toByteArray());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings s;
  s.setValue(QStringLiteral("geometry"), saveGeometry());
  s.setValue(QStringLiteral("windowState"), saveState());
  m_session->waitForIdle();
  event->accept();
}

} // namespace cake::app
