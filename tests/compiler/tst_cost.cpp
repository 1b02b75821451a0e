// Cost-model tests: hand-computable kernels (a pure copy is HBM-bound at bytes / bandwidth, a
// large bf16 GEMM is tensor-bound near flops / peak), pipeline depth and its hint, work
// accounting, every corpus kernel, calibration files, what-if rewrites, the ranking metrics and
// a synthetic calibration that must recover known parameters.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "TestUtil.h"

#include "cake/Cost/Calibrate.h"
#include "cake/Cost/CostModel.h"
#include "cake/Support/StringUtil.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <random>

using namespace cake;

namespace {

// 128 MiB read and 128 MiB written, 32 bytes per thread and row: nothing but HBM traffic.
const char* kCopy = R"(kernel copy target=sm_90a {
  const M = 16384
  const N = 4096
  param X : bf16[M, N] role=input
  param Y : bf16[M, N] role=output
  grid tiles=[M / 2]
  role main warps=0..8
  reg x_r : bf16[16] scope=thread
  on main {
    for t in tiles {
      for r in 0..2 {
        ld.global x_r, X[t.x * 2 + r, tid * 16 +: 16]
        st.global Y[t.x * 2 + r, tid * 16 +: 16], x_r
      }
    }
  }
}
)";

// A 6144 x 6144 x 4096 bf16 GEMM with 192 x 256 tiles (three consumer warpgroups), so that L2
// traffic stays below the tensor time; %STAGES% stages, %SMEM% the layout.
const char* kGemm = R"(kernel gemm_big target=sm_90a {
  const M = 6144
  const N = 6144
  const K = 4096
  const BM = 192
  const BN = 256
  const BK = 64
  param A : bf16[M, K] role=input
  param B : bf16[N, K] role=input
  param C : bf16[M, N] role=output
  tensormap tA : bf16[BM, BK] source=A swizzle=128B
  tensormap tB : bf16[BN, BK] source=B swizzle=128B
  grid tiles=[M / BM, N / BN] schedule=persistent
  role producer warps=0..4
  role consumer warps=4..16
  pipeline ring stages=4
  smem a_s : bf16[BM, BK] offset=0 stages=4 swizzle=128B pipeline=ring
  smem b_s : bf16[BN, BK] offset=98304 stages=4 swizzle=128B pipeline=ring
  mbarrier full count=1 producers=[producer] consumers=[consumer] pipeline=ring
  mbarrier empty count=3 producers=[consumer] consumers=[producer] pipeline=ring
  reg acc : f32[64, BN] scope=warpgroup
  reg acc_bf : bf16[64, BN] scope=warpgroup
  on producer {
    mbarrier.init full
    mbarrier.init empty
    fence.mbarrier_init
  }
  on all {
    cta.sync
  }
  on producer {
    for t in tiles {
      for k in 0..K / BK pipeline=ring {
        mbarrier.try_wait empty[ring.slot] parity=ring.phase ^ 1
        mbarrier.arrive_expect_tx full[ring.slot] bytes=57344
        tma.load a_s[ring.slot], tA[t.x * BM, k * BK], full[ring.slot]
        tma.load b_s[ring.slot], tB[t.y * BN, k * BK], full[ring.slot]
      }
    }
  }
  on consumer {
    for t in tiles {
      ew.fill acc value=0.0
      for k in 0..K / BK pipeline=ring {
        mbarrier.try_wait full[ring.slot] parity=ring.phase
        wgmma.fence
        wgmma.mma acc, a_s[ring.slot, wg * 64 +: 64, :], b_s[ring.slot]
        wgmma.commit
        wgmma.wait pending=0
        mbarrier.arrive empty[ring.slot] scope=warpgroup
      }
      cast acc_bf, acc
      epilogue.store C[t.x * BM + wg * 64 +: 64, t.y * BN +: BN], acc_bf
    }
  }
}
)";

/// The same GEMM with a one-stage ring (no stage index: the buffers are not staged).
std::string shallowGemm() {
  QString s = QString::fromUtf8(kGemm);
  s.replace("pipeline ring stages=4", "pipeline ring stages=1");
  s.replace(" offset=0 stages=4 ", " offset=0 ");
  s.replace(" offset=98304 stages=4 ", " offset=24576 ");
  s.replace("a_s[ring.slot, wg", "a_s[wg");
  s.replace("a_s[ring.slot],", "a_s,");
  s.replace("b_s[ring.slot],", "b_s,");
  s.replace(":], b_s[ring.slot]\n", ":], b_s\n");
  return s.toStdString();
}

