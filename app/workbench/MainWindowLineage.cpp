// The main window's Lineage wiring: File > Import Campaign…, the Lineage dock fed by the
// LineageController (imports, store reads, the folder watch), a node opens its candidate in the
// editor, an edge compares parent and child in the Compare dock.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "MainWindow.h"

#include "cake/views/LineageController.h"
#include "cake/widgets/LineageView.h"
#include "cake/widgets/ProgressView.h"

#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>

namespace cake::app {

namespace {

/// The menu of the menu bar with this title ("&File"), or null.
QMenu* menuNamed(QMenuBar* bar, const QString& title) {
  for (QAction* a : bar->actions())
    if (a->menu() && a->text() == title)
      return a->menu();
  return nullptr;
}

} // namespace

void MainWindow::setupLineageDock() {
  m_lineage = new views::LineageController(m_session, this);
  m_lineage->setWorkspace(m_session->workspace());
  m_lineageView = new widgets::LineageView(this);
  m_lineageDock = new QDockWidget(tr("Lineage"), this);
  m_lineageDock->setObjectName(QStringLiteral("lineageDock"));
  m_lineageDock->setWidget(m_lineageView);
  addDockWidget(Qt::RightDockWidgetArea, m_lineageDock);
  tabifyDockWidget(m_compareDock, m_lineageDock);
  m_graphDock->raise();

  connect(m_lineage, &views::LineageController::lineageChanged, this,
          [this](const views::LineagePtr& lineage) {
            m_lineageView->setLineage(lineage);
            lineageFollowEditor(); // the open file may be one of its candidates
          });
  connect(m_lineage, &views::LineageController::imported, this,
          [this](const views::ImportSummaryPtr& s) {
            m_lineageView->setImportSummary(s);
            statusBar()->showMessage(tr("campaign %1: %2").arg(s->campaign, s->text()), 8000);
          });
  connect(m_lineage, &views::LineageController::failed, this, [this](const QString& message) {
    m_lineageView->setMessage(message);
    statusBar()->showMessage(message, 8000);
  });
  auto kernelPath = [this](const QString& id) -> QString {
    const views::LineagePtr& l = m_lineage->lineage();
    int i = l ? l->indexOf(id) : -1;
    if (i < 0)
      return {};
    return QDir(l->folder).filePath(QString::fromStdString(l->nodes[i].record.kernel));
  };
  connect(m_lineageView, &widgets::LineageView::candidateActivated, this,
          [this, kernelPath](const QString& id) {
            QString path = kernelPath(id);
            if (path.isEmpty() || !QFileInfo(path).isFile()) {
              statusBar()->showMessage(
                  tr("candidate %1: its kernel %2 is not in the campaign folder").arg(id, path),
                  8000);
              return;
            }
            openFromUi(path);
          });
  connect(m_lineageView, &widgets::LineageView::edgeActivated, this,
          [this, kernelPath](const QString& parent, const QString& child) {
            QString error;
            if (!compareFiles(kernelPath(parent), kernelPath(child), &error))
              statusBar()->showMessage(error, 8000);
          });

  if (QMenu* file = menuNamed(menuBar(), tr("&File"))) {
    auto* action = new QAction(tr("Import &Campaign…"), this);
    action->setObjectName(QStringLiteral("importCampaignAction"));
    connect(action, &QAction::triggered, this, [this] {
      QString dir = QFileDialog::getExistingDirectory(
          this, tr("Import a campaign folder (campaign.json, candidates.jsonl)"), m_folder);
      if (!dir.isEmpty())
        importCampaign(dir);
    });
    file->insertAction(m_recent->menuAction(), action);
  }
  if (QMenu* view = menuNamed(menuBar(), tr("&View")))
    view->addAction(m_lineageDock->toggleViewAction());
  // The one import path: an import (the menu, --import-campaign, the folder watch) changes
  // what Progress shows; a failed one ends a read that waited for it.
  auto progressAfterImport = [this] {
    if (m_progressView->store() || m_progressDeferred)
      refreshProgress(); // deferred again while more imports are queued
  };
  connect(m_lineage, &views::LineageController::imported, this, progressAfterImport);
  connect(m_lineage, &views::LineageController::failed, this, progressAfterImport);
}

void MainWindow::lineageFollowEditor() {
  const views::LineagePtr& l = m_lineageView->lineage();
  int i = l ? l->indexOfKernel(m_path) : -1;
  if (i < 0)
    return;
  QString id = QString::fromStdString(l->nodes[i].record.id);
  // A click in the lineage opened it: it is selected and in view already.
  if (m_lineageView->currentCandidate() != id || m_lineageView->layoutPending())
    m_lineageView->selectCandidate(id); // selects and centres it (or once it is drawn)
}

bool MainWindow::importCampaign(const QString& dir) {
  if (!QFileInfo(dir).isDir()) {
    statusBar()->showMessage(tr("'%1' is not a folder").arg(dir), 8000);
    return false;
  }
  m_lineage->setWorkspace(m_session->workspace());
  m_lineageView->setMessage(tr("importing %1…").arg(dir));
  m_lineageDock->show();
  m_lineageDock->raise();
  return m_lineage->importFolder(dir);
}

bool MainWindow::showCampaign(const QString& name) {
  m_lineage->setWorkspace(m_session->workspace());
  m_lineageDock->show();
  m_lineageDock->raise();
  return m_lineage->showCampaign(name);
}

bool MainWindow::lineageReady() const {
  return m_lineage->pendingJobs() == 0 && m_lineageView->lineage() &&
         !m_lineageView->layoutPending() && m_lineageView->graph();
}

QString MainWindow::lineageSummary() const {
  const views::LineagePtr& l = m_lineageView->lineage();
  const views::LineageGraph* g = m_lineageView->graph();
  const views::GraphLayout* layout = m_lineageView->layout();
  if (!l || !g || !layout)
    return tr("no lineage");
  QString selected = m_lineageView->currentCandidate().isEmpty()
                         ? QString()
                         : tr(", selected %1").arg(m_lineageView->currentCandidate());
  return tr("%1: %2 candidates (%3 shown), best %4, layout %5 ms (%6), scene %7 ms%8")
      .arg(l->campaign)
      .arg(l->nodes.size())
      .arg(g->graph.nodes.size())
      .arg(l->bestPath.isEmpty() ? QStringLiteral("-") : l->bestPath.last())
      .arg(layout->elapsedMs)
      .arg(layout->engine)
      .arg(m_lineageView->lastSceneMs())
      .arg(selected);
}

} // namespace cake::app
