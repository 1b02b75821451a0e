// `cake-workbench --screenshot --view progress`: the sample campaigns imported with
// --import-campaign and drawn as best-so-far curves per arm (one campaign, then two overlaid),
// the scatter's honest "no measurements" state, and bad arguments exit 2.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ShotTestUtil.h"

#include <QImage>
#include <QTemporaryDir>
#include <QtTest>

namespace shot = cake::test::shot;

namespace {

const QString kBiasGelu = QStringLiteral(CAKE_SOURCE_DIR "/corpus/campaigns/bias_gelu");
const QString kKmeans = QStringLiteral(CAKE_SOURCE_DIR "/corpus/campaigns/flash_kmeans");

int run(const QStringList& args, QString* output = nullptr) {
  return shot::workbench(args, output, 150000);
}

// The first two curve colours of ProgressView.cpp.
const QRgb kFirst = qRgb(0x2e, 0x86, 0xc1);
const QRgb kSecond = qRgb(0xe6, 0x7e, 0x22);
const QRgb kThird = qRgb(0x27, 0xae, 0x60);
const QRgb kFourth = qRgb(0x9b, 0x72, 0xcf);

} // namespace

class TestProgressShot : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void oneCampaign();
  void twoCampaigns();
  void badArguments_data();
  void badArguments();
};

void TestProgressShot::oneCampaign() {
  QTemporaryDir dir;
  QString png = dir.filePath("progress.png");
  QString out;
  QCOMPARE(
      run({"--screenshot", png, "--view", "progress", "--size", "1024x640", "--workspace",
           dir.filePath("ws"), "--import-campaign", kBiasGelu, "--campaign", "bias-gelu-evolve"},
          &out),
      0);
  // Both arms reach 6.49x (75.0 -> 11.6 µs predicted, lowered kernels only); nothing measured.
  QVERIFY2(out.contains(QString::fromUtf8("progress: 61 candidates · islands: best 6.49x · "
                                          "map-elites-blind: best 6.49x · no measurements")),
           qPrintable(out));
  QImage img(png);
  QVERIFY(!img.isNull());
  QCOMPARE(img.size(), QSize(1024, 640));
  QVERIFY2(shot::countPixels(img, kFirst) > 200, "no first-arm curve drawn");
  QVERIFY2(shot::countPixels(img, kSecond) > 200, "no second-arm curve drawn");
  QVERIFY2(shot::countPixels(img, kThird) == 0, "a third curve drawn for two arms");
  // The named workspace keeps the import: a second run reads it without importing again.
  QCOMPARE(run({"--screenshot", png, "--view", "progress", "--size", "800x500", "--workspace",
                dir.filePath("ws")},
               &out),
           0);
  QVERIFY2(out.contains(QString::fromUtf8("progress: 61 candidates")), qPrintable(out));
}

void TestProgressShot::twoCampaigns() {
  QTemporaryDir dir;
  QString png = dir.filePath("two.png");
  QString out;
  QCOMPARE(run({"--screenshot", png, "--view", "progress", "--size", "1200x700",
                "--import-campaign", kBiasGelu, "--import-campaign", kKmeans},
               &out),
           0);
  // No --campaign: every campaign of the (throwaway) workspace, four curves overlaid.
  QVERIFY2(out.contains(QString::fromUtf8("progress: 122 candidates")), qPrintable(out));
  QVERIFY2(out.contains("bias-gelu-evolve / islands: best 6.49x"), qPrintable(out));
  QVERIFY2(out.contains("flash-kmeans-evolve / map-elites-blind: best"), qPrintable(out));
  QImage img(png);
  QCOMPARE(img.size(), QSize(1200, 700));
  // Flash-KMeans' two arms reach 1.34x at their first and second candidate: the fourth curve
  // covers most of the third, whose legend sample and first step remain.
  QVERIFY2(shot::countPixels(img, kThird) > 30, "no third curve drawn");
  QVERIFY2(shot::countPixels(img, kFourth) > 200, "no fourth curve drawn");
}

void TestProgressShot::badArguments_data() {
  QTest::addColumn<QStringList>("args");
  QTest::addColumn<QString>("message");
  QTest::newRow("import-not-a-folder")
      << QStringList{"--view", "progress", "--import-campaign", "/nonexistent/campaign"}
      << "--import-campaign: '/nonexistent/campaign' is not a folder";
  QTest::newRow("unknown-campaign")
      << QStringList{"--view", "progress", "--import-campaign", kBiasGelu, "--campaign", "nosuch"}
      << "--campaign: no campaign 'nosuch' in the workspace (bias-gelu-evolve)";
  QTest::newRow("no-workspace") << QStringList{"--view", "progress"} << "no workspace is open";
}

void TestProgressShot::badArguments() {
  QFETCH(QStringList, args);
  QFETCH(QString, message);
  const QString why = shot::refusal(args, message, 150000);
  QVERIFY2(why.isEmpty(), qPrintable(why));
}

QTEST_GUILESS_MAIN(TestProgressShot)
#include "tst_progressshot.moc"
