// Run on CPU in the workbench, without widgets: the interpreter's per-tile error map (tile
// extent from the writers, clipping, the bound on tiles and elements, the explaining element),
// the heat map's log colour scale and its geometry / hit testing, the findings rows of a verdict
// (located at the writing line, dropped with a stale text), the contract lookup shared with the
// CLI, and the run job's progress and cancel through the compile façade.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ViewsTestUtil.h"

#include "cake/views/FindingsModel.h"
#include "cake/views/HeatMap.h"
#include "cake/views/JobsModel.h"
#include "cake/views/RunData.h"

#include <QSignalSpy>
#include <QtTest>

#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

using namespace cake;

namespace {

/// Elements grouped by writer boxes of `gr` x `gc` (a CTA tile), errors from `err`.
interp::ErrorMap mapOf(std::int64_t rows, std::int64_t cols, std::int64_t gr, std::int64_t gc,
                       const std::function<double(std::int64_t, std::int64_t)>& err = {},
                       double tol = 0.5) {
  return interp::buildErrorMap(rows, cols, [&](std::int64_t e) {
    interp::ElementError x;
    std::int64_t r = e / cols, c = e % cols;
    x.absError = err ? err(r, c) : 0.0;
    x.relError = x.absError;
    x.wrong = !(x.absError <= tol);
    x.written = gr > 0;
    x.group = gr > 0 ? (r / gr) * 100000 + c / gc : -1;
    return x;
  });
}

const QString kWrongGemm = QStringLiteral("numerical/gemm-tile-from-ty.cake");
const QString kGoodGemm = QStringLiteral("ampere_gemm/gemm_cp_async.cake");

} // namespace

class TestHeatMap : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void tileExtent_data();
  void tileExtent();
  void tileAggregates();
  void strayWriterLoses();
  void scale_data();
  void scale();
  void scaleDecades_data();
  void scaleDecades();
  void rampDarkens();
  void errorText_data();
  void errorText();
  void hit_data();
  void hit();
  void vectorStrip();
  void tileAspect();
  void toolTip();
  void contractLookup();
  void wrongGemmMap();
  void correctGemmMap();
  void findingsRows();
  void progressAndCancel();
};

void TestHeatMap::tileExtent_data() {
  QTest::addColumn<qint64>("rows");
  QTest::addColumn<qint64>("cols");
  QTest::addColumn<qint64>("groupRows"); ///< 0: nothing written
  QTest::addColumn<qint64>("groupCols");
  QTest::addColumn<qint64>("tileRows");
  QTest::addColumn<qint64>("tileCols");
  QTest::addColumn<qint64>("gridRows");
  QTest::addColumn<qint64>("gridCols");
  QTest::addColumn<qint64>("lastRows"); ///< extent of the bottom-right tile
  QTest::addColumn<qint64>("lastCols");
  QTest::addColumn<bool>("elementsKept");
  QTest::newRow("gemm 2x2 tiles") << 4ll << 4ll << 2ll << 2ll << 2ll << 2ll << 2ll << 2ll << 2ll
                                  << 2ll << true;
  QTest::newRow("edge tiles clipped")
      << 5ll << 6ll << 2ll << 4ll << 2ll << 4ll << 3ll << 2ll << 1ll << 2ll << true;
  QTest::newRow("row blocks (softmax)")
      << 8ll << 16ll << 2ll << 16ll << 2ll << 16ll << 4ll << 1ll << 2ll << 16ll << true;
  QTest::newRow("never written: 32x32 grid")
      << 100ll << 40ll << 0ll << 0ll << 4ll << 2ll << 25ll << 20ll << 4ll << 2ll << true;
  // 128 x 256 tiles of 2 x 2 exceed 4096: merged to 64 x 64 tiles of 4 x 8; 131072 elements
  // are too many to keep one by one.
  QTest::newRow("bounded: merged tiles")
      << 256ll << 512ll << 2ll << 2ll << 4ll << 8ll << 64ll << 64ll << 4ll << 8ll << false;
  QTest::newRow("exactly the element bound")
      << 256ll << 256ll << 128ll << 128ll << 128ll << 128ll << 2ll << 2ll << 128ll << 128ll << true;
  QTest::newRow("one element over the bound") << 1ll << 65537ll << 1ll << 65537ll << 1ll << 65537ll
                                              << 1ll << 1ll << 1ll << 65537ll << false;
}

