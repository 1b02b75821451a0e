// The editor gutter's metrics (issue 17 item 6): the newest cost estimate's time shares and bank
// ways and the code view's newest PTX or SASS instruction counts, merged into the CodeEditor's
// optional columns; the columns are toggled from View > Gutter columns or the gutter's menu.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "MainWindow.h"

#include "cake/views/GutterMetrics.h"
#include "cake/views/LoweredCode.h"
#include "cake/views/PerformanceData.h"
#include "cake/widgets/CodeEditor.h"

#include <QMenu>
#include <QMenuBar>

namespace cake::app {

namespace {
/// The newest tables (each job's result replaces its own; both clear for another file).
class GutterInputs : public QObject {
public:
  using QObject::QObject;
  views::CostSnapshotPtr cost;
  views::LowerSnapshotPtr lowered;
};
} // namespace

void MainWindow::setupGutterMetrics() {
  auto* in = new GutterInputs(this);
  auto refresh = [this, in] {
    m_editor->setGutterMetrics(views::combineGutterMetrics(in->cost, in->lowered));
  };
  connect(m_session, &views::CompileSession::checkFinished, this,
          [in, refresh](const views::CheckSnapshotPtr& c) {
            if (in->cost && in->cost->check && in->cost->check->path != c->path) {
              in->cost.reset();
              in->lowered.reset();
              refresh();
            }
          });
  connect(m_session, &views::CompileSession::costFinished, this,
          [in, refresh](const views::CostSnapshotPtr& c) {
            in->cost = c;
            refresh();
          });
  connect(m_session, &views::CompileSession::lowerFinished, this,
          [in, refresh](const views::LowerSnapshotPtr& l) {
            if (l->ok &&
                (l->kind == views::LoweredEmit::Ptx || l->kind == views::LoweredEmit::Sass)) {
              in->lowered = l;
              refresh();
            }
          });
  for (QAction* menu : menuBar()->actions())
    if (menu->menu() && menu->menu()->title() == tr("&View")) {
      QMenu* columns = menu->menu()->addMenu(tr("Gutter columns"));
      columns->setObjectName(QStringLiteral("gutterColumnsMenu"));
      columns->addActions(m_editor->gutterColumnActions());
    }
}

} // namespace cake::app
