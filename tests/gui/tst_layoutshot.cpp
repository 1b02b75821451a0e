// B5/B6 and B3 through the real window: `cake-workbench --screenshot --layout-report` at
// 1024x640, half of a 1920x1080 screen (960x1080) and 1920x1080: the window's minimum width is
// at most 960 px and its minimum height fits 640, the window takes the requested size, no dock
// overlaps another dock or the editor, the editor keeps a usable width, the findings dock shows
// at least 8 rows at 1920x1080, and the workspace tree highlights the file that was opened.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ShotTestUtil.h"

#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

namespace shot = cake::test::shot;

namespace {

const QString kKernel = QStringLiteral(CAKE_SOURCE_DIR "/corpus/hopper_gemm/gemm_ws.cake");

/// Runs the workbench offscreen; the layout report as JSON (empty on failure, `why` says).
QJsonObject report(const QStringList& args, const QString& dir, QString* why) {
  QString json = dir + QStringLiteral("/layout.json");
  if (shot::workbench(args +
                          QStringList{"--screenshot", dir + "/shot.png", "--layout-report", json},
                      why, 120000) != 0)
    return {};
  return shot::readLayoutReport(json, why);
}

QSize sizeOf(const QJsonValue& v) {
  return {v[0].toInt(), v[1].toInt()};
}

} // namespace

class TestLayoutShot : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void realScreenSizes_data() {
    QTest::addColumn<QSize>("size");
    QTest::addColumn<int>("minFindingsRows");
    QTest::newRow("1024x640") << QSize(1024, 640) << 3;
    QTest::newRow("half of 1920x1080") << QSize(960, 1080) << 8;
    QTest::newRow("1920x1080") << QSize(1920, 1080) << 8;
  }
  void realScreenSizes() {
    QFETCH(QSize, size);
    QFETCH(int, minFindingsRows);
    QTemporaryDir dir;
    QString why;
    const QJsonObject r = report(
        {"--open", kKernel, "--size", QStringLiteral("%1x%2").arg(size.width()).arg(size.height())},
        dir.path(), &why);
    QVERIFY2(!r.isEmpty(), qPrintable(why));
    const QSize minimum = sizeOf(r["minimumSizeHint"]);
    QVERIFY2(minimum.width() <= 960,
             qPrintable(QStringLiteral("minimum width %1").arg(minimum.width())));
    // 640 px of screen less a title bar and a panel.
    QVERIFY2(minimum.height() <= 580,
             qPrintable(QStringLiteral("minimum height %1").arg(minimum.height())));
    // Nothing forced the window larger than asked.
    QCOMPARE(sizeOf(r["window"]), size);
    QImage shot(dir.path() + "/shot.png");
    QCOMPARE(shot.size(), size);
    QVERIFY2(r["overlaps"].toArray().isEmpty(),
             QJsonDocument(r["overlaps"].toArray()).toJson(QJsonDocument::Compact).constData());
    // Every dock shown is at least its minimum size (else its contents overlap each other).
    for (const QJsonValue& d : r["docks"].toArray()) {
      if (!d["shown"].toBool())
        continue;
      QSize got = sizeOf(QJsonArray{d["rect"][2], d["rect"][3]});
      QSize need = sizeOf(d["minimumSizeHint"]);
      QVERIFY2(got.width() >= need.width() && got.height() >= need.height(),
               qPrintable(QStringLiteral("%1: %2x%3 < %4x%5")
                              .arg(d["name"].toString())
                              .arg(got.width())
                              .arg(got.height())
                              .arg(need.width())
                              .arg(need.height())));
    }
    // The editor keeps a usable width: at least 40 columns of its font beside the gutter.
    QVERIFY2(r["editorViewportWidth"].toInt() >= 320,
             qPrintable(QStringLiteral("editor %1 px").arg(r["editorViewportWidth"].toInt())));
    QVERIFY2(r["findingsRows"].toInt() >= minFindingsRows,
             qPrintable(QStringLiteral("%1 findings rows").arg(r["findingsRows"].toInt())));
    // B3: the workspace (the bundled corpus) highlights the file that was opened.
    QCOMPARE(r["workspace"]["selected"].toString(), QFileInfo(kKernel).canonicalFilePath());
  }

  // A kernel outside the workspace folder: the tree highlights nothing (not a stale row).
  void workspaceHighlightsNothingForAFileElsewhere() {
    QTemporaryDir dir;
    QString copy = dir.filePath(QStringLiteral("elsewhere.cake"));
    QVERIFY(QFile::copy(kKernel, copy));
    QString why;
    const QJsonObject r = report({"--open", copy, "--size", "1024x640"}, dir.path(), &why);
    QVERIFY2(!r.isEmpty(), qPrintable(why));
    QCOMPARE(r["workspace"]["open"].toString(), QFileInfo(copy).canonicalFilePath());
    QCOMPARE(r["workspace"]["selected"].toString(), QString());
  }
};

QTEST_MAIN(TestLayoutShot)
#include "tst_layoutshot.moc"