void TestHeatMap::tileExtent() {
  QFETCH(qint64, rows);
  QFETCH(qint64, cols);
  QFETCH(qint64, groupRows);
  QFETCH(qint64, groupCols);
  interp::ErrorMap m = mapOf(rows, cols, groupRows, groupCols);
  QCOMPARE(m.rows, rows);
  QCOMPARE(m.cols, cols);
  QTEST(qint64(m.tileRows), "tileRows");
  QTEST(qint64(m.tileCols), "tileCols");
  QTEST(qint64(m.gridRows), "gridRows");
  QTEST(qint64(m.gridCols), "gridCols");
  QCOMPARE(qint64(m.tiles.size()), m.gridRows * m.gridCols);
  QVERIFY(qint64(m.tiles.size()) <= interp::ErrorMap::kMaxTiles);
  QTEST(qint64(m.tiles.back().rows), "lastRows");
  QTEST(qint64(m.tiles.back().cols), "lastCols");
  QTEST(!m.elements.empty(), "elementsKept");
  // The tiles cover the output exactly once.
  qint64 covered = 0;
  for (const interp::TileError& t : m.tiles)
    covered += t.rows * t.cols;
  QCOMPARE(covered, rows * cols);
  QCOMPARE(m.tileAt(rows - 1, cols - 1), &m.tiles.back());
  QCOMPARE(m.tileAt(rows, 0), nullptr);
}

void TestHeatMap::tileAggregates() {
  // 4 x 4 in 2 x 2 tiles; tile 1 (top right) has two wrong elements, the first at (0, 3) in
  // row-major order though (1, 2) is larger; tile 2 has small errors only; tile 3 one NaN.
  auto err = [](std::int64_t r, std::int64_t c) -> double {
    if (r == 0 && c == 3)
      return 0.75;
    if (r == 1 && c == 2)
      return 2.0;
    if (r == 3 && c == 0)
      return 0.125;
    if (r == 2 && c == 1)
      return 0.25;
    if (r == 3 && c == 3)
      return std::numeric_limits<double>::infinity();
    return 0.0;
  };
  interp::ErrorMap m = mapOf(4, 4, 2, 2, err);
  QCOMPARE(m.tiles.size(), std::size_t(4));
  QCOMPARE(m.tiles[0].mismatches, 0);
  QCOMPARE(m.tiles[0].worst, -1); // exact
  QCOMPARE(m.tiles[0].maxAbsError, 0.0);
  QCOMPARE(m.tiles[1].mismatches, 2);
  QCOMPARE(m.tiles[1].worst, 3); // (0, 3): first wrong, not the largest
  QCOMPARE(m.tiles[1].maxAbsError, 2.0);
  QCOMPARE(m.tiles[2].mismatches, 0);
  QCOMPARE(m.tiles[2].worst, 2 * 4 + 1); // (2, 1): the largest of the small errors
  QCOMPARE(m.tiles[2].maxAbsError, 0.25);
  QCOMPARE(m.tiles[3].mismatches, 1);
  QVERIFY(std::isinf(m.tiles[3].maxAbsError));
  QCOMPARE(m.elements[3], 0.75f);
  QVERIFY(m.wrong[6] && !m.wrong[3 * 4]);
  // Unwritten elements are counted per tile.
  interp::ErrorMap none = mapOf(4, 4, 0, 0);
  QCOMPARE(none.tiles[0].unwritten, none.tiles[0].rows * none.tiles[0].cols);
}

void TestHeatMap::strayWriterLoses() {
  // Twelve 2 x 2 tiles and one writer that wrote a single element: the tile is 2 x 2.
  interp::ErrorMap m = interp::buildErrorMap(6, 4, [](std::int64_t e) {
    interp::ElementError x;
    std::int64_t r = e / 4, c = e % 4;
    x.written = true;
    x.group = (r == 5 && c == 3) ? 999 : (r / 2) * 10 + c / 2;
    return x;
  });
  QCOMPARE(m.tileRows, 2);
  QCOMPARE(m.tileCols, 2);
}

