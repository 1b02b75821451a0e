// The Runs dock widget offscreen: the honest empty state without timed GPU runs, and the
// predicted-vs-measured scatter with Spearman's rho and top-1 regret once the store holds timed
// GPU records. The GPU records are TEST DATA written through the store API here (there is no
// GPU on the test machine); nothing of it is shipped as a measurement.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Run/Record.h"
#include "cake/Workspace/Workspace.h"
#include "cake/views/RunController.h"
#include "cake/widgets/Plot.h"
#include "cake/widgets/RunsView.h"

#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace cake;

namespace {

void storeRecord(ws::Workspace& ws, const std::string& kernel, const std::string& kind,
                 std::vector<double> samples, std::optional<double> predicted) {
  run::RunRecord r;
  r.kernel = kernel;
  r.scheduleHash = kernel + "-hash";
  r.target = "sm_90a";
  r.deviceKind = kind;
  r.device = run::DeviceInfo{
      kind == "gpu" ? "TEST DATA GPU" : "cpu (cake interpreter)", {}, {}, {}, {}, {}};
  r.workload = "w";
  r.correct = true;
  if (!samples.empty()) {
    r.samplesUs = samples;
    r.stats = run::summarize(samples);
  }
  r.predictedUs = predicted;
  r.executor = "local";
  ws::RunRow row;
  row.kernel = kernel;
  row.scheduleHash = r.scheduleHash;
  row.target = r.target;
  row.device = r.device->name;
  row.executor = "local";
  row.workload = "w";
  row.correct = true;
  row.record = run::toJson(r);
  QVERIFY(ws.addRun(row, "tst_runsview"));
}

} // namespace

class TestRunsView : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void emptyStateThenScatter() {
    QTemporaryDir dir;
    QString path = dir.filePath("ws");
    auto ws = ws::Workspace::open(path.toStdString(), ws::OpenMode::CreateIfMissing);
    QVERIFY(ws);
    storeRecord(*ws, "k0", "cpu", {}, 4.0);
    views::CompileSession session;
    views::RunController controller(&session);
    widgets::RunsView view(&controller);
    view.resize(1024, 640);
    view.show();
    QVERIFY(view.statusText().startsWith(QStringLiteral("No workspace")));
    QVERIFY(!view.findChild<QPushButton*>(QStringLiteral("runButton"))->isEnabled());
    QSignalSpy changed(&controller, &views::RunController::runsChanged);
    controller.setWorkspace(path);
    QTRY_VERIFY(changed.count() == 1);
    QCOMPARE(view.table()->model()->rowCount(), 1);
    QVERIFY(view.findChild<QPushButton*>(QStringLiteral("runButton"))->isEnabled());
    // CPU runs only: no points, and the note says why.
    QVERIFY(view.scatter().points.isEmpty());
    QVERIFY2(view.scatter().note.contains(QStringLiteral("prove correctness only")),
             qPrintable(view.scatter().note));
    QCOMPARE(view.plot()->itemCount(), 1); // the note alone
    auto* quality = view.findChild<QLabel*>(QStringLiteral("runsQuality"));
    QVERIFY(quality->text().contains(QStringLiteral("need timed GPU runs")));
    QVERIFY(quality->height() >= 2 * quality->fontMetrics().height()); // not clipped

    // Timed GPU records (test data): predicted order k1 < k2 < k3, measured k2 < k1 < k3.
    storeRecord(*ws, "k1", "gpu", {12}, 5.0);
    storeRecord(*ws, "k2", "gpu", {10}, 6.0);
    storeRecord(*ws, "k3", "gpu", {20}, 7.0);
    controller.refresh();
    QTRY_VERIFY(changed.count() == 2);
    QCOMPARE(view.table()->model()->rowCount(), 4);
    QCOMPARE(view.scatter().points.size(), 3);
    QCOMPARE(quality->text(), QStringLiteral("3 kernel(s) · Spearman's ρ 0.500\ntop-1 regret "
                                             "20.0 % over 1 workload(s)"));
    // Diagonal, points and one label per point, each label with its leader line (drawn only
    // when placement moved the label).
    QCOMPARE(view.plot()->itemCount(), 8);
    // Calibrate hands the selected runs over (all shown when none is selected).
    QSignalSpy calibrate(&view, &widgets::RunsView::calibrateRequested);
    view.selectRuns({2, 3});
    view.findChild<QPushButton*>(QStringLiteral("runCalibrate"))->click();
    QCOMPARE(calibrate.count(), 1);
    auto runs = calibrate.at(0).at(0).value<QVector<views::RunEntry>>();
    QCOMPARE(runs.size(), 2);
  }
};

QTEST_MAIN(TestRunsView)
#include "tst_runsview.moc"
