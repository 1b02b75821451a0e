// The Lineage dock's model: outcome per candidate, author labels, speedups over each lineage's
// root, node details, the graph under each filter (contracted edges through hidden candidates,
// the best path kept and dimmed), best-path edges; the controller's Import job and the live
// watch of a campaign folder (QSignalSpy: appended lines, a torn last line).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ViewsTestUtil.h"

#include "cake/views/LineageController.h"
#include "cake/views/LineageData.h"
#include "cake/views/LineageScene.h"
#include "cake/views/ViewPalette.h"

#include <QSignalSpy>
#include <cmath>
#include <QTemporaryDir>
#include <QtTest>

using namespace cake;
using namespace cake::views;

namespace {

ws::CandidateRecord candidate(const std::string& id, std::vector<std::string> parents,
                              bool accepted, std::optional<double> predicted,
                              const std::string& author = R"({"kind":"agent","name":"a1"})",
                              std::vector<std::string> codes = {}) {
  ws::CandidateRecord c;
  c.campaign = "t";
  c.id = id;
  c.parents = std::move(parents);
  c.kernel = "kernels/" + id + ".cake";
  c.accepted = accepted;
  c.loweredOk = accepted;
  c.predictedUs = predicted;
  c.author = author;
  c.codes = std::move(codes);
  return c;
}

/// root (100 µs) ─ a (50) ─ b (refused X) ─┐
///                 └──── c (80, human) ─── d (60, inspired by b)
/// root ─ e (lowering failed, 55)          f (refused X and Y, child of d)
std::vector<ws::CandidateRecord> sample() {
  const std::string human = R"({"kind":"human","name":"ann"})";
  std::vector<ws::CandidateRecord> v;
  v.push_back(candidate("root", {}, true, 100));
  v.push_back(candidate("a", {"root"}, true, 50));
  v.push_back(
      candidate("b", {"a"}, false, std::nullopt, R"({"kind":"agent","name":"a1"})", {"X-code"}));
  v.push_back(candidate("c", {"a"}, true, 80, human));
  v.push_back(candidate("d", {"c", "b"}, true, 60));
  auto e = candidate("e", {"root"}, true, 55);
  e.loweredOk = false; // accepted, lowering failed
  v.push_back(e);
  v.push_back(candidate("f", {"d"}, false, std::nullopt, human, {"X-code", "Y-code"}));
  return v;
}

Lineage sampleLineage() {
  ws::CampaignRecord r;
  r.name = "t";
  r.folder = "/nowhere";
  return buildLineage(r, sample());
}

/// "id" or "id~" (dimmed), in graph order.
QStringList nodesOf(const LineageGraph& g) {
  QStringList out;
  for (int i = 0; i < g.graph.nodes.size(); ++i)
    out << g.graph.nodes[i].id + (g.nodeDimmed[i] ? QStringLiteral("~") : QString());
  return out;
}

/// "from>to:d" (derived), ":i" (inspiration), ":h" (through hidden), "*" on the best path.
QStringList edgesOf(const LineageGraph& g) {
  QStringList out;
  for (int k = 0; k < g.graph.edges.size(); ++k) {
    const GraphEdge& e = g.graph.edges[k];
    QString kind = g.edgeParent[k] < 0 ? "h" : g.edgeParent[k] == 0 ? "d" : "i";
    QString expectKind = e.kind == EdgeKind::Order ? "h" : e.kind == EdgeKind::Data ? "d" : "i";
    if (kind != expectKind)
      kind += "!"; // edge kind and parent index disagree
    out << g.graph.nodes[e.from].id + ">" + g.graph.nodes[e.to].id + ":" + kind +
               (g.edgeBest[k] ? "*" : "");
  }
  out.sort();
  return out;
}

bool waitUntil(const std::function<bool()>& done, int ms = 120000) {
  QElapsedTimer t;
  t.start();
  while (!done() && t.elapsed() < ms)
    QTest::qWait(20);
  return done();
}

} // namespace

class TestLineage : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void outcome_data();
  void outcome();
  void author_data();
  void author();
  void speedupAndDetail();
  void filterGraph_data();
  void filterGraph();
  void choices();
  void largeGraph();
  void darkColours();
  void kernelOfEditor();
  void sceneData();
  void importAndWatch();
  void importErrorsAndUnknownCampaign();
  void importsQueued();
};

