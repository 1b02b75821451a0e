// `cake-workbench --screenshot --view compare --compare A B` (kept apart from the slow
// tst_screenshot): the Compare view renders the Hopper GEMM against its lit variant at the
// requested size with removed and added IR lines and a changed graph node in their colours,
// the baseline delta reaches the status bar, and bad arguments exit 2.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ShotTestUtil.h"

#include <QImage>
#include <QTemporaryDir>
#include <QtTest>

namespace shot = cake::test::shot;

namespace {

const QString kBefore = QStringLiteral(CAKE_SOURCE_DIR "/corpus/hopper_gemm/gemm_ws.cake");
const QString kAfter = QStringLiteral(CAKE_SOURCE_DIR "/tests/lit/cli/Inputs/gemm_ws_3stage.cake");

int run(const QStringList& args, QString* output = nullptr) {
  return shot::workbench(args, output, 90000);
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
  QVERIFY2(shot::countPixels(img, qRgb(0xfd, 0xd8, 0xd6)) > 1000, "no removed IR line drawn");
  QVERIFY2(shot::countPixels(img, qRgb(0xd4, 0xf4, 0xdc)) > 1000, "no added IR line drawn");
  // The changed epilogue wait's outline in the graph diff (GraphView.cpp diffColor).
  QVERIFY2(shot::countPixels(img, qRgb(0xd9, 0x82, 0x00)) > 20, "no changed graph node marked");
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
  const QString why = shot::refusal(args, message, 90000);
  QVERIFY2(why.isEmpty(), qPrintable(why));
}

QTEST_GUILESS_MAIN(TestCompareShot)
#include "tst_compareshot.moc"
