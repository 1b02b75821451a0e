// The Runs dock's data and controller (issue 15 §5): the results model through
// QAbstractItemModelTester, the predicted-vs-measured scatter and its honest empty state,
// measured roofline points of one schedule, calibration proposals from timed runs (and their
// refusals), and real `cake run` jobs stored in a workspace, one of them cancelled while its
// runner runs. The GPU records below are TEST DATA built through the store API in this test:
// there is no GPU on the test machine, and none of it is shipped as a measurement.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ViewsTestUtil.h"

#include "cake/IR/Printer.h"
#include "cake/Proposal/Proposal.h"
#include "cake/Run/Record.h"
#include "cake/Support/Sha256.h"
#include "cake/Workspace/Workspace.h"
#include "cake/views/PerformanceData.h"
#include "cake/views/RunController.h"
#include "cake/views/RunsData.h"
#include "cake/views/RunsModel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <sys/types.h>

using namespace cake;

Q_DECLARE_METATYPE(cake::views::RunEntry)

namespace {

/// The schedule hash `cake run` records for a kernel file (16 hex digits of the canonical text).
QString scheduleHashOf(const QString& path) {
  auto r = test::compiler()->check(path.toStdString(), test::readFile(path).toStdString());
  return QString::fromStdString(sha256Hex(ir::print(r.module)).substr(0, 16));
}

/// The cost model's prediction (µs) for a kernel file.
double predictedOf(const QString& path) {
  auto s = test::snapshotOf(path, test::readFile(path));
  auto c = views::buildCostSnapshot(*test::compiler(), s, 1);
  return c->data.predictedUs;
}

/// A GPU record with samples (TEST DATA: no GPU ran it).
run::RunRecord gpuRecord(const QString& kernel, const QString& hash, const QString& target,
                         std::vector<double> samples, std::optional<double> predicted,
                         std::optional<double> baseline = {}, const QString& workload = {}) {
  run::RunRecord r;
  r.kernel = kernel.toStdString();
  r.scheduleHash = hash.toStdString();
  r.target = target.toStdString();
  r.deviceKind = "gpu";
  r.device = run::DeviceInfo{"TEST DATA GPU", std::string("sm_90"), {}, {}, {}, {}};
  r.workload = (workload.isEmpty() ? kernel : workload).toStdString();
  r.correct = true;
  r.samplesUs = samples;
  r.stats = run::summarize(samples);
  r.timer = "cuda-events";
  r.predictedUs = predicted;
  if (baseline)
    r.baseline = run::Baseline{"TEST DATA baseline", baseline};
  r.executor = "local";
  return r;
}

run::RunRecord cpuRecord(const QString& kernel, const QString& target, bool correct) {
  run::RunRecord r;
  r.kernel = kernel.toStdString();
  r.target = target.toStdString();
  r.deviceKind = "cpu";
  r.device = run::DeviceInfo{"cpu (cake interpreter)", {}, {}, {}, {}, {}};
  r.workload = kernel.toStdString();
  r.correct = correct;
  if (!correct)
    r.errors.push_back({"incorrect", "the CPU run does not match the reference operator"});
  r.executor = "local";
  return r;
}

qint64 store(ws::Workspace& ws, const run::RunRecord& r, const QString& source = {}) {
  ws::RunRow row;
  row.kernel = r.kernel;
  row.sourcePath = source.toStdString();
  row.scheduleHash = r.scheduleHash;
  row.target = r.target;
  row.device = r.device ? r.device->name : "none";
  row.executor = r.executor;
  row.workload = r.workload;
  row.correct = r.correct;
  row.record = run::toJson(r);
  auto id = ws.addRun(row, "tst_runs");
  return id ? *id : -1;
}

views::RunEntry entryOf(const run::RunRecord& r, qint64 id, const QString& source = {}) {
  ws::RunRow row;
  row.id = id;
  row.kernel = r.kernel;
  row.sourcePath = source.toStdString();
  row.scheduleHash = r.scheduleHash;
  row.target = r.target;
  row.device = r.device ? r.device->name : "none";
  row.executor = r.executor;
  row.workload = r.workload;
  row.correct = r.correct;
  row.record = run::toJson(r);
  return views::runEntry(row);
}

} // namespace

