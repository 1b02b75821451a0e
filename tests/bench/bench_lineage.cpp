// Lineage dock benchmark (offscreen): a synthetic 2,000-candidate campaign (three arms, parents
// drawn among earlier accepted candidates, about half refused as leaves, seeded) shown in the
// LineageView through its public path (setLineage, as the controller's lineageChanged does),
// then grown by one candidate (a watch import: the drawn scene is replaced and disposed of).
// Reports the Graphviz layout on the serialized layout worker (GraphLayout::elapsedMs), where
// the view's time went (LineageView::Timings: graph and scene data on its worker, items in
// slices and the swap on the GUI thread), and two stall measures from a 5 ms GUI-thread timer
// running all along: the longest wall gap between ticks (what a user feels, but on a loaded
// 2-core machine it includes waiting for a core) and the most GUI-thread CPU time spent between
// two ticks (the work that held the event loop). Targets: layout <= 2 s, no stall > 50 ms.
// Both stalls are the worst over all iterations.
//
//   cake-lineage-bench [benchmark flags...] [--candidates N]
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/LineageData.h"
#include "cake/widgets/LineageView.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QTimer>
#include <benchmark/benchmark.h>

#include <cstring>
#include <ctime>
#include <random>

namespace {

int g_candidates = 2000;

/// CPU milliseconds of this thread or of the whole process: wall times on a loaded 2-core
/// machine mostly measure waiting for a core.
double cpuMs(clockid_t clock) {
  timespec t{};
  clock_gettime(clock, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

cake::views::LineagePtr syntheticCampaign(int count) {
  std::mt19937_64 rng(7);
  std::vector<cake::ws::CandidateRecord> v;
  std::vector<int> accepted;
  const char* arms[] = {"islands", "map-elites", "agent"};
  for (int i = 0; i < count; ++i) {
    cake::ws::CandidateRecord c;
    c.campaign = "synthetic";
    c.id = i == 0 ? "root" : std::string(arms[i % 3]) + "-" + std::to_string(i);
    if (i > 0) {
      // A recent accepted parent most of the time (searches exploit), an old one sometimes.
      std::size_t n = accepted.size();
      std::size_t pick = rng() % 4 == 0 ? rng() % n : n - 1 - rng() % std::min<std::size_t>(n, 12);
      c.parents.push_back(v[std::size_t(accepted[pick])].id);
      if (rng() % 10 == 0 && n > 1)
        c.parents.push_back(v[std::size_t(accepted[rng() % n])].id); // an inspiration
    }
    c.kernel = "kernels/" + c.id + ".cake";
    c.author = i == 0 ? R"({"kind":"human","name":"baseline"})"
                      : std::string(R"({"kind":"search","name":"cake evolve","run":")") +
                            arms[i % 3] + "\"}";
    c.accepted = i == 0 || rng() % 2 == 0;
    c.loweredOk = c.accepted && rng() % 50 != 0;
    if (!c.accepted)
      c.codes = {rng() % 2 ? "smem-overflow" : "barrier-parity"};
    c.predictedUs = 1000.0 * (0.5 + double(rng() % 1000) / 1000.0);
    if (c.accepted)
      accepted.push_back(i);
    v.push_back(std::move(c));
  }
  cake::ws::CampaignRecord r;
  r.name = "synthetic";
  return std::make_shared<const cake::views::Lineage>(cake::views::buildLineage(r, v));
}

void BM_Lineage2000(benchmark::State& state) {
  cake::views::LineagePtr lineage = syntheticCampaign(g_candidates);
  if (QByteArray dump = qgetenv("CAKE_LINEAGE_BENCH_DOT"); !dump.isEmpty()) {
    // The DOT text the worker hands to Graphviz, to time `dot` settings by hand.
    cake::views::LineageGraph g = cake::views::buildLineageGraph(*lineage);
    QFile f(QString::fromLocal8Bit(dump));
    if (f.open(QIODevice::WriteOnly))
      f.write(cake::views::toDot(g.graph, cake::views::layoutDotOptions(g.graph)));
  }
  // A grown copy: one more candidate, as a watch import delivers it.
  auto grown = std::make_shared<cake::views::Lineage>(*lineage);
  {
    cake::views::LineageNode extra = grown->nodes.last();
    extra.record.id = "appended";
    extra.record.parents = {grown->nodes.first().record.id};
    grown->index.insert(QStringLiteral("appended"), int(grown->nodes.size()));
    grown->nodes.push_back(std::move(extra));
  }
  double layoutMs = 0, setLineageMs = 0, stallMs = 0, busyMs = 0, totalMs = 0;
  double guiCpuMs = 0, workerCpuMs = 0, paintMs = 0;
  cake::widgets::LineageView::Timings timings;
  bool fallback = false;
  for (auto _ : state) {
    cake::widgets::LineageView view;
    view.resize(1400, 900);
    view.show();
    QCoreApplication::processEvents();
    QElapsedTimer sinceTick, total;
    qint64 worst = 0;
    double worstBusy = 0, lastCpu = cpuMs(CLOCK_THREAD_CPUTIME_ID);
    QTimer tick;
    tick.setInterval(5);
    QObject::connect(&tick, &QTimer::timeout, [&] {
      worst = std::max(worst, sinceTick.restart());
      double now = cpuMs(CLOCK_THREAD_CPUTIME_ID);
      worstBusy = std::max(worstBusy, now - lastCpu);
      lastCpu = now;
    });
    int shown = 0;
    QObject::connect(&view, &cake::widgets::LineageView::layoutShown, [&] { ++shown; });
    double gui0 = cpuMs(CLOCK_THREAD_CPUTIME_ID), process0 = cpuMs(CLOCK_PROCESS_CPUTIME_ID);
    total.start();
    sinceTick.start();
    tick.start();
    auto show = [&](const cake::views::LineagePtr& l, int count) {
      QElapsedTimer g;
      g.start();
      view.setLineage(l); // the GUI-thread part; the rest arrives through the event loop
      setLineageMs = std::max(setLineageMs, double(g.elapsed()));
      while (shown < count && total.elapsed() < 120000)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents); // the tick wakes it
    };
    show(lineage, 1);
    show(grown, 2);
    // The replaced scene is disposed of in slices after the swap: count those stalls too.
    QElapsedTimer after;
    after.start();
    while (after.elapsed() < 300)
      QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    QElapsedTimer paint;
    paint.start();
    view.repaint(); // the whole lineage at its opening zoom, synchronously
    paintMs = double(paint.elapsed());
    totalMs = double(total.elapsed());
    tick.stop();
    guiCpuMs = cpuMs(CLOCK_THREAD_CPUTIME_ID) - gui0;
    workerCpuMs = cpuMs(CLOCK_PROCESS_CPUTIME_ID) - process0 - guiCpuMs;
    if (shown < 2) {
      state.SkipWithError("no layout within 120 s");
      return;
    }
    layoutMs = double(view.layout()->elapsedMs);
    fallback = view.layout()->fallback;
    timings = view.timings();
    stallMs = std::max({stallMs, double(worst), setLineageMs});
    busyMs = std::max(busyMs, worstBusy);
  }
  state.counters["candidates"] = double(lineage->nodes.size());
  state.counters["setlineage_ms"] = setLineageMs;
  state.counters["layout_ms"] = layoutMs;
  state.counters["graph_worker_ms"] = double(timings.graphMs);
  state.counters["scene_data_ms"] = double(timings.sceneDataMs);
  state.counters["items_ms"] = double(timings.itemsMs);
  state.counters["slices"] = double(timings.slices);
  state.counters["longest_slice_ms"] = double(timings.longestSliceMs);
  state.counters["swap_ms"] = double(timings.swapMs);
  state.counters["max_gui_stall_ms"] = stallMs;
  state.counters["max_gui_busy_ms"] = busyMs;
  state.counters["total_ms"] = totalMs;
  state.counters["paint_ms"] = paintMs;
  // Everything the GUI thread did (graph, scene, paints, event loop) and the other threads
  // (the Graphviz layout worker, mostly).
  state.counters["gui_cpu_ms"] = guiCpuMs;
  state.counters["worker_cpu_ms"] = workerCpuMs;
  state.counters["graphviz"] = fallback ? 0 : 1;
}
BENCHMARK(BM_Lineage2000)->Unit(benchmark::kMillisecond)->Iterations(3);

} // namespace

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--candidates") == 0) {
      g_candidates = std::max(2, std::atoi(argv[i + 1]));
      for (int j = i; j + 2 < argc; ++j)
        argv[j] = argv[j + 2];
      argc -= 2;
      break;
    }
  QApplication app(argc, argv);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