void TestLineage::outcome_data() {
  QTest::addColumn<bool>("accepted");
  QTest::addColumn<bool>("lowered");
  QTest::addColumn<QString>("measurements");
  QTest::addColumn<QString>("expected");
  QTest::newRow("refused") << false << false << "[]"
                           << "refused";
  QTest::newRow("refused-wins-over-incorrect") << false << true << R"([{"us":1,"correct":false}])"
                                               << "refused";
  QTest::newRow("lowering-failed") << true << false << "[]"
                                   << "lowering-failed";
  QTest::newRow("lowering-failed-wins") << true << false << R"([{"us":1,"correct":false}])"
                                        << "lowering-failed";
  QTest::newRow("incorrect") << true << true << R"([{"us":1,"correct":false}])"
                             << "incorrect";
  QTest::newRow("one-of-two-incorrect")
      << true << true << R"([{"us":1,"correct":true},{"us":2,"correct":false}])"
      << "incorrect";
  QTest::newRow("correct-measured") << true << true << R"([{"us":1,"correct":true}])"
                                    << "correct";
  QTest::newRow("correct-null-oracle") << true << true << R"([{"us":1,"correct":null}])"
                                       << "correct";
  QTest::newRow("correct-string-false-is-not-false")
      << true << true << R"([{"us":1,"correct":"false"}])"
      << "correct";
  QTest::newRow("accepted-unmeasured") << true << true << "[]"
                                       << "correct";
  QTest::newRow("malformed-measurements") << true << true << "[{"
                                          << "correct";
}

void TestLineage::outcome() {
  QFETCH(bool, accepted);
  QFETCH(bool, lowered);
  QFETCH(QString, measurements);
  QFETCH(QString, expected);
  ws::CandidateRecord c = candidate("x", {}, accepted, 1);
  c.loweredOk = lowered;
  c.measurements = measurements.toStdString();
  QCOMPARE(outcomeName(outcomeOf(c)), expected);
  QCOMPARE(outcomeFromName(expected), std::optional<CandidateOutcome>(outcomeOf(c)));
}

void TestLineage::author_data() {
  QTest::addColumn<QString>("json");
  QTest::addColumn<QString>("label");
  QTest::newRow("search-run")
      << R"({"kind":"search","name":"cake evolve","run":"islands/islands/seed=1"})"
      << "cake evolve (search, islands/islands/seed=1)";
  QTest::newRow("agent-model") << R"({"kind":"agent","name":"claude","model":"m"})"
                               << "claude (agent)";
  QTest::newRow("human") << R"({"kind":"human","name":"ann"})"
                         << "ann (human)";
  QTest::newRow("name-only") << R"({"name":"bob"})"
                             << "bob";
  QTest::newRow("empty-object") << "{}"
                                << "?";
  QTest::newRow("not-json") << "nope"
                            << "?";
}

void TestLineage::author() {
  QFETCH(QString, json);
  QFETCH(QString, label);
  QCOMPARE(authorLabel(json.toStdString()), label);
}

