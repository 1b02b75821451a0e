// The Progress dock's data: best-so-far curves per arm (candidates, tokens, wall time; predicted
// and measured), the predicted-vs-measured scatter with rho and top-1 regret and its honest
// empty states, and campaigns read back from a workspace store.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/ProgressData.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace cake;

namespace {

std::optional<double> num(const QString& s) {
  if (s == QLatin1String("-"))
    return std::nullopt;
  return s.toDouble();
}

/// A campaign from "id:arm:parent:A|R|L:predicted:measured:tokens:wall; …" ("-": none; A
/// accepted and lowered, R refused, L accepted but lowering failed).
views::ProgressCampaign campaign(const QString& name, const QString& spec) {
  views::ProgressCampaign c;
  c.name = name;
  c.folder = QStringLiteral("/campaigns/") + name;
  for (const QString& entry : spec.split(';', Qt::SkipEmptyParts)) {
    QStringList f = entry.trimmed().split(':');
    Q_ASSERT(f.size() == 8);
    views::ProgressCandidate k;
    k.id = f[0];
    k.arm = f[1];
    if (f[2] != QLatin1String("-"))
      k.parents << f[2];
    k.accepted = f[3] != QLatin1String("R");
    k.loweredOk = f[3] == QLatin1String("A");
    k.predictedUs = num(f[4]);
    k.measuredUs = num(f[5]);
    k.tokens = f[6].toDouble();
    k.wallSeconds = f[7].toDouble();
    k.kernel = QStringLiteral("kernels/") + k.id + QStringLiteral(".cake");
    if (!k.arm.isEmpty() && !c.arms.contains(k.arm))
      c.arms << k.arm;
    c.candidates << k;
  }
  return c;
}

/// "label=best@x,x,…" per curve, space-separated.
QString curvesText(const views::ProgressChart& chart) {
  QStringList out;
  for (const views::ProgressCurve& c : chart.curves) {
    QStringList xs;
    for (const QPointF& p : c.points)
      xs << QString::number(p.x(), 'g', 6);
    out << QStringLiteral("%1=%2@%3").arg(c.label, QString::number(c.best, 'g', 4), xs.join(','));
  }
  return out.join(' ');
}

QString stairText(const views::ProgressCurve& c) {
  QStringList out;
  for (const QPointF& p : c.staircase)
    out << QStringLiteral("%1,%2").arg(p.x()).arg(QString::number(p.y(), 'g', 4));
  return out.join(' ');
}

const char* kTwoArms = "root::-:A:100:-:0:0; a1:a:root:A:80:-:10:1; b1:b:root:A:90:-:5:2;"
                       "a2:a:a1:A:120:-:10:1; a3:a:a1:A:50:-:30:4; b2:b:b1:A:95:-:5:2";

} // namespace

class TestProgress : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void chart_data();
  void chart();
  void staircase();
  void severalCampaigns();
  void scatter_data();
  void scatter();
  void readStore();
};