double hbm(const target::Target& t) {
  return t.machineValue("hbm_bandwidth_gbps") * 1e9;
}

struct Costed {
  driver::CheckResult check;
  cost::Estimate estimate;
};

Costed costOf(const std::string& text, const std::string& name = "k.cake",
              const cost::Options& options = {}) {
  Costed c{test::compiler().check(name, text), {}};
  c.estimate = cost::estimate(test::compiler(), c.check, options);
  return c;
}

std::string jsonOf(const Costed& c) {
  json::Writer w;
  cost::writeJson(w, c.estimate, *c.check.sources);
  return w.str();
}

const cost::OpCost* op(const cost::Estimate& e, const std::string& primitive) {
  for (const cost::OpCost& oc : e.perOp)
    if (oc.primitive == primitive)
      return &oc;
  return nullptr;
}

std::string readCorpus(const QString& rel) {
  std::string error;
  auto t = readFile(std::string(CAKE_CORPUS_DIR) + "/" + rel.toStdString(), error);
  return t.value_or("");
}

} // namespace

class TestCost : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void handComputable_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("bottleneck");
    QTest::addColumn<QString>("resource");
    QTest::addColumn<double>("ideal");  // us, at datasheet peak
    QTest::addColumn<double>("atMost"); // predicted / ideal
    const target::Target& h = *test::compiler().targets().find("sm_90a");
    double copyBytes = 2.0 * 16384 * 4096 * 2;
    double gemmFlops = 2.0 * 6144 * 6144 * 4096;
    QTest::newRow("copy: bytes / HBM bandwidth") << QString::fromUtf8(kCopy) << "memory-bound"
                                                 << "hbm" << copyBytes / hbm(h) * 1e6 << 1.1;
    QTest::newRow("large bf16 GEMM: flops / tensor peak")
        << QString::fromUtf8(kGemm) << "tensor-bound"
        << "tensor" << gemmFlops / (h.tensorTflops.at("bf16").value * 1e12) * 1e6 << 1.25;
  }
  void handComputable() {
    QFETCH(QString, text);
    QFETCH(QString, bottleneck);
    QFETCH(QString, resource);
    QFETCH(double, ideal);
    QFETCH(double, atMost);
    Costed c = costOf(text.toStdString());
    QVERIFY2(c.check.accepted, qPrintable(test::messages(c.check.diagnostics)));
    const cost::Estimate& e = c.estimate;
    QVERIFY2(e.ok, e.error.c_str());
    QCOMPARE(QString::fromStdString(e.bottleneck), bottleneck);
    QCOMPARE(QString::fromStdString(e.bottleneckResource), resource);
    QVERIFY2(
        e.predictedUs >= ideal && e.predictedUs <= ideal * atMost,
        qPrintable(QStringLiteral("predicted %1 us, ideal %2 us").arg(e.predictedUs).arg(ideal)));
    // The datasheet roof is a hard lower bound; the prediction lies inside its bounds.
    QVERIFY(e.loUs >= ideal * 0.999);
    QVERIFY(e.loUs <= e.predictedUs && e.predictedUs <= e.hiUs);
    QVERIFY(!e.calibrated);
    QVERIFY(!e.bottleneckOps.empty());
    QCOMPARE(e.roofline.peakHbmGbps, 3350.0);
  }

  void workAccounting() {
    Costed copy = costOf(kCopy);
    QVERIFY(copy.estimate.ok);
    const cost::OpCost* ld = op(copy.estimate, "ld.global");
    const cost::OpCost* st = op(copy.estimate, "st.global");
    QVERIFY(ld && st);
    QCOMPARE(ld->executionsPerCta, 2.0);
    QCOMPARE(ld->bytes.l2, 16384.0 * 4096 * 2);
    QCOMPARE(ld->bytes.hbm, 16384.0 * 4096 * 2); // read once: compulsory traffic
    QCOMPARE(st->bytes.hbm, 16384.0 * 4096 * 2);
    QCOMPARE(ld->bytes.reg, 16384.0 * 4096 * 2);
    QCOMPARE(copy.estimate.roofline.flops, 0.0);
    QCOMPARE(copy.estimate.launch.ctas, std::int64_t(8192));
    QCOMPARE(copy.estimate.launch.residency, std::int64_t(8)); // 256 threads of 2048
    QCOMPARE(copy.estimate.launch.waves, std::int64_t(8));     // 8192 / (132 x 8)

    Costed gemm = costOf(kGemm);
    const cost::OpCost* mma = op(gemm.estimate, "wgmma.mma");
    QVERIFY(mma);
    QCOMPARE(mma->flops, 2.0 * 6144 * 6144 * 4096);
    QCOMPARE(mma->pipe, std::string("tensor"));
    QCOMPARE(gemm.estimate.roofline.tensorFlops, 2.0 * 6144 * 6144 * 4096);
    QCOMPARE(gemm.estimate.roofline.peakDtype, std::string("bf16"));
    // A and B panels are re-read by every tile of their row/column: L2 sees all of it; HBM
    // each byte once per wave of tiles in flight that uses it (docs/cost.md, "Tile order and
    // L2 reuse"), at least once (the compulsory traffic); C is written once.
    double abBytes = 2.0 * 6144 * 4096 * 2;
    QCOMPARE(gemm.estimate.launch.hbmCompulsoryBytes, abBytes + 6144.0 * 6144 * 2);
    QVERIFY(gemm.estimate.roofline.hbmBytes > gemm.estimate.launch.hbmCompulsoryBytes);
    QVERIFY(qFuzzyCompare(gemm.estimate.roofline.hbmBytes, gemm.estimate.launch.hbmOrderBytes));
    double l2 = 0;
    for (const cost::OpCost& oc : gemm.estimate.perOp)
      if (oc.primitive == "tma.load")
        l2 += oc.bytes.l2;
    QCOMPARE(l2, 32.0 * 24 * (192 + 256) * 4096 * 2);
    QCOMPARE(gemm.estimate.launch.tilesPerCta, std::int64_t(6)); // 768 tiles on 132 SMs
    QVERIFY(gemm.estimate.roofline.intensity > gemm.estimate.roofline.ridge);
    QCOMPARE(gemm.estimate.roofline.regime, std::string("compute"));
    // Per role: the consumer warpgroups pace the CTA; the producer waits for free stages.
    QCOMPARE(gemm.estimate.perRole.size(), std::size_t(2));
    QVERIFY(gemm.estimate.perRole[1].critical);
    QCOMPARE(gemm.estimate.pipelines.size(), std::size_t(1));
    QCOMPARE(gemm.estimate.pipelines[0].producers, std::vector<std::string>{"producer"});
    QCOMPARE(gemm.estimate.pipelines[0].consumers, std::vector<std::string>{"consumer"});
    QVERIFY(!gemm.estimate.pipelines[0].latencyExposed);
  }

  /// The tile order decides the HBM estimate: a swizzled order reads fewer A row blocks per
  /// wave of tiles in flight than the plain one, and the compulsory traffic is the same.
  void tileOrderReuse() {
    std::string plain = readCorpus(QStringLiteral("hopper_gemm/gemm_ws.cake"));
    std::string swizzled = plain;
    const std::string grid = "schedule=persistent";
    swizzled.replace(swizzled.find(grid), grid.size(), grid + " raster=n swizzle=8");
    Costed p = costOf(plain), s = costOf(swizzled);
    QVERIFY(p.estimate.ok && s.estimate.ok);
    QCOMPARE(p.estimate.launch.tilesInFlight, std::int64_t(132));
    QCOMPARE(s.estimate.launch.raster, std::string("n"));
    QCOMPARE(s.estimate.launch.swizzle, std::int64_t(8));
    QCOMPARE(p.estimate.launch.hbmCompulsoryBytes, s.estimate.launch.hbmCompulsoryBytes);
    // 4096^3, 32 x 32 tiles of 128 x 128, 8 waves of 132 tiles (the last 100): plain, the waves
    // hold 256 A row blocks and 39 B column blocks in all; raster=n swizzle=8 (bands of 256
    // tiles, so a wave spans one or two bands), 88 and 132. Counted by hand from the order.
    const double panel = 128.0 * 4096 * 2, c = 4096.0 * 4096 * 2;
    QCOMPARE(p.estimate.launch.hbmOrderBytes, (256 + 39) * panel + c);
    QCOMPARE(s.estimate.launch.hbmOrderBytes, (88 + 132) * panel + c);
    QVERIFY(s.estimate.roofline.hbmBytes < p.estimate.roofline.hbmBytes);
  }

  /// Ping-pong: each consumer works on one tile in two, so the kernel's tensor work is one GEMM.
  void pingPongWork() {
    Costed pp = costOf(readCorpus(QStringLiteral("hopper_gemm/gemm_pingpong.cake")));
    QVERIFY2(pp.estimate.ok, pp.estimate.error.c_str());
    QCOMPARE(pp.estimate.roofline.tensorFlops, 2.0 * 4096 * 4096 * 4096);
  }

  /// FA4-style attention: P goes from the softmax warps to the MMA through tensor memory, so
  /// the P V MMA reads only V from shared memory and no operation moves bytes through the
  /// shared-memory pipe; the exponentials (sfu), not the tensor core, pace the kernel.
  void blackwellAttentionKeepsPInTensorMemory() {
    const QString rel = QStringLiteral("flash_attention/fa4_fwd.cake");
    Costed fa4 = costOf(readCorpus(rel), rel.toStdString());
    QVERIFY2(fa4.check.accepted, qPrintable(test::messages(fa4.check.diagnostics)));
    const cost::Estimate& e = fa4.estimate;
    QVERIFY2(e.ok, e.error.c_str());
    // B H S S D: Q K^T and P V, 2 flops per multiply-add each.
    QCOMPARE(e.roofline.tensorFlops, 4.0 * 16 * 4096 * 4096 * 64 * 2 * 2);
    const double ctas = 1024, tile = 128.0 * 64 * 2; // one [128, 64] bf16 tile of Q, K or V
    int fromTmem = 0, fromSmem = 0;
    for (const cost::OpCost& oc : e.perOp) {
      if (oc.pipe == "tmem")
        QCOMPARE(oc.bytes.smem, 0.0);
      if (oc.primitive != "tcgen05.mma")
        continue;
      const sema::OpInfo& info = fa4.check.model.ops[oc.op];
      bool aInTmem =
          fa4.check.model.buffers[info.operands[1].entityIndex].space == ir::Space::Tmem;
      // S = Q K^T reads Q and K from shared memory; P V only V (P is in tensor memory).
      QCOMPARE(oc.bytes.smem, oc.executionsPerCta * ctas * tile * (aInTmem ? 1 : 2));
      ++(aInTmem ? fromTmem : fromSmem);
    }
    QCOMPARE(fromTmem, 6);
    QCOMPARE(fromSmem, 6);
    double sfu = -1, tensor = -1, smem = -1;
    for (const cost::Term& t : e.terms) {
      if (t.resource == "sfu")
        sfu = t.us;
      if (t.resource == "tensor")
        tensor = t.us;
      if (t.resource == "smem")
        smem = t.us;
    }
    QCOMPARE(smem, 0.0);
    QVERIFY2(sfu > tensor,
             qPrintable(QStringLiteral("sfu %1 us, tensor %2 us").arg(sfu).arg(tensor)));
    for (const cost::RoleCost& r : e.perRole)
      if (r.critical)
        QVERIFY2(r.name == "softmax0" || r.name == "softmax1", r.name.c_str());
  }

  void pipelineDepth() {
    Costed shallow = costOf(shallowGemm());
    QVERIFY2(shallow.check.accepted, qPrintable(test::messages(shallow.check.diagnostics)));
    QVERIFY(shallow.estimate.ok);
    QCOMPARE(shallow.estimate.pipelines.size(), std::size_t(1));
    QVERIFY(shallow.estimate.pipelines[0].latencyExposed);
    // The rewrite to four stages stages the buffers, indexes them by ring.slot and moves b_s.
    std::string why;
    std::vector<cost::TextEdit> edits;
    auto deepText = cost::withPipelineStages(shallow.check, "ring", 4, why, &edits);
    QVERIFY2(deepText, why.c_str());
    QVERIFY(deepText->find("pipeline ring stages=4") != std::string::npos);
    QVERIFY(deepText->find("a_s[ring.slot, wg * 64 +: 64, :], b_s[ring.slot]") !=
            std::string::npos);
    QVERIFY(deepText->find("offset=98304") != std::string::npos);
    Costed deep = costOf(*deepText);
    QVERIFY2(deep.check.accepted, qPrintable(test::messages(deep.check.diagnostics)));
    QVERIFY(deep.estimate.predictedUs < shallow.estimate.predictedUs * 0.8);
    QVERIFY(!deep.estimate.pipelines[0].latencyExposed);
    // The shallow kernel names the decision, the predicted gain and an edit that the verifier
    // accepts; the deep one gets no pipeline hint.
    const cost::Hint* hint = nullptr;
    for (const cost::Hint& h : shallow.estimate.hints)
      if (h.decision == "pipeline ring stages")
        hint = &h;
    QVERIFY(hint);
    QCOMPARE(hint->from, std::string("1"));
    QCOMPARE(hint->to, std::string("2"));
    QVERIFY(hint->gain > 0.2);
    QVERIFY(hint->message.find("2 stages instead of 1") != std::string::npos);
    QVERIFY(hint->message.find("predicted") != std::string::npos);
    std::string edited(shallow.check.sources->text(shallow.check.file));
    std::vector<cost::TextEdit> sorted = hint->edits;
    std::sort(sorted.begin(), sorted.end(),
              [](const auto& a, const auto& b) { return a.range.begin > b.range.begin; });
    for (const cost::TextEdit& ed : sorted)
      edited.replace(ed.range.begin, ed.range.end - ed.range.begin, ed.replacement);
    QVERIFY(test::compiler().check("edited.cake", edited).accepted);
    for (const cost::Hint& h : deep.estimate.hints)
      QVERIFY(h.decision != "pipeline ring stages");
  }

  void corpus_data() {
    QTest::addColumn<QString>("path");
    const QDir corpus(QStringLiteral(CAKE_CORPUS_DIR));
    QStringList paths;
    for (const QString& p : test::corpusKernels(test::CorpusKernels::Positive))
      paths << corpus.relativeFilePath(p);
    for (const QString& p : paths)
      QTest::newRow(qPrintable(p)) << p;
  }
  void corpus() {
    QFETCH(QString, path);
    std::string text = readCorpus(path);
    Costed a = costOf(text, path.toStdString());
    // Every kernel outside corpus/negative is a positive example: it must be accepted and
    // costed (a refused one is a failure here, not a skip).
    QVERIFY2(a.check.accepted, qPrintable(test::messages(a.check.diagnostics)));
    const cost::Estimate& e = a.estimate;
    QVERIFY2(e.ok, e.error.c_str());
    QVERIFY(e.predictedUs > 0 && std::isfinite(e.predictedUs));
    QVERIFY(e.loUs <= e.predictedUs && e.predictedUs <= e.hiUs);
    static const QStringList classes{"memory-bound", "tensor-bound", "compute-bound",
                                     "latency/sync-bound", "occupancy-bound"};
    QVERIFY2(classes.contains(QString::fromStdString(e.bottleneck)), e.bottleneck.c_str());
    QCOMPARE(e.perOp.size(), a.check.model.ops.size());
    QCOMPARE(e.perRole.size(), a.check.model.roles.size());
    for (const cost::Hint& h : e.hints) {
      QVERIFY(h.gain >= 0.02 && h.predictedUs < e.predictedUs);
      QVERIFY(!h.edits.empty());
    }
    // Deterministic output.
    Costed b = costOf(text, path.toStdString());
    QCOMPARE(jsonOf(a), jsonOf(b));
  }

  /// The CTA-pair MMA (tcgen05.mma cta_group=2): each CTA of the pair streams its 128 rows of
  /// A and half of the 256-row B tile, so the L2 traffic per CTA falls by a third against the
  /// single-CTA 128x256 schedule with the same tensor work, and the 2-CTA GEMM becomes
  /// tensor-bound where the single-CTA one is L2-bound.
  void ctaPairHalvesB() {
    Costed one = costOf(readCorpus(QStringLiteral("blackwell_gemm/gemm_tcgen05.cake")), "gemm_tcgen05.cake");
    Costed pair = costOf(readCorpus(QStringLiteral("blackwell_gemm/gemm_2cta.cake")), "gemm_2cta.cake");
    QVERIFY2(one.estimate.ok && pair.estimate.ok, pair.estimate.error.c_str());
    auto term = [](const cost::Estimate& e, const char* resource) {
      for (const cost::Term& t : e.terms)
        if (t.resource == resource)
          return t.us;
      return -1.0;
    };
    double l2One = term(one.estimate, "l2"), l2Pair = term(pair.estimate, "l2");
    QVERIFY2(l2Pair > 0 && l2Pair < 0.75 * l2One,
             qPrintable(QStringLiteral("l2 %1 us vs %2 us").arg(l2Pair).arg(l2One)));
    QVERIFY(std::abs(term(pair.estimate, "tensor") - term(one.estimate, "tensor")) <
            0.01 * term(one.estimate, "tensor"));
    QCOMPARE(QString::fromStdString(one.estimate.bottleneck), QStringLiteral("memory-bound"));
    QCOMPARE(QString::fromStdString(pair.estimate.bottleneck), QStringLiteral("tensor-bound"));
    QVERIFY(pair.estimate.predictedUs < one.estimate.predictedUs);
  }

  /// When the verifier's step budget stops the unrolling, the timeline is extrapolated: the
  /// estimate says so and widens its bounds by a further 1.5 around the same kind of prediction.
  void boundReachedWidensBounds() {
    std::string text = kGemm;
    Costed full = costOf(text);
    verify::VerifyOptions cut;
    cut.maxSteps = 300;
    Costed partial{test::compiler().check("k.cake", text, cut), {}};
    partial.estimate = cost::estimate(test::compiler(), partial.check);
    QVERIFY(!full.check.verification.boundReached);
    QVERIFY(partial.check.verification.boundReached);
    QVERIFY2(partial.check.accepted, qPrintable(test::messages(partial.check.diagnostics)));
    const cost::Estimate &a = full.estimate, &b = partial.estimate;
    QVERIFY(a.ok && b.ok && !a.calibrated && !b.calibrated);
    auto noted = [](const cost::Estimate& e) {
      for (const std::string& n : e.notes)
        if (n.find("analysis bound was reached") != std::string::npos)
          return true;
      return false;
    };
    QVERIFY(!noted(a));
    QVERIFY(noted(b));
    // Uncalibrated: hi = T * 1.5 when fully analysed, T * 1.5 * 1.5 when truncated.
    QVERIFY2(qAbs(a.hiUs / a.predictedUs - 1.5) < 1e-9,
             qPrintable(QString::number(a.hiUs / a.predictedUs)));
    QVERIFY2(qAbs(b.hiUs / b.predictedUs - 2.25) < 1e-9,
             qPrintable(QString::number(b.hiUs / b.predictedUs)));
    // The lower bound may widen down to T / 2.25, never below the datasheet roofs (which hold
    // it up for this tensor-bound GEMM).
    QVERIFY(b.loUs >= b.predictedUs / 2.25 * (1 - 1e-9) && b.loUs <= b.predictedUs);
  }

  void refusedAndUncostable() {
    // Blocking findings: no estimate.
    Costed bad = costOf("kernel k target=sm_90a {\n  grid tiles=[1]\n  role r warps=0..1\n"
                        "  on r {\n    tma.lod x\n  }\n}\n");
    QVERIFY(!bad.check.accepted);
    QVERIFY(!bad.estimate.ok);
    QVERIFY(bad.estimate.error.find("blocking") != std::string::npos);
    // A target without timing facts says "not calibrated" instead of inventing numbers.
    driver::CheckResult r = test::compiler().check("copy.cake", kCopy);
    target::Target bare = *r.model.target;
    bare.timing.clear();
    r.model.target = &bare;
    cost::Estimate e = cost::estimate(test::compiler(), r);
    QVERIFY(!e.ok);
    QVERIFY(e.error.find("not calibrated") != std::string::npos);
    json::Writer w;
    cost::writeJson(w, e, *r.sources);
    QVERIFY(w.str().find("\"predicted_us\": null") != std::string::npos);
  }

  void rewrites() {
    driver::CheckResult copy = test::compiler().check("copy.cake", kCopy);
    std::string why;
    auto twice = cost::withConsts(copy, {{"M", 32768}}, why);
    QVERIFY2(twice, why.c_str());
    Costed big = costOf(*twice);
    Costed small = costOf(kCopy);
    double ratio = (big.estimate.predictedUs - 2.5) / (small.estimate.predictedUs - 2.5);
    QVERIFY2(ratio > 1.9 && ratio < 2.1, qPrintable(QString::number(ratio)));
    QVERIFY(!cost::withConsts(copy, {{"Q", 1}}, why));
    QVERIFY(why.find("'Q'") != std::string::npos);
    // Static <-> persistent.
    auto persistent = cost::withSchedule(copy, "persistent", why);
    QVERIFY(persistent &&
            persistent->find("grid tiles=[M / 2] schedule=persistent") != std::string::npos);
    QVERIFY(test::compiler().check("p.cake", *persistent).accepted);
    QVERIFY(!cost::withSchedule(copy, "static", why));
    QVERIFY(!cost::withPipelineStages(copy, "ring", 2, why));
  }

  void calibrationFiles() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto write = [&](const QString& name, const std::string& content) {
      std::ofstream(QDir(dir.path()).filePath(name).toStdString()) << content;
    };
    std::string src = CAKE_SOURCE_DIR;
    driver::DataPaths paths{src + "/compiler/primitives", src + "/compiler/targets",
                            src + "/compiler/rules", dir.path().toStdString()};
    write("sm_90a.json", R"({"target": "sm_90a", "params": {"tensor_efficiency": 0.5,
      "launch_overhead_us": 4}, "fit": {"rms_log_error": 0.05}})");
    auto calibrated = driver::Compiler::load(paths);
    QVERIFY(calibrated->ok());
    QVERIFY(calibrated->targets().find("sm_90a")->calibrated());
    QVERIFY(!calibrated->targets().find("sm_80")->calibrated());
    QVERIFY(calibrated->revision() != test::compiler().revision());
    driver::CheckResult r = calibrated->check("gemm.cake", kGemm);
    cost::Estimate e = cost::estimate(*calibrated, r);
    QVERIFY(e.ok && e.calibrated);
    QCOMPARE(e.params.tensorEfficiency, 0.5);
    QCOMPARE(e.params.launchOverheadUs, 4.0);
    Costed plain = costOf(kGemm);
    QVERIFY(e.predictedUs > 1.5 * plain.estimate.predictedUs);
    // Calibrated bounds are tighter than the uncalibrated +-50%.
    QVERIFY(e.hiUs / e.predictedUs < plain.estimate.hiUs / plain.estimate.predictedUs);

    // Malformed calibration files are located findings; the rest of the data still loads.
    write("sm_90a.json", R"({"target": "sm_90a", "params": {"tensor_eficiency": 0.5}})");
    write("sm_91a.json", R"({"params": {}})");
    auto broken = driver::Compiler::load(paths);
    QStringList codes = test::codes(broken->loadDiagnostics(), broken->sources());
    QVERIFY2(codes.filter("def-unknown-field").size() == 1, qPrintable(codes.join(", ")));
    QVERIFY2(codes.filter("def-unknown-target").size() == 1, qPrintable(codes.join(", ")));
    QVERIFY(!broken->ok());
    write("sm_91a.json", R"({"params": {"latency_scale": -1}})");
    QFile::remove(QDir(dir.path()).filePath("sm_90a.json"));
    auto negative = driver::Compiler::load(paths);
    QVERIFY(test::codes(negative->loadDiagnostics(), negative->sources())
                .filter("def-invalid-value")
                .size() == 1);
  }

  void metrics() {
    QCOMPARE(cost::spearman({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
    QCOMPARE(cost::spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
    QVERIFY(std::fabs(cost::spearman({1, 2, 2, 4}, {1, 3, 2, 4}) - 0.9486832980505138) < 1e-9);
    QCOMPARE(cost::spearman({1, 1, 1}, {1, 2, 3}), 0.0);
    std::size_t groups = 0;
    // Group a: predicted best is measured 12 while the best is 10 (20% regret); group b: right.
    double regret =
        cost::top1Regret({1, 2, 5, 6, 7}, {12, 10, 3, 4, 99}, {"a", "a", "b", "b", "c"}, &groups);
    QCOMPARE(groups, std::size_t(2));
    QVERIFY(std::fabs(regret - 0.1) < 1e-12);
  }

  void syntheticCalibration_data() {
    QTest::addColumn<double>("tensor");
    QTest::addColumn<double>("hbmEff");
    QTest::addColumn<double>("latency");
    QTest::addColumn<double>("overhead");
    QTest::addColumn<bool>("rankingFixed");
    QTest::newRow("slower tensor cores and HBM") << 0.75 << 0.85 << 1.0 << 3.0 << false;
    QTest::newRow("longer latencies") << 0.9 << 0.95 << 1.6 << 5.0 << true;
  }
  void syntheticCalibration() {
    QFETCH(double, tensor);
    QFETCH(double, hbmEff);
    QFETCH(double, latency);
    QFETCH(double, overhead);
    QFETCH(bool, rankingFixed);
    // Kernels and what-if variants that are alternatives for the same problem.
    struct Case {
      std::string group, text;
    };
    std::vector<Case> cases;
    auto add = [&](const std::string& group, const std::string& text) {
      cases.push_back({group, text});
    };
    std::string gemm = kGemm;
    add("gemm", gemm);
    add("gemm", shallowGemm());
    driver::CheckResult base = test::compiler().check("g.cake", gemm);
    std::string why;
    add("gemm", *cost::withPipelineStages(base, "ring", 2, why));
    add("gemm", *cost::withSchedule(base, "static", why));
    // Persistent and static copies tie at default parameters (both HBM-bound), so the
    // uncalibrated ranking picks the first; with longer latencies the persistent one (one CTA
    // per SM) falls behind, and only a calibrated model ranks it right.
    driver::CheckResult copy = test::compiler().check("c.cake", kCopy);
    add("copy", *cost::withSchedule(copy, "persistent", why));
    add("copy", kCopy);
    add("copy-big", *cost::withConsts(copy, {{"M", 65536}}, why));
    add("copy-tiny", *cost::withConsts(copy, {{"M", 512}}, why)); // a few us: the overhead shows
    for (const char* rel : {"hopper_gemm/gemm_ws.cake", "flash_kmeans/assign.cake",
                            "rmsnorm/rmsnorm.cake", "flash_attention/fa_fwd.cake"}) {
      std::string text = readCorpus(rel);
      driver::CheckResult r = test::compiler().check(rel, text);
      add(rel, text);
      if (std::string(rel).find("kmeans") != std::string::npos)
        add(rel, *cost::withPipelineStages(r, "xr", 2, why));
      if (std::string(rel).find("rmsnorm") != std::string::npos)
        add(rel, *cost::withSchedule(r, "static", why));
      if (std::string(rel).find("hopper") != std::string::npos)
        add(rel, *cost::withPipelineStages(r, "ring", 2, why));
    }
    std::vector<driver::CheckResult> checks;
    checks.reserve(cases.size());
    std::vector<cost::PreparedPtr> prepared;
    for (const Case& c : cases) {
      checks.push_back(test::compiler().check(c.group + ".cake", c.text));
      QVERIFY2(checks.back().accepted, qPrintable(test::messages(checks.back().diagnostics)));
      std::string error;
      prepared.push_back(cost::prepare(checks.back(), error));
      QVERIFY2(prepared.back(), error.c_str());
    }
    // "Measurements" from known parameters with 1% log-normal noise (fixed seed).
    cost::Params truth;
    truth.tensorEfficiency = tensor;
    truth.hbmEfficiency = hbmEff;
    truth.l2Efficiency = 0.8;
    truth.latencyScale = latency;
    truth.launchOverheadUs = overhead;
    std::mt19937 rng(42);
    std::normal_distribution<double> noise(0.0, 0.01);
    std::vector<cost::Sample> samples;
    for (std::size_t i = 0; i < cases.size(); ++i)
      samples.push_back({prepared[i].get(),
                         cost::predictUs(*prepared[i], truth) * std::exp(noise(rng)),
                         cases[i].group});
    cost::Params start;
    start.launchOverheadUs = 2.5;
    cost::FitResult fit = cost::fit(samples, start);
    qInfo("rms log error %.4f -> %.4f, spearman %.4f -> %.4f, top-1 regret %.4f -> %.4f; "
          "tensor %.3f hbm %.3f l2 %.3f latency %.3f overhead %.2f (%d evaluations)",
          fit.before.rmsLogError, fit.after.rmsLogError, fit.before.spearman, fit.after.spearman,
          fit.before.top1Regret, fit.after.top1Regret, fit.params.tensorEfficiency,
          fit.params.hbmEfficiency, fit.params.l2Efficiency, fit.params.latencyScale,
          fit.params.launchOverheadUs, fit.evaluations);
    QVERIFY2(fit.after.rmsLogError < 0.03, qPrintable(QString::number(fit.after.rmsLogError)));
    QVERIFY(fit.after.rmsLogError < fit.before.rmsLogError);
    QVERIFY(fit.after.spearman >= fit.before.spearman - 1e-9);
    QVERIFY(fit.after.top1Regret <= fit.before.top1Regret + 1e-9);
    QVERIFY(fit.after.spearman > 0.95);
    if (rankingFixed) {
      QVERIFY(fit.before.top1Regret > 0.01);
      QVERIFY(fit.after.top1Regret < 1e-9);
      QVERIFY(fit.after.spearman > fit.before.spearman);
    }
    QCOMPARE(fit.after.groups, std::size_t(5));
    // The parameters the set determines come back.
    auto near = [](double got, double want, double tol) { return std::fabs(got / want - 1) < tol; };
    QVERIFY2(near(fit.params.tensorEfficiency, tensor, 0.05),
             qPrintable(QString::number(fit.params.tensorEfficiency)));
    QVERIFY2(near(fit.params.hbmEfficiency, hbmEff, 0.05),
             qPrintable(QString::number(fit.params.hbmEfficiency)));
    QVERIFY2(near(fit.params.latencyScale, latency, 0.15),
             qPrintable(QString::number(fit.params.latencyScale)));
    QVERIFY2(near(fit.params.launchOverheadUs, overhead, 0.25),
             qPrintable(QString::number(fit.params.launchOverheadUs)));
    // The calibration file round-trips through the target loader's validation.
    std::string file = cost::calibrationFile("sm_90a", fit, samples.size(), "synthetic");
    SourceManager sm;
    DiagnosticEngine d;
    FileId f = sm.addBuffer("sm_90a.json", file);
    auto doc = json::parse(sm.text(f), f, d);
    QVERIFY(doc && target::TargetSet::checkCalibration(*doc, d, "calibration file"));
  }
};

QTEST_APPLESS_MAIN(TestCost)
#include "tst_cost.moc"
