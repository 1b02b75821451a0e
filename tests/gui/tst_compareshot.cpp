// `cake-workbench --screenshot --view compare --compare A B` (kept apart from the slow
// tst_screenshot): the Compare view renders the Hopper GEMM against its lit variant at the
// requested size with removed and added IR lines and a changed graph node in their colours,
// the baseline delta reaches the status bar, and bad arguments exit 2.
// SPDX-License-Identifier: GPL-3.0-or-later
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

const QString kBefore = QStringLiteral(CAKE_SOURCE_DIR "/corpus/hopper_gemm/gemm_ws.cake");
const QString kAfter = QStringLiteral(CAKE_SOURCE_DIR "/tests/lit/cli/Inputs/gemm_ws_3stage.cake");

int run(const QStringList& args, QString* output = nullptr) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("QT_QPA_PLATFORM", "offscreen");
  p.setProcessEnvironment(env);
  p.start(QStringLiteral(CAKE_WORKBENCH), args);
  if (!p.waitForFinished(90000))
    return -1;
  if (output)
    *output = QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError());
  return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
}

/// Pixels of exactly this colour.
int count(const QImage& img, QRgb colour) {
  int n = 0;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x)
      n += (img.pixel(x, y) & 0xffffff) == (colour & 0xffffff);
  return n;
}

} // namespace

class TestCompareShot : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void compareView();
  void baselineStatus();
  void badArguments_data();
  void badArguments();
};

void TestCompareShot::compareView() {
  QTemporaryDir dir;
  QString png = dir.filePath("compare.png");
  QString out;
  QCOMPARE(run({"--screenshot", png, "--view", "compare", "--size", "1024x640", "--compare",
                kBefore, kAfter},
               &out),
           0);
  QVERIFY2(out.contains("compare done"), qPrintable(out));
  QImage img(png);
  QVERIFY(!img.isNull());
  QCOMPARE(img.size(), QSize(1024, 640));
  // IR diff backgrounds (CompareView.cpp): removed lines on the left, added on the right.
  QVERIFY2(count(img, qRgb(0xfd, 0xd8, 0xd6)) > 1000, "no removed IR line drawn");
  QVERIFY2(count(img, qRgb(0xd4, 0xf4, 0xdc)) > 1000, "no added IR line drawn");
  // The changed epilogue wait's outline in the graph diff (GraphView.cpp diffColor).
  QVERIFY2(count(img, qRgb(0xd9, 0x82, 0x00)) > 20, "no changed graph node marked");
}

void TestCompareShot::baselineStatus() {
  QTemporaryDir dir;
  QString out;
  QCOMPARE(run({"--screenshot", dir.filePath("all.png"), "--view", "performance", "--size",
                "900x600", "--baseline", kBefore, kAfter},
               &out),
           0);
  QVERIFY2(out.contains("baseline done"), qPrintable(out));
  // The variant against the pinned corpus kernel: the same deltas as `cake diff` prints.
  QVERIFY2(out.contains(QString::fromUtf8("baseline: vs gemm_ws.cake: Δ -")), qPrintable(out));
  QVERIFY2(out.contains(QString::fromUtf8("findings +0 −0 · smem -16 B · regs =")),
           qPrintable(out));
}

void TestCompareShot::badArguments_data() {
  QTest::addColumn<QStringList>("args");
  QTest::addColumn<QString>("message");
  QTest::newRow("compare-without-files") << QStringList{"--view", "compare"} << "needs --compare";
  QTest::newRow("compare-one-file")
      << QStringList{"--view", "compare", "--compare", kBefore} << "needs the newer kernel too";
  QTest::newRow("compare-unreadable")
      << QStringList{"--view", "compare", "--compare", "/nonexistent/a.cake", kAfter}
      << "cannot read '/nonexistent/a.cake'";
  QTest::newRow("baseline-unreadable") << QStringList{"--baseline", "/nonexistent/b.cake", kAfter}
                                       << "cannot read '/nonexistent/b.cake'";
}

void TestCompareShot::badArguments() {
  QFETCH(QStringList, args);
  QFETCH(QString, message);
  QTemporaryDir dir;
  QString out;
  QCOMPARE(run(QStringList{"--screenshot", dir.filePath("x.png")} + args, &out), 2);
  QVERIFY2(out.contains(message), qPrintable(out));
}

QTEST_GUILESS_MAIN(TestCompareShot)
#include "tst_compareshot.moc"