void TestProgress::chart_data() {
  QTest::addColumn<QString>("spec");
  QTest::addColumn<int>("axis");
  QTest::addColumn<int>("basis");
  QTest::addColumn<QString>("curves");
  QTest::addColumn<QString>("note"); // a note that must be present ("" : none at all)
  const int cand = int(views::ProgressAxis::Candidates), tokens = int(views::ProgressAxis::Tokens),
            wall = int(views::ProgressAxis::WallTime);
  const int pred = int(views::ProgressBasis::Predicted), meas = int(views::ProgressBasis::Measured);
  QTest::newRow("two arms, candidates") << kTwoArms << cand << pred << "a=2@0,1,2,3 b=1.111@0,1,2"
                                        << "";
  QTest::newRow("two arms, tokens") << kTwoArms << tokens << pred << "a=2@0,10,20,50 b=1.111@0,5,10"
                                    << "";
  QTest::newRow("two arms, wall time") << kTwoArms << wall << pred << "a=2@0,1,2,6 b=1.111@0,2,4"
                                       << "";
  // A refused kernel's prediction never counts, nor a candidate without a time; the x position
  // still advances (it was a candidate the arm spent).
  QTest::newRow("refused and untimed skipped")
      << "root::-:A:100:-:0:0; a1:a:root:R:10:-:0:0; a2:a:root:A:-:-:0:0; a3:a:root:A:50:-:0:0"
      << cand << pred << "a=2@0,3"
      << "";
  // The verifier accepted a1 but lowering failed: a kernel that cannot be emitted is no
  // progress, however fast its prediction.
  QTest::newRow("lowering failed skipped")
      << "root::-:A:100:-:0:0; a1:a:root:L:10:-:0:0; a2:a:root:A:50:-:0:0" << cand << pred
      << "a=2@0,2"
      << "";
  QTest::newRow("slower only") << "root::-:A:100:-:0:0; a1:a:root:A:200:-:0:0" << cand << pred
                               << "a=1@0,1"
                               << "";
  QTest::newRow("no tokens recorded")
      << "root::-:A:100:-:0:0; a1:a:root:A:50:-:0:3" << tokens << pred << ""
      << "a recorded no tokens";
  QTest::newRow("root refused") << "root::-:R:100:-:0:0; a1:a:root:A:50:-:0:0" << cand << pred << ""
                                << "its root root has no predicted time";
  QTest::newRow("no root") << "a1:a:x:A:50:-:0:0" << cand << pred << ""
                           << "no root candidate";
  QTest::newRow("measured basis")
      << "root::-:A:100:10:0:0; a1:a:root:A:50:-:0:0; a2:a:root:A:200:4:0:0" << cand << meas
      << "a=2.5@0,2"
      << "";
  QTest::newRow("measured basis, root unmeasured")
      << "root::-:A:100:-:0:0; a1:a:root:A:50:5:0:0" << cand << meas << ""
      << "its root root has no measured time";
  QTest::newRow("no arm") << "root::-:A:100:-:0:0; c1::root:A:25:-:0:0" << cand << pred
                          << "(no arm)=4@0,1"
                          << "";
}

void TestProgress::chart() {
  QFETCH(QString, spec);
  QFETCH(int, axis);
  QFETCH(int, basis);
  QFETCH(QString, curves);
  QFETCH(QString, note);
  views::ProgressChart c = views::progressChart({campaign("c", spec)}, views::ProgressAxis(axis),
                                                views::ProgressBasis(basis));
  QCOMPARE(curvesText(c), curves);
  if (note.isEmpty())
    QVERIFY2(c.notes.isEmpty(), qPrintable(c.notes.join('|')));
  else
    QVERIFY2(c.notes.join('|').contains(note), qPrintable(c.notes.join('|')));
  // The axis spans every curve, the y range the best and the worst speedup drawn.
  for (const views::ProgressCurve& k : c.curves) {
    QVERIFY(k.staircase.last().x() <= c.xMax);
    QVERIFY(k.best <= c.yMax);
    QCOMPARE(k.refs.size(), k.points.size());
    QCOMPARE(k.improved.size(), k.points.size());
  }
}

void TestProgress::staircase() {
  views::ProgressChart c =
      views::progressChart({campaign("c", kTwoArms)}, views::ProgressAxis::Candidates);
  QCOMPARE(c.curves.size(), std::size_t(2));
  // a: 1x until a1 (1.25x) at x = 1, flat through the slower a2, 2x at a3 (x = 3).
  QCOMPARE(stairText(c.curves[0]), QStringLiteral("0,1 1,1 1,1.25 3,1.25 3,2 3,2"));
  QCOMPARE(c.curves[0].improved, (QVector<bool>{false, true, false, true}));
  // Each point names its candidate (the root is candidate 0 of campaign 0).
  QCOMPARE(c.curves[0].refs.first(), (views::CandidateRef{0, 0}));
  QCOMPARE(c.curves[0].refs.last(), (views::CandidateRef{0, 4}));
  QCOMPARE(c.curves[1].refs.last(), (views::CandidateRef{0, 5}));
  // An equal speedup is no improvement: no step, no mark.
  views::ProgressChart tie = views::progressChart(
      {campaign("t", "r::-:A:100:-:0:0; a1:a:r:A:50:-:0:0; a2:a:r:A:50:-:0:0")},
      views::ProgressAxis::Candidates);
  QCOMPARE(stairText(tie.curves.at(0)), QStringLiteral("0,1 1,1 1,2 2,2"));
  QCOMPARE(tie.curves.at(0).improved, (QVector<bool>{false, true, false}));
  QCOMPARE(c.yMin, 100.0 / 120.0);
  QCOMPARE(c.yMax, 2.0);
  QCOMPARE(c.xMax, 3.0);
}

