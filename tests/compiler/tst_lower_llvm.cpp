// Unit tests of the in-process LLVM path: NVPTX PTX for the sm_80 / sm_90a corpus kernels,
// `.loc` lines into the .cake source, refusal of targets LLVM 19 cannot emit, determinism and
// concurrent jobs (one LLVMContext and TargetMachine per job, no global state).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "TestUtil.h"

#include "cake/Lower/Lowering.h"
#include "cake/Lower/ThreadProgram.h"
#include "cake/LowerLLVM/LlvmBackend.h"
#include "cake/Support/StringUtil.h"

#include <QtTest>
#include <thread>

using namespace cake;

namespace {

lower::Program lowerCorpus(const std::string& rel, bool& ok) {
  std::string path = std::string(CAKE_CORPUS_DIR) + "/" + rel;
  std::string error;
  auto text = readFile(path, error);
  ok = false;
  if (!text)
    return {};
  driver::CheckResult r = test::compiler().check(path, *text);
  if (!r.accepted)
    return {};
  lower::LoweredKernel k =
      lower::lowerKernel(r.module, r.model, test::compiler().registry(), *r.sources, path);
  ok = k.ok;
  return k.program;
}

int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (std::size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1))
    ++n;
  return n;
}

} // namespace

class TestLowerLlvm : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void targets() {
    QVERIFY(lower::llvmSupportsTarget("sm_80"));
    QVERIFY(lower::llvmSupportsTarget("sm_90a"));
    QVERIFY(!lower::llvmSupportsTarget("sm_100a"));
    QVERIFY(!lower::llvmSupportsTarget("sm_90"));
    bool ok = false;
    lower::Program bw = lowerCorpus("blackwell_gemm/gemm_tcgen05.cake", ok);
    QVERIFY(ok);
    lower::LlvmResult r = lower::emitLlvm(bw, {});
    QVERIFY(!r.ok);
    QVERIFY(r.error.find("sm_100a") != std::string::npos);
  }

  void corpus_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("target");
    QTest::newRow("bias_gelu") << "bias_gelu/bias_gelu.cake"
                               << "sm_80";
    QTest::newRow("row_softmax") << "softmax/row_softmax.cake"
                                 << "sm_80";
    QTest::newRow("rmsnorm") << "rmsnorm/rmsnorm.cake"
                             << "sm_90a";
    QTest::newRow("ampere_gemm") << "ampere_gemm/gemm_cp_async.cake"
                                 << "sm_80";
    QTest::newRow("hopper_gemm") << "hopper_gemm/gemm_ws.cake"
                                 << "sm_90a";
    QTest::newRow("flash_attention") << "flash_attention/fa_fwd.cake"
                                     << "sm_90a";
    QTest::newRow("flash_kmeans") << "flash_kmeans/assign.cake"
                                  << "sm_90a";
  }

  void corpus() {
    QFETCH(QString, path);
    QFETCH(QString, target);
    bool ok = false;
    lower::Program p = lowerCorpus(path.toStdString(), ok);
    QVERIFY(ok);
    lower::LlvmOptions o;
    o.wantIr = true;
    lower::LlvmResult r = lower::emitLlvm(p, o);
    QVERIFY2(r.ok, r.error.c_str());
    QVERIFY(r.ptx.find(".version " + lower::llvmPtxVersion(p.target)) != std::string::npos);
    QVERIFY(r.ptx.find(".target " + target.toStdString()) != std::string::npos);
    QVERIFY(r.ptx.find(".entry " + p.name) != std::string::npos);
    QVERIFY(r.ptx.find(".loc") != std::string::npos);
    QVERIFY(r.ptx.find(".file") != std::string::npos);
    QVERIFY(r.ir.find("define ptx_kernel void @" + p.name) != std::string::npos);
    // Deterministic.
    lower::LlvmResult again = lower::emitLlvm(p, o);
    QCOMPARE(QString::fromStdString(again.ptx), QString::fromStdString(r.ptx));
  }

  void hopperInstructions() {
    bool ok = false;
    lower::Program p = lowerCorpus("hopper_gemm/gemm_ws.cake", ok);
    QVERIFY(ok);
    lower::LlvmResult r = lower::emitLlvm(p, {});
    QVERIFY(r.ok);
    QCOMPARE(count(r.ptx, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"), 4);
    QCOMPARE(count(r.ptx, "setmaxnreg.dec.sync.aligned.u32 40"), 1);
    QCOMPARE(count(r.ptx, "setmaxnreg.inc.sync.aligned.u32 232"), 1);
    QCOMPARE(count(r.ptx, "cp.async.bulk.tensor.2d.shared::cluster.global"), 2);
    QCOMPARE(count(r.ptx, "stmatrix.sync.aligned.m8n8.x4.shared.b16"), 8);
    QVERIFY(r.ptx.find(".maxnreg 168") != std::string::npos);
    QVERIFY(r.ptx.find(".maxntid 384, 1, 1") != std::string::npos);
    lower::LlvmOptions noDebug;
    noDebug.debugInfo = false;
    lower::LlvmResult plain = lower::emitLlvm(p, noDebug);
    QVERIFY(plain.ok);
    QCOMPARE(count(plain.ptx, ".loc"), 0);
  }

  /// Register arrays only inline PTX touches are named PTX registers; an array LLVM arithmetic
  /// reads, or one assigned an LLVM value, stays SSA; a copy of a named array is named too
  /// (fixpoint); an address in brackets is a base register plus an immediate.
  void namedRegisters() {
    using lower::AsmOperand;
    using lower::ExprRef;
    using lower::Stmt;
    using lower::Ty;
    namespace ex = lower::ex;
    lower::Program p;
    p.name = "named";
    p.target = "sm_90a";
    p.threads = 128;
    auto array = [&](const char* name, Ty ty, int count) {
      lower::Var v;
      v.name = name;
      v.ty = ty;
      v.count = count;
      p.vars.push_back(v);
      return static_cast<int>(p.vars.size() - 1);
    };
    int a = array("a", Ty::F32, 2), b = array("b", Ty::F32, 2), c = array("c", Ty::F32, 2),
        d = array("d", Ty::F32, 2), smem = array("smem", Ty::U32, 0), x = array("x", Ty::F32, 0);
    auto asmStmt = [&](std::string text, std::vector<AsmOperand> outs,
                       std::vector<AsmOperand> ins) {
      Stmt st;
      st.kind = Stmt::Kind::Asm;
      st.line = 1;
      st.text = std::move(text);
      st.outputs = std::move(outs);
      st.inputs = std::move(ins);
      p.body.push_back(std::move(st));
    };
    auto out = [&](int var, int i) {
      AsmOperand o;
      o.constraint = 'f';
      o.var = var;
      o.index = ex::i32(i);
      return o;
    };
    auto in = [&](ExprRef v, char constraint = 'f') {
      AsmOperand o;
      o.constraint = constraint;
      o.value = std::move(v);
      return o;
    };
    auto assign = [&](int var, ExprRef index, ExprRef value) {
      Stmt st;
      st.kind = Stmt::Kind::Assign;
      st.line = 2;
      st.var = var;
      st.index = std::move(index);
      st.value = std::move(value);
      p.body.push_back(std::move(st));
    };
    assign(smem, nullptr, ex::special(lower::Special::SmemBase));
    asmStmt("mov.f32 %0, 0f3F800000;\nmov.f32 %1, 0f40000000;", {out(a, 0), out(a, 1)}, {});
    for (int i = 0; i < 2; ++i) {
      assign(b, ex::i32(i), ex::elem(p, a, ex::i32(i)));                                // copy
      assign(c, ex::i32(i), ex::bin(lower::Op::Add, ex::f32(1.0f), ex::f32(float(i)))); // LLVM
    }
    asmStmt("mov.f32 %0, 0f3F800000;\nmov.f32 %1, 0f40000000;", {out(d, 0), out(d, 1)}, {});
    assign(x, nullptr, ex::bin(lower::Op::Add, ex::elem(p, d, ex::i32(0)), ex::f32(1.0f)));
    ExprRef addr = ex::add(ex::var(p, smem), ex::u32(16));
    asmStmt("st.shared.v2.f32 [%0], {%1, %2};", {},
            {in(addr, 'r'), in(ex::elem(p, b, ex::i32(0))), in(ex::elem(p, b, ex::i32(1)))});
    asmStmt("st.shared.v2.f32 [%0], {%1, %2};", {},
            {in(ex::add(ex::var(p, smem), ex::u32(32)), 'r'), in(ex::elem(p, c, ex::i32(0))),
             in(ex::var(p, x))});
    lower::LlvmOptions o;
    o.wantIr = true;
    lower::LlvmResult r = lower::emitLlvm(p, o);
    QVERIFY2(r.ok, r.error.c_str());
    QVERIFY(r.ir.find(".reg .f32 %cake_a_<2>;") != std::string::npos);
    QVERIFY(r.ir.find(".reg .f32 %cake_b_<2>;") != std::string::npos);
    QCOMPARE(count(r.ir, "%cake_c_"), 0);
    QCOMPARE(count(r.ir, "%cake_d_"), 0);
    QVERIFY(r.ptx.find("mov.f32 %cake_b_0, %cake_a_0;") != std::string::npos);
    QVERIFY(r.ptx.find("st.shared.v2.f32 [%r1+16], {%cake_b_0, %cake_b_1};") != std::string::npos);
    QVERIFY(r.ptx.find("+32], {") != std::string::npos);
    QCOMPARE(count(r.ptx, ".reg .f32 %cake_a_<2>;"), 1);
  }

  /// Background jobs lower concurrently: identical results from parallel threads.
  void concurrentJobs() {
    bool ok1 = false, ok2 = false;
    lower::Program a = lowerCorpus("flash_attention/fa_fwd.cake", ok1);
    lower::Program b = lowerCorpus("ampere_gemm/gemm_cp_async.cake", ok2);
    QVERIFY(ok1 && ok2);
    std::string ref1 = lower::emitLlvm(a, {}).ptx, ref2 = lower::emitLlvm(b, {}).ptx;
    std::vector<std::string> out(8);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < out.size(); ++i)
      threads.emplace_back([&, i] { out[i] = lower::emitLlvm(i % 2 ? b : a, {}).ptx; });
    for (std::thread& t : threads)
      t.join();
    for (std::size_t i = 0; i < out.size(); ++i)
      QVERIFY(out[i] == (i % 2 ? ref2 : ref1));
  }
};

QTEST_GUILESS_MAIN(TestLowerLlvm)
#include "tst_lower_llvm.moc"
