// Workbench view benchmarks (offscreen): the IR graph of the generated 2,000-operation kernel
// laid out (Graphviz, on the layout worker) and drawn (scene built, widget painted), fully
// expanded and with the default collapsed loops; and opening the Hopper GEMM until the graph,
// memory layout and timeline views are all painted. The compiler is loaded once, outside the
// timings, except in BM_OpenHopperGemmColdCompiler.
//
//   cake-view-bench [benchmark flags...]
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/CompileSession.h"
#include "cake/views/SelectionModel.h"
#include "cake/widgets/GraphView.h"
#include "cake/widgets/MemoryLayoutView.h"
#include "cake/widgets/TimelineView.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QTimer>
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

namespace {

cake::driver::DataPaths dataPaths() {
  return {std::string(CAKE_SOURCE_DIR) + "/compiler/primitives",
          std::string(CAKE_SOURCE_DIR) + "/compiler/targets",
          std::string(CAKE_SOURCE_DIR) + "/compiler/rules"};
}

std::shared_ptr<const cake::driver::Compiler> compiler() {
  static std::shared_ptr<const cake::driver::Compiler> c(cake::driver::Compiler::load(dataPaths()));
  return c;
}

QString readFile(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

/// The snapshot a check job makes (check + view data).
cake::views::CheckSnapshotPtr snapshotOf(const QString& path, const QString& text, quint64 id) {
  auto s = std::make_shared<cake::views::CheckSnapshot>();
  s->jobId = id;
  s->path = path;
  s->text = text;
  s->result = compiler()->check(path.toStdString(), text.toStdString());
  s->views = cake::views::buildViewData(s->result);
  return s;
}

/// Processes events until `done()`; sleeps while there are none (no busy loop stealing the
/// layout worker's core).
template <typename Done> bool pump(Done done, int timeoutMs = 120000) {
  QElapsedTimer t;
  t.start();
  QTimer tick;
  tick.start(2); // wakes the wait below to re-check `done()` and the deadline
  while (!done() && t.elapsed() < timeoutMs)
    QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
  return done();
}

/// The longest the GUI thread went without serving its event loop while it lived: a 5 ms timer's
/// largest interval between two ticks (so at least 5 ms; blocked means well above).
struct EventLoopProbe {
  QTimer timer;
  QElapsedTimer clock;
  qint64 last = 0, maxGapMs = 0;
  EventLoopProbe() {
    clock.start();
    QObject::connect(&timer, &QTimer::timeout, [this] {
      qint64 now = clock.elapsed();
      maxGapMs = std::max(maxGapMs, now - last);
      last = now;
    });
    timer.start(5);
  }
};

/// Layout on the worker + scene + one paint of the view, for one snapshot.
void graphLayoutAndDraw(benchmark::State& state, int collapseThreshold) {
  QString path = QStringLiteral(CAKE_VIEW_BENCH_KERNEL);
  QString text = readFile(path);
  if (text.isEmpty()) {
    state.SkipWithError("generated kernel missing (cake-bench --dump-generated)");
    return;
  }
  auto snap = snapshotOf(path, text, 1);
  cake::views::SelectionModel selection;
  selection.setSnapshot(snap);
  std::size_t nodes = 0, edges = 0;
  bool fallback = false;
  double layoutMs = 0, paintMs = 0, maxGapMs = 0;
  for (auto _ : state) {
    cake::widgets::GraphView view(&selection);
    view.setCollapseThreshold(collapseThreshold);
    view.resize(1400, 900);
    view.show();
    EventLoopProbe probe; // from the new snapshot until the laid-out graph is in the scene
    view.setSnapshot(snap); // a fresh view lays the snapshot out again
    if (!pump([&] { return view.shownSnapshot() == snap->jobId; })) {
      state.SkipWithError("layout timed out");
      return;
    }
    QCoreApplication::processEvents(); // one more tick: the gap of the scene build, if any
    maxGapMs = std::max(maxGapMs, double(probe.maxGapMs));
    layoutMs = double(view.layout()->elapsedMs);
    QElapsedTimer paint;
    paint.start();
    QImage image = view.grab().toImage();
    benchmark::DoNotOptimize(image.bits());
    paintMs = double(paint.elapsed());
    nodes = std::size_t(view.graph()->nodes.size());
    edges = std::size_t(view.graph()->edges.size());
    fallback = view.layout()->fallback;
  }
  state.counters["nodes"] = double(nodes);
  state.counters["edges"] = double(edges);
  state.counters["fallback"] = fallback ? 1 : 0;
  state.counters["graphviz_ms"] = layoutMs; // of the last iteration, on the layout worker
  state.counters["paint_ms"] = paintMs;
  state.counters["max_ui_gap_ms"] = maxGapMs; // worst over the iterations (painting excluded)
}

void BM_GraphGenerated2000Expanded(benchmark::State& state) { graphLayoutAndDraw(state, 0); }
void BM_GraphGenerated2000DefaultCollapse(benchmark::State& state) { graphLayoutAndDraw(state, 800); }

/// Graphviz alone (this thread, no widgets) on the expanded generated graph.
void BM_GraphvizGenerated2000(benchmark::State& state) {
  QString path = QStringLiteral(CAKE_VIEW_BENCH_KERNEL);
  QString text = readFile(path);
  if (text.isEmpty()) {
    state.SkipWithError("generated kernel missing");
    return;
  }
  auto snap = snapshotOf(path, text, 1);
  for (auto _ : state)
    benchmark::DoNotOptimize(cake::views::layoutGraph(snap->views->graph));
}

/// Check + view data of the generated kernel (the background job before the layout).
void BM_ViewDataGenerated2000(benchmark::State& state) {
  QString path = QStringLiteral(CAKE_VIEW_BENCH_KERNEL);
  QString text = readFile(path);
  if (text.isEmpty()) {
    state.SkipWithError("generated kernel missing");
    return;
  }
  for (auto _ : state)
    benchmark::DoNotOptimize(snapshotOf(path, text, 1));
}

/// Opening the Hopper GEMM: background check + view data, graph layout, every view painted.
void openHopperGemm(benchmark::State& state, bool coldCompiler) {
  QString path = QStringLiteral(CAKE_CORPUS_DIR "/hopper_gemm/gemm_ws.cake");
  QString text = readFile(path);
  if (!coldCompiler)
    compiler();
  for (auto _ : state) {
    cake::views::CompileSession session;
    cake::views::SelectionModel selection;
    cake::widgets::GraphView graph(&selection);
    cake::widgets::MemoryLayoutView layout(&selection);
    cake::widgets::TimelineView timeline(&selection);
    for (QWidget* w : {static_cast<QWidget*>(&graph), static_cast<QWidget*>(&layout), static_cast<QWidget*>(&timeline)}) {
      w->resize(900, 600);
      w->show();
    }
    cake::views::CheckSnapshotPtr shown;
    QObject::connect(&session, &cake::views::CompileSession::checkFinished, [&](const cake::views::CheckSnapshotPtr& s) {
      shown = s;
      selection.setSnapshot(s);
      graph.setSnapshot(s);
      layout.setSnapshot(s);
      timeline.setSnapshot(s);
    });
    if (coldCompiler)
      session.start(dataPaths());
    else
      session.setCompiler(compiler());
    session.requestCheck(path, text);
    if (!pump([&] { return shown && graph.shownSnapshot() == shown->jobId; })) {
      state.SkipWithError("timed out");
      return;
    }
    for (QWidget* w : {static_cast<QWidget*>(&graph), static_cast<QWidget*>(&layout), static_cast<QWidget*>(&timeline)})
      benchmark::DoNotOptimize(w->grab().toImage().bits());
  }
}

void BM_OpenHopperGemmAllViews(benchmark::State& state) { openHopperGemm(state, false); }
void BM_OpenHopperGemmColdCompiler(benchmark::State& state) { openHopperGemm(state, true); }

} // namespace

BENCHMARK(BM_ViewDataGenerated2000)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK(BM_GraphvizGenerated2000)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK(BM_GraphGenerated2000Expanded)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK(BM_GraphGenerated2000DefaultCollapse)->Unit(benchmark::kMillisecond)->Iterations(5)->UseRealTime();
BENCHMARK(BM_OpenHopperGemmAllViews)->Unit(benchmark::kMillisecond)->Iterations(10)->UseRealTime();
BENCHMARK(BM_OpenHopperGemmColdCompiler)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