void TestProgress::severalCampaigns() {
  views::ProgressChart c = views::progressChart(
      {campaign("one", kTwoArms), campaign("two", "r::-:A:10:-:0:0; x1:x:r:A:2:-:0:0")},
      views::ProgressAxis::Candidates);
  QCOMPARE(curvesText(c), QStringLiteral("one / a=2@0,1,2,3 one / b=1.111@0,1,2 two / x=5@0,1"));
  QCOMPARE(c.curves[2].refs.last(), (views::CandidateRef{1, 1}));
  QCOMPARE(c.yMax, 5.0);
}

void TestProgress::scatter_data() {
  QTest::addColumn<QString>("spec");
  QTest::addColumn<int>("points");
  QTest::addColumn<int>("predicted");
  QTest::addColumn<double>("rho");    // NaN: none
  QTest::addColumn<double>("regret"); // NaN: none
  QTest::addColumn<QString>("note");
  const double none = qQNaN();
  QTest::newRow("no measurements")
      << kTwoArms << 0 << 6 << none << none << "no measurements: none of the 6 accepted";
  QTest::newRow("one measured") << "r::-:A:10:9:0:0; a:a:r:A:5:-:0:0" << 1 << 2 << none << none
                                << "one measured candidate";
  QTest::newRow("agreeing ranks") << "r::-:A:10:12:0:0; a:a:r:A:5:6:0:0; b:a:r:A:20:30:0:0" << 3
                                  << 3 << 1.0 << 0.0 << "";
  // The predicted-best (a, 5 µs predicted) measures 12 µs; the best measured is r at 10 µs.
  QTest::newRow("predicted best measured second")
      << "r::-:A:10:10:0:0; a:a:r:A:5:12:0:0; b:a:r:A:20:30:0:0" << 3 << 3 << 0.5 << 0.2 << "";
  // Refused kernels and candidates without a prediction are no evidence.
  QTest::newRow("refused measured ignored")
      << "r::-:A:10:10:0:0; a:a:r:R:5:1:0:0; b:a:r:A:-:3:0:0; c:a:r:A:20:30:0:0" << 2 << 2 << 1.0
      << 0.0 << "";
  QTest::newRow("ties") << "r::-:A:10:10:0:0; a:a:r:A:10:20:0:0" << 2 << 2 << 0.0 << 0.0 << "";
}

void TestProgress::scatter() {
  QFETCH(QString, spec);
  QFETCH(int, points);
  QFETCH(int, predicted);
  QFETCH(double, rho);
  QFETCH(double, regret);
  QFETCH(QString, note);
  views::ProgressScatter s = views::progressScatter({campaign("c", spec)});
  QCOMPARE(s.points.size(), points);
  QCOMPARE(s.refs.size(), points);
  QCOMPARE(s.predicted, predicted);
  QCOMPARE(bool(s.rho), !qIsNaN(rho));
  if (s.rho)
    QVERIFY2(qAbs(*s.rho - rho) < 1e-12, qPrintable(QString::number(*s.rho)));
  QCOMPARE(bool(s.regret), !qIsNaN(regret));
  if (s.regret)
    QVERIFY2(qAbs(*s.regret - regret) < 1e-12, qPrintable(QString::number(*s.regret)));
  if (note.isEmpty())
    QVERIFY2(s.note.isEmpty(), qPrintable(s.note));
  else
    QVERIFY2(s.note.contains(note), qPrintable(s.note));
}

