// Type-checker tests: one row per finding class of declarations, operations and kernel
// structure, each with its exact position; plus the resolved model of a valid kernel.
// SPDX-License-Identifier: GPL-3.0-or-later
// Before any Qt header: TileExprCode has a member named emit, which is a Qt macro.
#include "cake/Sema/RuntimeBound.h"

#include "TestUtil.h"

#include "cake/Sema/Interval.h"

#include <QtTest>

#include <limits>
#include <set>

using namespace cake;

namespace {
// Line 3 is %DECL%; line 19 is %OP% (inside the pipelined K loop); line 17 is %TILE% (inside
// the tile loop, outside the K loop).
const char* kTemplate = R"(kernel k target=sm_90a {
  const NUM = 128
  %DECL%
  param A : bf16[4096, 4096] role=input
  param O : f32[4096] role=output
  tensormap tA : bf16[128, 64] source=A swizzle=128B
  grid tiles=[32, 32] schedule=persistent
  role producer warps=0..4 regs=40
  role consumer warps=4..12 regs=232
  pipeline ring stages=4
  smem a_s : bf16[128, 64] offset=0 stages=4 swizzle=128B pipeline=ring
  mbarrier full count=1 producers=[producer] consumers=[consumer] pipeline=ring
  reg acc : f32[64, 128] scope=warpgroup
  reg x : f32[16] scope=thread
  on consumer {
    for t in tiles {
      %TILE%
      for k in 0..64 pipeline=ring {
        %OP%
      }
    }
  }
}
)";

std::string instantiate(const QString& decl, const QString& tile, const QString& op) {
  QString s = QString::fromUtf8(kTemplate);
  s.replace("%DECL%", decl.isEmpty() ? "const UNUSED = 0" : decl);
  s.replace("%TILE%", tile.isEmpty() ? "cta.sync" : tile);
  s.replace("%OP%", op.isEmpty() ? "mbarrier.try_wait full[ring.slot] parity=ring.phase" : op);
  return s.toStdString();
}

/// Type checking alone: the template is a well-typed kernel, not a complete protocol (nobody
/// arrives on `full`), so the verifier's findings are the business of the verifier tests.
verify::VerifyOptions semaOnly() {
  verify::VerifyOptions o;
  o.analyses = false;
  return o;
}

QStringList check(const std::string& text, QString* messages = nullptr) {
  auto r = test::compiler().check("k.cake", text, semaOnly());
  if (messages)
    *messages = test::messages(r.diagnostics);
  return test::codes(r.diagnostics, *r.sources);
}
} // namespace

