// Unit tests of lowering: derived metadata of the corpus kernels (shared-memory table, barrier
// groups, roles, TMEM, tensor maps), descriptor encodings, fragment layouts, determinism, the
// ptxas report parser, role isolation, typed template slots and the lowering rule files.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "TestUtil.h"

#include "cake/Lower/CudaEmitter.h"
#include "cake/Lower/Lowering.h"
#include "cake/Lower/ThreadProgram.h"
#include "cake/Lower/Toolchain.h"
#include "cake/Support/StringUtil.h"

#include <QtTest>
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <functional>
#include <random>
#include <thread>

using namespace cake;

namespace {

struct Lowered {
  driver::CheckResult check;
  lower::LoweredKernel kernel;
};

Lowered lowerCorpus(const QString& rel) {
  std::string path = std::string(CAKE_CORPUS_DIR) + "/" + rel.toStdString();
  std::string error;
  auto text = readFile(path, error);
  Lowered l;
  if (!text)
    return l;
  l.check = test::compiler().check(path, *text);
  if (l.check.accepted)
    l.kernel = lower::lowerKernel(l.check.module, l.check.model, test::compiler().registry(),
                                  *l.check.sources, path);
  return l;
}

const lower::BarrierGroup* barrier(const lower::Metadata& md, const std::string& name) {
  for (const lower::BarrierGroup& b : md.barriers)
    if (b.name == name)
      return &b;
  return nullptr;
}

const lower::FragmentInfo* fragment(const lower::Metadata& md, const std::string& name) {
  for (const lower::FragmentInfo& f : md.fragments)
    if (f.name == name)
      return &f;
  return nullptr;
}

} // namespace

