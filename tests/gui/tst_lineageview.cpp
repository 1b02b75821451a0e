// The Lineage dock's widget offscreen: a lineage laid out by Graphviz and drawn (one item per
// shown candidate and edge, best path outlined), the filter combo boxes rebuilding the graph,
// node and edge selection asking to open the candidate or compare parent and child, a grown
// lineage keeping the selection, the import line with its located errors; a rebuild keeps the
// drawn scene until the new one is complete (made in slices off the GUI thread's long path), a
// candidate selected before its layout arrives, and the dark palette.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/ViewPalette.h"
#include "cake/widgets/LineageView.h"

#include <QComboBox>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QGraphicsView>
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
  void rebuildKeepsSceneAndSelection();
  void darkPalette();
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

void TestLineageView::rebuildKeepsSceneAndSelection() {
  widgets::LineageView view;
  view.resize(600, 400);
  view.show();
  QSignalSpy shown(&view, &widgets::LineageView::layoutShown);
  // A chain long enough to need scrolling at 1:1.
  std::vector<ws::CandidateRecord> v{candidate("root", {}, true, 100)};
  for (int i = 1; i < 60; ++i)
    v.push_back(candidate("n" + std::to_string(i), {v.back().id}, true, 100.0 - i));
  view.setLineage(lineageOf(v));
  QVERIFY(shown.wait(30000));
  QGraphicsScene* first = view.scene();
  QCOMPARE(itemsOfKind(first, 1), 60);
  QCOMPARE(itemsOfKind(first, 2), 59);
  QVERIFY(view.timings().slices >= 1);

  // Grown: until the new scene is complete the drawn one stays (and stays whole).
  v.push_back(candidate("tip", {"n30"}, true, 10));
  QSignalSpy opened(&view, &widgets::LineageView::candidateActivated);
  view.setLineage(lineageOf(v));
  QVERIFY(view.layoutPending());
  // Not drawn yet: remembered, selected and centred once the layout is drawn; quiet.
  QVERIFY(!view.selectCandidate("tip"));
  QCOMPARE(view.currentCandidate(), QString("tip"));
  QVERIFY(!view.selectCandidate("nobody"));
  QCOMPARE(view.currentCandidate(), QString("tip"));
  QCOMPARE(view.scene(), first);
  QCOMPARE(itemsOfKind(first, 1), 60);
  QVERIFY(shown.wait(30000));
  QVERIFY(!view.layoutPending());
  QVERIFY(view.scene() != first);
  QCOMPARE(itemsOfKind(view.scene(), 1), 61);
  QCOMPARE(itemsOfKind(view.scene(), 2), 60);
  QList<QGraphicsItem*> selected = view.scene()->selectedItems();
  QCOMPARE(selected.size(), 1);
  QCOMPARE(view.graph()->graph.nodes[selected[0]->data(1).toInt()].id, QString("tip"));
  auto centreOf = [&](const QString& id) {
    return view.layout()->nodes[view.graph()->graph.indexOf(id)].center;
  };
  auto shownCentre = [&] {
    return view.canvas()->mapToScene(view.canvas()->viewport()->rect().center());
  };
  // Along the chain (the scene is lower than the view: no vertical scrolling).
  QVERIFY2(std::abs(shownCentre().x() - centreOf("tip").x()) < 30, "the selection is not centred");
  // Selecting a drawn node centres it too.
  QVERIFY(view.selectCandidate("n45"));
  QVERIFY2(std::abs(shownCentre().x() - centreOf("n45").x()) < 30, "n45 is not centred");
  QCOMPARE(opened.size(), 0);
}

void TestLineageView::darkPalette() {
  // The canvas, the node texts and the legend follow the palette: no light surface in dark mode.
  widgets::LineageView view;
  QPalette dark;
  dark.setColor(QPalette::Window, QColor(0x1e, 0x1e, 0x1e));
  dark.setColor(QPalette::Base, QColor(0x20, 0x20, 0x20));
  dark.setColor(QPalette::Text, QColor(0xe0, 0xe0, 0xe0));
  dark.setColor(QPalette::WindowText, QColor(0xe0, 0xe0, 0xe0));
  view.setPalette(dark);
  view.resize(700, 450);
  view.show();
  QSignalSpy shown(&view, &widgets::LineageView::layoutShown);
  view.setLineage(lineageOf(sample()));
  QVERIFY(shown.wait(30000));
  const ViewPalette& vp = ViewPalette::darkPalette();
  QCOMPARE(view.canvas()->backgroundBrush().color(), vp.canvas);
  auto* legend = view.findChild<QLabel*>("lineageLegend");
  QVERIFY(legend->text().contains(outcomeFill(CandidateOutcome::Refused, true).name()));
  QVERIFY(!legend->text().contains(outcomeFill(CandidateOutcome::Refused, false).name()));
  view.fitToView();
  QImage img = view.canvas()->viewport()->grab().toImage();
  int canvas = 0, light = 0, darkRefused = 0, lightRefused = 0;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) {
      QColor c = img.pixelColor(x, y);
      canvas += c.rgb() == vp.canvas.rgb();
      light += c.lightness() > 200;
      darkRefused += c.rgb() == outcomeFill(CandidateOutcome::Refused, true).rgb();
      lightRefused += c.rgb() == outcomeFill(CandidateOutcome::Refused, false).rgb();
    }
  QVERIFY2(canvas > img.width() * img.height() / 2, "the canvas is not the dark palette's");
  QVERIFY2(darkRefused > 100, "no dark fill for the refused candidate");
  QCOMPARE(lightRefused, 0);
  // Only text (anti-aliased glyphs) is light: far less than one box's worth of pixels.
  QVERIFY2(light < 3000, qPrintable(QString("%1 light pixels").arg(light)));

  // Back to a light palette: the canvas follows.
  view.setPalette(QPalette(QColor(0xef, 0xef, 0xef)));
  QCOMPARE(view.canvas()->backgroundBrush().color(), ViewPalette::light().canvas);
}

QTEST_MAIN(TestLineageView)
#include "tst_lineageview.moc"