void TestHeatMap::scale_data() {
  QTest::addColumn<double>("error");
  QTest::addColumn<double>("position");
  // Scale 1e-4 .. 1e0 (logLo -4, logHi 0).
  QTest::newRow("exact") << 0.0 << -1.0;
  QTest::newRow("smallest") << 1e-4 << 0.0;
  QTest::newRow("below the smallest") << 1e-9 << 0.0;
  QTest::newRow("middle decade") << 1e-2 << 0.5;
  QTest::newRow("one decade below the top") << 1e-1 << 0.75;
  QTest::newRow("largest") << 1.0 << 1.0;
  QTest::newRow("above") << 10.0 << 1.0;
  QTest::newRow("infinite (never written)") << std::numeric_limits<double>::infinity() << 1.0;
  QTest::newRow("nan") << std::numeric_limits<double>::quiet_NaN() << 1.0;
}

void TestHeatMap::scale() {
  QFETCH(double, error);
  views::HeatScale s;
  s.logLo = -4;
  s.logHi = 0;
  QFETCH(double, position);
  QVERIFY2(std::fabs(s.position(error) - position) < 1e-12,
           qPrintable(QString::number(s.position(error))));
  const QColor neutral(0x80, 0x80, 0x80);
  QCOMPARE(s.colour(error, false, neutral) == neutral, position < 0);
  QCOMPARE(s.colour(error, true, neutral) == neutral, position < 0);
  if (position >= 0) {
    // Within tolerance on the ramp's first half, wrong on its second: never the same colour,
    // and a correct output's largest error is orange, not red.
    QCOMPARE(s.colour(error, false, neutral), views::HeatScale::ramp(0.5 * position));
    QCOMPARE(s.colour(error, true, neutral), views::HeatScale::ramp(0.5 + 0.5 * position));
  }
}

void TestHeatMap::scaleDecades_data() {
  QTest::addColumn<double>("small");
  QTest::addColumn<double>("large");
  QTest::addColumn<double>("logLo");
  QTest::addColumn<double>("logHi");
  QTest::newRow("three decades") << 1e-3 << 1.0 << -3.0 << 0.0;
  QTest::newRow("at least one decade") << 0.5 << 0.5 << std::log10(0.5) - 1 << std::log10(0.5);
  QTest::newRow("at most eight decades") << 1e-12 << 100.0 << -6.0 << 2.0;
  QTest::newRow("nothing but exact") << 0.0 << 0.0 << -7.0 << 0.0;
}

void TestHeatMap::scaleDecades() {
  QFETCH(double, small);
  QFETCH(double, large);
  interp::ErrorMap m = mapOf(2, 2, 1, 1, [&](std::int64_t r, std::int64_t c) {
    return r == 0 && c == 0 ? small : r == 1 && c == 1 ? large : 0.0;
  });
  views::HeatScale s = views::HeatScale::of(m);
  QFETCH(double, logLo);
  QFETCH(double, logHi);
  QVERIFY2(std::fabs(s.logLo - logLo) < 1e-9, qPrintable(QString::number(s.logLo)));
  QVERIFY2(std::fabs(s.logHi - logHi) < 1e-9, qPrintable(QString::number(s.logHi)));
}

void TestHeatMap::rampDarkens() {
  // Larger errors read darker: lightness falls monotonically along the ramp.
  int previous = 256;
  for (int i = 0; i <= 10; ++i) {
    int l = views::HeatScale::ramp(i / 10.0).lightness();
    QVERIFY2(l < previous, qPrintable(QStringLiteral("step %1: %2").arg(i).arg(l)));
    previous = l;
  }
}

void TestHeatMap::errorText_data() {
  QTest::addColumn<double>("value");
  QTest::addColumn<QString>("text");
  QTest::newRow("three digits") << 0.0123456 << "0.0123";
  QTest::newRow("rounded") << 1.9996 << "2";
  QTest::newRow("large") << 123456.0 << "1.23e+05";
  QTest::newRow("zero") << 0.0 << "0";
  QTest::newRow("inf") << std::numeric_limits<double>::infinity() << "inf";
  QTest::newRow("-inf") << -std::numeric_limits<double>::infinity() << "inf";
  QTest::newRow("nan") << std::numeric_limits<double>::quiet_NaN() << "nan";
}

void TestHeatMap::errorText() {
  // The hover text and the verdict's rows (RunData) say an error the same way.
  QFETCH(double, value);
  QFETCH(QString, text);
  QCOMPARE(views::errorText(value), text);
}

