// The Lineage dock's widget offscreen: a lineage laid out by Graphviz and drawn (one item per
// shown candidate and edge, best path outlined), the filter combo boxes rebuilding the graph,
// node and edge selection asking to open the candidate or compare parent and child, a grown
// lineage keeping the selection, the import line with its located errors.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/LineageView.h"

#include <QComboBox>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QtTest>

using namespace cake;
using namespace cake::views;

namespace {

ws::CandidateRecord candidate(const std::string& id, std::vector<std::string> parents,
                              bool accepted, std::optional<double> predicted,
                              const std::string& author = R"({"kind":"agent","name":"a1"})") {
  ws::CandidateRecord c;
  c.id = id;
  c.parents = std::move(parents);
  c.kernel = "kernels/" + id + ".cake";
  c.accepted = accepted;
  c.loweredOk = accepted;
  c.predictedUs = predicted;
  c.author = author;
  if (!accepted)
    c.codes = {"X-code"};
  return c;
}

LineagePtr lineageOf(std::vector<ws::CandidateRecord> v) {
  ws::CampaignRecord r;
  r.name = "t";
  return std::make_shared<const Lineage>(buildLineage(r, v));
}

std::vector<ws::CandidateRecord> sample() {
  return {candidate("root", {}, true, 100), candidate("a", {"root"}, true, 50),
          candidate("b", {"a"}, false, std::nullopt),
          candidate("c", {"a"}, true, 80, R"({"kind":"human","name":"ann"})"),
          candidate("d", {"c", "b"}, true, 60)};
}

int itemsOfKind(QGraphicsScene* scene, int kind) {
  int n = 0;
  for (QGraphicsItem* i : scene->items())
    n += i->data(0).toInt() == kind;
  return n;
}

} // namespace

class TestLineageView : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void drawFilterSelect();
};

void TestLineageView::drawFilterSelect() {
  widgets::LineageView view;
  view.resize(900, 600);
  view.show();
  QSignalSpy shown(&view, &widgets::LineageView::layoutShown);
  view.setLineage(lineageOf(sample()));
  QVERIFY(view.layoutPending());
  QVERIFY(shown.wait(30000));
  QVERIFY(!view.layoutPending());
  QVERIFY(!view.layout()->fallback);
  QCOMPARE(itemsOfKind(view.scene(), 1), 5);
  QCOMPARE(itemsOfKind(view.scene(), 2), 5); // 4 derived-from + 1 inspiration
  // Ranked left to right: every child lies right of its parent.
  const GraphDescription& g = view.graph()->graph;
  for (const GraphEdge& e : g.edges)
    QVERIFY(view.layout()->nodes[e.to].center.x() > view.layout()->nodes[e.from].center.x());
  QVERIFY(view.findChild<QLabel*>("lineageTitle")->text().contains("best a (1 step from root)"));

  // Selecting a node asks to open it, an edge to compare its ends; selectCandidate is quiet.
  QSignalSpy opened(&view, &widgets::LineageView::candidateActivated);
  QSignalSpy compared(&view, &widgets::LineageView::edgeActivated);
  QVERIFY(view.activateCandidate("c"));
  QCOMPARE(opened.size(), 1);
  QCOMPARE(opened[0][0].toString(), QString("c"));
  QVERIFY(view.activateEdge("root", "a"));
  QCOMPARE(compared.size(), 1);
  QCOMPARE(compared[0][0].toString(), QString("root"));
  QCOMPARE(compared[0][1].toString(), QString("a"));
  QVERIFY(!view.activateEdge("a", "root"));
  QVERIFY(view.selectCandidate("d"));
  QCOMPARE(opened.size(), 1);
  QVERIFY(!view.selectCandidate("zzz"));

  // The outcome filter through its combo box: refused only (b) plus the dimmed best path.
  auto* outcome = view.findChild<QComboBox*>("lineageOutcome");
  QVERIFY(outcome);
  QCOMPARE(outcome->itemText(outcome->findData("refused")), QString("refused (1)"));
  outcome->setCurrentIndex(outcome->findData("refused"));
  QCOMPARE(view.filter().outcome, std::optional<CandidateOutcome>(CandidateOutcome::Refused));
  QVERIFY(shown.wait(30000));
  QCOMPARE(itemsOfKind(view.scene(), 1), 3); // root, a (dimmed), b
  auto* author = view.findChild<QComboBox*>("lineageAuthor");
  QCOMPARE(author->count(), 3); // all, a1 (agent), ann (human)
  outcome->setCurrentIndex(0);
  QVERIFY(shown.wait(30000));
  QCOMPARE(itemsOfKind(view.scene(), 1), 5);

  // The lineage grows (a watch import): the new candidate appears, the filter stays.
  auto grown = sample();
  grown.push_back(candidate("e", {"d"}, true, 20));
  view.setFilter(LineageFilter{"a1 (agent)", std::nullopt, {}});
  view.setLineage(lineageOf(grown));
  QVERIFY(shown.wait(30000));
  QCOMPARE(author->currentData().toString(), QString("a1 (agent)"));
  // e is new and the best: its path root, a, c, d, e keeps the human's c shown, dimmed.
  QCOMPARE(itemsOfKind(view.scene(), 1), 6);
  QCOMPARE(view.lineage()->bestPath, (QStringList{"root", "a", "c", "d", "e"}));
  int c = view.graph()->graph.indexOf("c");
  QVERIFY(c >= 0 && view.graph()->nodeDimmed[c]);
  QVERIFY(!view.graph()->nodeDimmed[view.graph()->graph.indexOf("e")]);

  // The import line and its located errors.
  auto summary = std::make_shared<ImportSummary>();
  summary->folder = "/x";
  summary->imported = 2;
  summary->errors = {"candidates.jsonl:3:1: bad [campaign-malformed-line]"};
  view.setImportSummary(summary);
  QVERIFY(view.findChild<QLabel*>("lineageImport")->text().contains("imported 2"));
  auto* errors = view.findChild<QPlainTextEdit*>("lineageErrors");
  QVERIFY(!errors->isHidden());
  QVERIFY(errors->toPlainText().contains("candidates.jsonl:3:1:"));
}

QTEST_MAIN(TestLineageView)
#include "tst_lineageview.moc"
