// The main window's Progress dock: best-so-far curves and the predicted-vs-measured scatter of
// the workspace's campaigns, read on the task worker; imports go through the Lineage dock's
// controller, whose `imported` signal refreshes the chart (MainWindowLineage.cpp).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "MainWindow.h"

#include "cake/views/LineageController.h"
#include "cake/views/ProgressData.h"
#include "cake/widgets/ProgressView.h"

#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QStatusBar>
#include <utility>

namespace cake::app {

void MainWindow::setupProgressDock() {
  m_progressView = new widgets::ProgressView(this);
  m_progressDock = new QDockWidget(tr("Progress"), this);
  m_progressDock->setObjectName(QStringLiteral("progressDock"));
  m_progressDock->setWidget(m_progressView);
  addDockWidget(Qt::RightDockWidgetArea, m_progressDock);
  tabifyDockWidget(m_codeDock, m_progressDock);
  m_graphDock->raise();
  connect(m_progressView, &widgets::ProgressView::candidateActivated, this,
          [this](const QString& campaign, const QString& id, const QString& folder,
                 const QString& kernel) {
            QString path = QDir(folder).filePath(kernel);
            if (!QFileInfo(path).isFile()) {
              statusBar()->showMessage(
                  tr("%1 / %2: its kernel %3 is no longer in the campaign folder")
                      .arg(campaign, id, path),
                  6000);
              return;
            }
            openFromUi(path);
            statusBar()->showMessage(tr("%1 / %2").arg(campaign, id), 4000);
          });
  connect(m_progressView, &widgets::ProgressView::reloadRequested, this,
          [this] { refreshProgress(); });
  // The store is read when the dock is first shown: a session that never looks pays nothing.
  connect(m_progressDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
    if (visible && m_progressJob == 0 && !m_progressDeferred && !m_progressView->store())
      refreshProgress();
  });
}

void MainWindow::refreshProgress() {
  QString dir = m_session->workspace();
  if (dir.isEmpty()) {
    auto none = std::make_shared<views::ProgressStore>();
    none->error = tr("no workspace is open (--workspace WS, or File > Open Workspace)");
    m_progressView->setStore(none);
    return;
  }
  if (m_lineage && m_lineage->pendingImports() > 0) {
    // Read once the imports are stored: their `imported` signal calls this again.
    m_progressDeferred = true;
    return;
  }
  m_progressDeferred = false;
  m_progressJob = m_session->runTask(
      views::JobKind::Import, tr("read campaigns of %1").arg(dir),
      [dir](const std::atomic<bool>&) -> views::TaskOutcome {
        auto store = std::make_shared<views::ProgressStore>(views::readProgressStore(dir));
        QString log = store->error.isEmpty()
                          ? QStringLiteral("%1 campaigns").arg(store->campaigns.size())
                          : store->error;
        return {!store->error.isEmpty(), log, store};
      },
      this,
      [this](quint64 id, const views::TaskOutcome& outcome) {
        if (id != m_progressJob)
          return; // a newer read supersedes this one
        m_progressJob = 0;
        m_progressView->setStore(
            std::static_pointer_cast<const views::ProgressStore>(outcome.value));
        // Campaigns named on the command line are chosen once; later reads keep the user's.
        if (!m_progressCampaigns.isEmpty())
          m_progressView->setSelectedCampaigns(std::exchange(m_progressCampaigns, {}));
      });
}

void MainWindow::progressWorkspaceChanged() {
  if (m_progressView->store())
    refreshProgress();
}

bool MainWindow::progressReady() const {
  return m_progressJob == 0 && !m_progressDeferred && m_progressView->store() != nullptr;
}

void MainWindow::showProgressCampaigns(const QStringList& names) {
  m_progressCampaigns = names;
  if (m_progressView->store() && m_progressJob == 0 && !m_progressDeferred) {
    m_progressView->setSelectedCampaigns(names);
    m_progressCampaigns.clear();
  }
}

} // namespace cake::app
