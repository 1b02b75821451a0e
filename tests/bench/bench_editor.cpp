// Editing benchmarks (offscreen): a keystroke in the IR editor until the fresh findings are
// shown (findings panel and editor marks updated with the check of the edited text), for every
// corpus kernel, with the debounce interval excluded and reported separately; and the GUI
// thread's event-loop latency (largest gap of a 5 ms QTimer) while check jobs run back to back.
//
//   cake-editor-bench [benchmark flags...]
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/CompileSession.h"
#include "cake/views/FindingsModel.h"
#include "cake/views/SelectionModel.h"
#include "cake/widgets/CodeEditor.h"
#include "cake/widgets/FindingsPanel.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <QTimer>
#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>

namespace {

using cake::views::CheckSnapshotPtr;

std::shared_ptr<const cake::driver::Compiler> compiler() {
  static std::shared_ptr<const cake::driver::Compiler> c(
      cake::driver::Compiler::load({std::string(CAKE_SOURCE_DIR) + "/compiler/primitives",
                                    std::string(CAKE_SOURCE_DIR) + "/compiler/targets",
                                    std::string(CAKE_SOURCE_DIR) + "/compiler/rules"}));
  return c;
}

QString readFile(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

template <typename Done> bool pump(Done done, int timeoutMs = 60000) {
  QElapsedTimer t;
  t.start();
  QTimer tick;
  tick.start(1);
  while (!done() && t.elapsed() < timeoutMs)
    QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
  return done();
}

/// The workbench's edit loop without the window: editor → debounce → background check →
/// findings panel, editor marks and shared selection (as MainWindow wires them).
struct EditLoop {
  cake::views::CompileSession session;
  cake::views::SelectionModel selection;
  cake::widgets::CodeEditor editor;
  cake::widgets::FindingsPanel panel{&selection};
  QTimer debounce;
  QElapsedTimer clock;
  double debounceFiredAt = -1; ///< ms since the loop started
  double shownAt = -1;
  double applyMax = 0; ///< longest GUI-thread handling of one result (panel, editor, selection)
  double now() const { return double(clock.nsecsElapsed()) / 1e6; }
  quint64 requested = 0;
  quint64 shownJob = 0;
  QString path;

  explicit EditLoop(const QString& file) : path(file) {
    session.setCompiler(compiler());
    editor.setCompiler(compiler());
    editor.setSelectionModel(&selection);
    panel.setCompiler(compiler());
    editor.resize(900, 700);
    panel.resize(900, 300);
    editor.show();
    panel.show();
    debounce.setSingleShot(true);
    debounce.setInterval(cake::widgets::CodeEditor::kCheckDebounceMs);
    QObject::connect(&editor, &QPlainTextEdit::textChanged, &debounce,
                     [this] { debounce.start(); });
    QObject::connect(&debounce, &QTimer::timeout, &editor, [this] {
      debounceFiredAt = now();
      requested = session.requestCheck(path, editor.toPlainText());
    });
    QObject::connect(&session, &cake::views::CompileSession::checkFinished, &editor,
                     [this](const CheckSnapshotPtr& snap) {
                       double t = now();
                       selection.setSnapshot(snap);
                       panel.setSnapshot(snap);
                       editor.setSnapshot(snap);
                       shownJob = snap->jobId;
                       shownAt = now();
                       applyMax = std::max(applyMax, shownAt - t);
                     });
    clock.start();
  }
};

std::vector<std::pair<QString, QString>> corpusKernels() {
  std::vector<std::pair<QString, QString>> out;
  QFile manifest(QStringLiteral(CAKE_CORPUS_DIR "/manifest.json"));
  if (!manifest.open(QIODevice::ReadOnly))
    return out;
  for (const QJsonValue& c :
       QJsonDocument::fromJson(manifest.readAll()).object().value("cases").toArray())
    out.emplace_back(c.toObject().value("id").toString(),
                     QStringLiteral(CAKE_CORPUS_DIR "/") + c.toObject().value("path").toString());
  return out;
}

/// Keystroke (a space typed at the end of the text, then removed) until the panel shows the
/// findings of the edited text. Iteration time excludes the debounce interval.
void keystrokeToFindings(benchmark::State& state, const QString& file) {
  EditLoop loop(file);
  loop.editor.setPlainText(readFile(file));
  loop.debounce.stop();
  loop.requested = loop.session.requestCheck(file, loop.editor.toPlainText());
  if (!pump([&] { return loop.shownJob == loop.requested; })) {
    state.SkipWithError("first check timed out");
    return;
  }
  QTextCursor end(loop.editor.document());
  end.movePosition(QTextCursor::End);
  loop.editor.setTextCursor(end);
  double debounceWait = 0, checkToShown = 0, keyHandling = 0, findings = 0;
  bool add = true;
  for (auto _ : state) {
    double t0 = loop.now();
    QElapsedTimer key;
    key.start();
    QTest::keyClick(&loop.editor, add ? Qt::Key_Space : Qt::Key_Backspace);
    double keyMs = double(key.nsecsElapsed()) / 1e6;
    add = !add;
    loop.debounceFiredAt = -1;
    if (!pump([&] { return loop.debounceFiredAt >= 0 && loop.shownJob == loop.requested; })) {
      state.SkipWithError("check timed out");
      return;
    }
    // Manual time: the keystroke's handling plus request → findings shown (debounce excluded).
    double shownMs = keyMs + (loop.shownAt - loop.debounceFiredAt);
    state.SetIterationTime(shownMs / 1000.0);
    debounceWait += (loop.debounceFiredAt - t0);
    checkToShown += (loop.shownAt - loop.debounceFiredAt);
    keyHandling += keyMs;
    findings = loop.panel.model()->rowCount();
  }
  double n = double(state.iterations());
  state.counters["debounce_ms"] = cake::widgets::CodeEditor::kCheckDebounceMs;
  state.counters["debounce_wait_ms"] = debounceWait / n; // measured keystroke → request
  state.counters["request_to_shown_ms"] = checkToShown / n;
  state.counters["key_ms"] = keyHandling / n;
  state.counters["findings"] = findings;
}

/// Largest gap between ticks of a 5 ms timer on the GUI thread while checks of one kernel run
/// back to back for at least 1 s (each result shown in the panel and the editor before the next
/// is requested).
void eventLoopLatency(benchmark::State& state, const QString& file) {
  EditLoop loop(file);
  loop.editor.setPlainText(readFile(file));
  loop.debounce.stop();
  const int minChecks = 10;
  const qint64 minMs = 1000;
  double maxGap = 0, meanGap = 0, perCheck = 0, checks = 0;
  for (auto _ : state) {
    int done = 0;
    bool stop = false;
    qint64 last = -1, gaps = 0, worst = 0, sum = 0;
    QTimer tick;
    tick.setTimerType(Qt::PreciseTimer);
    QObject::connect(&tick, &QTimer::timeout, [&] {
      qint64 now = loop.clock.elapsed();
      if (last >= 0) {
        worst = std::max(worst, now - last);
        sum += now - last;
        ++gaps;
      }
      last = now;
    });
    auto conn = QObject::connect(&loop.session, &cake::views::CompileSession::checkFinished,
                                 &loop.editor, [&](const CheckSnapshotPtr&) {
                                   ++done;
                                   if (!stop)
                                     loop.requested =
                                         loop.session.requestCheck(file, loop.editor.toPlainText());
                                 });
    qint64 t0 = loop.clock.elapsed();
    tick.start(5);
    loop.requested = loop.session.requestCheck(file, loop.editor.toPlainText());
    if (!pump([&] { return done >= minChecks && loop.clock.elapsed() - t0 >= minMs; }, 120000)) {
      state.SkipWithError("checks timed out");
      return;
    }
    stop = true;
    tick.stop();
    qint64 elapsed = loop.clock.elapsed() - t0;
    pump([&] { return loop.shownJob == loop.requested; });
    QObject::disconnect(conn);
    maxGap = std::max(maxGap, double(worst));
    meanGap = gaps ? double(sum) / double(gaps) : 0;
    perCheck = double(elapsed) / done;
    checks = done;
  }
  state.counters["checks"] = checks;
  state.counters["apply_max_ms"] = loop.applyMax;
  state.counters["max_gap_ms"] = maxGap;
  state.counters["mean_gap_ms"] = meanGap;
  state.counters["check_ms"] = perCheck;
}

} // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  for (const auto& [id, path] : corpusKernels()) {
    QString p = path;
    benchmark::RegisterBenchmark(("BM_KeystrokeToFindings/" + id).toStdString().c_str(),
                                 [p](benchmark::State& s) { keystrokeToFindings(s, p); })
        ->Unit(benchmark::kMillisecond)
        ->UseManualTime()
        ->Iterations(6);
  }
  for (const auto& [id, path] : corpusKernels()) {
    QString p = path;
    benchmark::RegisterBenchmark(("BM_EventLoopLatencyDuringChecks/" + id).toStdString().c_str(),
                                 [p](benchmark::State& s) { eventLoopLatency(s, p); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->Iterations(1);
  }
#ifdef CAKE_VIEW_BENCH_KERNEL
  benchmark::RegisterBenchmark(
      "BM_EventLoopLatencyDuringChecks/generated_2000_ops",
      [](benchmark::State& s) { eventLoopLatency(s, QStringLiteral(CAKE_VIEW_BENCH_KERNEL)); })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime()
      ->Iterations(1);
#endif
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