void TestHeatMap::hit_data() {
  QTest::addColumn<bool>("elements");
  QTest::addColumn<QRectF>("bounds");
  QTest::addColumn<QPointF>("point");
  QTest::addColumn<int>("tile");
  QTest::addColumn<qint64>("row");
  QTest::addColumn<qint64>("col");
  // An 8 x 8 output in 4 x 4 tiles: 2 x 2 tile cells of 50 px in a 100 x 100 square.
  QRectF square(0, 0, 100, 100);
  QTest::newRow("tile 0") << false << square << QPointF(10, 10) << 0 << 0ll << 0ll;
  QTest::newRow("tile 1") << false << square << QPointF(50, 0) << 1 << 0ll << 4ll;
  QTest::newRow("tile 2 just below the boundary")
      << false << square << QPointF(49.9, 50) << 2 << 4ll << 0ll;
  QTest::newRow("bottom-right corner") << false << square << QPointF(100, 100) << 3 << 4ll << 4ll;
  QTest::newRow("outside left") << false << square << QPointF(-0.5, 10) << -1 << -1ll << -1ll;
  QTest::newRow("outside below") << false << square << QPointF(10, 100.5) << -1 << -1ll << -1ll;
  // A 200 x 100 box: square cells of 50 px, centred (the map spans x 50..150).
  QRectF wide(0, 0, 200, 100);
  QTest::newRow("centred: left margin") << false << wide << QPointF(40, 50) << -1 << -1ll << -1ll;
  QTest::newRow("centred: tile 1") << false << wide << QPointF(110, 10) << 1 << 0ll << 4ll;
  // Elements: 8 x 8 cells of 12.5 px.
  QTest::newRow("element (2, 5)") << true << square << QPointF(5 * 12.5 + 1, 2 * 12.5 + 1) << 1
                                  << 2ll << 5ll;
  QTest::newRow("element (7, 0)") << true << square << QPointF(0, 99) << 2 << 7ll << 0ll;
}

void TestHeatMap::hit() {
  QFETCH(bool, elements);
  QFETCH(QRectF, bounds);
  QFETCH(QPointF, point);
  interp::ErrorMap m = mapOf(8, 8, 4, 4);
  views::HeatMapGeometry g = views::HeatMapGeometry::fit(m, elements, bounds);
  QCOMPARE(g.elements, elements);
  views::HeatHit h = g.hit(point);
  QTEST(h.tile, "tile");
  QTEST(qint64(h.row), "row");
  QTEST(qint64(h.col), "col");
  if (h.valid()) {
    QVERIFY(g.tileRect(h.tile).adjusted(-1e-9, -1e-9, 1e-9, 1e-9).contains(point));
    QCOMPARE(h.element, elements);
  }
}

void TestHeatMap::vectorStrip() {
  // A vector (k-means indices) is one strip across the width, tall enough to hover.
  interp::ErrorMap m = mapOf(1, 64, 1, 16);
  views::HeatMapGeometry g = views::HeatMapGeometry::fit(m, false, QRectF(0, 0, 400, 300), 24);
  QCOMPARE(g.cellCols(), 4);
  QCOMPARE(g.cellWidth, 100.0);
  QCOMPARE(g.cellHeight, 24.0); // 1 x 16 tiles: as wide as allowed (8:1), then the strip minimum
  views::HeatMapGeometry e = views::HeatMapGeometry::fit(m, true, QRectF(0, 0, 400, 300), 24);
  QCOMPARE(e.cellWidth, 6.25);
  QCOMPARE(e.cellHeight, 24.0);
  QCOMPARE(e.hit(QPointF(399, 150)).col, 63);
  // A map without elements kept never switches to element cells.
  interp::ErrorMap big = mapOf(1, 70000, 1, 70000);
  QVERIFY(!views::HeatMapGeometry::fit(big, true, QRectF(0, 0, 400, 300)).elements);
}

void TestHeatMap::tileAspect() {
  // One-row tiles (a softmax's rows): cells 8 times wider than tall, not 64 times.
  interp::ErrorMap m = mapOf(16, 64, 1, 64);
  views::HeatMapGeometry g = views::HeatMapGeometry::fit(m, false, QRectF(0, 0, 400, 400));
  QCOMPARE(g.cellHeight, 25.0);
  QCOMPARE(g.cellWidth, 200.0);
  QCOMPARE(g.area, QRectF(100, 0, 200, 400));
  QCOMPARE(g.hit(QPointF(150, 30)).tile, 1);
  QVERIFY(!g.hit(QPointF(90, 30)).valid());
  // Tall tiles the other way round; elements stay square.
  interp::ErrorMap tall = mapOf(64, 16, 64, 2);
  views::HeatMapGeometry t = views::HeatMapGeometry::fit(tall, false, QRectF(0, 0, 400, 400));
  QCOMPARE(t.cellWidth * 8, t.cellHeight);
  views::HeatMapGeometry e = views::HeatMapGeometry::fit(m, true, QRectF(0, 0, 640, 400));
  QCOMPARE(e.cellWidth, e.cellHeight);
}