void TestLineage::speedupAndDetail() {
  Lineage l = sampleLineage();
  QCOMPARE(l.nodes.size(), 7);
  QCOMPARE(l.bestPath, (QStringList{"root", "a"}));
  const LineageNode& root = l.nodes[l.indexOf("root")];
  QCOMPARE(root.root, QString("root"));
  QCOMPARE(nodeDetail(root), QString::fromUtf8("root 100.0 µs"));
  const LineageNode& a = l.nodes[l.indexOf("a")];
  QCOMPARE(a.root, QString("root"));
  QCOMPARE(*a.predictedSpeedup, 2.0);
  QVERIFY(!a.measuredSpeedup);
  QCOMPARE(nodeDetail(a), QString::fromUtf8("×2.00 pred"));
  QVERIFY(a.onBestPath);
  QVERIFY(!l.nodes[l.indexOf("c")].onBestPath);
  // d descends from c (first parent): its root is root, 100/60.
  QCOMPARE(nodeDetail(l.nodes[l.indexOf("d")]), QString::fromUtf8("×1.67 pred"));
  QCOMPARE(nodeDetail(l.nodes[l.indexOf("b")]), QString("refused: X-code"));
  QCOMPARE(nodeDetail(l.nodes[l.indexOf("e")]), QString::fromUtf8("lowering failed · ×1.82 pred"));
  QCOMPARE(l.nodes[l.indexOf("e")].outcome, CandidateOutcome::LoweringFailed);

  // Measured times: speedup over the root's measurement, shown after the prediction; the
  // best path then ranks by measurement (c measured faster than a).
  auto v = sample();
  v[0].measuredUs = 90;
  v[1].measuredUs = 60;
  v[3].measuredUs = 30;
  ws::CampaignRecord r;
  r.name = "t";
  Lineage m = buildLineage(r, v);
  QCOMPARE(nodeDetail(m.nodes[m.indexOf("a")]), QString::fromUtf8("×2.00 pred · ×1.50 meas"));
  QCOMPARE(nodeDetail(m.nodes[m.indexOf("root")]),
           QString::fromUtf8("root 100.0 µs · meas 90.0 µs"));
  QCOMPARE(m.bestPath, (QStringList{"root", "a", "c"}));
  // A second root: its descendants are measured against it, not against the first.
  v.push_back(candidate("r2", {}, true, 10));
  v.push_back(candidate("g", {"r2"}, true, 20));
  Lineage two = buildLineage(r, v);
  QCOMPARE(two.nodes[two.indexOf("g")].root, QString("r2"));
  QCOMPARE(nodeDetail(two.nodes[two.indexOf("g")]), QString::fromUtf8("×0.50 pred"));
  QCOMPARE(formatSpeedup(std::nullopt), QString::fromUtf8("–"));

  // A refused candidate names the code its root does not have, whatever the sort order.
  auto w = sample();
  w[0].codes = {"A-warning"};
  w[2].codes = {"A-warning", "Z-blocking"};
  Lineage named = buildLineage(r, w);
  QCOMPARE(nodeDetail(named.nodes[named.indexOf("b")]), QString("refused: Z-blocking"));
  w[2].codes = {"A-warning"};
  named = buildLineage(r, w);
  QCOMPARE(nodeDetail(named.nodes[named.indexOf("b")]), QString("refused: A-warning"));
  w[2].codes = {};
  named = buildLineage(r, w);
  QCOMPARE(nodeDetail(named.nodes[named.indexOf("b")]), QString("refused: ?"));
}

void TestLineage::filterGraph_data() {
  QTest::addColumn<QString>("author");
  QTest::addColumn<QString>("outcome");
  QTest::addColumn<QString>("code");
  QTest::addColumn<QStringList>("nodes");
  QTest::addColumn<QStringList>("edges");
  QTest::addColumn<int>("hidden");
  QTest::newRow("all") << ""
                       << ""
                       << "" << QStringList{"root", "a", "b", "c", "d", "e", "f"}
                       << QStringList{"a>b:d", "a>c:d",     "b>d:i",   "c>d:d",
                                      "d>f:d", "root>a:d*", "root>e:d"}
                       << 0;
  // Refused only: the best path stays (dimmed); b hangs off a directly, f through its hidden
  // first parents d and c (not through d's inspiration b).
  QTest::newRow("refused") << ""
                           << "refused"
                           << "" << QStringList{"root~", "a~", "b", "f"}
                           << QStringList{"a>b:d", "a>f:h", "root>a:d*"} << 3;
  QTest::newRow("code-Y") << ""
                          << ""
                          << "Y-code" << QStringList{"root~", "a~", "f"}
                          << QStringList{"a>f:h", "root>a:d*"} << 4;
  QTest::newRow("code-X") << ""
                          << ""
                          << "X-code" << QStringList{"root~", "a~", "b", "f"}
                          << QStringList{"a>b:d", "a>f:h", "root>a:d*"} << 3;
  // The human's candidates: c off a; f through its hidden first parent d to c.
  QTest::newRow("author-human") << "ann (human)"
                                << ""
                                << "" << QStringList{"root~", "a~", "c", "f"}
                                << QStringList{"a>c:d", "c>f:h", "root>a:d*"} << 3;
  // The agent's: d's first parent c is hidden (contracted to a); the inspiration edge from b
  // is drawn (both ends shown).
  QTest::newRow("author-agent") << "a1 (agent)"
                                << ""
                                << "" << QStringList{"root", "a", "b", "d", "e"}
                                << QStringList{"a>b:d", "a>d:h", "b>d:i", "root>a:d*", "root>e:d"}
                                << 2;
  QTest::newRow("lowering-failed")
      << ""
      << "lowering-failed"
      << "" << QStringList{"root~", "a~", "e"} << QStringList{"root>a:d*", "root>e:d"} << 4;
  QTest::newRow("correct-and-human")
      << "ann (human)"
      << "correct"
      << "" << QStringList{"root~", "a~", "c"} << QStringList{"a>c:d", "root>a:d*"} << 4;
  QTest::newRow("nothing-matches")
      << ""
      << "incorrect"
      << "" << QStringList{"root~", "a~"} << QStringList{"root>a:d*"} << 5;
}

