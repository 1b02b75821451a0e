// The application icon the workbench sets on its windows (cake::widgets::applicationIcon): the
// SVG resource is compiled in, renders at every desktop size, and draws the icon's own colours.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/AppIcon.h"

#include <QFile>
#include <QMainWindow>
#include <QtTest>

class TestAppIcon : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void resourceIsCompiledIn() {
    QFile svg(cake::widgets::applicationIconPath());
    QVERIFY2(svg.open(QIODevice::ReadOnly), qPrintable(svg.fileName()));
    QVERIFY(svg.readAll().contains("SPDX-License-Identifier: GPL-3.0-or-later"));
  }

  void iconHasEveryDesktopSize() {
    const QIcon icon = cake::widgets::applicationIcon();
    QVERIFY(!icon.isNull());
    const QList<QSize> sizes = icon.availableSizes();
    for (int s : {16, 24, 32, 48, 64, 128, 256})
      QVERIFY2(sizes.contains(QSize(s, s)), qPrintable(QStringLiteral("no %1 px pixmap").arg(s)));
    QCOMPARE(sizes.size(), 7);
  }

  void rendersTheIconColours_data() {
    QTest::addColumn<int>("size");
    QTest::newRow("16") << 16;
    QTest::newRow("48") << 48;
    QTest::newRow("256") << 256;
  }
  void rendersTheIconColours() {
    QFETCH(int, size);
    const QImage image = cake::widgets::renderApplicationIcon(size);
    QCOMPARE(image.size(), QSize(size, size));
    // Outside the rounded background: transparent. On it, left of the cake: the navy tile.
    QCOMPARE(qAlpha(image.pixel(0, 0)), 0);
    const auto at = [&](int x256, int y256) {
      return image.pixelColor(x256 * size / 256, y256 * size / 256);
    };
    QCOMPARE(at(20, 128).name(), QStringLiteral("#1d2740"));
    if (size >= 48) { // the tiers are a few pixels tall at 16 px: antialiasing decides there
      QCOMPARE(at(100, 84).name(), QStringLiteral("#f07a6a"));  // top tier
      QCOMPARE(at(100, 180).name(), QStringLiteral("#e3a857")); // bottom tier
    }
  }

  void badSizeGivesANullImage() {
    QVERIFY(cake::widgets::renderApplicationIcon(0).isNull());
    QVERIFY(cake::widgets::renderApplicationIcon(-5).isNull());
  }

  void windowsInheritTheApplicationIcon() {
    // What the workbench's main() does; a window created afterwards carries the icon.
    QApplication::setWindowIcon(cake::widgets::applicationIcon());
    QMainWindow window;
    QVERIFY(!window.windowIcon().isNull());
    QCOMPARE(window.windowIcon().availableSizes().size(), 7);
  }
};

QTEST_MAIN(TestAppIcon)
#include "tst_appicon.moc"