void TestHeatMap::toolTip() {
  interp::OutputVerdict o;
  o.name = "C";
  o.map = mapOf(4, 4, 2, 2,
                [](std::int64_t r, std::int64_t c) { return r == 1 && c == 3 ? 1.5 : 0.0; });
  interp::TileError& t = o.map.tiles[1];
  t.writtenBy.known = true;
  t.writtenBy.line = 63;
  t.writtenBy.column = 7;
  t.writtenBy.op = "epilogue.store";
  t.writtenBy.role = "main";
  t.writtenBy.instance = "warp 3";
  t.writtenBy.cta = 1;
  t.writtenBy.tile = {0, 1};
  views::HeatMapGeometry g = views::HeatMapGeometry::fit(o.map, false, QRectF(0, 0, 100, 100));
  QString tip = views::heatToolTip(o, g, g.hit(QPointF(75, 25)));
  QVERIFY2(tip.contains(QStringLiteral("tile rows 0–1, columns 2–3: 1 of 4 wrong")),
           qPrintable(tip));
  QVERIFY2(tip.contains(QStringLiteral("max abs error 1.5")), qPrintable(tip));
  QVERIFY2(tip.contains(QStringLiteral("first wrong element (1, 3) written by line 63:7 "
                                       "epilogue.store (role main, warp 3, CTA 1, tile [0, 1])")),
           qPrintable(tip));
  QString exact = views::heatToolTip(o, g, g.hit(QPointF(25, 25)));
  QVERIFY2(exact.endsWith(QStringLiteral("exact")), qPrintable(exact));
  views::HeatMapGeometry ge = views::HeatMapGeometry::fit(o.map, true, QRectF(0, 0, 100, 100));
  QString element = views::heatToolTip(o, ge, ge.hit(QPointF(80, 30)));
  QVERIFY2(element.startsWith(QStringLiteral("C element (1, 3): |error| 1.5 (wrong)")),
           qPrintable(element));
  QVERIFY(views::heatToolTip(o, g, views::HeatHit{}).isEmpty());
}

void TestHeatMap::contractLookup() {
  QString id, error;
  QString corpus = QStringLiteral(CAKE_CORPUS_DIR);
  QString w = views::findRunWorkload(corpus, test::corpusPath(kWrongGemm), &id, &error);
  QCOMPARE(QFileInfo(w).canonicalFilePath(),
           QFileInfo(test::corpusPath(QStringLiteral("workloads/ampere_gemm.json")))
               .canonicalFilePath());
  QCOMPARE(id, QStringLiteral("numerical/gemm-tile-from-ty"));
  QVERIFY(error.isEmpty());
  // The manifest file itself works as the folder does; a file of no case has none.
  QVERIFY(!views::findRunWorkload(corpus + QStringLiteral("/manifest.json"),
                                  test::corpusPath(kGoodGemm), &id, &error)
               .isEmpty());
  QCOMPARE(id, QStringLiteral("ampere_gemm_bf16"));
  QVERIFY(
      views::findRunWorkload(corpus, QStringLiteral("/tmp/elsewhere.cake"), &id, &error).isEmpty());
  QVERIFY2(error.contains(QStringLiteral("not a case of the corpus manifest")), qPrintable(error));
  QVERIFY2(error.endsWith(QStringLiteral("choose one with Run > Choose Workload Contract…")),
           qPrintable(error));
}