class TestLower : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void corpus_data() {
    QTest::addColumn<QString>("path");
    for (const char* p : {"bias_gelu/bias_gelu.cake", "softmax/row_softmax.cake",
                          "rmsnorm/rmsnorm.cake", "ampere_gemm/gemm_cp_async.cake",
                          "hopper_gemm/gemm_ws.cake", "flash_attention/fa_fwd.cake",
                          "flash_kmeans/assign.cake", "blackwell_gemm/gemm_tcgen05.cake"})
      QTest::newRow(p) << QString::fromLatin1(p);
  }

  /// Every corpus kernel lowers without findings; the derived shared memory agrees with the
  /// verifier's resource analysis; lowering is deterministic.
  void corpus() {
    QFETCH(QString, path);
    Lowered l = lowerCorpus(path);
    QVERIFY2(l.check.accepted, qPrintable(test::messages(l.check.diagnostics)));
    QVERIFY2(l.kernel.ok, qPrintable(test::messages(l.kernel.findings)));
    QVERIFY(l.kernel.findings.empty());
    const lower::Metadata& md = l.kernel.metadata;
    QCOMPARE(md.smemTotal, l.check.verification.resources.smemTotal);
    QCOMPARE(md.threads, l.check.model.threadsPerCta());
    QCOMPARE(l.kernel.program.smemBytes, md.smemTotal);
    QCOMPARE(md.scheduleHash.size(), std::size_t(16));
    // Every register tile used by an operation has a layout.
    for (const sema::BufferInfo& b : l.check.model.buffers)
      if (b.space == ir::Space::Reg)
        if (const lower::FragmentInfo* f = fragment(md, b.name))
          QVERIFY2(f->layout != "unknown" && f->registersPerThread > 0, f->name.c_str());
    // Deterministic: lowering again gives the same program text.
    Lowered again = lowerCorpus(path);
    lower::Provenance prov{"k.cake", "0", "rev"};
    QCOMPARE(
        QString::fromStdString(lower::emitCuda(l.kernel.program, md, prov)),
        QString::fromStdString(lower::emitCuda(again.kernel.program, again.kernel.metadata, prov)));
  }

  void hopperMetadata() {
    Lowered l = lowerCorpus("hopper_gemm/gemm_ws.cake");
    QVERIFY(l.kernel.ok);
    const lower::Metadata& md = l.kernel.metadata;
    QCOMPARE(md.threads, std::int64_t(384));
    QVERIFY(md.persistent);
    QCOMPARE(md.ctas, std::int64_t(132));
    QCOMPARE(md.tileCount, std::int64_t(1024));
    QCOMPARE(md.launchRegisters, std::int64_t(168));
    QCOMPARE(md.roles.size(), std::size_t(2));
    QCOMPARE(md.roles[0].setmaxnreg, std::string("dec"));
    QCOMPARE(md.roles[0].registers, std::int64_t(40));
    QCOMPARE(md.roles[1].setmaxnreg, std::string("inc"));
    QCOMPARE(md.roles[1].threadBegin, std::int64_t(128));
    QCOMPARE(md.roles[1].elected, std::string("elect.sync"));
    QCOMPARE(md.smemBuffers, std::int64_t(163840));
    QCOMPARE(md.smemTotal, std::int64_t(163840 + 8 * 8));
    const lower::BarrierGroup* full = barrier(md, "full");
    const lower::BarrierGroup* empty = barrier(md, "empty");
    const lower::BarrierGroup* epi = barrier(md, "epi");
    QVERIFY(full && empty && epi);
    QCOMPARE(full->offset, std::int64_t(163840));
    QCOMPARE(full->elements, std::int64_t(4));
    QCOMPARE(full->initCount, std::int64_t(1));
    QCOMPARE(full->expectTxBytes, std::int64_t(32768));
    QCOMPARE(empty->offset, std::int64_t(163872));
    QCOMPARE(empty->initCount, std::int64_t(2));
    QVERIFY(epi->named);
    QCOMPARE(epi->hardwareId, std::int64_t(1));
    QCOMPARE(epi->initCount, std::int64_t(256));
    QCOMPARE(md.tensorMaps.size(), std::size_t(3));
    const lower::TensorMapInfo& tA = md.tensorMaps[0];
    QCOMPARE(tA.globalDims, (std::vector<std::int64_t>{4096, 4096}));
    QCOMPARE(tA.globalStrides, (std::vector<std::int64_t>{8192}));
    QCOMPARE(tA.box, (std::vector<std::int64_t>{64, 128}));
    QCOMPARE(tA.boxBytes, std::int64_t(16384));
    // Every stage of a staged buffer has its own table entry.
    int stages = 0;
    for (const lower::SmemEntry& e : md.smem)
      if (e.name == "b_s" && e.kind == "stage") {
        QCOMPARE(e.offset, 65536 + e.stage * 16384);
        ++stages;
      }
    QCOMPARE(stages, 4);
    // Fragments: the wgmma accumulator and its bf16 copy.
    QCOMPARE(fragment(md, "acc")->layout, std::string("wgmma_acc"));
    QCOMPARE(fragment(md, "acc")->registersPerThread, std::int64_t(64));
    QCOMPARE(fragment(md, "acc_bf")->registersPerThread, std::int64_t(32));
    // One wgmma descriptor pair, K-major, 128B swizzle, 4 K steps of 32 bytes.
    QCOMPARE(md.descriptors.size(), std::size_t(2));
    QCOMPARE(md.descriptors[0].kStepBytes, std::int64_t(32));
    QCOMPARE(md.descriptors[0].instructions, std::int64_t(4));
    QCOMPARE(md.descriptors[0].encodedFixed, std::uint64_t(0x4000004000010000ull));
  }

  void blackwellMetadata() {
    Lowered l = lowerCorpus("blackwell_gemm/gemm_tcgen05.cake");
    QVERIFY(l.kernel.ok);
    const lower::Metadata& md = l.kernel.metadata;
    QCOMPARE(md.tmem.size(), std::size_t(1));
    QCOMPARE(md.tmem[0].allocColumns, std::int64_t(256));
    QCOMPARE(md.tmemBaseOffset, std::int64_t(131072 + 65536 + 10 * 8));
    QCOMPARE(md.smemTotal, md.tmemBaseOffset + 8);
    QCOMPARE(barrier(md, "acc_empty")->initCount, std::int64_t(4));
    QCOMPARE(barrier(md, "full")->expectTxBytes, std::int64_t(49152));
    QCOMPARE(md.launchRegisters, std::int64_t(0));
    QCOMPARE(fragment(md, "acc_r")->layout, std::string("tmem_rows"));
    QCOMPARE(fragment(md, "out_r")->registersPerThread, std::int64_t(16));
    QVERIFY(!md.descriptors.empty());
    QCOMPARE(md.descriptors[0].instrDescriptor, std::uint32_t(0x08400490u));
  }

  void descriptorEncodings() {
    // wgmma: LBO 16 B (encoded 1), SBO 1024 B (64), 128B swizzle (1 << 62).
    QCOMPARE(lower::wgmmaDescriptorBits("128B", 16, 1024), std::uint64_t(0x4000004000010000ull));
    QCOMPARE(lower::wgmmaDescriptorBits("64B", 16, 512), std::uint64_t(0x8000002000010000ull));
    QCOMPARE(lower::wgmmaDescriptorBits("32B", 16, 256), std::uint64_t(0xC000001000010000ull));
    QCOMPARE(lower::wgmmaDescriptorBits("none", 128, 256), std::uint64_t(0x0000001000080000ull));
    // tcgen05: version 0b001 at bit 46, swizzle 128B = 2 in bits 61..63.
    QCOMPARE(lower::tcgen05DescriptorBits("128B", 16, 1024), std::uint64_t(0x4000404000010000ull));
    QCOMPARE(lower::tcgen05DescriptorBits("64B", 16, 512), std::uint64_t(0x8000402000010000ull));
    // kind::f16 instruction descriptor: f32 D, bf16 A/B, K-major, N >> 3, M >> 4.
    QCOMPARE(lower::tcgen05InstrDescriptor(ir::DType::F32, ir::DType::BF16, ir::DType::BF16, 128,
                                           256, false, false),
             std::uint32_t((1u << 4) | (1u << 7) | (1u << 10) | (32u << 17) | (8u << 24)));
    QCOMPARE(lower::tcgen05InstrDescriptor(ir::DType::F16, ir::DType::F16, ir::DType::F16, 64, 8,
                                           true, true),
             std::uint32_t((1u << 15) | (1u << 16) | (1u << 17) | (4u << 24)));
  }

  // The factored swizzle (row part + column bytes XOR per-row bits) must give exactly the
  // address Swizzle<B, 4, 3> gives on the whole offset, for every element, with or without
  // stages, on atom- and span-aligned buffers, and fall back where rows are wider than a span.
  void swizzledOffsets_data() {
    QTest::addColumn<int>("mask");
    QTest::addColumn<int>("elemBytes");
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("cols");
    QTest::addColumn<int>("offset");
    QTest::addColumn<bool>("staged");
    QTest::newRow("128B bf16 rows, atom-aligned") << 7 << 2 << 64 << 64 << 131072 << true;
    QTest::newRow("128B bf16, span-aligned only") << 7 << 2 << 16 << 64 << 128 << true;
    QTest::newRow("128B f32 half rows") << 7 << 4 << 16 << 16 << 2048 << false;
    QTest::newRow("128B rows wider than a span") << 7 << 2 << 8 << 128 << 1024 << true;
    QTest::newRow("64B bf16 rows") << 3 << 2 << 32 << 32 << 512 << true;
    QTest::newRow("64B, not atom-aligned") << 3 << 2 << 16 << 32 << 192 << true;
    QTest::newRow("32B f32 rows") << 1 << 4 << 16 << 8 << 256 << true;
    QTest::newRow("no swizzle") << 0 << 2 << 8 << 48 << 96 << true;
  }
  void swizzledOffsets() {
    QFETCH(int, mask);
    QFETCH(int, elemBytes);
    QFETCH(int, rows);
    QFETCH(int, cols);
    QFETCH(int, offset);
    QFETCH(bool, staged);
    lower::SmemLayout l;
    l.name = "SMEM_T";
    l.offset = offset;
    l.elemBytes = elemBytes;
    l.shape = {rows, cols};
    l.stageBytes = std::int64_t(rows) * cols * elemBytes;
    l.swizzleMask = mask;
    int checked = 0;
    for (int st = 0; st < (staged ? 3 : 1); ++st)
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
          auto e = lower::swizzledSmemOffset(l, staged ? lower::ex::i32(st) : nullptr,
                                             {lower::ex::i32(r), lower::ex::i32(c)});
          std::int64_t off = offset + st * l.stageBytes + (std::int64_t(r) * cols + c) * elemBytes;
          std::int64_t want = off ^ (((off >> 7) & mask) << 4);
          auto got = lower::ex::constantValue(*e);
          QVERIFY(got);
          if (*got != want)
            QFAIL(qPrintable(QStringLiteral("stage %1 row %2 col %3: %4, want %5")
                                 .arg(st)
                                 .arg(r)
                                 .arg(c)
                                 .arg(*got)
                                 .arg(want)));
          ++checked;
        }
    QCOMPARE(checked, (staged ? 3 : 1) * rows * cols);
  }

  // Address splitting rests on affineForm: for random integer expressions over variables,
  // a bound (unrolled) loop variable and constants, with the types lowering uses (I32 sums
  // sign-extended into 64-bit global addresses, U32 shared-memory offsets with XOR and shift
  // atoms), sum(coefficient * atom) + constant must equal the expression, modulo its width.
  void affineForms() {
    lower::Program p;
    for (lower::Ty t : {lower::Ty::I32, lower::Ty::I32, lower::Ty::U32, lower::Ty::I32}) {
      lower::Var v;
      v.name = "v" + std::to_string(p.vars.size());
      v.ty = t;
      p.vars.push_back(v);
    }
    const int boundVar = 3;
    std::mt19937 rng(12345);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
    using lower::ExprRef;
    using lower::Op;
    using lower::Ty;
    namespace ex = lower::ex;
    std::function<ExprRef(Ty, int)> gen = [&](Ty ty, int depth) -> ExprRef {
      bool is64 = ty == Ty::I64 || ty == Ty::U64;
      if (depth == 0 || pick(5) == 0) {
        if (is64)
          return ex::convert(gen(pick(2) ? Ty::I32 : Ty::U32, depth), ty);
        switch (pick(4)) {
        case 0:
          return ex::convert(ex::i32(pick(64)), ty);
        case 1:
          return ex::convert(ex::var(p, pick(2)), ty);
        case 2:
          return ex::convert(ex::var(p, 2), ty);
        default:
          return ex::convert(ex::var(p, boundVar), ty);
        }
      }
      ExprRef a = gen(ty, depth - 1);
      switch (pick(8)) {
      case 0:
      case 1:
        return ex::bin(Op::Add, a, gen(ty, depth - 1));
      case 2:
        return ex::bin(Op::Sub, a, gen(ty, depth - 1));
      case 3:
        return ex::bin(Op::Mul, a, ex::convert(ex::i32(1 + pick(16)), ty));
      case 4:
        return ex::bin(Op::Shl, a, ex::convert(ex::i32(pick(5)), ty));
      case 5:
        return ex::bin(Op::Xor, a, ex::convert(ex::i32(pick(128)), ty));
      case 6:
        return ex::bin(Op::Shr, a, ex::convert(ex::i32(1 + pick(4)), ty));
      default:
        return ex::un(Op::Neg, a);
      }
    };
    std::int64_t vals[4] = {0, 0, 0, 0};
    auto wrap = [](std::int64_t v, Ty t) -> std::int64_t {
      switch (t) {
      case Ty::I32:
        return static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
      case Ty::U32:
        return static_cast<std::uint32_t>(v);
      default:
        return v;
      }
    };
    std::function<std::int64_t(const lower::Expr&)> eval = [&](const lower::Expr& e) {
      switch (e.kind) {
      case lower::Expr::Kind::Const:
        return wrap(e.value, e.ty);
      case lower::Expr::Kind::Var:
        return wrap(vals[e.var], e.ty);
      case lower::Expr::Kind::Convert:
        return wrap(eval(*e.args[0]), e.ty);
      case lower::Expr::Kind::Unary:
        return wrap(-eval(*e.args[0]), e.ty);
      default: {
        std::int64_t x = eval(*e.args[0]), y = eval(*e.args[1]);
        switch (e.op) {
        case Op::Add:
          return wrap(x + y, e.ty);
        case Op::Sub:
          return wrap(x - y, e.ty);
        case Op::Mul:
          return wrap(x * y, e.ty);
        case Op::Shl:
          return wrap(x << y, e.ty);
        case Op::Xor:
          return wrap(x ^ y, e.ty);
        default: // Shr: arithmetic on signed types, logical on unsigned
          return wrap(e.ty == Ty::I32 || e.ty == Ty::I64
                          ? x >> y
                          : static_cast<std::int64_t>(static_cast<std::uint64_t>(x) >> y),
                      e.ty);
        }
      }
      }
    };
    int split = 0;
    for (int iter = 0; iter < 4000; ++iter) {
      Ty ty = std::array<Ty, 3>{Ty::I32, Ty::U32, Ty::I64}[static_cast<std::size_t>(pick(3))];
      ExprRef e = gen(ty, 1 + pick(4));
      std::int64_t bound = pick(8);
      auto form = lower::affineForm(*e, [&](int v) -> std::optional<std::int64_t> {
        if (v == boundVar)
          return bound;
        return std::nullopt;
      });
      QVERIFY(form);
      split += !form->terms.empty() && form->constant != 0;
      for (int trial = 0; trial < 4; ++trial) {
        vals[0] = pick(1000);
        vals[1] = pick(1000);
        vals[2] = pick(1000);
        vals[boundVar] = bound;
        std::int64_t want = eval(*e);
        std::int64_t got = form->constant;
        for (const lower::AffineTerm& t : form->terms) {
          std::int64_t a = eval(*t.atom);
          if (t.sext)
            a = static_cast<std::int32_t>(static_cast<std::uint32_t>(a));
          got += t.coeff * a;
        }
        if (wrap(got, ty) != want)
          QFAIL(qPrintable(QStringLiteral("iteration %1: affine form gives %2, the expression %3")
                               .arg(iter)
                               .arg(wrap(got, ty))
                               .arg(want)));
      }
    }
    QVERIFY(split > 500); // the test exercises base + constant splits
  }

  void fragmentLayouts() {
    Lowered ampere = lowerCorpus("ampere_gemm/gemm_cp_async.cake");
    QCOMPARE(fragment(ampere.kernel.metadata, "c_f")->layout, std::string("mma_acc"));
    QCOMPARE(fragment(ampere.kernel.metadata, "c_f")->registersPerThread, std::int64_t(128));
    QCOMPARE(fragment(ampere.kernel.metadata, "a_f")->layout, std::string("mma_a"));
    QCOMPARE(fragment(ampere.kernel.metadata, "b_f")->layout, std::string("mma_b"));
    QCOMPARE(fragment(ampere.kernel.metadata, "b_f")->registersPerThread, std::int64_t(16));
    Lowered fa = lowerCorpus("flash_attention/fa_fwd.cake");
    QCOMPARE(fragment(fa.kernel.metadata, "m_i")->layout, std::string("wgmma_row"));
    QCOMPARE(fragment(fa.kernel.metadata, "p_bf")->layout, std::string("wgmma_acc"));
    QCOMPARE(fragment(fa.kernel.metadata, "qk_scale")->layout, std::string("thread"));
    Lowered rms = lowerCorpus("rmsnorm/rmsnorm.cake");
    QCOMPARE(fragment(rms.kernel.metadata, "w_f")->layout, std::string("warp_vector"));
    QCOMPARE(fragment(rms.kernel.metadata, "part")->layout, std::string("replicated"));
    QCOMPARE(fragment(rms.kernel.metadata, "rstd")->layout, std::string("replicated"));
  }

  void unsupportedIsAFinding() {
    // A warp-scope 2-D tile no MMA or tcgen05.ld defines has no fragment layout: lowering
    // reports it at the operation instead of guessing.
    std::string text = "kernel odd target=sm_80 {\n"
                       "  param X : f32[64, 64] role=input\n"
                       "  param Y : f32[64, 64] role=output\n"
                       "  grid tiles=[1]\n"
                       "  role main warps=0..1\n"
                       "  reg t : f32[4, 8] scope=warp\n"
                       "  on main {\n"
                       "    ew.fill t value=1.0\n"
                       "    epilogue.store Y[0 +: 4, 0 +: 8], t\n"
                       "  }\n"
                       "}\n";
    driver::CheckResult r = test::compiler().check("odd.cake", text);
    QVERIFY2(r.accepted, qPrintable(test::messages(r.diagnostics)));
    lower::LoweredKernel k =
        lower::lowerKernel(r.module, r.model, test::compiler().registry(), *r.sources, "odd.cake");
    QVERIFY(!k.ok);
    QVERIFY(!k.findings.empty());
    QCOMPARE(k.findings[0].code, std::string("hw-lowering-unsupported"));
    QVERIFY(r.sources->lineColumn(k.findings[0].range.file, k.findings[0].range.begin).line == 8);
  }

  void isolateRole() {
    Lowered l = lowerCorpus("hopper_gemm/gemm_ws.cake");
    lower::Program p = lower::isolateRole(l.kernel.program, "consumer", 256);
    QCOMPARE(p.threads, std::int64_t(256));
    QCOMPARE(p.launchRegisters, std::int64_t(0));
    std::string cuda = lower::emitCuda(p, l.kernel.metadata, {"k", "0", "r"});
    QVERIFY(cuda.find("// role consumer") != std::string::npos);
    QVERIFY(cuda.find("// role producer") == std::string::npos);
    QVERIFY(cuda.find("asm volatile(\"setmaxnreg") == std::string::npos);
  }

  void ptxasParser() {
    std::string out = "ptxas info    : 0 bytes gmem\n"
                      "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
                      "ptxas info    : Function properties for k\n"
                      "    24 bytes stack frame, 16 bytes spill stores, 12 bytes spill loads\n"
                      "ptxas info    : Used 168 registers, used 2 barriers, 1024 bytes smem, "
                      "376 bytes cmem[0]\n"
                      "ptxas warning : Registers are spilled to local memory in function 'k'\n";
    lower::PtxasReport rep = lower::parsePtxasOutput(out);
    QCOMPARE(rep.entries.size(), std::size_t(1));
    const lower::PtxasEntry& e = rep.entries[0];
    QCOMPARE(e.name, std::string("k"));
    QCOMPARE(e.target, std::string("sm_90a"));
    QCOMPARE(e.registers, std::int64_t(168));
    QCOMPARE(e.barriers, std::int64_t(2));
    QCOMPARE(e.smemBytes, std::int64_t(1024));
    QCOMPARE(e.cmemBytes, std::int64_t(376));
    QCOMPARE(e.stackFrame, std::int64_t(24));
    QCOMPARE(e.spillStores, std::int64_t(16));
    QCOMPARE(e.spillLoads, std::int64_t(12));
    QCOMPARE(rep.warnings.size(), std::size_t(1));
  }

  void resourceContradictions() {
    // A report that contradicts the derived figures yields located findings.
    Lowered l = lowerCorpus("hopper_gemm/gemm_ws.cake");
    lower::EvidenceContext ctx;
    ctx.module = &l.check.module;
    ctx.model = &l.check.model;
    ctx.metadata = &l.kernel.metadata;
    lower::Evidence ev;
    ev.report.entries.push_back({"gemm_bf16_ws", "sm_90a", 200, 5, 512, 0, 16, 16, 16});
    lower::judgeResources(ev, ctx);
    QStringList codes;
    for (const Diagnostic& d : ev.findings)
      codes << QString::fromStdString(d.code);
    QCOMPARE(codes, (QStringList{"hw-ptxas-registers", "hw-ptxas-spill", "hw-ptxas-smem",
                                 "hw-ptxas-barriers"}));
    QVERIFY(ev.findings[0].range.valid());
    QCOMPARE(ev.findings[0].notes.size(), std::size_t(2)); // the two role budgets
    // Per-role evidence: a budget below the role's need is located at its regs= attribute.
    lower::PtxasReport role;
    role.entries.push_back({"gemm_bf16_ws", "sm_90a", 250, 1, 0, 0, 0, 0, 0});
    lower::Evidence ev2;
    lower::judgeRoleBudget(ev2, ctx, "consumer", role);
    QCOMPARE(ev2.findings.size(), std::size_t(1));
    QVERIFY(ev2.findings[0].message.find("budgets 232") != std::string::npos);
  }

  void missingTool() {
    QVERIFY(!lower::findCudaTool("ptxas", "/nonexistent-cuda").has_value());
    Lowered l = lowerCorpus("rmsnorm/rmsnorm.cake");
    lower::EvidenceContext ctx;
    ctx.module = &l.check.module;
    ctx.cudaHome = "/nonexistent-cuda";
    lower::Evidence ev = lower::ptxasEvidence(".version 8.0\n", "sm_90a", ctx);
    QVERIFY(!ev.ok);
    QCOMPARE(ev.findings.size(), std::size_t(1));
    QCOMPARE(ev.findings[0].code, std::string("hw-toolchain-missing"));
  }

  void runToolTimeout() {
    lower::ToolRun r = lower::runTool({"/bin/sleep", "5"}, 0.3);
    QVERIFY(r.started);
    QVERIFY(r.timedOut);
    lower::ToolRun ok = lower::runTool({"/bin/echo", "hello"}, 5);
    QCOMPARE(ok.exitCode, 0);
    QCOMPARE(QString::fromStdString(ok.output), QStringLiteral("hello\n"));
    // A cancelled background job kills its tool well before the timeout.
    std::atomic<bool> cancel{false};
    std::thread canceller([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      cancel = true;
    });
    lower::ToolRun c = lower::runTool({"/bin/sleep", "30"}, 60, &cancel);
    canceller.join();
    QVERIFY(c.started);
    QVERIFY(c.cancelled);
    QVERIFY(!c.timedOut);
    QCOMPARE(c.exitCode, -1);
    QVERIFY(c.seconds < 20);
  }

  void lowerCodesHaveRules() {
    // Every lowering code is documented by a builtin rule with the same family and severity.
    for (const char* code :
         {"hw-lowering-unsupported", "hw-toolchain-missing", "hw-toolchain-error",
          "hw-ptxas-registers", "hw-ptxas-spill", "hw-ptxas-smem", "hw-ptxas-barriers"}) {
      const verify::Rule* rule = test::compiler().rules().find(code);
      QVERIFY2(rule, code);
      QVERIFY(rule->kind == verify::RuleKind::Builtin);
    }
    for (int i = 0; i < 7; ++i) {
      auto id = static_cast<lower::LowerId>(i);
      Diagnostic d = lower::makeFinding(id, {}, "x");
      const verify::Rule* rule = test::compiler().rules().find(d.code);
      QVERIFY2(rule, d.code.c_str());
      QVERIFY2(rule->family == d.family, d.code.c_str());
      QVERIFY2(rule->severity == d.severity, d.code.c_str());
    }
  }

  void typedTemplateSlots() {
    auto parse = [](const std::string& lowering) {
      SourceManager sm;
      DiagnosticEngine diags;
      std::string text =
          "{\"name\": \"x.op\", \"category\": \"sync\", \"summary\": \"s\", \"targets\": "
          "[\"sm_90a\"],"
          " \"issue\": \"thread\", \"operands\": [{\"name\": \"bar\", \"kind\": \"mbarrier\","
          " \"access\": \"none\", \"doc\": \"d\"}], \"attributes\": [{\"name\": \"n\", \"type\":"
          " \"int\", \"default\": 0, \"doc\": \"d\"}], \"effects\": [], \"hardware\": {\"ptx\":"
          " \"x\", \"min_ptx\": \"8.0\", \"requires\": [], \"note\": \"n\"}, \"cost\": {\"class\":"
          " \"sync\", \"unit\": \"instr\", \"work\": \"1\"}, \"lowering\": " +
          lowering + "}";
      FileId f = sm.addBuffer("sync/x.op.json", text);
      auto p = reg::Registry::parse("sync/x.op.json", f, test::compiler().targets(), sm, diags);
      std::vector<std::string> codes;
      for (const Diagnostic& d : diags.diagnostics())
        codes.push_back(d.code + ": " + d.message);
      return std::make_pair(p != nullptr && diags.diagnostics().empty(), codes);
    };
    QVERIFY(parse("{\"ptx\": [\"mbarrier.arrive.shared.b64 _, [{bar.addr}], {n};\"]}").first);
    auto wrongFacet = parse("{\"ptx\": [\"x [{bar.map}];\"]}");
    QVERIFY(!wrongFacet.first);
    QVERIFY(!wrongFacet.second.empty() && wrongFacet.second[0].find("def-invalid-template") == 0);
    QVERIFY(!parse("{\"ptx\": [\"x {n.id};\"]}").first); // .id only for enum attributes
    QVERIFY(!parse("{\"ptx\": [\"x {bar};\"]}").first);  // operands need a facet
  }

  /// The registry's builtin pattern list (what a definition may name, checked at load time)
  /// and the lowering library's table (what runs) are the same set: a name only the registry
  /// knows would load and then fail to lower; one only the table knows is dead code.
  void patternTableMatchesRegistry() {
    std::vector<std::string> implemented = lower::implementedLoweringPatterns();
    std::vector<std::string> declared;
    for (const reg::BuiltinPattern& p : reg::builtinPatterns())
      declared.emplace_back(p.name);
    std::sort(implemented.begin(), implemented.end());
    std::sort(declared.begin(), declared.end());
    QCOMPARE(join(implemented, ", "), join(declared, ", "));
    QCOMPARE(declared.size(), std::size_t(26)); // st.shared (2-CTA GEMM), tcgen05.st (FA4)
    // Every shipped primitive names its strategy; builtin ones a declared pattern.
    std::size_t builtin = 0;
    for (const auto& p : test::compiler().registry().all())
      if (p->lowering.strategy == reg::LoweringStrategy::Builtin) {
        ++builtin;
        QVERIFY2(std::binary_search(declared.begin(), declared.end(), p->lowering.builtin),
                 p->name.c_str());
      }
    QCOMPARE(builtin, std::size_t(26));
  }
};

QTEST_GUILESS_MAIN(TestLower)
#include "tst_lower.moc"
