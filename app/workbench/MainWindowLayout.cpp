// Main window sizes for real screens (B5/B6): default dock sizes that follow the window's
// first size, and the geometry report `cake-workbench --layout-report` writes for the tests
// (minimum sizes, dock rectangles and overlaps, the editor's width, findings rows shown).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "MainWindow.h"

#include "cake/widgets/CodeEditor.h"
#include "cake/widgets/FindingsPanel.h"
#include "cake/widgets/WorkspaceTree.h"

#include <QDockWidget>
#include <QJsonArray>
#include <QJsonObject>
#include <QTreeView>
#include <algorithm>

namespace cake::app {

namespace {

QJsonArray toJson(const QSize& s) {
  return {s.width(), s.height()};
}
QJsonArray toJson(const QRect& r) {
  return {r.x(), r.y(), r.width(), r.height()};
}

/// A dock the user can see: shown, docked, and the front tab of its group.
bool onScreen(const QDockWidget* d) {
  return d->isVisible() && !d->isFloating() && !d->visibleRegion().isEmpty();
}

} // namespace

void MainWindow::applyDefaultDockSizes() {
  // Proportional to the window: a 1920x1080 screen gives the findings ≥ 8 rows and the
  // editor most of the width; 1024x640 keeps the editor usable next to the graph.
  const int w = width(), h = height();
  resizeDocks({m_workspaceDock}, {std::clamp(w / 7, 150, 240)}, Qt::Horizontal);
  resizeDocks({m_graphDock}, {std::clamp(w * 2 / 5, 300, 900)}, Qt::Horizontal);
  resizeDocks({m_findingsDock}, {std::clamp(h * 3 / 10, 200, 360)}, Qt::Vertical);
  resizeDocks({m_findingsDock, m_timelineDock}, {w * 2 / 5, w * 3 / 5}, Qt::Horizontal);
}

QJsonObject MainWindow::layoutReport() const {
  QJsonObject report;
  report["window"] = toJson(size());
  report["minimumSizeHint"] = toJson(minimumSizeHint());
  report["minimumSize"] = toJson(minimumSize());
  QJsonArray docks, overlaps;
  QList<QDockWidget*> shown;
  for (QDockWidget* d : findChildren<QDockWidget*>()) {
    QJsonObject o;
    o["name"] = d->objectName();
    o["shown"] = onScreen(d);
    if (onScreen(d))
      shown << d;
    o["rect"] = toJson(d->geometry());
    o["minimumSizeHint"] = toJson(d->minimumSizeHint());
    if (d->widget()) {
      o["contentMinimumSizeHint"] = toJson(d->widget()->minimumSizeHint());
      // What makes a dock wide: its widest parts (class#name: minimum width).
      QJsonArray wide;
      for (const QWidget* c : d->widget()->findChildren<QWidget*>())
        if (c->isVisibleTo(d) && c->minimumSizeHint().width() > 160)
          wide.append(QStringLiteral("%1#%2:%3")
                          .arg(QLatin1String(c->metaObject()->className()), c->objectName())
                          .arg(c->minimumSizeHint().width()));
      o["wideParts"] = wide;
    }
    docks.append(o);
  }
  for (int i = 0; i < shown.size(); ++i)
    for (int j = i + 1; j < shown.size(); ++j)
      if (shown[i]->geometry().intersects(shown[j]->geometry()))
        overlaps.append(QJsonArray{shown[i]->objectName(), shown[j]->objectName()});
  QRect editor(m_editor->mapTo(this, QPoint(0, 0)), m_editor->size());
  for (QDockWidget* d : shown)
    if (d->geometry().intersects(editor))
      overlaps.append(QJsonArray{d->objectName(), QStringLiteral("editor")});
  report["docks"] = docks;
  report["overlaps"] = overlaps;
  report["editor"] = toJson(editor);
  report["editorViewportWidth"] = m_editor->viewport()->width();
  // Rows the findings tree shows at once (its row height, from the first row or the font).
  QTreeView* tree = m_findingsPanel->view();
  int rowHeight = tree->model() && tree->model()->rowCount() > 0 ? tree->sizeHintForRow(0) : 0;
  if (rowHeight <= 0)
    rowHeight = tree->fontMetrics().height() + 4;
  report["findingsRows"] = tree->viewport()->height() / std::max(1, rowHeight);
  QJsonObject workspace;
  workspace["open"] = m_workspaceTree->openFile();
  workspace["selected"] = m_workspaceTree->selectedFile();
  report["workspace"] = workspace;
  return report;
}

} // namespace cake::app