void TestLineage::filterGraph() {
  QFETCH(QString, author);
  QFETCH(QString, outcome);
  QFETCH(QString, code);
  QFETCH(QStringList, nodes);
  QFETCH(QStringList, edges);
  QFETCH(int, hidden);
  LineageFilter f;
  f.author = author;
  f.outcome = outcomeFromName(outcome);
  f.code = code;
  QCOMPARE(f.isEmpty(), author.isEmpty() && outcome.isEmpty() && code.isEmpty());
  LineageGraph g = buildLineageGraph(sampleLineage(), f);
  QCOMPARE(nodesOf(g), nodes);
  QCOMPARE(edgesOf(g), edges);
  QCOMPARE(g.hidden, hidden);
  QCOMPARE(g.nodeCandidate.size(), g.graph.nodes.size());
  for (int i = 0; i < g.graph.nodes.size(); ++i) {
    QCOMPARE(g.graph.indexOf(g.graph.nodes[i].id), i);
    QVERIFY(g.graph.nodes[i].size.width() >= kNodeMinWidth);
  }
}

void TestLineage::choices() {
  Lineage l = sampleLineage();
  QCOMPARE(l.authors(), (QStringList{"a1 (agent)", "ann (human)"}));
  QCOMPARE(l.codes(), (QStringList{"X-code", "Y-code"}));
  QCOMPARE(l.count(CandidateOutcome::Refused), 2);
  QCOMPARE(l.count(CandidateOutcome::LoweringFailed), 1);
  QCOMPARE(l.count(CandidateOutcome::Incorrect), 0);
  QCOMPARE(l.count(CandidateOutcome::Correct), 4);
  // Colours: distinct fills per outcome, the best path apart from every border.
  QSet<QRgb> fills;
  for (int i = 0; i < kCandidateOutcomes; ++i) {
    fills.insert(outcomeFill(CandidateOutcome(i)).rgb());
    QVERIFY(outcomeBorder(CandidateOutcome(i)) != bestPathColor());
  }
  QCOMPARE(fills.size(), kCandidateOutcomes);
}

void TestLineage::largeGraph() {
  // 2,000 candidates in a chain of generations: every one shown, one derived-from edge each
  // but the root, the best path a chain of first parents ending at the fastest.
  std::vector<ws::CandidateRecord> v;
  v.push_back(candidate("c0", {}, true, 1000));
  for (int i = 1; i < 2000; ++i)
    v.push_back(candidate("c" + std::to_string(i), {"c" + std::to_string((i - 1) / 3)}, i % 4 != 0,
                          1000.0 - i * 0.25));
  ws::CampaignRecord r;
  r.name = "big";
  Lineage l = buildLineage(r, v);
  LineageGraph g = buildLineageGraph(l);
  QCOMPARE(g.graph.nodes.size(), 2000);
  QCOMPARE(g.graph.edges.size(), 1999);
  QCOMPARE(l.bestPath.last(), QString("c1999"));
  int best = int(std::count(g.edgeBest.begin(), g.edgeBest.end(), true));
  QCOMPARE(best, l.bestPath.size() - 1);
}

/// WCAG contrast ratio of two colours (1..21).
double contrast(const QColor& a, const QColor& b) {
  auto lum = [](const QColor& c) {
    auto ch = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * ch(c.redF()) + 0.7152 * ch(c.greenF()) + 0.0722 * ch(c.blueF());
  };
  double x = lum(a), y = lum(b);
  return (std::max(x, y) + 0.05) / (std::min(x, y) + 0.05);
}

