// `cake-workbench --screenshot --view run` (Run on CPU and the output heat map): a numerically
// wrong GEMM renders its wrong tiles on the ramp's red end and says which line wrote them, a
// correct GEMM renders no red, `--run` puts the verdict in the findings view, and a kernel
// without a contract or a bad --workload exits 2.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ShotTestUtil.h"

#include <QImage>
#include <QTemporaryDir>
#include <QtTest>

namespace shot = cake::test::shot;

namespace {

const QString kCorpus = QStringLiteral(CAKE_SOURCE_DIR "/corpus/");

int run(const QStringList& args, QString* output = nullptr) {
  return shot::workbench(args, output, 240000);
}

// The ramp's ends (views::HeatScale::ramp): a wrong tile with the output's largest error, and a
// correct output's largest error.
const QRgb kWrongTop = qRgb(0xa5, 0x0f, 0x15);
const QRgb kToleratedTop = qRgb(0xf3, 0x9c, 0x34);

} // namespace

class TestCpuRunShot : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void heatMap_data();
  void heatMap();
  void findingsVerdict();
  void badArguments_data();
  void badArguments();
};

void TestCpuRunShot::heatMap_data() {
  QTest::addColumn<QString>("kernel");
  QTest::addColumn<QString>("verdict");
  QTest::addColumn<bool>("wrong");
  QTest::newRow("A tile from t.y")
      << "numerical/gemm-tile-from-ty.cake"
      << "CPU run: INCORRECT: C 32428 wrong, first written at line 63" << true;
  QTest::newRow("softmax rescaled late") << "numerical/softmax-rescale-late.cake"
                                         << "first written at line 62" << true;
  QTest::newRow("correct Ampere GEMM") << "ampere_gemm/gemm_cp_async.cake"
                                       << "CPU run: correct (1 output" << false;
}

void TestCpuRunShot::heatMap() {
  QFETCH(QString, kernel);
  QFETCH(QString, verdict);
  QFETCH(bool, wrong);
  QTemporaryDir dir;
  QString png = dir.filePath("run.png");
  QString out;
  QCOMPARE(run({"--screenshot", png, "--view", "run", "--size", "900x600", kCorpus + kernel}, &out),
           0);
  QVERIFY2(out.contains(verdict), qPrintable(out));
  QVERIFY2(out.contains("run done at"), qPrintable(out));
  QImage img(png);
  QVERIFY(!img.isNull());
  QCOMPARE(img.size(), QSize(900, 600));
  int red = shot::countPixels(img, kWrongTop), orange = shot::countPixels(img, kToleratedTop);
  if (wrong) {
    // Whole tiles at the red end (not only the legend).
    QVERIFY2(red > 5000, qPrintable(QString::number(red)));
  } else {
    QCOMPARE(red, 0);
    QVERIFY2(orange > 5000, qPrintable(QString::number(orange)));
  }
}

void TestCpuRunShot::findingsVerdict() {
  QTemporaryDir dir;
  QString png = dir.filePath("findings.png");
  QString out;
  QCOMPARE(run({"--screenshot", png, "--view", "findings", "--run", "--size", "900x300",
                kCorpus + "numerical/gemm-tile-from-ty.cake"},
               &out),
           0);
  QVERIFY2(out.contains("CPU run: INCORRECT"), qPrintable(out));
  QVERIFY(!QImage(png).isNull());
}

void TestCpuRunShot::badArguments_data() {
  QTest::addColumn<QStringList>("args");
  QTest::addColumn<QString>("message");
  QTest::addColumn<int>("exitCode");
  // No contract: nothing to render, a usage error. A contract that cannot be read runs into
  // located findings that the picture shows (exit 0).
  QTest::newRow("no contract") << QStringList{"--view", "run",
                                              CAKE_SOURCE_DIR
                                              "/tests/lit/cli/Inputs/gemm_ws_3stage.cake"}
                               << "not a case of the corpus manifest" << 2;
  QTest::newRow("unreadable contract")
      << QStringList{"--view", "run", "--workload", "/nonexistent/w.json",
                     kCorpus + "ampere_gemm/gemm_cp_async.cake"}
      << "CPU run: not run (see findings)" << 0;
  QTest::newRow("run without a kernel")
      << QStringList{"--view", "run", "--workload", kCorpus + "workloads/ampere_gemm.json",
                     "/nonexistent/k.cake"}
      << "cannot read" << 2;
}

void TestCpuRunShot::badArguments() {
  QFETCH(QStringList, args);
  QFETCH(QString, message);
  QTemporaryDir dir;
  QString out;
  int code = run(QStringList{"--screenshot", dir.filePath("x.png")} + args, &out);
  QVERIFY2(out.contains(message), qPrintable(out));
  QTEST(code, "exitCode");
}

QTEST_GUILESS_MAIN(TestCpuRunShot)
#include "tst_cpurunshot.moc"