void TestProgress::readStore() {
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  // A missing store is an error with its stable code, never an empty chart.
  views::ProgressStore missing = views::readProgressStore(dir.filePath("none"));
  QVERIFY2(missing.error.startsWith("ws-not-found"), qPrintable(missing.error));

  auto w = ws::Workspace::open(dir.path().toStdString(), ws::OpenMode::CreateIfMissing);
  QVERIFY(w.ok());
  ws::CampaignRecord camp{"evo", "/tmp/evo", R"({"name":"evo","arms":[{"name":"b"},{"name":"a"}]})",
                          "", ""};
  QVERIFY(w->registerCampaign(camp, "test").ok());
  auto record = [](std::string id, std::vector<std::string> parents, std::string arm,
                   std::string budget, bool accepted, std::optional<double> predicted,
                   std::optional<double> measured) {
    ws::CandidateRecord r;
    r.campaign = "evo";
    r.id = id;
    r.parents = std::move(parents);
    r.kernel = "kernels/" + id + ".cake";
    r.kernelText = "kernel " + id;
    r.author = R"({"kind":"agent","name":"x"})";
    r.arm = std::move(arm);
    r.budget = std::move(budget);
    r.accepted = accepted;
    r.loweredOk = accepted;
    r.predictedUs = predicted;
    r.measuredUs = measured;
    if (measured)
      r.measurements = "[{\"us\":" + std::to_string(*measured) + "}]";
    return r;
  };
  auto added = w->addCandidates(
      "evo",
      {record("root", {}, "", R"({"tokens":0,"wall_s":0})", true, 100, 90),
       record("a1", {"root"}, "a", R"({"tokens":1500,"wall_s":12.5})", true, 50, 60),
       record("c1", {"root"}, "c", R"({"tokens":7,"wall_s":0})", false, std::nullopt,
              std::nullopt)},
      "test");
  QVERIFY2(added.ok(), added.ok() ? "" : added.error().text().c_str());
  views::ProgressStore s = views::readProgressStore(dir.path());
  QVERIFY2(s.error.isEmpty(), qPrintable(s.error));
  QCOMPARE(s.campaigns.size(), std::size_t(1));
  const views::ProgressCampaign& c = s.campaigns.front();
  QCOMPARE(c.name, QStringLiteral("evo"));
  QCOMPARE(c.folder, QStringLiteral("/tmp/evo"));
  // campaign.json's arms first, in its order, then arms only candidates name.
  QCOMPARE(c.arms, (QStringList{"b", "a", "c"}));
  QCOMPARE(c.candidates.size(), 3);
  QCOMPARE(c.candidates[1].id, QStringLiteral("a1"));
  QCOMPARE(c.candidates[1].parents, QStringList{"root"});
  QCOMPARE(c.candidates[1].tokens, 1500.0);
  QCOMPARE(c.candidates[1].wallSeconds, 12.5);
  QCOMPARE(c.candidates[1].measuredUs, std::optional<double>(60));
  QCOMPARE(c.candidates[2].tokens, 7.0);
  QVERIFY(!c.candidates[2].accepted);
  QVERIFY(!c.candidates[2].predictedUs);
  // Read back, it charts: a measured 1.5x on the measured basis, 2x predicted.
  views::ProgressChart measured = views::progressChart(s.campaigns, views::ProgressAxis::Tokens,
                                                       views::ProgressBasis::Measured);
  QCOMPARE(curvesText(measured), QStringLiteral("a=1.5@0,1500 c=1@0"));
  views::ProgressScatter sc = views::progressScatter(s.campaigns);
  QCOMPARE(sc.points.size(), 2);
  QVERIFY(sc.rho && qAbs(*sc.rho - 1.0) < 1e-12);
}

QTEST_GUILESS_MAIN(TestProgress)
#include "tst_progress.moc"
