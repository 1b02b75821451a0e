// The main window's Runs dock wiring (issue 15 §5): runs of the open kernel through `cake run`
// (device, executor, shapes), the stored runs of the workspace, and "Calibrate from these runs"
// handing a calibration proposal to the Proposals dock's review flow.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "MainWindow.h"

#include "cake/views/ProposalController.h"
#include "cake/views/RunController.h"
#include "cake/views/RunsData.h"
#include "cake/widgets/CodeEditor.h"
#include "cake/widgets/RunsView.h"

#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>

namespace cake::app {

void MainWindow::setupRunsDock() {
  m_runs = new views::RunController(m_session, this);
  m_runsView = new widgets::RunsView(m_runs, this);
  m_runsDock = new QDockWidget(tr("Runs"), this);
  m_runsDock->setObjectName(QStringLiteral("runsDock"));
  m_runsDock->setWidget(m_runsView);
  tabifyDockWidget(m_codeDock, m_runsDock);
  m_graphDock->raise();

  connect(m_runsView, &widgets::RunsView::runRequested, this, [this](views::RunRequest r) {
    // A run is built from the file on disk (like `cake run`): unsaved edits would not be run.
    if (m_path.isEmpty() || m_editor->document()->isModified()) {
      m_runsView->appendLog(m_path.isEmpty() ? tr("Open or save a kernel file to run it.")
                                             : tr("Save %1 first: a run is built from the file "
                                                  "on disk.")
                                                   .arg(QFileInfo(m_path).fileName()));
      return;
    }
    r.kernelPath = m_path;
    QString error;
    if (!m_runs->start(r, &error))
      m_runsView->appendLog(tr("Not run: %1").arg(error));
  });
  // Measured points on the roofline come from the store in the cost job: cost again once a run
  // has been stored.
  connect(m_runs, &views::RunController::runFinished, this, [this] {
    if (m_shownJob != 0)
      scheduleCheck();
  });
  connect(m_runsView, &widgets::RunsView::calibrateRequested, this,
          [this](const QVector<views::RunEntry>& selected) {
            auto compiler = m_session->compiler();
            QString ws = m_runs->workspace();
            if (!compiler || ws.isEmpty()) {
              m_runsView->appendLog(tr("Calibrate: the compiler or the workspace is not ready."));
              return;
            }
            QString root = QDir(ws).filePath(QStringLiteral("proposals"));
            QString actor = m_proposals->actor();
            views::TaskWork work = [compiler, selected, root, actor](const std::atomic<bool>&) {
              auto result = std::make_shared<views::CalibrationProposal>(
                  views::writeCalibrationProposal(*compiler, selected, root, actor));
              views::TaskOutcome o;
              o.failed = !result->ok();
              o.log = result->ok() ? tr("proposal %1").arg(QFileInfo(result->folder).fileName())
                                   : result->refusal;
              o.value = result;
              return o;
            };
            m_session->runTask(
                views::JobKind::Run, tr("calibrate from %n run(s)", nullptr, int(selected.size())),
                std::move(work), this, [this](quint64, const views::TaskOutcome& o) {
                  auto p = std::static_pointer_cast<const views::CalibrationProposal>(o.value);
                  if (!p)
                    return;
                  if (!p->ok()) {
                    m_runsView->appendLog(tr("Calibrate refused: %1").arg(p->refusal));
                    return;
                  }
                  m_runsView->appendLog(
                      tr("Calibration proposal for %1 from %2 runs: Spearman %3 → %4, top-1 regret "
                         "%5 → %6, rms log error %7 → %8. Written to %9; evaluating it for "
                         "review in the Proposals dock.")
                          .arg(p->target)
                          .arg(p->measurements)
                          .arg(p->spearmanBefore, 0, 'f', 3)
                          .arg(p->spearmanAfter, 0, 'f', 3)
                          .arg(p->regretBefore, 0, 'f', 3)
                          .arg(p->regretAfter, 0, 'f', 3)
                          .arg(p->rmsBefore, 0, 'f', 3)
                          .arg(p->rmsAfter, 0, 'f', 3)
                          .arg(p->folder));
                  m_proposals->addFolder(p->folder);
                  m_proposals->evaluate(p->folder);
                  m_proposals->open(p->folder);
                  m_proposalsDock->show();
                  m_proposalsDock->raise();
                });
          });
}

} // namespace cake::app
