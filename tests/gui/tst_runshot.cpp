// `cake-workbench --screenshot --view runs`: the Runs dock renders offscreen at the requested
// size without a workspace (it says runs need one) and with a workspace into which the `cake`
// CLI stored real CPU runs (two corpus kernels); the dock reads them.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ShotTestUtil.h"

#include <QImage>
#include <QTemporaryDir>
#include <QtTest>

namespace shot = cake::test::shot;

class TestRunShot : public QObject {
  Q_OBJECT
private:
  static int run(const QString& program, const QStringList& args, QString* output = nullptr) {
    return shot::run(program, args, output, 240000);
  }

private Q_SLOTS:
  void renders_data() {
    QTest::addColumn<bool>("workspace");
    QTest::addColumn<QString>("size");
    QTest::addColumn<QString>("runs");
    QTest::newRow("no workspace") << false << "1024x640"
                                  << "runs: 0 stored";
    QTest::newRow("CLI runs, 1024x640") << true << "1024x640"
                                        << "runs: 2 stored";
    QTest::newRow("CLI runs, 1440x900") << true << "1440x900"
                                        << "runs: 2 stored";
  }
  void renders() {
    QFETCH(bool, workspace);
    QFETCH(QString, size);
    QFETCH(QString, runs);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString kernel = QStringLiteral(CAKE_CORPUS_DIR) + "/bias_gelu/bias_gelu.cake";
    QStringList args{
        "--screenshot", dir.filePath("r.png"), "--view", "runs", "--size", size, "--open", kernel};
    if (workspace) {
      QString ws = dir.filePath("ws");
      QString out;
      QCOMPARE(run(CAKE_CLI, {"workspace", "init", ws}, &out), 0);
      QVERIFY2(run(CAKE_CLI, {"run", kernel, "--device", "cpu", "--workspace", ws}, &out) == 0,
               qPrintable(out));
      QString softmax = QStringLiteral(CAKE_CORPUS_DIR) + "/softmax/row_softmax.cake";
      QVERIFY2(run(CAKE_CLI, {"run", softmax, "--device", "cpu", "--workspace", ws}, &out) == 0,
               qPrintable(out));
      args << "--workspace" << ws;
    }
    QString output;
    int code = run(CAKE_WORKBENCH, args, &output);
    QVERIFY2(code == 0, qPrintable(output));
    QVERIFY2(output.contains(runs), qPrintable(output));
    QImage img(dir.filePath("r.png"));
    QCOMPARE(QStringLiteral("%1x%2").arg(img.width()).arg(img.height()), size);
    QVERIFY2(shot::colourCount(img, 5) > 20, qPrintable(output));
  }
};

QTEST_GUILESS_MAIN(TestRunShot)
#include "tst_runshot.moc"
