// `cake-workbench --screenshot --view proposals`: the Proposals dock renders offscreen at the
// requested size (a long approval reason or case list must not widen it), with and without a
// workspace in which the false-positive rule was evaluated; bad --open-proposal /
// --proposal-tab exit with code 2. Kept apart from tst_screenshot, which is slow under load.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ShotTestUtil.h"

#include <QImage>
#include <QTemporaryDir>
#include <QtTest>

namespace shot = cake::test::shot;

class TestProposalShot : public QObject {
  Q_OBJECT
private:
  static int run(const QString& program, const QStringList& args, QString* output = nullptr) {
    return shot::run(program, args, output, 120000);
  }
  static QString proposal(const char* name) {
    return QStringLiteral(CAKE_CORPUS_DIR) + "/proposals/" + QLatin1String(name);
  }

private Q_SLOTS:
  void renders_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("workspace");
    QTest::addColumn<QString>("tab");
    QTest::addColumn<QString>("size");
    // No --open-proposal: the queue's first proposal is opened.
    QTest::newRow("first proposal, no workspace") << "" << false << "definition"
                                                  << "1024x640";
    QTest::newRow("frag-xor lowering, no workspace") << "frag-xor" << false << "lowering"
                                                     << "1024x640";
    QTest::newRow("false positive gate, 1024x640") << "reg-fragment-limit" << true << "gate"
                                                   << "1024x640";
    QTest::newRow("false positive gate, 1440x900") << "reg-fragment-limit" << true << "gate"
                                                   << "1440x900";
  }
  void renders() {
    QFETCH(QString, name);
    QFETCH(bool, workspace);
    QFETCH(QString, tab);
    QFETCH(QString, size);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QStringList args{"--screenshot", dir.filePath("p.png"), "--view", "proposals", "--size",
                     size,           "--proposal-tab",      tab};
    if (!name.isEmpty())
      args << "--open-proposal" << proposal(qPrintable(name));
    if (workspace) {
      QString ws = dir.filePath("ws");
      QString out;
      QCOMPARE(run(CAKE_CLI, {"workspace", "init", ws}, &out), 0);
      // Exit 1: the false positive's evaluation has regressions (recorded all the same).
      QCOMPARE(run(CAKE_CLI,
                   {"proposal", "evaluate", proposal(qPrintable(name)), "--workspace", ws}, &out),
               1);
      args << "--workspace" << ws;
    }
    QString output;
    int code = run(CAKE_WORKBENCH, args, &output);
    QVERIFY2(code == 0, qPrintable(output));
    QImage img(dir.filePath("p.png"));
    QCOMPARE(QStringLiteral("%1x%2").arg(img.width()).arg(img.height()), size);
    QVERIFY2(shot::colourCount(img, 7) > 20, qPrintable(output));
  }
  void badArguments_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown tab") << QStringList{"--proposal-tab", "diff"}
                                 << "unknown --proposal-tab";
    QTest::newRow("missing folder")
        << QStringList{"--open-proposal", "/nonexistent/p"} << "is not a folder";
  }
  void badArguments() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const QString why = shot::refusal(QStringList{"--view", "proposals"} + args, message, 120000);
    QVERIFY2(why.isEmpty(), qPrintable(why));
  }
};

QTEST_GUILESS_MAIN(TestProposalShot)
#include "tst_proposalshot.moc"
