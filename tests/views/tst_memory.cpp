// Memory layout tests: the byte map of the Hopper GEMM (rows, stages, mbarrier storage, free
// space, the target's limit), overlaps (detected, merged, sanctioned for pool views), byte map
// geometry, TMEM columns, and the bank grid and bank load against the verifier's own model.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ViewsTestUtil.h"
#include "cake/Verify/BankModel.h"
#include "cake/views/MemoryMap.h"

#include <QtTest>

using namespace cake;
using views::MemoryRegion;

namespace {
MemoryRegion region(int buffer, qint64 offset, qint64 bytes, int stage = -1) {
  MemoryRegion r;
  r.buffer = buffer;
  r.offset = offset;
  r.bytes = bytes;
  r.stage = stage;
  return r;
}
} // namespace

class TestMemory : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void hopperGemmByteMap() {
    auto snap = test::corpusSnapshot("hopper_gemm/gemm_ws.cake");
    const views::MemoryMap& m = snap->views->memory;
    QCOMPARE(m.target, QStringLiteral("sm_90a"));
    QCOMPARE(m.limit, 232448);
    QCOMPARE(m.buffersEnd, 163840);
    QCOMPARE(m.barrierBytes, 64); // full[4] + empty[4], 8 bytes each
    QCOMPARE(m.total, 163904);
    QCOMPARE(m.span(), 232448);
    QCOMPARE(m.rows.size(), 4);
    QCOMPARE(m.rows[0].label, QStringLiteral("a_s"));
    QVERIFY(m.rows[0].detail.contains("× 4 stages"));
    QVERIFY(m.rows[0].detail.contains("swizzle 128B"));
    QCOMPARE(m.rows[3].buffer, -1); // the CTA row
    // a_s: four 16 KiB stages back to back on its own row and on the CTA row.
    QVector<qint64> stages;
    for (const MemoryRegion& r : m.regions)
      if (r.row == 0)
        stages << r.offset;
    QCOMPARE(stages, QVector<qint64>({0, 16384, 32768, 49152}));
    int barriers = 0;
    qint64 free = 0;
    for (const MemoryRegion& r : m.regions) {
      if (r.kind == MemoryRegion::Kind::Barriers) {
        ++barriers;
        QCOMPARE(r.offset, 163840);
        QCOMPARE(r.bytes, 64);
      }
      if (r.kind == MemoryRegion::Kind::Free)
        free += r.bytes;
    }
    QCOMPARE(barriers, 1);
    QCOMPARE(free, 232448 - 163904);
    QVERIFY(m.overlaps.isEmpty());
    QVERIFY(!m.hasTmem);
  }

  void overlapsOfTheNegativeCorpus() {
    auto snap = test::corpusSnapshot("negative/smem-overlap.cake");
    const views::MemoryMap& m = snap->views->memory;
    QVERIFY(!m.overlaps.isEmpty());
    for (const views::MemoryOverlap& o : m.overlaps)
      QVERIFY(!o.sanctioned && o.begin < o.end);
    auto pools = test::corpusSnapshot("negative/pool-views-overlap.cake");
    bool sanctioned = false;
    for (const views::MemoryOverlap& o : pools->views->memory.overlaps)
      sanctioned = sanctioned || o.sanctioned;
    QVERIFY(sanctioned); // views of one pool share bytes; their lifetimes are the finding
    auto capacity = test::corpusSnapshot("negative/smem-capacity.cake");
    QVERIFY(capacity->views->memory.total > capacity->views->memory.limit);
    QCOMPARE(capacity->views->memory.span(), capacity->views->memory.total);
  }

  void findOverlaps() {
    // Buffer 0: two stages [0, 100) [100, 200); buffer 1 at [150, 350); buffer 2 in pool "p"
    // at [300, 400), buffer 3 in pool "p" at [380, 420).
    QVector<MemoryRegion> regions = {region(0, 0, 100, 0), region(0, 100, 100, 1), region(1, 150, 200),
                                     region(2, 300, 100), region(3, 380, 40)};
    QVector<QString> pools = {{}, {}, QStringLiteral("p"), QStringLiteral("p")};
    QVector<views::MemoryOverlap> o = views::findOverlaps(regions, pools);
    QCOMPARE(o.size(), 3);
    QCOMPARE(o[0].begin, 150);
    QCOMPARE(o[0].end, 200);
    QCOMPARE(o[0].a, 0);
    QCOMPARE(o[0].b, 1);
    QVERIFY(!o[0].sanctioned);
    QCOMPARE(o[1].begin, 300);
    QCOMPARE(o[1].end, 350);
    QCOMPARE(std::pair(o[1].a, o[1].b), std::pair(1, 2));
    QVERIFY(!o[1].sanctioned);
    QCOMPARE(o[2].begin, 380);
    QCOMPARE(o[2].end, 400);
    QVERIFY(o[2].sanctioned);
    // Adjacent stages overlapping the same buffer merge into one range.
    QVector<MemoryRegion> staged = {region(0, 0, 64, 0), region(0, 64, 64, 1), region(1, 32, 96)};
    QVector<views::MemoryOverlap> merged = views::findOverlaps(staged, {{}, {}});
    QCOMPARE(merged.size(), 1);
    QCOMPARE(merged[0].begin, 32);
    QCOMPARE(merged[0].end, 128);
    // Touching is not overlapping.
    QVERIFY(views::findOverlaps({region(0, 0, 10), region(1, 10, 10)}, {{}, {}}).isEmpty());
  }

  void byteMapGeometry_data() {
    QTest::addColumn<qint64>("offset");
    QTest::addColumn<qint64>("bytes");
    QTest::addColumn<int>("row");
    QTest::addColumn<QRectF>("rect");
    QTest::newRow("first KiB, row 0") << qint64(0) << qint64(1024) << 0 << QRectF(100, 10, 100, 20);
    QTest::newRow("middle, row 2") << qint64(5120) << qint64(2048) << 2 << QRectF(600, 70, 200, 20);
    QTest::newRow("a byte is a pixel") << qint64(9000) << qint64(1) << 1 << QRectF(978.90625, 40, 1, 20);
  }
  void byteMapGeometry() {
    QFETCH(qint64, offset);
    QFETCH(qint64, bytes);
    QFETCH(int, row);
    QFETCH(QRectF, rect);
    views::ByteMapGeometry g;
    g.left = 100;
    g.width = 1000;
    g.top = 10;
    g.rowHeight = 20;
    g.rowGap = 10;
    g.span = 10240;
    QRectF r = g.rectFor(offset, bytes, row);
    QVERIFY2(qAbs(r.x() - rect.x()) < 1e-6 && qAbs(r.width() - rect.width()) < 1e-6 && r.y() == rect.y() &&
                 r.height() == rect.height(),
             qPrintable(QStringLiteral("%1 %2 %3 %4").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height())));
    QCOMPARE(g.byteAt(g.xOf(offset)), offset);
    QCOMPARE(g.rowAt(r.center().y()), row);
    QCOMPARE(g.rowAt(g.rowTop(row) + 25), -1); // in the gap
    QCOMPARE(g.byteAt(0), 0);                  // clamped
    QCOMPARE(g.byteAt(5000), 10240);
  }

  void tensorMemory() {
    auto snap = test::corpusSnapshot("blackwell_gemm/gemm_tcgen05.cake");
    const views::MemoryMap& m = snap->views->memory;
    QVERIFY(m.hasTmem);
    QCOMPARE(m.tmemLimit, 512);
    QVERIFY(!m.tmem.isEmpty());
    for (const views::TmemRegion& t : m.tmem)
      QVERIFY(t.colBegin < t.colEnd && t.colEnd <= 512);
  }

  void bankGridFollowsTheSwizzle_data() {
    QTest::addColumn<int>("mode");
    QTest::newRow("none") << 0;
    QTest::newRow("32B") << 32;
    QTest::newRow("64B") << 64;
    QTest::newRow("128B") << 128;
  }
  void bankGridFollowsTheSwizzle() {
    QFETCH(int, mode);
    // An 8 KiB buffer at 16 KiB (aligned to every swizzle atom), 16 rows from its start.
    views::BankGrid g = views::buildBankGrid(16384, 8192, mode, 16384, 16);
    QCOMPARE(g.rows, 16);
    QCOMPARE(g.base, 16384);
    int b = mode == 128 ? 3 : mode == 64 ? 2 : mode == 32 ? 1 : 0;
    QSet<qint64> seen;
    for (int row = 0; row < 16; ++row)
      for (int bank = 0; bank < 32; ++bank) {
        qint64 logical = g.logicalAt(row, bank);
        QVERIFY(logical >= 0);
        seen.insert(logical);
        // Chunk c of row r sits in chunk c XOR (r mod 2^B) (Swizzle<B,4,3>); the row is kept.
        int chunk = int((logical % 128) / 16);
        QCOMPARE(int(logical / 128), row);
        QCOMPARE(bank / 4, chunk ^ (row & ((1 << b) - 1)));
        QCOMPARE(bank % 4, int((logical % 16) / 4));
        // The same function as the verifier's.
        QCOMPARE(verify::bankOf(verify::swizzleAddress(16384 + logical, mode)), bank);
        QCOMPARE(g.cellOf(16384 + logical), QPoint(bank, row));
      }
    QCOMPARE(seen.size(), 16 * 32); // a permutation
    // Outside the buffer: empty cells.
    views::BankGrid edge = views::buildBankGrid(16384, 200, mode, 16384, 2);
    int empty = 0;
    for (int bank = 0; bank < 32; ++bank)
      empty += edge.logicalAt(1, bank) < 0;
    QCOMPARE(empty, 32 - (200 - 128) / 4);
  }

  void bankHeat() {
    // 8 rows of 128 bytes, the first 16 bytes of each: without swizzle all in banks 0..3 (8-way);
    // with 128B swizzle one chunk per row lands in a different bank group (conflict-free).
    std::vector<std::int64_t> column;
    for (int r = 0; r < 8; ++r)
      column.push_back(r * 128);
    views::BankHeat none = views::bankHeat(column, 16, 0);
    QCOMPARE(none.degree, 8);
    QCOMPARE(none.wordsPerBank[0], 8);
    QCOMPARE(none.wordsPerBank[4], 0);
    QCOMPARE(none.physicalWords.size(), 32);
    views::BankHeat swizzled = views::bankHeat(column, 16, 128);
    QCOMPARE(swizzled.degree, 1);
    QCOMPARE(views::bankHeat(column, 16, 64).degree, 2);
    QCOMPARE(views::bankHeat(column, 16, 32).degree, 4);
    // Broadcast: the same word twice counts once.
    QCOMPARE(views::bankHeat({0, 0, 4}, 4, 0).degree, 1);
  }

  void bankHeatAgreesWithTheVerifier() {
    // For every access the performance analysis modelled in the corpus, the view's bank load
    // of its worst phase is the degree the verifier reports.
    int checked = 0;
    for (const QString& path : test::corpusFiles()) {
      auto snap = test::snapshotOf(path, test::readFile(path));
      const auto& m = snap->result.model;
      for (const verify::SmemAccessPattern& a : snap->result.verification.smemAccesses) {
        int mode = verify::swizzleModeBytes(m.buffers[a.buffer].swizzle);
        views::BankHeat h = views::bankHeat(a.phases[a.worstPhase], a.width, mode);
        QVERIFY2(h.degree == a.degree, qPrintable(path));
        for (const auto& phase : a.phases)
          QVERIFY(views::bankHeat(phase, a.width, mode).degree <= a.degree);
        ++checked;
      }
    }
    QVERIFY(checked > 5);
  }
};

QTEST_MAIN(TestMemory)
#include "tst_memory.moc"