void TestLineage::darkColours() {
  // Both variants: distinct fills, text readable on every fill (the palette's own text), the
  // best path apart from every border; the dark fills are dark (no light box on a dark canvas).
  for (bool dark : {false, true}) {
    const ViewPalette& vp = dark ? ViewPalette::darkPalette() : ViewPalette::light();
    QSet<QRgb> fills;
    for (int i = 0; i < kCandidateOutcomes; ++i) {
      auto o = CandidateOutcome(i);
      fills.insert(outcomeFill(o, dark).rgb());
      QVERIFY2(contrast(vp.text, outcomeFill(o, dark)) >= 4.5,
               qPrintable(QString("text on %1 (dark %2)").arg(outcomeName(o)).arg(dark)));
      QVERIFY(contrast(outcomeBorder(o, dark), vp.canvas) >= 2.5);
      QVERIFY(outcomeBorder(o, dark) != bestPathColor(dark));
      QCOMPARE(outcomeFill(o, dark).lightness() < 128, dark);
    }
    QCOMPARE(fills.size(), kCandidateOutcomes);
    QVERIFY(contrast(bestPathColor(dark), vp.canvas) >= 3.0);
  }
  // The light variant is the default (screenshots and tests count its exact fills).
  QCOMPARE(outcomeFill(CandidateOutcome::Refused), QColor(0xf8, 0xd0, 0xcc));
}

void TestLineage::kernelOfEditor() {
  QTemporaryDir tmp;
  QDir(tmp.path()).mkpath("camp/kernels");
  for (const char* k : {"root", "a"})
    QVERIFY(QFile(tmp.filePath(QString("camp/kernels/%1.cake").arg(k))).open(QIODevice::WriteOnly));
  ws::CampaignRecord r;
  r.name = "t";
  r.folder = tmp.filePath("camp").toStdString();
  std::vector<ws::CandidateRecord> v = {candidate("root", {}, true, 100),
                                        candidate("a", {"root"}, true, 50)};
  Lineage l = buildLineage(r, v);
  QCOMPARE(l.indexOfKernel(tmp.filePath("camp/kernels/a.cake")), l.indexOf("a"));
  QCOMPARE(l.indexOfKernel(tmp.filePath("camp/kernels/../kernels/root.cake")), l.indexOf("root"));
  // Through a symlinked folder, and a file that is not a candidate's.
  QVERIFY(QFile::link(tmp.filePath("camp"), tmp.filePath("link")));
  QCOMPARE(l.indexOfKernel(tmp.filePath("link/kernels/a.cake")), l.indexOf("a"));
  QCOMPARE(l.indexOfKernel(tmp.filePath("camp/kernels/b.cake")), -1);
  QCOMPARE(l.indexOfKernel(tmp.filePath("a.cake")), -1);
  QCOMPARE(l.indexOfKernel(QString()), -1);
}

void TestLineage::sceneData() {
  Lineage l = sampleLineage();
  LineageGraph g = buildLineageGraph(l);
  GraphLayout layout = fallbackLayout(g.graph);
  // One edge without geometry (the layout has fewer than two points for it).
  layout.edges[1].points.clear();
  LineageScene s = buildLineageScene(l, g, layout);
  QCOMPARE(s.nodes.size(), g.graph.nodes.size());
  QCOMPARE(s.edges.size(), g.graph.edges.size());
  for (int i = 0; i < s.nodes.size(); ++i) {
    QCOMPARE(s.nodes[i].rect, layout.nodes[i].rect());
    QCOMPARE(s.nodes[i].title, g.graph.nodes[i].title);
    QCOMPARE(s.nodes[i].best, g.nodeBest[i]);
    QCOMPARE(s.nodes[i].outcome, l.nodes[g.nodeCandidate[i]].outcome);
  }
  int f = g.graph.indexOf("f");
  QVERIFY(s.nodes[f].tooltip.contains("refused") &&
          s.nodes[f].tooltip.contains("findings: X-code, Y-code"));
  QVERIFY(s.nodes[g.graph.indexOf("a")].tooltip.contains("predicted 50.00 µs"));
  QVERIFY(s.edges[1].path.isEmpty());
  for (int k = 0; k < s.edges.size(); ++k) {
    QCOMPARE(s.edges[k].kind, g.graph.edges[k].kind);
    QCOMPARE(s.edges[k].best, g.edgeBest[k]);
    QVERIFY(s.edges[k].tooltip.contains("compare parent and child"));
    if (k == 1)
      continue;
    QVERIFY(!s.edges[k].path.isEmpty());
    QCOMPARE(s.edges[k].path.elementAt(0), layout.edges[k].points.first());
    // The arrow's tip is the layout's.
    QCOMPARE(s.edges[k].arrow.isEmpty(), !layout.edges[k].hasArrow);
    if (!s.edges[k].arrow.isEmpty())
      QCOMPARE(s.edges[k].arrow.first(), layout.edges[k].arrowTip);
  }
  QCOMPARE(s.sceneRect, layout.bounds.adjusted(-20, -20, 20, 20));
  QVERIFY(lineageArrowHead(QPointF(1, 1), QPointF(1.2, 1)).isEmpty()); // too short to draw
}

