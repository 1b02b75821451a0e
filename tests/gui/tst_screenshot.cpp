// GUI smoke test: `cake-workbench --screenshot` renders every corpus kernel (negative ones too)
// in every view offscreen into an image that is not blank, and refuses bad arguments (unknown or
// not yet built views among them) with exit code 2.
// SPDX-License-Identifier: GPL-3.0-or-later
#include <QDirIterator>
#include <QImage>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

class TestScreenshot : public QObject {
  Q_OBJECT
private:
  static int run(const QStringList& args, QString* output = nullptr) {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(CAKE_WORKBENCH), args);
    if (!p.waitForFinished(60000))
      return -1;
    if (output)
      *output = QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError());
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
  }

  /// Distinct colours in a coarse sample: a blank image has one or two.
  static int colourCount(const QImage& img) {
    QSet<QRgb> colours;
    for (int y = 0; y < img.height(); y += 7)
      for (int x = 0; x < img.width(); x += 7)
        colours.insert(img.pixel(x, y));
    return int(colours.size());
  }

private Q_SLOTS:
  void rendersEveryCorpusKernel_data() {
    QTest::addColumn<QString>("path");
    QDirIterator it(QStringLiteral(CAKE_CORPUS_DIR), {"*.cake"}, QDir::Files,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
      QString p = it.next();
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
               {"--screenshot", dir.filePath(view + ".png"), "--open", path, "--view", view, "--size", "1000x700"});
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
        QVERIFY2(colourCount(img) > 8, qPrintable(views[i] + ": image looks blank"));
      delete p;
    }
  }

  void badArguments() {
    QTemporaryDir dir;
    QString out = dir.filePath("x.png");
    QCOMPARE(run({"--screenshot", out, "--open", "/nonexistent.cake"}), 2);
    QCOMPARE(run({"--screenshot", out, "--view", "nonsense"}), 2);
    QCOMPARE(run({"--screenshot", out, "--view", "code"}), 2);
    QCOMPARE(run({"--screenshot", out, "--view", "performance"}), 2);
    QCOMPARE(run({"--screenshot", out, "--size", "10x10"}), 2);
    QCOMPARE(run({"--screenshot", "/nonexistent-dir/x.png"}), 2);
  }
};

QTEST_GUILESS_MAIN(TestScreenshot)
#include "tst_screenshot.moc"