void TestHeatMap::wrongGemmMap() {
  std::atomic<bool> cancel{false};
  QString path = test::corpusPath(kWrongGemm);
  views::RunSnapshotPtr run =
      views::runKernelOnCpu(*test::compiler(), path, test::readFile(path),
                            test::corpusPath(QStringLiteral("workloads/ampere_gemm.json")),
                            QStringLiteral("x"), cancel, {});
  QVERIFY(run->result && run->result->ran);
  QVERIFY(!run->result->correct);
  const interp::OutputVerdict& c = run->result->outputs.at(0);
  // Small shapes 256 x 256 in the kernel's 128 x 128 CTA tiles: a 2 x 2 map, elements kept.
  QCOMPARE(c.map.tileRows, 128);
  QCOMPARE(c.map.tileCols, 128);
  QCOMPARE(c.map.gridRows, 2);
  QCOMPARE(c.map.gridCols, 2);
  QCOMPARE(c.map.elements.size(), std::size_t(256 * 256));
  // t.y instead of t.x: the diagonal tiles are right, the others wrong, written at line 63.
  std::int64_t wrong = 0;
  for (int t = 0; t < 4; ++t) {
    const interp::TileError& tile = c.map.tiles[std::size_t(t)];
    bool diagonal = t == 0 || t == 3;
    QCOMPARE(tile.mismatches == 0, diagonal);
    wrong += tile.mismatches;
    if (!diagonal) {
      QVERIFY(tile.writtenBy.known);
      QCOMPARE(tile.writtenBy.line, 63u);
      QCOMPARE(tile.writtenBy.role, std::string("main"));
    }
  }
  QCOMPARE(wrong, c.mismatches);
}

void TestHeatMap::correctGemmMap() {
  std::atomic<bool> cancel{false};
  QString path = test::corpusPath(kGoodGemm);
  views::RunSnapshotPtr run =
      views::runKernelOnCpu(*test::compiler(), path, test::readFile(path),
                            test::corpusPath(QStringLiteral("workloads/ampere_gemm.json")),
                            QStringLiteral("x"), cancel, {});
  QVERIFY(run->result && run->result->correct);
  const interp::OutputVerdict& c = run->result->outputs.at(0);
  QCOMPARE(c.map.gridRows * c.map.gridCols, 4);
  for (const interp::TileError& t : c.map.tiles) {
    QCOMPARE(t.mismatches, 0);
    QCOMPARE(t.unwritten, 0);
    QVERIFY(t.maxAbsError <= 0.02 + 0.02 * 64);
  }
  std::vector<views::FindingRow> rows = views::runFindingRows(*run);
  QCOMPARE(rows.size(), std::size_t(1));
  QCOMPARE(int(rows[0].severity), int(Severity::Hint));
  QVERIFY2(rows[0].message.contains(QStringLiteral("correct; C: max abs error")),
           qPrintable(rows[0].message));
  QVERIFY2(rows[0].message.contains(QStringLiteral("0 of 65536 wrong")),
           qPrintable(rows[0].message));
  QVERIFY(views::runStatusText(*run).startsWith(QStringLiteral("CPU run: correct")));
}

void TestHeatMap::findingsRows() {
  std::atomic<bool> cancel{false};
  QString path = test::corpusPath(kWrongGemm);
  QString text = test::readFile(path);
  views::RunSnapshotPtr run = views::runKernelOnCpu(
      *test::compiler(), path, text, test::corpusPath(QStringLiteral("workloads/ampere_gemm.json")),
      QStringLiteral("numerical/gemm-tile-from-ty"), cancel, {});
  std::vector<views::FindingRow> rows = views::runFindingRows(*run);
  QVERIFY(rows.size() >= 2);
  // The verdict, then the wrong output at the line that wrote its first wrong element.
  QCOMPARE(int(rows[0].severity), int(Severity::Blocking));
  QVERIFY2(rows[0].message.contains(QStringLiteral("INCORRECT")), qPrintable(rows[0].message));
  QCOMPARE(rows[0].line, 63);
  QCOMPARE(rows[0].path, path);
  QCOMPARE(rows[1].code, QStringLiteral("dc-wrong-result"));
  QCOMPARE(rows[1].line, 63);
  QCOMPARE(rows[1].path, path);
  QVERIFY(views::runStatusText(*run).contains(QStringLiteral("first written at line 63")));

  // In the findings model: after the check's findings while the text is the same, gone when a
  // check of another text arrives.
  views::FindingsModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  views::CheckSnapshotPtr check = test::snapshotOf(path, text);
  model.setSnapshot(check);
  const int checkRows = model.rowCount();
  model.setRunRows(text, rows);
  QCOMPARE(model.rowCount(), checkRows + int(rows.size()));
  QCOMPARE(model.runRowCount(), int(rows.size()));
  int verdict = model.index(checkRows, 0).data(views::FindingsModel::FindingRole).toInt();
  QVERIFY(model.isRunFinding(verdict));
  QVERIFY(!model.isRunFinding(verdict - 1));
  QCOMPARE(model.index(checkRows, 0).data(views::FindingsModel::LineRole).toInt(), 63);
  model.setSnapshot(test::snapshotOf(path, text, 2)); // the same text checked again: kept
  QCOMPARE(model.runRowCount(), int(rows.size()));
  model.setSnapshot(test::snapshotOf(path, text + QStringLiteral("\n"), 3)); // edited: dropped
  QCOMPARE(model.runRowCount(), 0);
  QCOMPARE(model.rowCount(), checkRows);
  // A run of a text the shown check is not of never shows.
  model.setRunRows(text, rows);
  QCOMPARE(model.runRowCount(), 0);

  // No contract: one row that says why.
  views::RunSnapshot none;
  none.error = QStringLiteral("no workload contract for 'x.cake'");
  std::vector<views::FindingRow> why = views::runFindingRows(none);
  QCOMPARE(why.size(), std::size_t(1));
  QVERIFY(why[0].message.endsWith(none.error));
}

