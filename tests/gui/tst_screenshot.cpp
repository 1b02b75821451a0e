// GUI smoke test: `cake-workbench --screenshot` renders every corpus kernel (negative ones too)
// in every view offscreen into an image that is not blank; the performance, lowered-code and jobs
// views wait for their cost / lowering / ptxas jobs; bad arguments (an unknown view among them)
// exit with code 2.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ShotTestUtil.h"

#include <QDirIterator>
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace shot = cake::test::shot;

class TestScreenshot : public QObject {
  Q_OBJECT
private:
  /// Runs the workbench; `display` false runs it as on a machine with no display at all.
  static int run(const QStringList& args, QString* output = nullptr, bool display = true) {
    return shot::workbench(args, output, 60000,
                           display ? shot::Display::Offscreen : shot::Display::None);
  }

private Q_SLOTS:
  void rendersEveryCorpusKernel_data() {
    QTest::addColumn<QString>("path");
    QDirIterator it(QStringLiteral(CAKE_CORPUS_DIR), {"*.cake"}, QDir::Files,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
      QString p = it.next();
      if (p.contains(QStringLiteral("/proposals/")) || p.contains(QStringLiteral("/campaigns/")))
        continue; // proposal examples and campaign candidates (refused ones too) are judged
                  // by `cake proposal evaluate` and `cake campaign import`
      QTest::newRow(qPrintable(QFileInfo(p).fileName())) << p;
    }
  }
  void rendersEveryCorpusKernel() {
    QFETCH(QString, path);
    QTemporaryDir dir;
    const QStringList views{"all", "editor", "findings", "graph", "layout", "timeline"};
    // The views of one kernel render in parallel processes (each is a full workbench).
    QList<QProcess*> running;
    for (const QString& view : views) {
      auto* p = new QProcess(this);
      QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
      env.insert("QT_QPA_PLATFORM", "offscreen");
      p->setProcessEnvironment(env);
      p->setProcessChannelMode(QProcess::MergedChannels);
      p->start(QStringLiteral(CAKE_WORKBENCH),
               {"--screenshot", dir.filePath(view + ".png"), "--open", path, "--view", view,
                "--size", "1000x700"});
      running << p;
    }
    for (int i = 0; i < views.size(); ++i) {
      QProcess* p = running[i];
      QVERIFY2(p->waitForFinished(120000), qPrintable(views[i] + ": timed out"));
      QString log = QString::fromUtf8(p->readAll());
      QCOMPARE(p->exitStatus(), QProcess::NormalExit);
      QVERIFY2(p->exitCode() == 0, qPrintable(views[i] + ": " + log));
      QImage img(dir.filePath(views[i] + ".png"));
      QVERIFY2(!img.isNull(), qPrintable(log));
      QVERIFY(img.width() > 100 && img.height() > 50);
      if (views[i] != QLatin1String("findings"))
        QVERIFY2(shot::colourCount(img, 7) > 8, qPrintable(views[i] + ": image looks blank"));
      delete p;
    }
  }

  /// The views fed by the cost, lowering and ptxas jobs: the hopper GEMM (PTX with ptxas), the
  /// Blackwell GEMM (no LLVM path: the finding is shown) and a refused kernel (says why).
  void rendersPerformanceCodeAndJobs_data() {
    QTest::addColumn<QString>("kernel");
    QTest::addColumn<QString>("view");
    QTest::addColumn<QString>("log");
    for (const char* view : {"performance", "code", "jobs"}) {
      QTest::newRow(qPrintable(QStringLiteral("hopper %1").arg(view)))
          << "hopper_gemm/gemm_ws.cake" << view
          << (qstrcmp(view, "code") == 0 ? "lower done" : "cost done");
      QTest::newRow(qPrintable(QStringLiteral("blackwell %1").arg(view)))
          << "blackwell_gemm/gemm_tcgen05.cake" << view << "cost done";
      QTest::newRow(qPrintable(QStringLiteral("refused %1").arg(view)))
          << "negative/parity-no-flip.cake" << view << "check done";
    }
  }
  void rendersPerformanceCodeAndJobs() {
    QFETCH(QString, kernel);
    QFETCH(QString, view);
    QFETCH(QString, log);
    QTemporaryDir dir;
    QString out = dir.filePath("v.png"), output;
    int code = run({"--screenshot", out, "--open", QStringLiteral(CAKE_CORPUS_DIR) + "/" + kernel,
                    "--view", view, "--size", "1000x700"},
                   &output);
    QVERIFY2(code == 0, qPrintable(output));
    // The timing line names the jobs the picture waited for.
    QVERIFY2(output.contains(log), qPrintable(output));
    QImage img(out);
    QCOMPARE(img.size(), QSize(1000, 700));
    QVERIFY2(shot::colourCount(img, 7) > 8, qPrintable(view + ": image looks blank"));
  }

  void badArguments() {
    QTemporaryDir dir;
    QString out = dir.filePath("x.png");
    QCOMPARE(run({"--screenshot", out, "--open", "/nonexistent.cake"}), 2);
    QCOMPARE(run({"--screenshot", out, "--view", "nonsense"}), 2);
    QCOMPARE(run({"--screenshot", out, "--view", "roofline"}), 2);
    QCOMPARE(run({"--screenshot", out, "--size", "10x10"}), 2);
    QCOMPARE(run({"--screenshot", "/nonexistent-dir/x.png"}), 2);
  }

  /// Without a display: --help and --screenshot work, an interactive start says why it cannot.
  void noDisplay() {
    QString output;
    QCOMPARE(run({"--help"}, &output, false), 0);
    QVERIFY2(output.contains("--screenshot"), qPrintable(output));
    QTemporaryDir dir;
    QString out = dir.filePath("x.png");
    QCOMPARE(run({"--screenshot", out, "--view", "editor"}, &output, false), 0);
    QVERIFY(QFileInfo::exists(out));
    QCOMPARE(run({}, &output, false), 2);
    QVERIFY2(output.contains("no display"), qPrintable(output));
  }
};

QTEST_GUILESS_MAIN(TestScreenshot)
#include "tst_screenshot.moc"
