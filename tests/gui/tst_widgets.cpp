// Widget tests (offscreen): the graph view (layout on the worker, search, keyboard navigation,
// fit and refit on resize, collapse/expand, fallback on an injected Graphviz failure, SVG/PNG/DOT
// export), the timeline's keys, clicks and trace export, the layout view's access notes, the
// CPU run's heat map (painted colours, hover text, a click selecting the writing line), and the
// selection shared between graph, timeline and layout.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "../views/ViewsTestUtil.h"
#include "cake/views/PerformanceData.h"
#include "cake/views/ViewPalette.h"
#include "cake/views/RunData.h"
#include "cake/widgets/GraphView.h"
#include "cake/widgets/HeatMapView.h"
#include "cake/widgets/MemoryLayoutView.h"
#include "cake/widgets/ShortcutReference.h"
#include "cake/widgets/TimelineView.h"
#include "cake/widgets/WorkspaceTree.h"

#include <QFileSystemModel>
#include <QDockWidget>
#include <QGraphicsView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QVBoxLayout>
#include <QtTest>

using namespace cake;

namespace {

/// Shows a graph view of a snapshot and waits for its layout.
bool showGraph(widgets::GraphView& view, const views::CheckSnapshotPtr& snap) {
  QSignalSpy shown(&view, &widgets::GraphView::layoutShown);
  view.setSnapshot(snap);
  return shown.wait(20000) || view.shownSnapshot() == snap->jobId;
}

int nodeIndex(const widgets::GraphView& view, const QString& id) { return view.graph()->indexOf(id); }

/// A shown 900x700 graph view of the Hopper GEMM sharing `sel` (call show() and check it).
struct HopperGraph {
  views::SelectionModel sel;
  widgets::GraphView view{&sel};
  views::CheckSnapshotPtr snap = test::corpusSnapshot("hopper_gemm/gemm_ws.cake");
  bool show() {
    view.resize(900, 700);
    view.show();
    sel.setSnapshot(snap);
    return showGraph(view, snap);
  }
};

} // namespace

