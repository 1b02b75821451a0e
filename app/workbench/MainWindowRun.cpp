// The main window's Run on CPU: the action (Run menu, toolbar, Ctrl+R), the interpreter job
// (progress, cancel, stale results dropped by job id and text), the verdict in the findings
// panel and the status bar, and the output heat map dock.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "MainWindow.h"

#include "cake/views/RunData.h"
#include "cake/widgets/CodeEditor.h"
#include "cake/widgets/FindingsPanel.h"
#include "cake/widgets/HeatMapView.h"

#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QStatusBar>
#include <QToolBar>

namespace cake::app {

void MainWindow::setupRunDock() {
  m_heatMap = new widgets::HeatMapView(m_selection, this);
  m_runDock = new QDockWidget(tr("Run (CPU)"), this);
  m_runDock->setObjectName(QStringLiteral("runDock"));
  m_runDock->setWidget(m_heatMap);
  addDockWidget(Qt::RightDockWidgetArea, m_runDock);
  tabifyDockWidget(m_compareDock, m_runDock);
  m_graphDock->raise();

  m_runLabel = new QLabel(this);
  m_runLabel->setObjectName(QStringLiteral("runStatus"));
  m_runLabel->hide();
  statusBar()->addPermanentWidget(m_runLabel);

  QMenu* menu = menuBar()->addMenu(tr("&Run"));
  auto* run = new QAction(tr("Run on &CPU"), this);
  run->setObjectName(QStringLiteral("runOnCpuAction"));
  run->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  run->setToolTip(tr("Run the kernel on the CPU interpreter at its contract's small shapes and "
                     "compare every output with the reference (Ctrl+R)"));
  connect(run, &QAction::triggered, this, [this] {
    QString error;
    if (!runOnCpu(&error))
      statusBar()->showMessage(error, 8000);
  });
  auto* cancel = new QAction(tr("Ca&ncel CPU Run"), this);
  cancel->setObjectName(QStringLiteral("cancelRunAction"));
  cancel->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
  cancel->setEnabled(false);
  connect(cancel, &QAction::triggered, this, [this] {
    if (m_runJob && m_session->cancelJob(m_runJob)) {
      m_runJob = 0;
      m_runLabel->setText(tr("CPU run: cancelled"));
    }
  });
  auto* contract = new QAction(tr("Choose &Workload Contract…"), this);
  connect(contract, &QAction::triggered, this, [this] {
    QString path = QFileDialog::getOpenFileName(this, tr("Workload contract"),
                                                QFileInfo(m_path).absolutePath(),
                                                tr("Workload contracts (*.json);;All files (*)"));
    if (!path.isEmpty())
      setRunWorkload(path);
  });
  menu->addAction(run);
  menu->addAction(cancel);
  menu->addAction(contract);
  menu->addSeparator();
  menu->addAction(m_runDock->toggleViewAction());
  QToolBar* bar = addToolBar(tr("Run"));
  bar->setObjectName(QStringLiteral("runToolBar"));
  bar->addAction(run);
  bar->addAction(cancel);

  connect(m_session, &views::CompileSession::jobProgress, this, [this](quint64 id, int percent) {
    if (id == m_runJob && m_runJob)
      m_runLabel->setText(tr("CPU run: %1 %").arg(percent));
  });
  connect(m_session, &views::CompileSession::jobStateChanged, this,
          [this, cancel](quint64 id, views::JobState state, const QString&) {
            if (id != m_runJob)
              return;
            bool active = state == views::JobState::Queued || state == views::JobState::Running;
            cancel->setEnabled(active);
            // A failed job (nothing ran) still delivers its findings; a cancelled one does not.
            if (state == views::JobState::Cancelled)
              m_runJob = 0;
          });
  // An edit makes a run in flight stale: it is cancelled (the interpreter stops at the next
  // CTA) and its job id no longer matches, so a late result is dropped.
  connect(m_editor, &QPlainTextEdit::textChanged, this, [this] {
    if (m_runJob) {
      m_session->cancelJob(m_runJob);
      m_runJob = 0;
      m_runLabel->setText(tr("CPU run: cancelled (the text changed)"));
    }
  });
  // A shown run belongs to its text: a check of another text drops it from the heat map (the
  // findings panel drops its rows itself).
  connect(m_session, &views::CompileSession::checkFinished, this,
          [this](const views::CheckSnapshotPtr& snapshot) {
            if (m_run && snapshot && snapshot->text != m_run->text) {
              m_run.reset();
              m_heatMap->setRun(nullptr);
              m_runLabel->setText(tr("CPU run: stale (the text changed; Ctrl+R runs again)"));
            }
          });
}

bool MainWindow::runOnCpu(QString* error) {
  std::shared_ptr<const driver::Compiler> compiler = m_session->compiler();
  if (!compiler) {
    if (error)
      *error = tr("the compiler is still loading");
    return false;
  }
  QString path = m_path.isEmpty() ? QStringLiteral("untitled.cake") : m_path;
  QString text = m_editor->toPlainText();
  QString corpus = m_workspace;
  QString workload = m_runWorkloadFor == m_path ? m_runWorkload : QString();
  if (m_runJob)
    m_session->cancelJob(m_runJob);
  m_runLabel->show();
  m_runLabel->setText(tr("CPU run: starting…"));
  // The contract lookup reads the manifest, so it runs in the job as well.
  m_runJob = m_session->runTaskWithProgress(
      views::JobKind::Run, tr("run %1 on the CPU (small shapes)").arg(QFileInfo(path).fileName()),
      [compiler, path, text, corpus, workload](const std::atomic<bool>& cancel,
                                               const views::TaskProgress& progress) {
        QString contract = workload, id, why;
        if (contract.isEmpty())
          contract = views::findRunWorkload(corpus, path, &id, &why);
        else
          id = QFileInfo(contract).completeBaseName();
        std::shared_ptr<views::RunSnapshot> snap;
        if (contract.isEmpty()) {
          snap = std::make_shared<views::RunSnapshot>();
          snap->path = path;
          snap->text = text;
          snap->error = why;
        } else {
          snap = std::const_pointer_cast<views::RunSnapshot>(
              views::runKernelOnCpu(*compiler, path, text, contract, id, cancel, progress));
        }
        views::TaskOutcome out;
        const interp::RunResult* r = snap->result.get();
        out.log = views::runStatusText(*snap);
        out.failed = !r || !r->ran;
        out.value = std::static_pointer_cast<const void>(
            std::shared_ptr<const views::RunSnapshot>(std::move(snap)));
        return out;
      },
      this,
      [this](quint64 id, const views::TaskOutcome& outcome) {
        if (id != m_runJob || !outcome.value)
          return; // superseded by a newer run or cancelled by an edit
        m_runJob = 0;
        auto snap = std::static_pointer_cast<const views::RunSnapshot>(outcome.value);
        if (snap->text != m_editor->toPlainText())
          return; // edited while the result was on its way
        auto copy = std::make_shared<views::RunSnapshot>(*snap);
        copy->jobId = id;
        m_run = copy;
        m_findingsPanel->setRunRows(m_run->text, views::runFindingRows(*m_run));
        m_heatMap->setRun(m_run);
        m_runLabel->setText(views::runStatusText(*m_run));
        if (m_run->result && m_run->result->ran && !m_run->result->correct) {
          m_runDock->show();
          m_runDock->raise();
        }
        Q_EMIT runShown(id);
      });
  return true;
}

} // namespace cake::app
