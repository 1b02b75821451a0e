// `cake-workbench --screenshot --view lineage` (kept apart from the slow tst_screenshot): the
// sample campaign imported into a fresh workspace and drawn at the requested size with refused
// and accepted candidates in their outcome colours and the best path in its colour; a stored
// campaign shown by name from a workspace the CLI imported into; bad arguments exit 2.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ShotTestUtil.h"

#include <QImage>
#include <QTemporaryDir>
#include <QtTest>

namespace shot = cake::test::shot;

namespace {

const QString kCampaign = QStringLiteral(CAKE_SOURCE_DIR "/corpus/campaigns/flash_kmeans");

int run(const QString& program, const QStringList& args, QString* output = nullptr) {
  return shot::run(program, args, output, 180000);
}

int workbench(const QStringList& args, QString* output = nullptr) {
  return shot::workbench(args, output, 180000);
}

} // namespace

class TestLineageShot : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void importedSample();
  void storedCampaign();
  void darkWithEditorCandidate();
  void badArguments_data();
  void badArguments();
};

void TestLineageShot::importedSample() {
  QTemporaryDir dir;
  QString png = dir.filePath("lineage.png");
  QString out;
  QCOMPARE(workbench({"--screenshot", png, "--view", "lineage", "--size", "1024x640",
                      "--import-campaign", kCampaign},
                     &out),
           0);
  // The same lineage as `cake campaign show`: 61 candidates, best path root → islands-0001.
  QVERIFY2(
      out.contains("lineage: flash-kmeans-evolve: 61 candidates (61 shown), best islands-0001"),
      qPrintable(out));
  QVERIFY2(out.contains("(dot)"), qPrintable(out)); // Graphviz, not the fallback
  QImage img(png);
  QVERIFY(!img.isNull());
  QCOMPARE(img.size(), QSize(1024, 640));
  // Outcome fills (LineageData.cpp): 41 refused and 20 accepted candidates; the best path.
  QVERIFY2(shot::countPixels(img, qRgb(0xf8, 0xd0, 0xcc)) > 2000, "no refused candidate drawn");
  QVERIFY2(shot::countPixels(img, qRgb(0xcf, 0xeb, 0xd2)) > 1000, "no accepted candidate drawn");
  QVERIFY2(shot::countPixels(img, qRgb(0x15, 0x65, 0xc0)) > 40, "no best path drawn");
}

void TestLineageShot::storedCampaign() {
  QTemporaryDir dir;
  QString ws = dir.filePath("ws");
  QCOMPARE(run(QStringLiteral(CAKE_CLI), {"workspace", "init", ws}), 0);
  QCOMPARE(run(QStringLiteral(CAKE_CLI), {"campaign", "import", kCampaign, "--workspace", ws}), 0);
  QString out;
  QCOMPARE(workbench({"--screenshot", dir.filePath("s.png"), "--view", "lineage", "--size",
                      "800x500", "--workspace", ws, "--campaign", "flash-kmeans-evolve"},
                     &out),
           0);
  QVERIFY2(out.contains("lineage: flash-kmeans-evolve: 61 candidates"), qPrintable(out));
  QCOMPARE(QImage(dir.filePath("s.png")).size(), QSize(800, 500));
  // A name the workspace does not have.
  QCOMPARE(workbench({"--screenshot", dir.filePath("t.png"), "--view", "lineage", "--workspace", ws,
                      "--campaign", "nope"},
                     &out),
           2);
  QVERIFY2(out.contains("no campaign 'nope'"), qPrintable(out));
}

void TestLineageShot::darkWithEditorCandidate() {
  // --dark: the canvas and the fills follow the palette (no light surface left); the kernel
  // open in the editor is a candidate of the imported campaign: its node is selected.
  QTemporaryDir dir;
  QString png = dir.filePath("dark.png");
  QString out;
  QCOMPARE(workbench({"--screenshot", png, "--view", "lineage", "--size", "1024x640", "--dark",
                      "--import-campaign", kCampaign, "--open", kCampaign + "/kernels/islands-0001.cake"},
                     &out),
           0);
  QVERIFY2(out.contains("selected islands-0001"), qPrintable(out));
  QImage img(png);
  QCOMPARE(img.size(), QSize(1024, 640));
  // ViewPalette's dark canvas, the dark refused and accepted fills; none of the light ones.
  QVERIFY2(shot::countPixels(img, qRgb(0x1b, 0x1d, 0x21)) > 50000, "no dark canvas");
  QVERIFY2(shot::countPixels(img, qRgb(0x5a, 0x26, 0x24)) > 2000, "no dark refused fill");
  QVERIFY2(shot::countPixels(img, qRgb(0x1f, 0x4a, 0x2a)) > 1000, "no dark accepted fill");
  QCOMPARE(shot::countPixels(img, qRgb(0xfb, 0xfc, 0xfe)), 0); // the light canvas
  QCOMPARE(shot::countPixels(img, qRgb(0xf8, 0xd0, 0xcc)), 0); // the light refused fill
}

void TestLineageShot::badArguments_data() {
  QTest::addColumn<QStringList>("args");
  QTest::addColumn<QString>("message");
  QTest::newRow("lineage-without-campaign")
      << QStringList{"--view", "lineage"} << "needs --campaign NAME or --import-campaign DIR";
  QTest::newRow("campaign-without-workspace")
      << QStringList{"--view", "lineage", "--campaign", "x"} << "--campaign needs --workspace";
  QTest::newRow("import-not-a-folder")
      << QStringList{"--view", "lineage", "--import-campaign", "/nonexistent/camp"}
      << "'/nonexistent/camp' is not a folder";
}

void TestLineageShot::badArguments() {
  QFETCH(QStringList, args);
  QFETCH(QString, message);
  const QString why = shot::refusal(args, message, 180000);
  QVERIFY2(why.isEmpty(), qPrintable(why));
}

QTEST_GUILESS_MAIN(TestLineageShot)
#include "tst_lineageshot.moc"