class TestWidgets : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void ctrlFInGraphSearchesGraphNotWindow() {
    // B1: the main window's Edit > Find (a window shortcut) and the graph's own Ctrl+F were an
    // "ambiguous shortcut overload": with the focus in the graph, Ctrl+F did nothing at all.
    QMainWindow window;
    views::SelectionModel sel;
    auto* central = new QWidget;
    auto* layout = new QVBoxLayout(central);
    auto* view = new widgets::GraphView(&sel);
    auto* other = new QLineEdit;
    layout->addWidget(view);
    layout->addWidget(other);
    window.setCentralWidget(central);
    QAction* find = window.menuBar()->addMenu(QStringLiteral("Edit"))->addAction(
        QStringLiteral("Find"));
    find->setShortcut(QKeySequence::Find);
    QSignalSpy windowFind(find, &QAction::triggered);
    window.resize(800, 600);
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));

    view->canvas()->setFocus();
    QTRY_VERIFY(view->canvas()->hasFocus());
    QTest::keySequence(view->canvas(), QKeySequence::Find);
    QCOMPARE(windowFind.count(), 0);
    QWidget* focus = QApplication::focusWidget();
    QVERIFY(focus && view->isAncestorOf(focus) && qobject_cast<QLineEdit*>(focus));
    // Pressed again in the search field, it stays there (selects the text to retype).
    QTest::keySequence(focus, QKeySequence::Find);
    QCOMPARE(windowFind.count(), 0);

    // Outside the graph the window's Find runs.
    other->setFocus();
    QTRY_VERIFY(other->hasFocus());
    QTest::keySequence(other, QKeySequence::Find);
    QCOMPARE(windowFind.count(), 1);
  }

  void shortcutReferenceFollowsTheActions() {
    // Item 10: Help > Keyboard Shortcuts is generated from the window's actions: menus and
    // submenus in order, view-local actions under their dock; a changed shortcut shows as is.
    QMainWindow window;
    QMenu* edit = window.menuBar()->addMenu(QStringLiteral("&Edit"));
    QAction* undo = edit->addAction(QStringLiteral("&Undo"));
    undo->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Z));
    edit->addAction(QStringLiteral("No shortcut"));
    QMenu* sub = edit->addMenu(QStringLiteral("&Advanced"));
    QAction* line = sub->addAction(QStringLiteral("&Go to Line…"));
    line->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    auto* dock = new QDockWidget(QStringLiteral("Findings — 3"), &window);
    auto* inView = new QWidget;
    dock->setWidget(inView);
    window.addDockWidget(Qt::BottomDockWidgetArea, dock);
    auto* explain = new QAction(QStringLiteral("Explain"), inView);
    explain->setShortcut(QKeySequence(Qt::Key_F1));
    inView->addAction(explain);
    QList<widgets::ShortcutEntry> entries = widgets::collectShortcuts(window.menuBar(), &window);
    QCOMPARE(entries.size(), 3);
    QCOMPARE(entries[0].where, QStringLiteral("Edit"));
    QCOMPARE(entries[0].action, QStringLiteral("Undo"));
    QCOMPARE(entries[0].keys,
             QKeySequence(Qt::CTRL | Qt::Key_Z).toString(QKeySequence::NativeText));
    QCOMPARE(entries[1].where, QStringLiteral("Edit › Advanced"));
    QCOMPARE(entries[1].action, QStringLiteral("Go to Line"));
    QCOMPARE(entries[2].where, QStringLiteral("Findings"));
    QCOMPARE(entries[2].action, QStringLiteral("Explain"));
    QString html = widgets::shortcutReferenceHtml(entries);
    QVERIFY(html.contains("Go to Line") && html.contains("Edit › Advanced"));
    // It cannot drift: a rebound action is listed with its new keys, a cleared one not at all.
    line->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_G), QKeySequence(Qt::Key_F9)});
    undo->setShortcut({});
    entries = widgets::collectShortcuts(window.menuBar(), &window);
    QCOMPARE(entries.size(), 2);
    QCOMPARE(entries[0].keys,
             QKeySequence(Qt::CTRL | Qt::Key_G).toString(QKeySequence::NativeText) + ", " +
                 QKeySequence(Qt::Key_F9).toString(QKeySequence::NativeText));
  }
  void darkPaletteReachesEveryView() {
    // B11: --dark set a dark application palette but the graph, timeline and memory views kept
    // their hard-coded white. They paint with views::ViewPalette now, chosen from the widget
    // palette, and follow a change of it.
    views::SelectionModel sel;
    widgets::GraphView graph(&sel);
    widgets::TimelineView timeline(&sel);
    widgets::MemoryLayoutView memory(&sel);
    auto snap = test::corpusSnapshot("hopper_gemm/gemm_ws.cake");
    sel.setSnapshot(snap);
    graph.resize(900, 600);
    timeline.resize(900, 300);
    memory.resize(900, 600);
    graph.show();
    timeline.show();
    memory.show();
    QVERIFY(showGraph(graph, snap));
    timeline.setSnapshot(snap);
    memory.setSnapshot(snap);
    QVERIFY(QTest::qWaitForWindowExposed(&timeline));
    QVERIFY(QTest::qWaitForWindowExposed(&memory));
    // Mean lightness (0-255) of what a widget shows.
    auto lightness = [](QWidget* w) {
      QImage img = w->grab().toImage().convertToFormat(QImage::Format_RGB32);
      double sum = 0;
      int n = 0;
      for (int y = 0; y < img.height(); y += 3)
        for (int x = 0; x < img.width(); x += 3, ++n)
          sum += QColor(img.pixel(x, y)).lightness();
      return n ? sum / n : 0.0;
    };
    QWidget* views[] = {graph.canvas(), timeline.canvas(), &memory};
    for (QWidget* w : views)
      QVERIFY2(lightness(w) > 170, qPrintable(w->objectName()));
    const QColor lightCanvas = graph.canvasColor();
    const QColor lightRole = widgets::GraphView::roleColor(0);

    const QPalette original = QApplication::palette();
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    dark.setColor(QPalette::WindowText, QColor(0xdd, 0xdd, 0xdd));
    dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    dark.setColor(QPalette::Text, QColor(0xdd, 0xdd, 0xdd));
    dark.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
    dark.setColor(QPalette::ButtonText, QColor(0xdd, 0xdd, 0xdd));
    QApplication::setPalette(dark);
    QCoreApplication::processEvents();
    for (QWidget* w : views)
      QVERIFY2(lightness(w) < 80, qPrintable(w->objectName()));
    QVERIFY(graph.canvasColor().lightness() < 60 && lightCanvas.lightness() > 200);
    QVERIFY(widgets::GraphView::roleColor(0) != lightRole);
    QCOMPARE(graph.canvasColor(), views::ViewPalette::darkPalette().canvas);
    // And back.
    QApplication::setPalette(original);
    QCoreApplication::processEvents();
    for (QWidget* w : views)
      QVERIFY2(lightness(w) > 170, qPrintable(w->objectName()));
    QCOMPARE(graph.canvasColor(), lightCanvas);
  }
  void graphViewDrawsEveryNode() {
    HopperGraph g;
    QVERIFY(g.show());
    auto& [sel, view, snap] = g;
    QVERIFY(!view.layoutPending());
    QCOMPARE(view.shownSnapshot(), snap->jobId);
    QCOMPARE(view.graph()->nodes.size(), 25);
    QVERIFY(!view.layout()->fallback);
    QVERIFY(view.scene()->items().size() >= 25 + 34);
    QVERIFY(view.fitted());
    // Refit on resize (pitfall 11): the scale follows the new size while fitted.
    double before = view.canvas()->transform().m11();
    view.resize(450, 350);
    QTRY_VERIFY(view.canvas()->transform().m11() < before);
    // The minimap shrinks with the canvas: at most a quarter of its width, a third of its
    // height (a 1024x640 window's graph dock), and grows back.
    auto* minimap = view.canvas()->findChild<QWidget*>("graphMinimap");
    QVERIFY(minimap && minimap->isVisible());
    const QSize vp = view.canvas()->viewport()->size();
    QVERIFY2(minimap->width() <= vp.width() / 4 && minimap->height() <= vp.height() / 3,
             qPrintable(QStringLiteral("%1x%2 in %3x%4")
                            .arg(minimap->width())
                            .arg(minimap->height())
                            .arg(vp.width())
                            .arg(vp.height())));
    const int small = minimap->height();
    view.resize(1400, 1000);
    QTRY_VERIFY(minimap->height() > small);
    QVERIFY(minimap->height() <= 154 && minimap->width() <= 194);
  }

  /// Edge labels placed by the label model (views::placeEdgeLabels) in the real scene: the
  /// barrier and buffer labels of the Hopper GEMM drawn clear of every node and of each other.
  void graphEdgeLabelsClearOfNodes() {
    HopperGraph g;
    QVERIFY(g.show());
    auto& [sel, view, snap] = g;
    int labelled = 0;
    for (const views::GraphEdge& e : view.graph()->edges)
      labelled += !e.label.isEmpty();
    const QVector<QRectF> labels = view.shownEdgeLabels();
    QVERIFY2(labelled >= 5 && labels.size() * 2 >= labelled,
             qPrintable(QStringLiteral("%1 of %2").arg(labels.size()).arg(labelled)));
    for (int i = 0; i < labels.size(); ++i) {
      for (const views::NodeGeometry& n : view.layout()->nodes)
        QVERIFY(!labels[i].intersects(n.rect()));
      for (int j = i + 1; j < labels.size(); ++j)
        QVERIFY(!labels[i].intersects(labels[j]));
      QVERIFY(view.scene()->sceneRect().contains(labels[i]));
    }
  }

  /// The cost overlay: shares of the predicted time from the check's estimate, drawn only on
  /// the graph of that check, and only while the overlay is on.
  void graphCostOverlay() {
    HopperGraph g;
    QVERIFY(g.show());
    auto& [sel, view, snap] = g;
    auto cost = views::buildCostSnapshot(*test::compiler(), snap, 99);
    QVERIFY(cost->estimate);
    QHash<int, double> shares = cost->shares;
    double sum = 0;
    int top = -1;
    for (auto it = shares.begin(); it != shares.end(); ++it) {
      QVERIFY(it.value() > 0 && it.value() <= 1);
      sum += it.value();
      if (top < 0 || it.value() > shares.value(top))
        top = it.key();
    }
    QVERIFY(qAbs(sum - 1.0) < 1e-9);
    QCOMPARE(snap->views->ops[top].name, QStringLiteral("wgmma.mma")); // the tensor-core op leads
    QCOMPARE(view.costShare(top), -1.0); // no estimate yet
    view.setCostShares(snap->jobId + 1000, shares); // an estimate of another check
    QCOMPARE(view.costShare(top), -1.0);
    view.setCostShares(snap->jobId, shares);
    QCOMPARE(view.costShare(top), shares.value(top));
    QCOMPARE(view.costShare(-1), -1.0); // collapsed clusters carry no share
    view.setCostOverlay(false);
    QCOMPARE(view.costShare(top), -1.0);
    view.setCostOverlay(true);
    QVERIFY(!view.grab().toImage().isNull());
  }

  void searchAndKeyboard() {
    HopperGraph g;
    QVERIFY(g.show());
    auto& [sel, view, snap] = g;
    QSignalSpy changed(&sel, &views::SelectionModel::selectionChanged);
    // Ctrl+F focuses the search field; typing highlights matches; Enter cycles.
    QCOMPARE(view.setSearchText("tma."), 3); // two loads, one store
    view.findNext();
    QCOMPARE(view.currentMatch(), 0);
    int first = view.currentNode();
    QCOMPARE(view.graph()->nodes[first].title.left(4), QStringLiteral("tma."));
    view.findNext();
    view.findNext();
    view.findNext(); // wraps
    QCOMPARE(view.currentNode(), first);
    view.findNext(true); // backwards
    QVERIFY(view.currentNode() != first);
    QVERIFY(changed.count() >= 4);
    QCOMPARE(changed.last().at(1).value<views::SelectionOrigin>(), views::SelectionOrigin::Graph);
    QCOMPARE(view.setSearchText("no-such-op"), 0);
    auto* field = view.findChild<QLineEdit*>("graphSearch");
    QVERIFY(field);
    // Arrow keys move between nodes along program order.
    view.selectNode(nodeIndex(view, "producer:4"));
    view.canvas()->setFocus();
    QTest::keyClick(view.canvas(), Qt::Key_Down);
    QCOMPARE(view.graph()->nodes[view.currentNode()].id, QStringLiteral("producer:5"));
    QTest::keyClick(view.canvas(), Qt::Key_Up);
    QCOMPARE(view.graph()->nodes[view.currentNode()].id, QStringLiteral("producer:4"));
    QCOMPARE(sel.current().op, 4);
    QCOMPARE(sel.current().role, 0);
    // Roles run left to right in declaration order: the consumer column is on the right.
    QTest::keyClick(view.canvas(), Qt::Key_Right);
    QCOMPARE(view.graph()->nodes[view.currentNode()].role, 1);
    // F fits.
    view.canvas()->scale(3, 3);
    QTest::keyClick(view.canvas(), Qt::Key_F);
    QVERIFY(view.fitted());
  }

  void collapseAndExpand() {
    views::SelectionModel sel;
    widgets::GraphView view(&sel);
    view.resize(900, 700);
    view.show();
    auto snap = test::corpusSnapshot("hopper_gemm/gemm_ws.cake");
    QVERIFY(showGraph(view, snap));
    QSignalSpy shown(&view, &widgets::GraphView::layoutShown);
    view.toggleCluster("loop:consumer:3");
    QVERIFY(shown.wait(20000));
    QVERIFY(view.collapsed().contains("loop:consumer:3"));
    int summary = nodeIndex(view, "cluster:loop:consumer:3");
    QVERIFY(summary >= 0);
    QCOMPARE(view.graph()->nodes[summary].collapsedOps, 6);
    // Selecting an op inside it selects the summary node.
    sel.setSnapshot(snap);
    sel.selectLine(snap->views->ops[11].span.line, views::SelectionOrigin::Editor);
    QCOMPARE(view.currentNode(), summary);
    // Enter on the summary expands it again.
    view.canvas()->setFocus();
    QTest::keyClick(view.canvas(), Qt::Key_Return);
    QVERIFY(shown.wait(20000));
    QVERIFY(view.collapsed().isEmpty());
    QCOMPARE(view.graph()->nodes.size(), 25);
    // Large graphs open with their loops collapsed.
    view.setCollapseThreshold(10);
    auto other = test::corpusSnapshot("flash_attention/fa_fwd.cake");
    QVERIFY(showGraph(view, other));
    QVERIFY(!view.collapsed().isEmpty());
    // 49 nodes; collapsing the K loops (depth 2) is not enough, so the tile loops fold too:
    // the ops outside loops plus one summary per role's tile loop make exactly 10.
    QCOMPARE(other->views->graph.nodes.size(), 49);
    QCOMPARE(view.graph()->nodes.size(), 10);
    QCOMPARE(view.collapsed(), (QSet<QString>{"loop:producer:0", "loop:producer:1",
                                              "loop:consumer:2", "loop:consumer:3"}));
    QVERIFY(nodeIndex(view, "cluster:loop:producer:0") >= 0);
    QVERIFY(nodeIndex(view, "cluster:loop:consumer:2") >= 0);
  }

  void fallbackOnGraphvizFailure() {
    widgets::GraphView view(nullptr);
    view.resize(600, 400);
    view.show();
    views::LayoutOptions bad;
    bad.engine = QStringLiteral("no-such-engine");
    view.setLayoutOptions(bad);
    QVERIFY(showGraph(view, test::corpusSnapshot("ampere_gemm/gemm_cp_async.cake")));
    QVERIFY(view.layout()->fallback);
    QVERIFY(view.layout()->complete(*view.graph()));
    auto* status = view.findChild<QLabel*>("graphStatus");
    QVERIFY(status && status->text().contains("fallback"));
  }

  void exports() {
    widgets::GraphView view(nullptr);
    view.resize(600, 400);
    view.show();
    QVERIFY(showGraph(view, test::corpusSnapshot("hopper_gemm/gemm_ws.cake")));
    QTemporaryDir dir;
    QString error;
    QVERIFY2(view.exportSvg(dir.filePath("g.svg"), &error), qPrintable(error));
    QVERIFY2(view.exportPng(dir.filePath("g.png"), &error), qPrintable(error));
    QVERIFY2(view.exportDot(dir.filePath("g.dot"), &error), qPrintable(error));
    QByteArray svg = test::readFile(dir.filePath("g.svg")).toUtf8();
    QVERIFY(svg.contains("<svg") && svg.contains("tma.load"));
    QImage png(dir.filePath("g.png"));
    QVERIFY(png.width() > 400 && png.height() > 400);
    QVERIFY(test::readFile(dir.filePath("g.dot")).startsWith("digraph cake {"));
    QVERIFY(!view.exportPng("/nonexistent-dir/g.png", &error));
  }

  // B3: the workspace tree highlights the file that is open, whatever opened it: a row
  // activated whose open is cancelled goes back to the open file; a file outside the folder
  // (an example, a recent file elsewhere) leaves no row highlighted; a recent file in a
  // subfolder is selected (and its folder expanded); spellings of one path are one file.
  void workspaceTreeHighlightsTheOpenFile() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QDir root(dir.path());
    QVERIFY(root.mkpath(QStringLiteral("sub")));
    for (const char* name : {"a.cake", "b.cake", "sub/c.cake", "notes.txt"}) {
      QFile f(root.filePath(QLatin1String(name)));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("kernel k target=sm_90a {\n}\n");
    }
    QTemporaryDir elsewhere;
    QString outside = QDir(elsewhere.path()).filePath(QStringLiteral("x.cake"));
    QFile(outside).open(QIODevice::WriteOnly);
    auto canon = [](const QString& p) { return QFileInfo(p).canonicalFilePath(); };
    const QString a = canon(root.filePath("a.cake")), b = canon(root.filePath("b.cake")),
                  c = canon(root.filePath("sub/c.cake"));

    widgets::WorkspaceTree tree;
    tree.resize(300, 400);
    tree.show();
    QVERIFY(QTest::qWaitForWindowExposed(&tree));
    tree.setFolder(dir.path());
    // The owner: opening b is cancelled (the save prompt), a stays open.
    QString open = a;
    QSignalSpy activated(&tree, &widgets::WorkspaceTree::fileActivated);
    connect(&tree, &widgets::WorkspaceTree::fileActivated, &tree,
            [&](const QString& path) { tree.setOpenFile(path == b ? open : path); });
    tree.setOpenFile(a);
    QTRY_COMPARE(tree.selectedFile(), a);
    QCOMPARE(canon(tree.fileModel()->filePath(tree.currentIndex())), a);

    // The user picks b with the keyboard: b is activated, the open is cancelled: a again.
    QModelIndex bIndex = tree.fileModel()->index(b);
    QVERIFY(bIndex.isValid());
    tree.setFocus();
    tree.setCurrentIndex(bIndex);
    QCOMPARE(tree.selectedFile(), b);
    QTest::keyClick(tree.viewport(), Qt::Key_Return);
    if (activated.isEmpty())
      QTest::keyClick(&tree, Qt::Key_Return);
    QCOMPARE(activated.count(), 1);
    QCOMPARE(canon(activated.first().first().toString()), b);
    QCOMPARE(tree.selectedFile(), a);
    QCOMPARE(tree.selectionModel()->selectedRows().size(), 1);

    // An example outside the folder: nothing in the tree is the open file.
    tree.setOpenFile(outside);
    QCOMPARE(tree.selectedFile(), QString());
    QVERIFY(tree.selectionModel()->selectedRows().isEmpty());
    QVERIFY(!tree.currentIndex().isValid());

    // A recent file in a subfolder, spelled with "./" and "..": selected, its folder expanded.
    tree.setOpenFile(root.path() + QStringLiteral("/sub/../sub/./c.cake"));
    QTRY_COMPARE(tree.selectedFile(), c);
    QVERIFY(tree.isExpanded(tree.fileModel()->index(canon(root.filePath("sub")))));
    QVERIFY(tree.visualRect(tree.currentIndex()).isValid());
    // A new folder without the open file: no highlight; back to the folder: highlighted.
    tree.setFolder(elsewhere.path());
    QCOMPARE(tree.selectedFile(), QString());
    tree.setFolder(dir.path());
    QTRY_COMPARE(tree.selectedFile(), c);
  }

  // B2: the Blackwell GEMM's three lanes in a short timeline: the canvas is taller than the
  // viewport and every lane's rect can be scrolled fully into view.
  void timelineScrollsToEveryLane_data() {
    QTest::addColumn<int>("height");
    QTest::newRow("short dock") << 180;
    QTest::newRow("1024x640 bottom dock") << 230;
    QTest::newRow("tall") << 600;
  }
  void timelineScrollsToEveryLane() {
    QFETCH(int, height);
    views::SelectionModel sel;
    widgets::TimelineView view(&sel);
    view.resize(700, height);
    view.show();
    auto snap = test::corpusSnapshot("blackwell_gemm/gemm_tcgen05.cake");
    sel.setSnapshot(snap);
    view.setSnapshot(snap);
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCoreApplication::processEvents();
    const views::TimelineData* d = view.data();
    QVERIFY(d);
    QCOMPARE(d->lanes.size(), 3);
    QVERIFY(d->lanes.contains(QStringLiteral("mma")));
    QScrollArea* scroll = view.scrollArea();
    QScrollBar* bar = scroll->verticalScrollBar();
    const int viewportH = scroll->viewport()->height();
    QCOMPARE(bar->maximum(), std::max(0, view.canvas()->height() - viewportH));
    const views::TimelineGeometry& g = view.geometry();
    QVERIFY(g.laneHeight >= views::TimelineGeometry::kMinLaneHeight);
    for (int l = 0; l < int(d->lanes.size()); ++l) {
      QRect lane = QRectF(0, g.laneTop(l), view.canvas()->width(), g.laneHeight).toAlignedRect();
      // Scroll so the lane's bottom is at the viewport's bottom (or as far as it goes).
      bar->setValue(std::clamp(lane.bottom() + 1 - viewportH, 0, bar->maximum()));
      QCoreApplication::processEvents();
      QRect shown(QPoint(0, bar->value()), scroll->viewport()->size());
      QVERIFY2(shown.contains(lane), qPrintable(QStringLiteral("lane %1 (%2..%3) not reachable: "
                                                               "view %4..%5, scroll max %6")
                                                    .arg(l)
                                                    .arg(lane.top())
                                                    .arg(lane.bottom())
                                                    .arg(shown.top())
                                                    .arg(shown.bottom())
                                                    .arg(bar->maximum())));
      // The canvas is where the scroll area says: the lane's centre is inside the viewport.
      QPoint centre = view.canvas()->mapTo(scroll->viewport(), lane.center());
      QVERIFY(scroll->viewport()->rect().contains(centre));
    }
    if (height < 220)
      QVERIFY(bar->maximum() > 0); // it really had to scroll
  }

  void timelineKeysClicksAndExport() {
    views::SelectionModel sel;
    widgets::TimelineView view(&sel);
    view.resize(1000, 300);
    view.show();
    auto snap = test::corpusSnapshot("hopper_gemm/gemm_ws.cake");
    sel.setSnapshot(snap);
    view.setSnapshot(snap);
    // The canvas takes its size (and the time axis its width) once the window is exposed.
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    views::TimelineGeometry& g = view.geometry();
    QWidget* canvas = view.canvas();
    canvas->setFocus();
    double span = g.span();
    QTest::keyClick(canvas, Qt::Key_W);
    QVERIFY(g.span() < span);
    QTest::keyClick(canvas, Qt::Key_S);
    QTest::keyClick(canvas, Qt::Key_S);
    QVERIFY(g.span() > span);
    double start = g.viewStart;
    QTest::keyClick(canvas, Qt::Key_D);
    QVERIFY(g.viewStart > start);
    QTest::keyClick(canvas, Qt::Key_A);
    QVERIFY(qAbs(g.viewStart - start) < 1e-6);
    QTest::keyClick(canvas, Qt::Key_0);
    QVERIFY(g.viewEnd >= double(view.data()->endTime));
    // Clicking a block selects its trace event.
    g.setRange(0, 40);
    const views::TimelineData* d = view.data();
    int target = -1;
    for (int b : d->blocksInRange(0, 10, 30))
      if (d->blocks[b].kind == views::TimelineBlock::Kind::Op) {
        target = b;
        break;
      }
    QVERIFY(target >= 0);
    const views::TimelineBlock& blk = d->blocks[target];
    QPoint at(int(g.xOf((blk.start + blk.end) / 2.0)), int(g.laneCenter(blk.lane)));
    QTest::mouseClick(canvas, Qt::LeftButton, {}, at);
    QCOMPARE(sel.current().event, blk.event);
    QCOMPARE(sel.current().op, blk.op);
    QVERIFY(view.highlighted().contains(target));
    // F focuses the selection.
    g.setRange(1000, 1100);
    QTest::keyClick(canvas, Qt::Key_F);
    QVERIFY(g.visible(double(blk.start), double(blk.end)));
    // Chrome / Perfetto JSON through the driver's exporter.
    QTemporaryDir dir;
    QVERIFY(view.exportTrace(dir.filePath("t.json")));
    QJsonDocument json = QJsonDocument::fromJson(test::readFile(dir.filePath("t.json")).toUtf8());
    QVERIFY(json.object().value("traceEvents").isArray());
  }

  void layoutViewNotes() {
    views::SelectionModel sel;
    widgets::MemoryLayoutView view(&sel);
    view.resize(1200, 700);
    view.show();
    auto snap = test::corpusSnapshot("hopper_gemm/gemm_ws.cake");
    sel.setSnapshot(snap);
    view.setSnapshot(snap);
    const views::ViewData& d = *snap->views;
    // stmatrix on c_s: modelled, conflict-free.
    int stmatrix = d.opAtLine.value(83);
    QCOMPARE(d.ops[stmatrix].name, QStringLiteral("stmatrix"));
    sel.selectOp(stmatrix, -1, views::SelectionOrigin::Graph);
    QCOMPARE(d.bufferNames.value(view.currentBuffer()), QStringLiteral("c_s"));
    QCOMPARE(view.currentOp(), stmatrix);
    QVERIFY(view.currentAccess() >= 0);
    QVERIFY(view.accessNote().contains("conflict-free"));
    // TMA and wgmma: not modelled, and the view says why.
    sel.selectLine(61, views::SelectionOrigin::Editor);
    QCOMPARE(d.bufferNames.value(view.currentBuffer()), QStringLiteral("a_s"));
    QCOMPARE(view.currentAccess(), -1);
    QVERIFY(view.accessNote().contains("not modelled"));
    QVERIFY(view.accessNote().contains("TMA"));
    int mma = d.opAtLine.value(72);
    sel.selectOp(mma, -1, views::SelectionOrigin::Timeline);
    QCOMPARE(view.currentOp(), mma);
    QVERIFY(view.accessNote().contains("descriptors"));
    // A kernel whose ldmatrix has bank conflicts shows its N-way degree.
    auto ampere = test::corpusSnapshot("ampere_gemm/gemm_cp_async.cake");
    sel.setSnapshot(ampere);
    view.setSnapshot(ampere);
    QVERIFY(view.currentBuffer() >= 0);
    QVERIFY(view.buffersModel()->rowCount() > 0);
  }

  void selectionIsSharedByTheViews() {
    views::SelectionModel sel;
    widgets::GraphView graph(&sel);
    widgets::TimelineView timeline(&sel);
    widgets::MemoryLayoutView layout(&sel);
    graph.resize(800, 600);
    graph.show();
    auto snap = test::corpusSnapshot("hopper_gemm/gemm_ws.cake");
    sel.setSnapshot(snap);
    timeline.setSnapshot(snap);
    layout.setSnapshot(snap);
    QVERIFY(showGraph(graph, snap));
    // Click a graph node: the timeline highlights that op's events in that role, the layout
    // shows its buffer.
    int node = nodeIndex(graph, "producer:6");
    graph.selectNode(node);
    QCOMPARE(sel.current().op, 6);
    QCOMPARE(timeline.highlighted().size(), 3 * 64);
    for (int b : timeline.highlighted())
      QCOMPARE(timeline.data()->blocks[b].op, 6);
    QCOMPARE(snap->views->bufferNames.value(layout.currentBuffer()), QStringLiteral("a_s"));
    QCOMPARE(layout.currentOp(), 6);
    // A finding selects its op's node in the graph.
    auto bad = test::corpusSnapshot("negative/wait-cycle.cake");
    sel.setSnapshot(bad);
    timeline.setSnapshot(bad);
    layout.setSnapshot(bad);
    QVERIFY(showGraph(graph, bad));
    int finding = -1;
    for (std::size_t i = 0; i < bad->result.diagnostics.size(); ++i)
      if (bad->result.diagnostics[i].code == "ps-wait-cycle")
        finding = int(i);
    sel.selectFinding(finding, views::SelectionOrigin::Findings);
    QVERIFY(graph.currentNode() >= 0);
    QCOMPARE(graph.graph()->nodes[graph.currentNode()].op, bad->views->findingOp[finding]);
    // An event picked in the timeline selects the op in its role in the graph.
    const views::TimelineData* d = timeline.data();
    const views::TimelineBlock& blk = d->blocks[d->laneStart[1]];
    sel.selectEvent(blk.event, views::SelectionOrigin::Timeline);
    QCOMPARE(graph.graph()->nodes[graph.currentNode()].role, 1);
    QCOMPARE(graph.graph()->nodes[graph.currentNode()].op, blk.op);
  }

  void heatMapSelectsTheWriter() {
    // The Ampere GEMM whose A tile comes from t.y: off-diagonal tiles wrong, written at line 63.
    QString path = test::corpusPath(QStringLiteral("numerical/gemm-tile-from-ty.cake"));
    QString text = test::readFile(path);
    std::atomic<bool> cancel{false};
    views::RunSnapshotPtr run = views::runKernelOnCpu(
        *test::compiler(), path, text,
        test::corpusPath(QStringLiteral("workloads/ampere_gemm.json")), QStringLiteral("t"),
        cancel, {});
    QVERIFY(run->result && run->result->ran && !run->result->correct);
    views::SelectionModel sel;
    sel.setSnapshot(test::snapshotOf(path, text));
    QSignalSpy changed(&sel, &views::SelectionModel::selectionChanged);
    widgets::HeatMapView view(&sel);
    view.resize(600, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setRun(run);
    views::HeatMapGeometry g = view.geometry();
    QCOMPARE(g.cellRows(), 2);
    QCOMPARE(g.cellCols(), 2);
    const interp::ErrorMap& map = run->result->outputs[0].map;
    // Painted: the exact tile neutral, a wrong tile on the ramp's wrong half.
    QImage img = view.canvas()->grab().toImage();
    views::HeatScale scale = views::HeatScale::of(map);
    QColor neutral = view.canvas()->palette().color(QPalette::Midlight);
    QCOMPARE(img.pixelColor(g.tileRect(3).center().toPoint()).rgb(), neutral.rgb());
    QCOMPARE(img.pixelColor(g.tileRect(1).center().toPoint()).rgb(),
             scale.colour(map.tiles[1].maxAbsError, true, neutral).rgb());
    QVERIFY(view.toolTipAt(g.tileRect(1).center()).contains(QStringLiteral("written by line 63:")));
    // Clicking the exact tile selects nothing; clicking a wrong one selects line 63's store.
    QTest::mouseClick(view.canvas(), Qt::LeftButton, {}, g.tileRect(3).center().toPoint());
    QCOMPARE(changed.size(), 0);
    QTest::mouseClick(view.canvas(), Qt::LeftButton, {}, g.tileRect(2).center().toPoint());
    QCOMPARE(changed.size(), 1);
    QCOMPARE(changed.at(0).at(1).value<views::SelectionOrigin>(), views::SelectionOrigin::Run);
    QVERIFY(sel.current().op >= 0);
    QCOMPARE(sel.sourceOf(sel.current()).line, 63);
    // Element zoom: one cell per element of the 256 x 256 output.
    view.setElements(true);
    QVERIFY(view.elements());
    QCOMPARE(view.geometry().cellRows(), 256);
    // Empty state.
    view.setRun(nullptr);
    QVERIFY(!view.geometry().map);
  }
};

QTEST_MAIN(TestWidgets)
#include "tst_widgets.moc"