void TestLineage::importAndWatch() {
  // A campaign folder that grows: the sample's first five lines, then three more and a torn
  // one, then the torn one completed.
  QTemporaryDir tmp;
  const QString src = test::corpusPath("campaigns/flash_kmeans");
  const QString dir = tmp.filePath("camp");
  QVERIFY(test::copyTree(src, dir));
  QFile log(dir + "/candidates.jsonl");
  QVERIFY(log.open(QIODevice::ReadOnly));
  QList<QByteArray> lines = log.readAll().split('\n');
  log.close();
  QVERIFY(lines.size() > 10);
  auto write = [&](int n, const QByteArray& tail, QIODevice::OpenMode mode) {
    QFile f(dir + "/candidates.jsonl");
    QVERIFY(f.open(mode));
    for (int i = 0; i < n; ++i)
      f.write(lines[i] + '\n');
    f.write(tail);
  };
  write(5, {}, QIODevice::WriteOnly | QIODevice::Truncate);

  CompileSession session;
  session.setCompiler(test::compiler());
  LineageController c(&session);
  c.setDebounceMs(50);
  c.setWorkspace(tmp.filePath("ws"));
  QSignalSpy changed(&c, &LineageController::lineageChanged);
  QSignalSpy imported(&c, &LineageController::imported);
  QSignalSpy failed(&c, &LineageController::failed);
  QSignalSpy queued(&session, &CompileSession::jobQueued);
  QVERIFY(c.importFolder(dir));
  QVERIFY(waitUntil([&] { return changed.size() == 1; }));
  QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(0).toString()));
  QCOMPARE(queued.first().first().value<JobInfo>().kind, JobKind::Import);
  QCOMPARE(c.lineage()->nodes.size(), 5);
  QCOMPARE(c.lineage()->campaign, QString("flash-kmeans-evolve"));
  QCOMPARE(c.lastImport()->imported, 5);
  QCOMPARE(c.watchedFolder(), QDir::cleanPath(dir));

  // Appended lines, the last one torn: imported live, the torn one pending (no error).
  QByteArray torn = lines[8].left(lines[8].size() / 2);
  {
    QFile f(dir + "/candidates.jsonl");
    QVERIFY(f.open(QIODevice::Append));
    for (int i = 5; i < 8; ++i)
      f.write(lines[i] + '\n');
    f.write(torn);
  }
  QVERIFY(waitUntil([&] { return changed.size() == 2; }));
  QCOMPARE(c.lineage()->nodes.size(), 8);
  QCOMPARE(c.lastImport()->imported, 3);
  QCOMPARE(c.lastImport()->skipped, 5);
  QCOMPARE(c.lastImport()->pending, 1);
  QVERIFY(c.lastImport()->errors.isEmpty());
  // The rest of the torn line arrives.
  {
    QFile f(dir + "/candidates.jsonl");
    QVERIFY(f.open(QIODevice::Append));
    f.write(lines[8].mid(torn.size()) + '\n');
  }
  QVERIFY(waitUntil([&] { return changed.size() == 3; }));
  QCOMPARE(c.lineage()->nodes.size(), 9);
  QCOMPARE(c.lastImport()->pending, 0);
  QCOMPARE(c.lastImport()->imported, 1);
  QVERIFY(failed.isEmpty());

  // Watching off: appends stay unimported until it is on again.
  c.setWatching(false);
  {
    QFile f(dir + "/candidates.jsonl");
    QVERIFY(f.open(QIODevice::Append));
    f.write(lines[9] + '\n');
  }
  QTest::qWait(400);
  QCOMPARE(c.pendingJobs(), 0);
  QCOMPARE(c.lineage()->nodes.size(), 9);
  c.setWatching(true);
  {
    QFile f(dir + "/candidates.jsonl");
    QVERIFY(f.open(QIODevice::Append));
    f.write(lines[10] + '\n');
  }
  QVERIFY(waitUntil([&] { return changed.size() == 4; }));
  QCOMPARE(c.lineage()->nodes.size(), 11);

  // Reading the stored campaign back in another controller gives the same lineage.
  LineageController other(&session);
  other.setWorkspace(tmp.filePath("ws"));
  QSignalSpy otherChanged(&other, &LineageController::lineageChanged);
  QVERIFY(other.showCampaign("flash-kmeans-evolve"));
  QVERIFY(waitUntil([&] { return otherChanged.size() == 1; }));
  QCOMPARE(other.lineage()->nodes.size(), 11);
  QCOMPARE(other.lineage()->bestPath, c.lineage()->bestPath);
  session.waitForIdle();
}