void TestHeatMap::progressAndCancel() {
  views::CompileSession session;
  session.setCompiler(test::compiler());
  views::JobsModel jobs;
  jobs.setSession(&session);
  QSignalSpy progress(&session, &views::CompileSession::jobProgress);
  QString path = test::corpusPath(kGoodGemm);
  QString text = test::readFile(path);
  QString contract = test::corpusPath(QStringLiteral("workloads/ampere_gemm.json"));
  auto compiler = test::compiler();
  // A run that completes reports increasing progress ending at 100 %.
  bool delivered = false;
  quint64 id = session.runTaskWithProgress(
      views::JobKind::Run, QStringLiteral("run"),
      [&](const std::atomic<bool>& cancel, const views::TaskProgress& report) {
        views::TaskOutcome out;
        out.value = views::runKernelOnCpu(*compiler, path, text, contract, {}, cancel, report);
        return out;
      },
      this, [&](quint64, const views::TaskOutcome& o) { delivered = bool(o.value); });
  QTRY_VERIFY_WITH_TIMEOUT(delivered, 120000);
  QVERIFY(progress.size() >= 2);
  int last = -1;
  for (const QList<QVariant>& p : progress) {
    QCOMPARE(p.at(0).toULongLong(), id);
    QVERIFY(p.at(1).toInt() > last);
    last = p.at(1).toInt();
  }
  QCOMPARE(last, 100);

  // Cancel while running: the interpreter stops at the next CTA and nothing is delivered.
  std::atomic<bool> sawCancel{false};
  std::shared_ptr<const views::RunSnapshot> stopped;
  bool cancelledDelivered = false;
  std::atomic<bool> started{false};
  quint64 second = session.runTaskWithProgress(
      views::JobKind::Run, QStringLiteral("run"),
      [&](const std::atomic<bool>& cancel, const views::TaskProgress& report) {
        views::TaskOutcome out;
        auto snap =
            views::runKernelOnCpu(*compiler, path, text, contract, {}, cancel, [&](double f) {
              report(f);
              // Hold the first CTA until the cancel arrives, so
              // the run cannot finish first.
              started = true;
              for (int i = 0; i < 2000 && !cancel.load(); ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            });
        sawCancel = snap->result->cancelled;
        stopped = snap;
        out.value = snap;
        return out;
      },
      this, [&](quint64, const views::TaskOutcome&) { cancelledDelivered = true; });
  QTRY_VERIFY_WITH_TIMEOUT(started.load(), 60000);
  QVERIFY(session.cancelJob(second));
  session.waitForIdle();
  QCoreApplication::processEvents();
  QVERIFY(sawCancel.load());
  QVERIFY(stopped && !stopped->result->ran && stopped->result->outputs.empty());
  QVERIFY(!cancelledDelivered);
  QCOMPARE(jobs.state(jobs.rowOf(second)), views::JobState::Cancelled);
  QCOMPARE(jobs.index(jobs.rowOf(id), views::JobsModel::ProgressColumn)
               .data(views::JobsModel::ProgressRole)
               .toInt(),
           100);
}

QTEST_GUILESS_MAIN(TestHeatMap)
#include "tst_heatmap.moc"
