// Widget tests (offscreen): the graph view (layout on the worker, search, keyboard navigation,
// fit and refit on resize, collapse/expand, fallback on an injected Graphviz failure, SVG/PNG/DOT
// export), the timeline's keys, clicks and trace export, the layout view's access notes, the
// CPU run's heat map (painted colours, hover text, a click selecting the writing line), and the
// selection shared between graph, timeline and layout.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "../views/ViewsTestUtil.h"
#include "cake/views/PerformanceData.h"
#include "cake/views/RunData.h"
#include "cake/widgets/GraphView.h"
#include "cake/widgets/HeatMapView.h"
#include "cake/widgets/MemoryLayoutView.h"
#include "cake/widgets/TimelineView.h"

#include <QGraphicsView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenuBar>
#include <QVBoxLayout>
#include <QSignalSpy>
#include <QTemporaryDir>
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
    QTest::keyClick(view.canvas(), Qt::Key_Left); // towards the consumer column
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