void TestLineage::importErrorsAndUnknownCampaign() {
  QTemporaryDir tmp;
  const QString dir = tmp.filePath("camp");
  QVERIFY(test::copyTree(test::corpusPath("campaigns/flash_kmeans"), dir));
  // Line 2 names a parent that does not exist: a located error, the rest imported.
  QFile f(dir + "/candidates.jsonl");
  QVERIFY(f.open(QIODevice::ReadOnly));
  QList<QByteArray> lines = f.readAll().split('\n');
  f.close();
  lines[1].replace("\"parents\":[\"root\"]", "\"parents\":[\"nobody\"]");
  QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
  f.write(lines[0] + '\n' + lines[1] + '\n');
  f.close();

  CompileSession session;
  session.setCompiler(test::compiler());
  LineageController c(&session);
  c.setWorkspace(tmp.filePath("ws"));
  QSignalSpy changed(&c, &LineageController::lineageChanged);
  QVERIFY(c.importFolder(dir));
  QVERIFY(waitUntil([&] { return changed.size() == 1; }));
  QCOMPARE(c.lastImport()->imported, 1);
  QCOMPARE(c.lastImport()->errors.size(), 1);
  QVERIFY2(c.lastImport()->errors[0].contains("candidates.jsonl:2:") &&
               c.lastImport()->errors[0].endsWith("[campaign-unknown-parent]"),
           qPrintable(c.lastImport()->errors[0]));

  QSignalSpy failed(&c, &LineageController::failed);
  QVERIFY(c.showCampaign("no-such-campaign"));
  QVERIFY(waitUntil([&] { return failed.size() == 1; }));
  QVERIFY(failed[0][0].toString().contains("no campaign 'no-such-campaign'"));
  QCOMPARE(c.lineage()->nodes.size(), 1); // the shown one stays
  LineageController none(&session);
  QSignalSpy noneFailed(&none, &LineageController::failed);
  QVERIFY(!none.importFolder(dir));
  QCOMPARE(noneFailed.size(), 1);
  session.waitForIdle();
}

void TestLineage::importsQueued() {
  // Two folders asked at once: imported one after the other (one writer), each announced with
  // `imported`; the one asked last is shown; pendingImports() counts down to 0.
  QTemporaryDir tmp;
  CompileSession session;
  session.setCompiler(test::compiler());
  LineageController c(&session);
  c.setWorkspace(tmp.filePath("ws"));
  QSignalSpy imported(&c, &LineageController::imported);
  QSignalSpy changed(&c, &LineageController::lineageChanged);
  QSignalSpy failed(&c, &LineageController::failed);
  QVERIFY(c.importFolder(test::corpusPath("campaigns/flash_kmeans")));
  QVERIFY(c.importFolder(test::corpusPath("campaigns/bias_gelu")));
  QCOMPARE(c.pendingImports(), 2);
  QCOMPARE(session.activeJobs(), 1); // the second waits for the first
  QVERIFY(waitUntil([&] { return c.pendingJobs() == 0; }));
  QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(0).toString()));
  QCOMPARE(c.pendingImports(), 0);
  QCOMPARE(imported.size(), 2);
  QCOMPARE(imported[0][0].value<ImportSummaryPtr>()->campaign, QString("flash-kmeans-evolve"));
  QCOMPARE(imported[1][0].value<ImportSummaryPtr>()->campaign, QString("bias-gelu-evolve"));
  QCOMPARE(changed.size(), 2);
  QCOMPARE(c.lineage()->campaign, QString("bias-gelu-evolve"));
  session.waitForIdle();
}

QTEST_GUILESS_MAIN(TestLineage)
#include "tst_lineage.moc"