class TestRuns : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void model() {
    QTemporaryDir dir;
    auto ws = ws::Workspace::open(dir.filePath("ws").toStdString(), ws::OpenMode::CreateIfMissing);
    QVERIFY(ws);
    qint64 cpu = store(*ws, cpuRecord("bias_gelu", "sm_80", true));
    qint64 gpu = store(*ws, gpuRecord("gemm", "abcd", "sm_90a", {10, 11, 12, 13, 14}, 9.0, 10.0));
    qint64 wrong = store(*ws, cpuRecord("softmax", "sm_80", false));
    // A stored document that is not a run record keeps its row (never dropped silently).
    ws::RunRow bad;
    bad.kernel = "odd";
    bad.record = "{\"kernel\": 3}";
    QVERIFY(ws->addRun(bad, "tst_runs"));

    QString error;
    QVector<views::RunEntry> runs = views::loadRuns(dir.filePath("ws"), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(runs.size(), 4);
    QCOMPARE(runs.front().kernel, QStringLiteral("odd")); // newest first
    views::RunsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRuns(runs);
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.columnCount(), int(views::RunsModel::ColumnCount));
    auto cell = [&](qint64 id, int column, int role = Qt::DisplayRole) {
      return model.data(model.index(model.rowOf(id), column), role);
    };
    QCOMPARE(cell(gpu, views::RunsModel::Median).toString(), QStringLiteral("12 (11–13)"));
    QCOMPARE(cell(gpu, views::RunsModel::Predicted).toString(), QStringLiteral("9"));
    QCOMPARE(cell(gpu, views::RunsModel::DeltaBaseline).toString(), QStringLiteral("+20.0 %"));
    QCOMPARE(cell(gpu, views::RunsModel::Correct).toString(), QStringLiteral("correct"));
    QCOMPARE(cell(gpu, views::RunsModel::Device).toString(), QStringLiteral("gpu · TEST DATA GPU"));
    QCOMPARE(cell(gpu, views::RunsModel::Median, views::RunsModel::SortRole).toDouble(), 12.0);
    // A CPU run has no kernel time: a dash, and the tooltip says why.
    QCOMPARE(cell(cpu, views::RunsModel::Median).toString(), QStringLiteral("—"));
    QVERIFY(cell(cpu, views::RunsModel::Median, Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("correctness only")));
    QCOMPARE(cell(cpu, views::RunsModel::DeltaBaseline).toString(), QString());
    QCOMPARE(cell(wrong, views::RunsModel::Correct).toString(), QStringLiteral("incorrect"));
    QCOMPARE(cell(cpu, views::RunsModel::Kernel, views::RunsModel::IdRole).toLongLong(), cpu);
    QVERIFY(!runs.front().recordError.isEmpty());
    QCOMPARE(model.data(model.index(0, views::RunsModel::Correct)).toString(),
             QStringLiteral("bad record"));
    // Faster than the baseline.
    views::RunEntry fast = entryOf(gpuRecord("g", "h", "sm_90a", {8}, {}, 10.0), 1);
    QCOMPARE(views::RunsModel::deltaText(fast), QStringLiteral("−20.0 %"));
  }

  void scatter_data() {
    QTest::addColumn<QVector<views::RunEntry>>("runs");
    QTest::addColumn<int>("points");
    QTest::addColumn<double>("spearman"); // NaN: none
    QTest::addColumn<double>("regret");   // NaN: none
    QTest::addColumn<QString>("note");
    const double none = std::nan("");
    QTest::newRow("no runs") << QVector<views::RunEntry>{} << 0 << none << none
                             << "No timed GPU runs";
    QTest::newRow("CPU runs only")
        << QVector<views::RunEntry>{entryOf(cpuRecord("a", "sm_80", true), 1),
                                    entryOf(cpuRecord("b", "sm_80", true), 2)}
        << 0 << none << none << "2 CPU run(s) prove correctness only";
    // A CPU record that carries samples is still not timed: interpreter time is not kernel time.
    run::RunRecord cpuWithSamples = cpuRecord("c", "sm_80", true);
    cpuWithSamples.samplesUs = {5, 5, 5};
    cpuWithSamples.stats = run::summarize(cpuWithSamples.samplesUs);
    cpuWithSamples.predictedUs = 4.0;
    QTest::newRow("CPU record with samples") << QVector<views::RunEntry>{entryOf(cpuWithSamples, 1)}
                                             << 0 << none << none << "1 CPU run(s)";
    run::RunRecord noPrediction = gpuRecord("d", "h", "sm_90a", {3}, {});
    QTest::newRow("timed without prediction") << QVector<views::RunEntry>{entryOf(noPrediction, 1)}
                                              << 0 << none << none << "No timed GPU runs";
    QTest::newRow("one timed kernel")
        << QVector<views::RunEntry>{entryOf(gpuRecord("k1", "h1", "sm_90a", {10}, 8.0), 1)} << 1
        << none << none << "a rank correlation needs two";
    // Three alternatives for one workload: predicted order k1 < k2 < k3, measured k2 < k1 < k3.
    // rho = 1 - 6 * (1 + 1 + 0) / (3 * 8) = 0.5; the predicted best (k1, 12 us) against the
    // measured best (k2, 10 us): regret 0.2.
    QVector<views::RunEntry> three{entryOf(gpuRecord("k1", "h1", "sm_90a", {12}, 5.0, {}, "w"), 1),
                                   entryOf(gpuRecord("k2", "h2", "sm_90a", {10}, 6.0, {}, "w"), 2),
                                   entryOf(gpuRecord("k3", "h3", "sm_90a", {20}, 7.0, {}, "w"), 3),
                                   entryOf(cpuRecord("k1", "sm_90a", true), 4)};
    QTest::newRow("three alternatives") << three << 3 << 0.5 << 0.2 << "";
    // An older timed record of the same kernel and schedule is superseded by the newer one.
    QVector<views::RunEntry> again = three;
    again << entryOf(gpuRecord("k1", "h1", "sm_90a", {9}, 5.0, {}, "w"), 5);
    QTest::newRow("newest record counts") << again << 3 << 1.0 << 0.0 << "";
    // An incorrect kernel's time is not a measurement of the kernel.
    QVector<views::RunEntry> incorrect = three;
    run::RunRecord wrong = gpuRecord("k4", "h4", "sm_90a", {1}, 9.0, {}, "w");
    wrong.correct = false;
    incorrect << entryOf(wrong, 6);
    QTest::newRow("incorrect GPU run left out") << incorrect << 3 << 0.5 << 0.2 << "";
  }
  void scatter() {
    QFETCH(QVector<views::RunEntry>, runs);
    QFETCH(int, points);
    QFETCH(double, spearman);
    QFETCH(double, regret);
    QFETCH(QString, note);
    views::ScatterData d = views::scatterData(runs);
    QCOMPARE(d.points.size(), points);
    QCOMPARE(d.labels.size(), points);
    QCOMPARE(bool(d.spearman), !std::isnan(spearman));
    if (d.spearman)
      QVERIFY2(std::abs(*d.spearman - spearman) < 1e-12, qPrintable(QString::number(*d.spearman)));
    QCOMPARE(bool(d.regret), !std::isnan(regret));
    if (d.regret)
      QVERIFY2(std::abs(*d.regret - regret) < 1e-12, qPrintable(QString::number(*d.regret)));
    if (note.isEmpty())
      QVERIFY2(d.note.isEmpty(), qPrintable(d.note));
    else
      QVERIFY2(d.note.contains(note), qPrintable(d.note));
  }

  void measuredPointsOfOneSchedule() {
    QVector<views::RunEntry> runs{
        entryOf(gpuRecord("k", "h1", "sm_90a", {100}, 90.0), 1),
        entryOf(gpuRecord("k", "h1", "sm_80", {50}, 90.0), 2),  // another target
        entryOf(gpuRecord("k", "h2", "sm_90a", {70}, 90.0), 3), // another schedule
        entryOf(cpuRecord("k", "sm_90a", true), 4)};
    QVector<views::MeasuredPoint> p = views::measuredPoints(runs, "h1", "sm_90a", 2e9);
    QCOMPARE(p.size(), 1);
    QCOMPARE(p[0].us, 100.0);
    QCOMPARE(p[0].tflops, 2e9 / 100 / 1e6);
    QVERIFY(views::measuredPoints(runs, "", "sm_90a", 2e9).isEmpty());

    // Through the performance data: a stored timed run of this exact kernel is a measured point.
    QString path = test::corpusPath("ampere_gemm/gemm_cp_async.cake");
    auto check = test::snapshotOf(path, test::readFile(path));
    auto cost = views::buildCostSnapshot(*test::compiler(), check, 1);
    QVERIFY(cost->estimate && cost->estimate->ok);
    int before = int(cost->data.measured.size());
    QVector<views::RunEntry> stored{
        entryOf(gpuRecord("ampere", scheduleHashOf(path), "sm_80", {800, 810}, 700.0), 7),
        entryOf(gpuRecord("ampere", "0000000000000000", "sm_80", {900}, 700.0), 8)};
    views::PerformanceData d =
        views::performanceData(*check, *cost->estimate, check->result.model.target, &stored);
    QCOMPARE(int(d.measured.size()), before + 1);
    QVERIFY2(d.measured.back().label.startsWith(QStringLiteral("run 7: 805 us")),
             qPrintable(d.measured.back().label));
    QVERIFY(d.measuredNote.startsWith(QStringLiteral("1 measured run(s) in the workspace")));

    // The cost job reads them from the workspace itself (CompileSession passes its workspace).
    QTemporaryDir dir;
    auto ws = ws::Workspace::open(dir.filePath("ws").toStdString(), ws::OpenMode::CreateIfMissing);
    QVERIFY(ws);
    store(*ws, gpuRecord("ampere", scheduleHashOf(path), "sm_80", {800, 810}, 700.0), path);
    store(*ws, cpuRecord("ampere", "sm_80", true), path);
    auto fromStore = views::buildCostSnapshot(*test::compiler(), check, 2, dir.filePath("ws"));
    QCOMPARE(int(fromStore->data.measured.size()), before + 1);
    QVERIFY2(fromStore->data.measured.back().label.startsWith(QStringLiteral("run 1: 805 us")),
             qPrintable(fromStore->data.measured.back().label));
  }

  void calibrationRefused_data() {
    QTest::addColumn<QString>("which");
    QTest::addColumn<QString>("refusal");
    QTest::newRow("cpu only") << "cpu"
                              << "no correct, timed GPU run (2 selected, 2 on the CPU)";
    QTest::newRow("one kernel") << "one"
                                << "One timed kernel (bias_gelu)";
    QTest::newRow("two targets") << "targets"
                                 << "mixes targets";
    QTest::newRow("kernel changed") << "changed"
                                    << "changed since it ran";
    QTest::newRow("kernel gone") << "gone"
                                 << "cannot read its kernel";
  }
  void calibrationRefused() {
    QFETCH(QString, which);
    QFETCH(QString, refusal);
    QTemporaryDir dir;
    QString gelu = test::corpusPath("bias_gelu/bias_gelu.cake");
    QString softmax = test::corpusPath("softmax/row_softmax.cake");
    QVector<views::RunEntry> runs;
    if (which == "cpu") {
      runs << entryOf(cpuRecord("bias_gelu", "sm_80", true), 1, gelu)
           << entryOf(cpuRecord("row_softmax", "sm_80", true), 2, softmax);
    } else if (which == "one") {
      runs << entryOf(gpuRecord("bias_gelu", scheduleHashOf(gelu), "sm_80", {50}, 40.0), 1, gelu)
           << entryOf(gpuRecord("bias_gelu", scheduleHashOf(gelu), "sm_80", {51}, 40.0), 2, gelu);
    } else if (which == "targets") {
      runs << entryOf(gpuRecord("bias_gelu", scheduleHashOf(gelu), "sm_80", {50}, 40.0), 1, gelu)
           << entryOf(gpuRecord("rmsnorm", "h", "sm_90a", {50}, 40.0), 2, gelu);
    } else if (which == "changed") {
      runs << entryOf(gpuRecord("bias_gelu", "ffffffffffffffff", "sm_80", {50}, 40.0), 1, gelu)
           << entryOf(gpuRecord("row_softmax", scheduleHashOf(softmax), "sm_80", {50}, 40.0), 2,
                      softmax);
    } else {
      runs << entryOf(gpuRecord("bias_gelu", "h", "sm_80", {50}, 40.0), 1, dir.filePath("no.cake"))
           << entryOf(gpuRecord("row_softmax", scheduleHashOf(softmax), "sm_80", {50}, 40.0), 2,
                      softmax);
    }
    views::CalibrationProposal p =
        views::writeCalibrationProposal(*test::compiler(), runs, dir.filePath("proposals"), "me");
    QVERIFY(!p.ok());
    QVERIFY2(p.refusal.contains(refusal), qPrintable(p.refusal));
    QVERIFY(p.folder.isEmpty());
    QVERIFY(!QDir(dir.filePath("proposals")).exists() || QDir(dir.filePath("proposals")).isEmpty());
  }

  void calibrationProposal() {
    // Three sm_80 kernels "measured" at 1.5x, 2x and 3x their prediction (TEST DATA).
    QTemporaryDir dir;
    const QStringList files{test::corpusPath("bias_gelu/bias_gelu.cake"),
                            test::corpusPath("softmax/row_softmax.cake"),
                            test::corpusPath("ampere_gemm/gemm_cp_async.cake")};
    const double factor[] = {1.5, 2.0, 3.0};
    QVector<views::RunEntry> runs;
    for (int i = 0; i < files.size(); ++i) {
      double predicted = predictedOf(files[i]);
      QVERIFY(predicted > 0);
      double us = predicted * factor[i];
      runs << entryOf(gpuRecord(QFileInfo(files[i]).baseName(), scheduleHashOf(files[i]), "sm_80",
                                {us * 0.99, us, us * 1.01}, predicted),
                      i + 1, files[i]);
    }
    runs << entryOf(cpuRecord("bias_gelu", "sm_80", true), 9, files[0]); // ignored
    views::CalibrationProposal p =
        views::writeCalibrationProposal(*test::compiler(), runs, dir.filePath("proposals"), "me");
    QVERIFY2(p.ok(), qPrintable(p.refusal));
    QCOMPARE(p.target, QStringLiteral("sm_80"));
    QCOMPARE(p.measurements, 3);
    QVERIFY2(p.rmsAfter < p.rmsBefore,
             qPrintable(QStringLiteral("%1 -> %2").arg(p.rmsBefore).arg(p.rmsAfter)));
    QVERIFY(QFileInfo(p.folder).isDir());
    QCOMPARE(QFileInfo(p.folder).absolutePath(), QDir(dir.filePath("proposals")).absolutePath());

    // It is a proposal of kind calibration the proposal flow reads and evaluates as valid.
    SourceManager sources;
    DiagnosticEngine diags;
    auto proposal = proposal::loadProposal(p.folder.toStdString(), sources, diags);
    QVERIFY2(proposal, diags.diagnostics().empty() ? "not loaded"
                                                   : diags.diagnostics().front().message.c_str());
    QCOMPARE(int(proposal->kind), int(proposal::Kind::Calibration));
    QCOMPARE(int(proposal->files.size()), 1);
    QCOMPARE(QString::fromStdString(proposal->files[0].name), QStringLiteral("sm_80.json"));
    QCOMPARE(int(proposal->evidence.size()), 4); // three runs and the fit's quality
    QVERIFY(QString::fromStdString(proposal->evidence[0]).contains("\"median_us\""));
    proposal::Evaluation e = proposal::evaluateProposal(*proposal, test::dataPaths(), {}, nullptr);
    QVERIFY2(e.valid, e.findingsText.empty() ? "invalid" : e.findingsText.front().c_str());

    // A second proposal from the same runs is a new folder (content identifies a proposal).
    views::CalibrationProposal q =
        views::writeCalibrationProposal(*test::compiler(), runs, dir.filePath("proposals"), "me");
    QVERIFY2(q.ok(), qPrintable(q.refusal));
    QVERIFY(q.folder != p.folder);
  }

  void cliRunsAppear() {
    // A real `cake run` on the CPU device through the local executor, as the dock starts it;
    // the record is in the workspace and the model shows it after the job.
    QTemporaryDir dir;
    QString ws = dir.filePath("ws");
    QVERIFY(ws::Workspace::open(ws.toStdString(), ws::OpenMode::CreateIfMissing));
    views::CompileSession session;
    views::RunController controller(&session);
    controller.setCli(QStringLiteral(CAKE_CLI));
    QSignalSpy changed(&controller, &views::RunController::runsChanged);
    controller.setWorkspace(ws);
    QTRY_VERIFY(changed.count() >= 1);
    QCOMPARE(controller.model()->rowCount(), 0);

    QString error;
    views::RunRequest bad;
    bad.kernelPath = test::corpusPath("bias_gelu/bias_gelu.cake");
    bad.executor = "ftp://x";
    QCOMPARE(controller.start(bad, &error), quint64(0));
    QVERIFY2(error.contains("executor"), qPrintable(error));
    bad.executor = "local";
    bad.device = "gpu";
    bad.shapes = "small";
    QCOMPARE(controller.start(bad, &error), quint64(0));

    views::RunRequest r;
    r.kernelPath = test::corpusPath("bias_gelu/bias_gelu.cake");
    r.timeoutSeconds = 240;
    QCOMPARE(controller.arguments(r).mid(0, 2), (QStringList{"run", r.kernelPath}));
    QVERIFY(controller.arguments(r).contains("--shapes"));
    QSignalSpy finished(&controller, &views::RunController::runFinished);
    quint64 job = controller.start(r, &error);
    QVERIFY2(job != 0, qPrintable(error));
    QCOMPARE(controller.activeRuns(), QList<quint64>{job});
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 240000);
    auto outcome = finished.at(0).at(0).value<views::RunOutcome>();
    QCOMPARE(outcome.job, job);
    QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.output + outcome.log));
    QVERIFY(!outcome.cancelled);
    QTRY_COMPARE(controller.model()->rowCount(), 1);
    const views::RunEntry* e = controller.model()->entry(0);
    QCOMPARE(e->status, QStringLiteral("correct"));
    QCOMPARE(e->deviceKind, QStringLiteral("cpu"));
    QCOMPARE(e->executor, QStringLiteral("local"));
    QVERIFY(!e->timed);
    QVERIFY2(e->details.contains("small shapes"), qPrintable(e->details));
    QCOMPARE(e->sourcePath, QFileInfo(r.kernelPath).absoluteFilePath());
    QVERIFY(controller.activeRuns().isEmpty());
  }

  void cancelStopsTheRunner() {
    // The runner is a script that writes its pid and sleeps: cancelling the job must end it
    // (cake run gets SIGTERM, its executor kills the runner), and the "cancelled" record is
    // stored — well before the 30 s after which the job would be SIGKILLed.
    QTemporaryDir dir;
    QString ws = dir.filePath("ws");
    QVERIFY(ws::Workspace::open(ws.toStdString(), ws::OpenMode::CreateIfMissing));
    QString pidFile = dir.filePath("runner.pid");
    QString script = dir.filePath("runner.sh");
    {
      QFile f(script);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(QStringLiteral("#!/bin/sh\necho $$ > '%1'\nexec sleep 300\n").arg(pidFile).toUtf8());
    }
    QFile::setPermissions(script, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    views::CompileSession session;
    views::RunController controller(&session);
    controller.setCli(QStringLiteral(CAKE_CLI));
    controller.setRunner(script);
    controller.setWorkspace(ws);
    QSignalSpy finished(&controller, &views::RunController::runFinished);
    views::RunRequest r;
    r.kernelPath = test::corpusPath("bias_gelu/bias_gelu.cake");
    r.timeoutSeconds = 600;
    QString error;
    quint64 job = controller.start(r, &error);
    QVERIFY2(job != 0, qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(pidFile).size() > 0, 120000);
    pid_t pid = pid_t(test::readFile(pidFile).trimmed().toLongLong());
    QVERIFY(pid > 0);
    QCOMPARE(::kill(pid, 0), 0); // the runner runs
    QVERIFY(controller.cancel(job));
    QVERIFY(!controller.cancel(job + 1000));
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 25000);
    auto outcome = finished.at(0).at(0).value<views::RunOutcome>();
    QVERIFY(outcome.cancelled);
    QCOMPARE(outcome.exitCode, int(run::kExitExecutor)); // cake run ended itself, not SIGKILLed
    QVERIFY2(outcome.seconds < 25, qPrintable(QString::number(outcome.seconds)));
    QCOMPARE(::kill(pid, 0), -1); // the runner is gone
    QTRY_COMPARE(controller.model()->rowCount(), 1);
    QCOMPARE(controller.model()->entry(0)->status, QStringLiteral("cancelled"));
  }
};

QTEST_GUILESS_MAIN(TestRuns)
#include "tst_runs.moc"