class TestSema : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void templateIsValid() {
    QString m;
    QCOMPARE(check(instantiate({}, {}, {}), &m), QStringList{});
  }

  void operations_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("unknown primitive") << "tma.lod a_s[ring.slot], tA[0, 0], full[ring.slot]"
                                       << QStringList{"sem-unknown-primitive@19:9"};
    QTest::newRow("implicit primitive") << "setmaxnreg regs=40 action=dec"
                                        << QStringList{"sem-implicit-primitive@19:9"};
    QTest::newRow("not on target") << "tcgen05.commit full[ring.slot]"
                                   << QStringList{"hw-primitive-not-on-target@19:9"};
    QTest::newRow("too few operands") << "mbarrier.try_wait parity=0"
                                      << QStringList{"sem-operand-count@19:9"};
    QTest::newRow("too many operands") << "mbarrier.try_wait full[0], full[1] parity=0"
                                       << QStringList{"sem-operand-count@19:36"};
    QTest::newRow("undefined operand") << "mbarrier.try_wait fulll[ring.slot] parity=0"
                                       << QStringList{"sem-undefined-name@19:27"};
    QTest::newRow("operand kind") << "mbarrier.try_wait a_s[ring.slot] parity=0"
                                  << QStringList{"sem-operand-kind@19:27"};
    QTest::newRow("operand space") << "tma.load x, tA[0, 0], full[ring.slot]"
                                   << QStringList{"sem-operand-space@19:18"};
    QTest::newRow("operand dtype") << "wgmma.mma acc, acc, a_s[ring.slot]"
                                   << QStringList{"dc-dtype-mismatch@19:24"};
    QTest::newRow("stage not selected") << "tma.load a_s, tA[0, 0], full[ring.slot]"
                                        << QStringList{"sem-index-count@19:18"};
    QTest::newRow("box coordinates") << "tma.load a_s[ring.slot], tA[0], full[ring.slot]"
                                     << QStringList{"sem-index-count@19:34"};
    QTest::newRow("barrier array needs index") << "mbarrier.try_wait full parity=0"
                                               << QStringList{"sem-index-count@19:27"};
    QTest::newRow("rank of subscript") << "tma.load a_s[ring.slot, 0], tA[0, 0], full[ring.slot]"
                                       << QStringList{"sem-index-count@19:18"};
    QTest::newRow("slice out of bounds")
        << "wgmma.mma acc, a_s[ring.slot, wg * 64 +: 128, :], a_s[ring.slot]"
        << QStringList{"dc-slice-out-of-bounds@19:39"};
    // Congruences: (lane * 4) % 16 is a multiple of 4 up to 12, so the slice ends at 16.
    QTest::newRow("aligned modulo slice") << "ew.fill x[(lane * 4) % 16 +: 4] value=0.0"
                                          << QStringList{};
    QTest::newRow("misaligned modulo slice") << "ew.fill x[(lane * 4 + 1) % 16 +: 4] value=0.0"
                                             << QStringList{"dc-slice-out-of-bounds@19:19"};
    QTest::newRow("aligned shifted slice") << "ew.fill x[(k << 2) % 16 +: 4] value=0.0"
                                           << QStringList{};
    QTest::newRow("stage out of bounds") << "tma.load a_s[4], tA[0, 0], full[ring.slot]"
                                         << QStringList{"dc-slice-out-of-bounds@19:22"};
    QTest::newRow("barrier index out of bounds") << "mbarrier.try_wait full[k] parity=0"
                                                 << QStringList{"dc-slice-out-of-bounds@19:32"};
    // Exact boundaries of the 4-element barrier array and the 4-stage buffer: the last index
    // is accepted, one past it (or one below 0) is not, for constants and for ranges alike.
    QTest::newRow("barrier index size-1") << "mbarrier.try_wait full[3] parity=0" << QStringList{};
    QTest::newRow("barrier index size")
        << "mbarrier.try_wait full[4] parity=0" << QStringList{"dc-slice-out-of-bounds@19:32"};
    QTest::newRow("barrier index -1")
        << "mbarrier.try_wait full[0 - 1] parity=0" << QStringList{"dc-slice-out-of-bounds@19:32"};
    QTest::newRow("barrier range up to size-1")
        << "mbarrier.try_wait full[k % 4] parity=0" << QStringList{};
    QTest::newRow("barrier range up to size") << "mbarrier.try_wait full[k % 4 + 1] parity=0"
                                              << QStringList{"dc-slice-out-of-bounds@19:32"};
    QTest::newRow("barrier range from -1") << "mbarrier.try_wait full[k % 4 - 1] parity=0"
                                           << QStringList{"dc-slice-out-of-bounds@19:32"};
    QTest::newRow("stage index stages-1")
        << "tma.load a_s[3], tA[0, 0], full[ring.slot]" << QStringList{};
    QTest::newRow("stage range up to stages") << "tma.load a_s[k % 4 + 1], tA[0, 0], full[0]"
                                              << QStringList{"dc-slice-out-of-bounds@19:22"};
    QTest::newRow("unknown attribute") << "mbarrier.try_wait full[ring.slot] parity=0 priority=1"
                                       << QStringList{"sem-unknown-attribute@19:52"};
    QTest::newRow("missing attribute") << "mbarrier.try_wait full[ring.slot]"
                                       << QStringList{"sem-missing-attribute@19:9"};
    QTest::newRow("enum value") << "mbarrier.arrive full[ring.slot] scope=block"
                                << QStringList{"sem-attribute-type@19:47"};
    QTest::newRow("int range") << "mbarrier.arrive_expect_tx full[ring.slot] bytes=0"
                               << QStringList{"sem-attribute-type@19:57"};
    QTest::newRow("attribute not constant") << "mbarrier.arrive_expect_tx full[ring.slot] bytes=k"
                                            << QStringList{"sem-not-constant@19:57"};
    QTest::newRow("primitive constraint")
        << "tma.load a_s[ring.slot, 0 +: 64, :], tA[0, 0], full[ring.slot]"
        << QStringList{"dc-shape-mismatch@19:9"};
    QTest::newRow("undefined index name") << "tma.load a_s[ring.slot], tA[q, 0], full[ring.slot]"
                                          << QStringList{"sem-undefined-name@19:37"};
    QTest::newRow("bare tile variable") << "tma.load a_s[ring.slot], tA[t, 0], full[ring.slot]"
                                        << QStringList{"sem-invalid-expression@19:37"};
    QTest::newRow("unknown tile member") << "tma.load a_s[ring.slot], tA[t.w, 0], full[ring.slot]"
                                         << QStringList{"sem-invalid-expression@19:37"};
    QTest::newRow("pipeline member") << "tma.load a_s[ring.stage], tA[0, 0], full[ring.slot]"
                                     << QStringList{"sem-invalid-expression@19:22"};
    QTest::newRow("division by zero") << "tma.load a_s[ring.slot], tA[1 / 0, 0], full[ring.slot]"
                                      << QStringList{"sem-arithmetic@19:41"};
    QTest::newRow("float index") << "tma.load a_s[ring.slot], tA[1.5, 0], full[ring.slot]"
                                 << QStringList{"sem-invalid-expression@19:37"};
    QTest::newRow("declaration as integer") << "tma.load a_s[ring.slot], tA[a_s, 0], full[ring.slot]"
                                            << QStringList{"sem-invalid-expression@19:37"};
    QTest::newRow("nested role block") << "on producer {\n        }"
                                       << QStringList{"sem-nested-role-block@19:9"};
  }
  void operations() {
    QFETCH(QString, op);
    QFETCH(QStringList, expected);
    QString m;
    QStringList got = check(instantiate({}, {}, op), &m);
    QVERIFY2(got == expected, qPrintable(got.join(", ") + "\n" + m));
  }

  // Every subscript check meets its extent exactly: the last element is accepted, one past it
  // (or one below zero) is refused, for barrier indices, stage indices and dimension slices.
  void boundsAtTheEdge_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<QStringList>("expected");
    QTest::addColumn<QString>("message");
    const QString dc = "dc-slice-out-of-bounds@19:";
    QTest::newRow("barrier index size-1") << "mbarrier.try_wait full[3] parity=0" << QStringList{}
                                          << QString();
    QTest::newRow("barrier index size") << "mbarrier.try_wait full[4] parity=0"
                                        << QStringList{dc + "32"} << "can be 4, outside 0..4";
    QTest::newRow("barrier index -1") << "mbarrier.try_wait full[0 - 1] parity=0"
                                      << QStringList{dc + "32"} << "can be -1, outside 0..4";
    QTest::newRow("barrier range ends at size-1") << "mbarrier.try_wait full[k % 4] parity=0"
                                                  << QStringList{} << QString();
    QTest::newRow("barrier range reaches size") << "mbarrier.try_wait full[k % 5] parity=0"
                                                << QStringList{dc + "32"} << "can be 4, outside";
    QTest::newRow("stage index size-1") << "tma.load a_s[3], tA[0, 0], full[ring.slot]"
                                        << QStringList{} << QString();
    QTest::newRow("stage index size") << "tma.load a_s[4], tA[0, 0], full[ring.slot]"
                                      << QStringList{dc + "22"}
                                      << "stage index of 'a_s' can be 4, outside 0..4";
    QTest::newRow("stage index -1") << "tma.load a_s[0 - 1], tA[0, 0], full[ring.slot]"
                                    << QStringList{dc + "22"} << "can be -1, outside 0..4";
    QTest::newRow("slice ends at extent") << "ew.fill x[12 +: 4] value=0.0" << QStringList{}
                                          << QString();
    QTest::newRow("slice one past extent") << "ew.fill x[13 +: 4] value=0.0"
                                           << QStringList{dc + "19"}
                                           << "can reach index 16, but its extent is 16";
    QTest::newRow("slice starts at 0") << "ew.fill x[0 +: 16] value=0.0" << QStringList{}
                                       << QString();
    QTest::newRow("slice starts at -1") << "ew.fill x[0 - 1 +: 4] value=0.0"
                                        << QStringList{dc + "19"} << "starts at -1";
    QTest::newRow("slice range ends at extent") << "ew.fill x[k % 4 * 4 +: 4] value=0.0"
                                                << QStringList{} << QString();
    QTest::newRow("slice range past extent") << "ew.fill x[k % 4 * 4 + 1 +: 4] value=0.0"
                                             << QStringList{dc + "19"} << "can reach index 16";
  }
  void boundsAtTheEdge() {
    QFETCH(QString, op);
    QFETCH(QStringList, expected);
    QFETCH(QString, message);
    QString m;
    QStringList got = check(instantiate({}, {}, op), &m);
    QVERIFY2(got == expected, qPrintable(got.join(", ") + "\n" + m));
    QVERIFY2(m.contains(message), qPrintable(m));
  }

  // The shared helper itself, including a start whose last element would overflow 64 bits.
  void extentsSaturate() {
    // fuzz_parse: grid tiles=[16, INT64_MAX] overflowed the tile count (signed overflow).
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    sema::GridInfo grid;
    grid.tiles = {16, kMax};
    QCOMPARE(grid.tileCount(), kMax);
    grid.tiles = {-16, kMax};
    QCOMPARE(grid.tileCount(), std::numeric_limits<std::int64_t>::min());
    grid.tiles = {16, 1024};
    QCOMPARE(grid.tileCount(), std::int64_t(16384));
    sema::BufferInfo buf;
    buf.dtype = ir::DType::BF16;
    buf.shape = {kMax / 4, 8};
    QCOMPARE(buf.elements(), kMax);
    QCOMPARE(buf.stageBytes(), kMax / 8 + 1);
    buf.shape = {3, 5};
    QCOMPARE(buf.stageBytes(), std::int64_t(30));
  }

  void checkInBoundsHelper_data() {
    QTest::addColumn<qint64>("lo");
    QTest::addColumn<qint64>("hi");
    QTest::addColumn<qint64>("count");
    QTest::addColumn<qint64>("extent");
    QTest::addColumn<int>("verdict"); // 0 in bounds, 1 below, 2 past the end
    QTest::addColumn<qint64>("index");
    const qint64 max = std::numeric_limits<qint64>::max();
    QTest::newRow("point at extent-1") << 0ll << 3ll << 1ll << 4ll << 0 << 0ll;
    QTest::newRow("point at extent") << 0ll << 4ll << 1ll << 4ll << 2 << 4ll;
    QTest::newRow("point below") << -1ll << 2ll << 1ll << 4ll << 1 << -1ll;
    QTest::newRow("slice ends at extent") << 0ll << 12ll << 4ll << 16ll << 0 << 0ll;
    QTest::newRow("slice one past") << 0ll << 13ll << 4ll << 16ll << 2 << 16ll;
    QTest::newRow("whole extent") << 0ll << 0ll << 16ll << 16ll << 0 << 0ll;
    QTest::newRow("no wrap near int64 max") << 0ll << max << 4ll << 16ll << 2 << max;
  }
  void checkInBoundsHelper() {
    QFETCH(qint64, lo);
    QFETCH(qint64, hi);
    QFETCH(qint64, count);
    QFETCH(qint64, extent);
    QFETCH(int, verdict);
    QFETCH(qint64, index);
    auto out = sema::checkInBounds(sema::Interval{lo, hi}, count, extent);
    QCOMPARE(int(!out ? 0 : out->below ? 1 : 2), verdict);
    if (out)
      QCOMPARE(qint64(out->index), index);
  }

  void pipelineIndexOutsideLoop() {
    QCOMPARE(check(instantiate({}, "mbarrier.try_wait full[ring.slot] parity=0", {})),
             QStringList{"sem-pipeline-index-outside-loop@17:30"});
  }

  void declarations_data() {
    QTest::addColumn<QString>("decl");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("duplicate name") << "param O : f32[4] role=input"
                                    << QStringList{"sem-duplicate-name@5:9"};
    QTest::newRow("reserved name") << "const tid = 1" << QStringList{"sem-reserved-name@3:9"};
    QTest::newRow("dtype name") << "const bf16 = 1" << QStringList{"sem-reserved-name@3:9"};
    QTest::newRow("unknown type") << "smem s : bf17[4] offset=0"
                                  << QStringList{"sem-unknown-type@3:12"};
    QTest::newRow("dtype not on target") << "smem s : f4e2m1[64] offset=0"
                                         << QStringList{"hw-dtype-not-on-target@3:12"};
    QTest::newRow("zero dimension") << "smem s : f32[0] offset=0"
                                    << QStringList{"sem-invalid-shape@3:16"};
    QTest::newRow("dynamic dimension") << "smem s : f32[tid] offset=0"
                                       << QStringList{"sem-not-constant@3:16"};
    QTest::newRow("missing offset") << "smem s : f32[4]" << QStringList{"sem-missing-attribute@3:3"};
    QTest::newRow("unknown attribute") << "smem s : f32[4] offset=0 swizle=128B"
                                       << QStringList{"sem-unknown-attribute@3:28"};
    QTest::newRow("swizzle value") << "smem s : f32[4] offset=0 swizzle=256B"
                                   << QStringList{"sem-attribute-type@3:36"};
    QTest::newRow("tensor memory on sm_90a") << "tmem d : f32[128, 256] cols=0..256"
                                             << QStringList{"hw-space-not-on-target@3:3"};
    QTest::newRow("overlapping roles") << "role extra warps=2..6"
                                       << QStringList{"sem-role-layout@3:20", "sem-role-layout@9:23"};
    QTest::newRow("too many threads") << "role extra warps=12..40"
                                      << QStringList{"hw-resource-limit@1:8"};
    QTest::newRow("register budget") << "role extra warps=12..16 regs=300"
                                     << QStringList{"sem-attribute-type@3:32"};
    QTest::newRow("source not a param") << "tensormap tX : bf16[128, 64] source=a_s"
                                        << QStringList{"sem-unknown-declaration@3:39"};
    QTest::newRow("box dtype") << "tensormap tX : f32[128, 64] source=A"
                               << QStringList{"dc-dtype-mismatch@3:18"};
    QTest::newRow("box rank") << "tensormap tX : bf16[64] source=A"
                              << QStringList{"dc-shape-mismatch@3:18"};
    QTest::newRow("pipeline and size")
        << "mbarrier m count=1 producers=[producer] consumers=[consumer] pipeline=ring size=2"
        << QStringList{"sem-attribute-type@3:78"};
    QTest::newRow("unknown role") << "mbarrier m count=1 producers=[prod] consumers=[consumer]"
                                  << QStringList{"sem-undefined-name@3:33"};
    QTest::newRow("stages disagree with pipeline") << "smem s : f32[4] offset=0 stages=2 pipeline=ring"
                                                   << QStringList{"dc-shape-mismatch@3:35"};
    QTest::newRow("constant overflow") << "const BIG = 9223372036854775807 + 1"
                                       << QStringList{"sem-arithmetic@3:15"};
    QTest::newRow("constant division by zero") << "const Z = NUM / 0"
                                               << QStringList{"sem-arithmetic@3:19"};
    QTest::newRow("constant uses later constant") << "const E = NUM + LATER"
                                                  << QStringList{"sem-undefined-name@3:19"};
    QTest::newRow("second grid") << "grid tiles=[1]" << QStringList{"sem-duplicate-name@7:3"};
    QTest::newRow("typed constant") << "const T : f32 = 1" << QStringList{"sem-attribute-type@3:13"};
  }
  void declarations() {
    QFETCH(QString, decl);
    QFETCH(QStringList, expected);
    QString m;
    QStringList got = check(instantiate(decl, {}, {}), &m);
    QVERIFY2(got == expected, qPrintable(got.join(", ") + "\n" + m));
  }

  // Run-time scalar parameters (docs/ir.md): the declaration's checks, the range as the
  // interval of every use, min/max/cdiv at the edge of a slice, and the misuses.
  void scalarParams_data() {
    QTest::addColumn<QString>("decl");
    QTest::addColumn<QString>("op");
    QTest::addColumn<QStringList>("expected");
    const QString n = "param n : i32 role=scalar range=[1, 4096]";
    QTest::newRow("valid in a subscript") << n << "ew.fill x[n % 4 +: 4] value=0.0" << QStringList{};
    QTest::newRow("range is the interval") << n << "ew.fill x[n +: 4] value=0.0"
                                           << QStringList{"dc-slice-out-of-bounds@19:19"};
    QTest::newRow("min at the edge") << n << "ew.fill x[min(n, 12) +: 4] value=0.0"
                                     << QStringList{};
    QTest::newRow("min past the edge") << n << "ew.fill x[min(n, 13) +: 4] value=0.0"
                                       << QStringList{"dc-slice-out-of-bounds@19:19"};
    QTest::newRow("max below zero") << n << "ew.fill x[max(n - 2, 0) % 4 +: 4] value=0.0"
                                    << QStringList{};
    QTest::newRow("cdiv rounds up, at the edge")
        << "param n : i32 role=scalar range=[1, 4097]" << "ew.fill x[cdiv(n, 512) + 3 +: 4] value=0.0"
        << QStringList{};
    QTest::newRow("cdiv rounds up, past the edge")
        << "param n : i32 role=scalar range=[1, 4097]" << "ew.fill x[cdiv(n, 512) + 4 +: 4] value=0.0"
        << QStringList{"dc-slice-out-of-bounds@19:19"};
    QTest::newRow("missing range") << "param n : i32 role=scalar" << QString()
                                   << QStringList{"sem-scalar-param@3:3"};
    QTest::newRow("reversed range") << "param n : i32 role=scalar range=[8, 1]" << QString()
                                    << QStringList{"sem-scalar-param@3:35"};
    QTest::newRow("range leaves i32") << "param n : i32 role=scalar range=[1, 2147483648]"
                                      << QString() << QStringList{"sem-scalar-param@3:39"};
    QTest::newRow("range end i32 max") << "param n : i32 role=scalar range=[1, 2147483647]"
                                       << QString() << QStringList{};
    QTest::newRow("range not constant") << "param n : i32 role=scalar range=[1, tid]" << QString()
                                        << QStringList{"sem-not-constant@3:39"};
    QTest::newRow("range not a pair") << "param n : i32 role=scalar range=[1, 2, 3]" << QString()
                                      << QStringList{"sem-scalar-param@3:35"};
    QTest::newRow("not i32") << "param n : f32 role=scalar range=[1, 2]" << QString()
                             << QStringList{"sem-scalar-param@3:13"};
    QTest::newRow("shaped") << "param n : i32[2] role=scalar range=[1, 2]" << QString()
                            << QStringList{"sem-scalar-param@3:13"};
    QTest::newRow("align") << "param n : i32 role=scalar range=[1, 2] align=16" << QString()
                           << QStringList{"sem-scalar-param@3:42"};
    QTest::newRow("range on a tensor") << "param T : f32[4] role=input range=[1, 2]" << QString()
                                       << QStringList{"sem-scalar-param@3:31"};
    QTest::newRow("slice size needs a constant") << n << "ew.fill x[0 +: n] value=0.0"
                                                 << QStringList{"sem-scalar-param@19:24"};
    QTest::newRow("used as an operand") << n << "mbarrier.try_wait n parity=0"
                                        << QStringList{"sem-scalar-param@19:27"};
    QTest::newRow("run-time attribute") << n << "mbarrier.try_wait full[ring.slot] parity=n & 1"
                                        << QStringList{};
  }
  void scalarParams() {
    QFETCH(QString, decl);
    QFETCH(QString, op);
    QFETCH(QStringList, expected);
    QString m;
    QStringList got = check(instantiate(decl, {}, op), &m);
    QVERIFY2(got == expected, qPrintable(got.join(", ") + "\n" + m));
  }

  void kernelStructure_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("no target") << "kernel k {\n  grid tiles=[1]\n  role r warps=0..1\n}\n"
                               << QStringList{"sem-missing-attribute@1:8"};
    QTest::newRow("no grid") << "kernel k target=sm_80 {\n  role r warps=0..1\n}\n"
                             << QStringList{"sem-missing-declaration@1:8"};
    QTest::newRow("no role") << "kernel k target=sm_80 {\n  grid tiles=[1]\n}\n"
                             << QStringList{"sem-missing-declaration@1:8"};
    QTest::newRow("gap between roles")
        << "kernel k target=sm_80 {\n  grid tiles=[1]\n  role a warps=0..1\n  role b warps=2..3\n}\n"
        << QStringList{"sem-role-layout@4:16"};
    QTest::newRow("op outside role") << "kernel k target=sm_80 {\n  grid tiles=[1]\n"
                                        "  role r warps=0..1\n  cta.sync\n}\n"
                                     << QStringList{"sem-op-outside-role@4:3"};
    QTest::newRow("unknown role block") << "kernel k target=sm_80 {\n  grid tiles=[1]\n"
                                           "  role r warps=0..1\n  on s {\n  }\n}\n"
                                        << QStringList{"sem-undefined-name@4:6"};
    QTest::newRow("empty loop") << "kernel k target=sm_80 {\n  grid tiles=[1]\n  role r warps=0..1\n"
                                   "  on r {\n    for i in 4..4 {\n    }\n  }\n}\n"
                                << QStringList{"sem-loop-bounds@5:14"};
    QTest::newRow("shadowing loop") << "kernel k target=sm_80 {\n  grid tiles=[1]\n  role r warps=0..1\n"
                                       "  on r {\n    for r in 0..4 {\n    }\n  }\n}\n"
                                    << QStringList{"sem-shadowed-name@5:9"};
    QTest::newRow("unknown kernel attribute") << "kernel k target=sm_80 arch=x {\n  grid tiles=[1]\n"
                                                 "  role r warps=0..1\n}\n"
                                              << QStringList{"sem-unknown-attribute@1:23"};
    QTest::newRow("syntax error does not cascade")
        << "kernel k target=sm_80 {\n  grid tiles=[1]\n  role r warps=0..1\n"
           "  reg x : f32[4] scope=thread $\n  on r {\n    ew.fill x value=0.0\n  }\n}\n"
        << QStringList{"syn-invalid-character@4:31"};
  }
  void kernelStructure() {
    QFETCH(QString, text);
    QFETCH(QStringList, expected);
    QString m;
    QStringList got = check(text.toStdString(), &m);
    QVERIFY2(got == expected, qPrintable(got.join(", ") + "\n" + m));
  }

  // Where an operand starts inside its buffer's row (reg::OperandFacts::rowOffset), the fact
  // that lets an MMA descriptor advance inside a swizzle atom: exact when constant, the common
  // step when it varies, 1 when unknown. a_s rows are 64 bf16 = 128 bytes.
  void rowFactsOfSlices_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<qint64>("rowOffset");
    QTest::addColumn<qint64>("rowBytes");
    QTest::addColumn<qint64>("bufferRowBytes");
    QTest::newRow("whole row") << "wgmma.mma acc, a_s[ring.slot, 0 +: 64, :], a_s[ring.slot]" << 0ll
                               << 128ll << 128ll;
    QTest::newRow("first K half")
        << "wgmma.mma acc, a_s[ring.slot, 0 +: 64, 0 +: 32], a_s[ring.slot, :, 0 +: 32]" << 0ll
        << 64ll << 128ll;
    QTest::newRow("second K half")
        << "wgmma.mma acc, a_s[ring.slot, 0 +: 64, 32 +: 32], a_s[ring.slot, :, 32 +: 32]" << 64ll
        << 64ll << 128ll;
    QTest::newRow("odd start")
        << "wgmma.mma acc, a_s[ring.slot, 0 +: 64, 24 +: 32], a_s[ring.slot, :, 24 +: 32]" << 48ll
        << 64ll << 128ll;
    QTest::newRow("k16 steps") << "wgmma.mma acc, a_s[ring.slot, 0 +: 64, k % 4 * 16 +: 16], "
                                  "a_s[ring.slot, :, k % 4 * 16 +: 16]"
                               << 32ll << 32ll << 128ll;
    QTest::newRow("k16 steps from 8") << "wgmma.mma acc, a_s[ring.slot, 0 +: 64, k % 3 * 16 + 8 +: "
                                         "16], a_s[ring.slot, :, k % 3 * 16 + 8 +: 16]"
                                      << 16ll << 32ll << 128ll;
  }
  void rowFactsOfSlices() {
    QFETCH(QString, op);
    QFETCH(qint64, rowOffset);
    QFETCH(qint64, rowBytes);
    QFETCH(qint64, bufferRowBytes);
    auto r = test::compiler().check("k.cake", instantiate({}, {}, op), semaOnly());
    QVERIFY2(r.accepted, qPrintable(test::messages(r.diagnostics)));
    const reg::OperandFacts& f = r.model.ops.back().operands[1].facts;
    QCOMPARE(qint64(f.rowOffset), rowOffset);
    QCOMPARE(qint64((f.shape.back() * ir::info(f.dtype).bits + 7) / 8), rowBytes);
    QCOMPARE(qint64(f.bufferRowBytes), bufferRowBytes);
  }

  // Tile order (docs/ir.md, "Tile schedulers"): coordinates of chosen linear tiles.
  void tileOrder_data() {
    QTest::addColumn<QList<qint64>>("tiles");
    QTest::addColumn<bool>("rasterN");
    QTest::addColumn<qint64>("swizzle");
    QTest::addColumn<qint64>("linear");
    QTest::addColumn<QList<qint64>>("coords");
    using L = QList<qint64>;
    QTest::newRow("plain: x fastest") << L{4, 3} << false << qint64(1) << qint64(5) << L{1, 1};
    QTest::newRow("plain 3-D") << L{4, 3, 2} << false << qint64(1) << qint64(13) << L{1, 0, 1};
    QTest::newRow("raster n: y fastest") << L{4, 3} << true << qint64(1) << qint64(5) << L{1, 2};
    // raster=m swizzle=2: bands of 2 y tiles; inside a band y fastest, then x.
    QTest::newRow("m swizzle 2, first band") << L{4, 4} << false << qint64(2) << qint64(3)
                                             << L{1, 1};
    QTest::newRow("m swizzle 2, second band") << L{4, 4} << false << qint64(2) << qint64(8)
                                              << L{0, 2};
    // Triton's GROUP_SIZE_M = 2 on a 4 x 4 grid (raster=n): pid 5 -> (pid_m 1, pid_n 2).
    QTest::newRow("n swizzle 2 (Triton group)") << L{4, 4} << true << qint64(2) << qint64(5)
                                                << L{1, 2};
    // A ragged last band (5 x-tiles, groups of 2): the last band is one x tile wide.
    QTest::newRow("ragged last band") << L{5, 3} << true << qint64(2) << qint64(13) << L{4, 1};
    QTest::newRow("z outermost") << L{2, 2, 3} << true << qint64(2) << qint64(9) << L{1, 0, 2};
  }
  void tileOrder() {
    QFETCH(QList<qint64>, tiles);
    QFETCH(bool, rasterN);
    QFETCH(qint64, swizzle);
    QFETCH(qint64, linear);
    QFETCH(QList<qint64>, coords);
    sema::GridInfo g;
    g.tiles.assign(tiles.begin(), tiles.end());
    g.rasterN = rasterN;
    g.swizzle = swizzle;
    std::vector<std::int64_t> got = sema::tileCoords(g, linear);
    QCOMPARE(QList<qint64>(got.begin(), got.end()), coords);
  }

  // A clustered grid orders whole clusters: the CTAs of one cluster (consecutive linear indices)
  // take the tiles of one cluster-shaped block, their rank (x fastest) the offset inside it, in
  // every order; the map stays a bijection. Without raster/swizzle the plain order is kept.
  void clusteredTileOrder() {
    for (std::vector<std::int64_t> cluster : {std::vector<std::int64_t>{2, 1, 1}, {1, 2, 1}, {2, 2, 1}})
      for (bool rasterN : {false, true})
        for (std::int64_t sw : {1, 2, 4, 8}) {
          sema::GridInfo g;
          g.tiles = {8, 6};
          g.cluster = cluster;
          g.rasterN = rasterN;
          g.swizzle = sw;
          const std::int64_t size = cluster[0] * cluster[1];
          std::set<std::vector<std::int64_t>> seen;
          for (std::int64_t t = 0; t < g.tileCount(); ++t) {
            std::vector<std::int64_t> c = sema::tileCoords(g, t);
            QVERIFY(c[0] >= 0 && c[0] < 8 && c[1] >= 0 && c[1] < 6);
            seen.insert(c);
            if (!rasterN && sw == 1)
              continue; // the plain order (x fastest) is today's, whatever the cluster
            std::int64_t rank = t % size;
            QCOMPARE(c[0] % cluster[0], rank % cluster[0]);
            QCOMPARE(c[1] % cluster[1], rank / cluster[0]);
            std::vector<std::int64_t> lead = sema::tileCoords(g, t - rank);
            QCOMPARE(c[0] / cluster[0], lead[0] / cluster[0]);
            QCOMPARE(c[1] / cluster[1], lead[1] / cluster[1]);
          }
          QCOMPARE(std::int64_t(seen.size()), g.tileCount());
        }
    // A CTA pair under raster=n swizzle=2 on 8 x 6 tiles: clusters walk the 4 x 6 block grid in
    // bands of 2 block columns; linear 2 and 3 are the pair of cluster 1 = block (1, 0).
    sema::GridInfo g;
    g.tiles = {8, 6};
    g.cluster = {2, 1, 1};
    g.rasterN = true;
    g.swizzle = 2;
    QCOMPARE(sema::tileCoords(g, 2), (std::vector<std::int64_t>{2, 0}));
    QCOMPARE(sema::tileCoords(g, 3), (std::vector<std::int64_t>{3, 0}));
  }

  // Every order is a bijection of [0, tileCount) onto the coordinates, ragged bands included.
  void tileOrderIsBijection() {
    for (std::vector<std::int64_t> tiles :
         {std::vector<std::int64_t>{7, 5}, {8, 8}, {1, 9}, {9, 1}, {3, 5, 2}, {32, 32}})
      for (bool rasterN : {false, true})
        for (std::int64_t sw : {1, 2, 4, 8, 16}) {
          sema::GridInfo g;
          g.tiles = tiles;
          g.rasterN = rasterN;
          g.swizzle = sw;
          std::set<std::vector<std::int64_t>> seen;
          for (std::int64_t t = 0; t < g.tileCount(); ++t) {
            std::vector<std::int64_t> c = sema::tileCoords(g, t);
            for (std::size_t d = 0; d < c.size(); ++d)
              QVERIFY(c[d] >= 0 && c[d] < tiles[d]);
            seen.insert(c);
          }
          QCOMPARE(std::int64_t(seen.size()), g.tileCount());
        }
  }

  void gridOrderAttributes_data() {
    QTest::addColumn<QString>("grid");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("raster and swizzle") << "grid tiles=[8, 8] raster=n swizzle=8" << QStringList{};
    QTest::newRow("swizzle not a power of two")
        << "grid tiles=[8, 8] swizzle=6" << QStringList{"sem-attribute-type@2:29"};
    QTest::newRow("swizzle too large") << "grid tiles=[8, 8] swizzle=32"
                                       << QStringList{"sem-attribute-type@2:29"};
    QTest::newRow("raster value") << "grid tiles=[8, 8] raster=k"
                                  << QStringList{"sem-attribute-type@2:28"};
    QTest::newRow("1-D grid") << "grid tiles=[64] swizzle=4"
                              << QStringList{"sem-attribute-type@2:27"};
  }
  void gridOrderAttributes() {
    QFETCH(QString, grid);
    QFETCH(QStringList, expected);
    std::string text = "kernel k target=sm_90a {\n  " + grid.toStdString() +
                       "\n  role r warps=0..4\n}\n";
    QString m;
    QStringList got = check(text, &m);
    QVERIFY2(got == expected, qPrintable(got.join(", ") + "\n" + m));
  }

  // Per-role tile ownership: stride/offset on tile loops, skip on pipeline loops.
  void tileOwnershipAttributes_data() {
    QTest::addColumn<QString>("tile");
    QTest::addColumn<QString>("loop");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("ping-pong") << "stride=2 offset=1" << "skip=64" << QStringList{};
    QTest::newRow("offset not below stride") << "stride=2 offset=2" << ""
                                             << QStringList{"sem-attribute-type@16:36"};
    QTest::newRow("stride zero") << "stride=0" << "" << QStringList{"sem-attribute-type@16:27"};
    QTest::newRow("skip without stride") << "" << "skip=64"
                                         << QStringList{"sem-attribute-type@18:36"};
    QTest::newRow("negative skip") << "stride=2" << "skip=0 - 1"
                                   << QStringList{"sem-attribute-type@18:41"};
  }
  void tileOwnershipAttributes() {
    QFETCH(QString, tile);
    QFETCH(QString, loop);
    QFETCH(QStringList, expected);
    std::string text = instantiate({}, {}, {});
    auto put = [&](const std::string& at, const QString& attrs) {
      if (!attrs.isEmpty())
        text.replace(text.find(at), at.size(), at + " " + attrs.toStdString());
    };
    put("for t in tiles", tile);
    put("for k in 0..64 pipeline=ring", loop);
    QString m;
    QStringList got = check(text, &m);
    QVERIFY2(got == expected, qPrintable(got.join(", ") + "\n" + m));
  }

  void modelOfValidKernel() {
    auto r = test::compiler().check("k.cake", instantiate({}, {}, {}), semaOnly());
    QVERIFY2(r.accepted, qPrintable(test::messages(r.diagnostics)));
    const sema::KernelModel& m = r.model;
    QCOMPARE(QString::fromStdString(m.targetName), QStringLiteral("sm_90a"));
    QCOMPARE(m.roles.size(), std::size_t(2));
    QCOMPARE(m.threadsPerCta(), std::int64_t(384));
    QCOMPARE(m.smemBytes(), std::int64_t(4 * 128 * 64 * 2));
    QCOMPARE(m.barrier("full")->size, std::int64_t(4));
    QCOMPARE(m.ops.size(), std::size_t(2));
    const sema::OpInfo& wait = m.ops[1];
    QCOMPARE(QString::fromStdString(wait.primitive->name), QStringLiteral("mbarrier.try_wait"));
    QCOMPARE(wait.roles, (std::vector<std::string>{"consumer"}));
    QCOMPARE(wait.loops.size(), std::size_t(2));
    QCOMPARE(wait.operands[0].indexRanges[0].hi, std::int64_t(3));
  }
};

QTEST_APPLESS_MAIN(TestSema)
#include "tst_sema.moc"
