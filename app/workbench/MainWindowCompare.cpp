// The main window's baseline and Compare wiring: pin a baseline (deltas in the status bar and
// the performance view), compare two kernels, try a cost-model hint against its parent.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "MainWindow.h"

#include "cake/views/CompareData.h"
#include "cake/views/PerformanceData.h"
#include "cake/widgets/CodeEditor.h"
#include "cake/widgets/CompareView.h"
#include "cake/widgets/PerformanceView.h"

#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QStatusBar>

namespace cake::app {

namespace {

bool readKernelFile(const QString& path, QString& text, QString* error) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    if (error)
      *error = QObject::tr("cannot read '%1': %2").arg(path, f.errorString());
    return false;
  }
  text = QString::fromUtf8(f.read(64 << 20));
  return true;
}

/// Runs `fn` now when the compiler is loaded, else once it is.
template <typename Fn>
void whenCompilerReady(views::CompileSession* session, QObject* context, Fn fn) {
  if (session->compiler()) {
    fn();
    return;
  }
  auto* once = new QObject(context);
  QObject::connect(session, &views::CompileSession::compilerReady, once, [once, fn] {
    fn();
    once->deleteLater();
  });
}

} // namespace

void MainWindow::buildCompare() {
  m_compare = new widgets::CompareView(this);
  m_compareDock = new QDockWidget(tr("Compare"), this);
  m_compareDock->setObjectName(QStringLiteral("compareDock"));
  m_compareDock->setWidget(m_compare);
  addDockWidget(Qt::RightDockWidgetArea, m_compareDock);
  tabifyDockWidget(m_codeDock, m_compareDock);
  m_graphDock->raise();
  connect(m_session, &views::CompileSession::compareFinished, m_compare,
          &widgets::CompareView::setSnapshot);

  m_baselineLabel = new QLabel(this);
  m_baselineLabel->setObjectName(QStringLiteral("baselineStatus"));
  m_baselineLabel->hide();
  statusBar()->addPermanentWidget(m_baselineLabel);
  connect(m_session, &views::CompileSession::baselineReady, this,
          [this](const views::BaselinePtr& baseline) {
            m_baselineLabel->setVisible(bool(baseline));
            m_baselineLabel->setText(
                baseline ? tr("baseline %1: comparing…").arg(QFileInfo(baseline->path).fileName())
                         : QString());
            if (!baseline)
              m_performance->setBaselineDelta(nullptr);
          });
  connect(m_session, &views::CompileSession::baselineDeltaFinished, this,
          [this](const views::BaselineDeltaPtr& delta) {
            if (!delta)
              return;
            m_baselineLabel->setText(
                tr("vs %1: %2").arg(QFileInfo(delta->baselinePath).fileName(), delta->summary()));
            m_baselineLabel->setToolTip(
                tr("Against the pinned baseline %1 (Compare menu)").arg(delta->baselinePath));
            m_performance->setBaselineDelta(delta);
          });
  connect(m_performance, &widgets::PerformanceView::tryHint, this,
          [this](const views::CostSnapshotPtr& cost, int index) {
            if (!cost || !cost->estimate || !cost->check || index < 0 ||
                std::size_t(index) >= cost->estimate->hints.size())
              return;
            const cost::Hint& h = cost->estimate->hints[std::size_t(index)];
            QString child = views::withEdits(cost->check->text, h.edits);
            if (child.isEmpty()) {
              statusBar()->showMessage(tr("the hint's edit no longer applies"), 4000);
              return;
            }
            // The child candidate is checked, costed and lowered with its parent in the
            // compare job and opened against it.
            QString name = QFileInfo(cost->check->path).completeBaseName() +
                           QStringLiteral(".try-%1-%2.cake")
                               .arg(QString::fromStdString(h.decision).replace(' ', '-'),
                                    QString::fromStdString(h.to));
            m_compareRequested = true;
            m_session->requestCompare(cost->check->path, cost->check->text,
                                      QFileInfo(cost->check->path).dir().filePath(name), child);
            m_compareDock->show();
            m_compareDock->raise();
          });
}

bool MainWindow::compareFiles(const QString& before, const QString& after, QString* error) {
  QString a, b;
  if (!readKernelFile(before, a, error) || !readKernelFile(after, b, error))
    return false;
  m_compareRequested = true;
  whenCompilerReady(m_session, this, [this, before, a, after, b] {
    m_session->requestCompare(before, a, after, b);
  });
  m_compareDock->show();
  m_compareDock->raise();
  return true;
}

void MainWindow::compareWithBaseline() {
  const views::BaselinePtr& baseline = m_session->baseline();
  if (!baseline) {
    statusBar()->showMessage(tr("no baseline pinned (Compare > Pin …)"), 4000);
    return;
  }
  m_compareRequested = true;
  m_session->requestCompare(baseline->path, baseline->text,
                            m_path.isEmpty() ? QStringLiteral("untitled.cake") : m_path,
                            m_editor->toPlainText());
  m_compareDock->show();
  m_compareDock->raise();
}

void MainWindow::pinCurrentAsBaseline() {
  QString path = m_path.isEmpty() ? QStringLiteral("untitled.cake") : m_path;
  QString text = m_editor->toPlainText();
  whenCompilerReady(m_session, this, [this, path, text] { m_session->pinBaseline(path, text); });
}

bool MainWindow::pinBaselineFile(const QString& path, QString* error) {
  QString text;
  if (!readKernelFile(path, text, error))
    return false;
  whenCompilerReady(m_session, this, [this, path, text] { m_session->pinBaseline(path, text); });
  return true;
}

QString MainWindow::baselineStatus() const {
  return m_baselineLabel && m_session->baseline() ? m_baselineLabel->text() : QString();
}

} // namespace cake::app
