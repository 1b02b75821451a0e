// The CPU run's foundations: dtype rounding (ties to even, subnormals, saturation, NaN), the
// reference operators against hand-computed cases, the swizzle permutation, workload contract
// validation with located findings, and the interpreter on small kernels (a correct one and a
// numerically wrong one named by its line), and primitives whose CPU semantics come from data
// (a template's semantic form, an expansion's steps).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "TestUtil.h"
#include "cake/Interp/Run.h"
#include "cake/Interp/Semantics.h"
#include "cake/Interp/Swizzle.h"
#include "cake/Reference/Evaluate.h"
#include "cake/Reference/Operators.h"
#include "cake/Reference/Rounding.h"
#include "cake/Reference/Workload.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <regex>
#include <set>

using namespace cake;

class TstInterp : public QObject {
  Q_OBJECT
private slots:
  void rounding_data();
  void rounding();
  void references();
  void swizzle_data();
  void swizzle();
  void swizzlePermutes();
  void workloadErrors_data();
  void workloadErrors();
  void runVerdict_data();
  void runVerdict();
  void progressAndCancel();
  void hostReference_data();
  void hostReference();
  void hostReferenceRefuses();
  void dataSemantics_data();
  void dataSemantics();
  void builtinNamesExist();
};

void TstInterp::rounding_data() {
  QTest::addColumn<QString>("dtype");
  QTest::addColumn<double>("input");
  QTest::addColumn<double>("expected");
  QTest::addColumn<bool>("towardZero");
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto row = [](const char* name, const char* dt, double in, double out, bool rz = false) {
    QTest::newRow(name) << QString(dt) << in << out << rz;
  };
  row("bf16 exact", "bf16", 1.0, 1.0);
  row("bf16 tie to even down", "bf16", 1.0 + std::ldexp(1.0, -8), 1.0);
  row("bf16 tie to even up", "bf16", 1.0 + 3 * std::ldexp(1.0, -8), 1.0 + std::ldexp(1.0, -6));
  row("bf16 above tie", "bf16", 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -20),
      1.0 + std::ldexp(1.0, -7));
  row("bf16 max", "bf16", 3.3895313892515355e38, 3.3895313892515355e38);
  row("bf16 overflow", "bf16", 3.4e38, inf);
  row("bf16 nan", "bf16", nan, nan);
  row("f16 max", "f16", 65504.0, 65504.0);
  row("f16 below overflow tie", "f16", 65519.0, 65504.0);
  row("f16 overflow tie", "f16", 65520.0, inf);
  row("f16 smallest subnormal", "f16", std::ldexp(1.0, -24), std::ldexp(1.0, -24));
  row("f16 half subnormal to even", "f16", std::ldexp(1.0, -25), 0.0);
  row("f16 three quarter subnormal", "f16", 3 * std::ldexp(1.0, -26), std::ldexp(1.0, -24));
  row("e4m3 max", "f8e4m3", 448.0, 448.0);
  row("e4m3 saturates", "f8e4m3", 500.0, 448.0);
  row("e4m3 saturates negative", "f8e4m3", -1e9, -448.0);
  row("e4m3 infinity saturates", "f8e4m3", inf, 448.0);
  row("e4m3 nan", "f8e4m3", nan, nan);
  row("e4m3 0.1", "f8e4m3", 0.1, 0.1015625);
  row("e4m3 0.1 toward zero", "f8e4m3", 0.1, 0.09375, true);
  row("e4m3 smallest subnormal", "f8e4m3", std::ldexp(1.0, -9), std::ldexp(1.0, -9));
  row("e4m3 half subnormal to even", "f8e4m3", std::ldexp(1.0, -10), 0.0);
  row("e5m2 max", "f8e5m2", 57344.0, 57344.0);
  row("e5m2 saturates", "f8e5m2", 60000.0, 57344.0);
  row("e5m2 tie to even down", "f8e5m2", 1.125, 1.0);
  row("e5m2 tie to even up", "f8e5m2", 1.375, 1.5);
  row("e5m2 nan", "f8e5m2", nan, nan);
  row("f32", "f32", 1.0 + std::ldexp(1.0, -30), 1.0);
  row("i32 tie to even", "i32", 2.5, 2.0);
  row("i32 tie up", "i32", 3.5, 4.0);
  row("i32 saturates", "i32", 1e10, 2147483647.0);
  row("i32 nan", "i32", nan, 0.0);
  row("u8 negative", "u8", -3.0, 0.0);
}

void TstInterp::rounding() {
  QFETCH(QString, dtype);
  QFETCH(double, input);
  QFETCH(double, expected);
  QFETCH(bool, towardZero);
  auto dt = ir::parseDType(dtype.toStdString());
  QVERIFY2(dt, qPrintable(dtype));
  double got = towardZero ? ref::roundTowardZero(*dt, input) : ref::roundTo(*dt, input);
  if (std::isnan(expected))
    QVERIFY2(std::isnan(got), qPrintable(QString::number(got, 'g', 17)));
  else
    QCOMPARE(got, expected);
}

void TstInterp::references() {
  // C = A B^T with A [2, 3], B [2, 3].
  std::vector<double> a{1, 2, 3, 4, 5, 6}, b{1, 0, -1, 2, 1, 0}, c(4);
  ref::gemmNT(a, b, c, 2, 2, 3);
  QCOMPARE(c, (std::vector<double>{-2, 4, -2, 13}));
  QCOMPARE(ref::gelu(1.0), 0.8413447460685429);
  QCOMPARE(ref::gelu(0.0), 0.0);
  std::vector<double> y(3);
  ref::biasGelu(std::vector<double>{0.5, -1.5, 1.0}, std::vector<double>{0.5, 1.5, -1.0}, y, 1, 3);
  QCOMPARE(y, (std::vector<double>{0.8413447460685429, 0.0, 0.0}));
  std::vector<double> s(2);
  ref::rowSoftmax(std::vector<double>{0.0, std::log(3.0)}, s, 1, 2);
  QVERIFY(std::fabs(s[0] - 0.25) < 1e-15 && std::fabs(s[1] - 0.75) < 1e-15);
  std::vector<double> r(2);
  ref::rmsnorm(std::vector<double>{3, 4}, std::vector<double>{1, 2}, r, 1, 2, 0.0);
  QVERIFY(std::fabs(r[0] - 3 / std::sqrt(12.5)) < 1e-15);
  QVERIFY(std::fabs(r[1] - 8 / std::sqrt(12.5)) < 1e-15);
  // Attention with two keys: scores q.k = [0, 1] (scale 1), P = softmax, O = P V.
  std::vector<double> q{1, 0, 1, 0}, k{0, 1, 1, 0}, v{1, 0, 0, 1}, o(4);
  ref::attentionFwd(q, k, v, o, 2, 2, 2, 1.0, false);
  double p1 = std::exp(1.0) / (1 + std::exp(1.0));
  QVERIFY(std::fabs(o[0] - (1 - p1)) < 1e-15 && std::fabs(o[1] - p1) < 1e-15);
  ref::attentionFwd(q, k, v, o, 2, 2, 2, 1.0, true);
  QCOMPARE(o[0], 1.0); // the first query sees only the first key
  QCOMPARE(o[1], 0.0);
  // LSE = log sum exp of the unmasked scores: query 0 causal sees score 0 only (log 1 = 0);
  // query 1 (q = [1, 0]) sees scores [0, 1] in both modes.
  std::vector<double> lse(2);
  ref::attentionFwdLse(q, k, v, o, lse, 2, 2, 2, 1.0, true);
  QCOMPARE(lse[0], 0.0);
  QVERIFY(std::fabs(lse[1] - std::log(1 + std::exp(1.0))) < 1e-15);
  ref::attentionFwdLse(q, k, v, o, lse, 2, 2, 2, 1.0, false);
  QVERIFY(std::fabs(lse[0] - std::log(1 + std::exp(1.0))) < 1e-15);
  // k-means: points 0 and 3 against centroids 1 and 2 (1-D).
  auto d = ref::kmeansDistances(std::vector<double>{0, 3}, std::vector<double>{1, 2}, 1, 2, 2, 1);
  QCOMPARE(d, (std::vector<double>{1, 4, 4, 1}));
  QCOMPARE(ref::kmeansAssign(d, 2, 2), (std::vector<double>{0, 1}));
}

void TstInterp::swizzle_data() {
  QTest::addColumn<QString>("mode");
  QTest::addColumn<qint64>("logical");
  QTest::addColumn<qint64>("physical");
  QTest::newRow("none") << "none" << qint64(400) << qint64(400);
  QTest::newRow("128B row 0") << "128B" << qint64(16) << qint64(16);
  QTest::newRow("128B row 1 chunk 0") << "128B" << qint64(128) << qint64(144);
  QTest::newRow("128B row 3 chunk 1") << "128B" << qint64(3 * 128 + 16) << qint64(3 * 128 + 32);
  QTest::newRow("128B row 7 chunk 7 byte 5")
      << "128B" << qint64(7 * 128 + 7 * 16 + 5) << qint64(7 * 128 + 5);
  QTest::newRow("128B row 8 repeats row 0") << "128B" << qint64(1024 + 16) << qint64(1024 + 16);
  QTest::newRow("64B row 5") << "64B" << qint64(5 * 128) << qint64(5 * 128 + 16);
  QTest::newRow("64B row 4 unchanged") << "64B" << qint64(4 * 128 + 32) << qint64(4 * 128 + 32);
  QTest::newRow("32B row 1") << "32B" << qint64(128) << qint64(144);
  QTest::newRow("32B row 2 unchanged") << "32B" << qint64(256) << qint64(256);
}

void TstInterp::swizzle() {
  QFETCH(QString, mode);
  QFETCH(qint64, logical);
  QFETCH(qint64, physical);
  QCOMPARE(qint64(interp::swizzledByte(mode.toStdString(), logical)), physical);
}

void TstInterp::swizzlePermutes() {
  // Every mode is a bijection on each 1024-byte atom and keeps bytes within their 16-byte chunk.
  for (const char* mode : {"32B", "64B", "128B"}) {
    std::set<std::int64_t> seen;
    for (std::int64_t b = 0; b < 1024; ++b) {
      std::int64_t p = interp::swizzledByte(mode, b);
      QVERIFY(p >= 0 && p < 1024);
      QCOMPARE(p % 16, b % 16);
      QCOMPARE(p / 128, b / 128);
      seen.insert(p);
    }
    QCOMPARE(seen.size(), std::size_t(1024));
  }
}

namespace {

const char* kContractHead = R"({
  "operator": "C = A B^T",
  "target": "sm_80",
  "shapes": {"M": 64},
  "dtypes": {"A": "bf16"},
  "tolerance": {"rtol": 0.01, "atol": 0.01},
  "oracle": "OpenBLAS",
  "references": [],
)";

std::string writeTemp(const QTemporaryDir& dir, const std::string& name, const std::string& text) {
  std::string path = dir.filePath(QString::fromStdString(name)).toStdString();
  std::ofstream(path) << text;
  return path;
}

} // namespace

void TstInterp::workloadErrors_data() {
  QTest::addColumn<QString>("run");
  QTest::addColumn<QStringList>("expected");
  // Line 9 of the file is the "run" line (the head has 8 lines after the brace).
  QTest::newRow("unknown op") << R"("run": {"op": "gemv", "params": {}, "inputs": {}, "outputs": {}, "small": {}}})"
                              << QStringList{"def-invalid-value@9:17"};
  QTest::newRow("missing slot")
      << R"("run": {"op": "gemm", "params": {"A": "A", "B": "B"}, "inputs": {"A": {"dist": "normal"}, "B": {"dist": "normal"}}, "outputs": {}, "small": {}}})"
      << QStringList{"def-missing-field@9:35"};
  QTest::newRow("unknown slot")
      << R"("run": {"op": "gemm", "params": {"A": "A", "B": "B", "C": "C", "D": "D"}, "inputs": {"A": {"dist": "normal"}, "B": {"dist": "normal"}}, "outputs": {"C": {"rtol": 0, "atol": 0}}, "small": {}}})"
      << QStringList{"def-invalid-value@9:71"};
  QTest::newRow("input without distribution")
      << R"("run": {"op": "gemm", "params": {"A": "A", "B": "B", "C": "C"}, "inputs": {"A": {"dist": "normal"}}, "outputs": {"C": {"rtol": 0, "atol": 0}}, "small": {}}})"
      << QStringList{"def-missing-field@9:51"};
  QTest::newRow("bad distribution")
      << R"("run": {"op": "gemm", "params": {"A": "A", "B": "B", "C": "C"}, "inputs": {"A": {"dist": "cauchy"}, "B": {"dist": "uniform", "lo": 1, "hi": 0}}, "outputs": {"C": {"rtol": 0, "atol": 0}}, "small": {}}})"
      << QStringList{"def-invalid-value@9:92", "def-invalid-value@9:108"};
  QTest::newRow("negative tolerance and zero small shape")
      << R"("run": {"op": "gemm", "params": {"A": "A", "B": "B", "C": "C"}, "inputs": {"A": {"dist": "normal"}, "B": {"dist": "normal"}}, "outputs": {"C": {"rtol": -1, "atol": 0}}, "small": {"M": 0}}})"
      << QStringList{"def-invalid-value@9:155", "def-invalid-value@9:187"};
  QTest::newRow("valid")
      << R"("run": {"op": "gemm", "params": {"A": "A", "B": "B", "C": "C"}, "inputs": {"A": {"dist": "normal"}, "B": {"dist": "normal"}}, "outputs": {"C": {"rtol": 0, "atol": 0}}, "small": {"M": 16}}})"
      << QStringList{};
}

void TstInterp::workloadErrors() {
  QFETCH(QString, run);
  QFETCH(QStringList, expected);
  QTemporaryDir dir;
  std::string path = writeTemp(dir, "w.json", std::string(kContractHead) + "  " + run.toStdString());
  SourceManager sources;
  DiagnosticEngine diags;
  auto w = ref::loadWorkload(path, sources, diags);
  QStringList got = test::codes(diags.diagnostics(), sources);
  QVERIFY2(got == expected, qPrintable(got.join(", ") + "\n" + test::messages(diags.diagnostics())));
  QCOMPARE(w.has_value(), expected.isEmpty());
}

namespace {

// A one-warp mma.sync GEMM over 16x16 tiles (K shrunk to 32 by the contract's small shapes).
const char* kGemm = R"(kernel g target=sm_80 {
  const M = 64
  const N = 64
  const K = 64
  param A : bf16[M, K] role=input align=16
  param B : bf16[N, K] role=input align=16
  param C : bf16[M, N] role=output align=16
  grid tiles=[M / 16, N / 16]
  role main warps=0..1
  reg a_f : bf16[16, 16] scope=warp
  reg b_f : bf16[16, 16] scope=warp
  reg c_f : f32[16, 16] scope=warp
  on main {
    for t in tiles {
      ew.fill c_f value=0.0
      for k in 0..K / 16 {
        ld.global a_f, A[t.x * 16 +: 16, k * 16 +: 16]
        ld.global b_f, B[t.y * 16 +: 16, k * 16 +: 16]
        mma.sync c_f, a_f, b_f
      }
      epilogue.store C[t.x * 16 +: 16, t.y * 16 +: 16], c_f
    }
  }
}
)";

const char* kGemmContract = R"({
  "operator": "C = A B^T",
  "target": "sm_80",
  "shapes": {"M": 64, "N": 64, "K": 64},
  "dtypes": {"A": "bf16", "B": "bf16", "C": "bf16"},
  "tolerance": {"rtol": 0.02, "atol": 0.02},
  "oracle": "OpenBLAS",
  "references": [],
  "run": {"op": "gemm", "params": {"A": "A", "B": "B", "C": "C"},
          "inputs": {"A": {"dist": "uniform", "lo": -1, "hi": 1},
                     "B": {"dist": "uniform", "lo": -1, "hi": 1}},
          "seed": 3, "outputs": {"C": {"rtol": 0.02, "atol": 0.02}}, "small": {"K": 32}}
})";

} // namespace

void TstInterp::runVerdict_data() {
  QTest::addColumn<QString>("from");
  QTest::addColumn<QString>("to");
  QTest::addColumn<bool>("correct");
  QTest::addColumn<int>("line"); ///< written_by line of the first mismatch (0: none, -1: never)
  QTest::addColumn<QString>("codes"); ///< finding codes, comma-separated
  QTest::newRow("correct") << "" << "" << true << 0 << "";
  QTest::newRow("tile from t.y") << "A[t.x * 16 +: 16, k" << "A[t.y * 16 +: 16, k" << false << 21
                                 << "dc-wrong-result";
  QTest::newRow("K loop one block short") << "0..K / 16" << "0..K / 16 - 1" << false << 21
                                          << "dc-wrong-result";
  QTest::newRow("epilogue skips last column block")
      << "grid tiles=[M / 16, N / 16]" << "grid tiles=[M / 16, N / 16 - 1]" << false << -1
      << "dc-wrong-result";
  QTest::newRow("contract names a missing param")
      << "param C : bf16[M, N] role=output" << "param D : bf16[M, N] role=output" << false << 0
      << "dc-contract-mismatch";
  QTest::newRow("contract dtype differs")
      << "bf16[" << "f16[" << false << 0
      << "dc-contract-mismatch,dc-contract-mismatch,dc-contract-mismatch";
}

void TstInterp::runVerdict() {
  QFETCH(QString, from);
  QFETCH(QString, to);
  QFETCH(bool, correct);
  QFETCH(int, line);
  QFETCH(QString, codes);
  std::string text = kGemm;
  if (!from.isEmpty()) {
    // Every occurrence (the dtype row rewrites all three params and the fragments).
    auto at = text.find(from.toStdString());
    QVERIFY(at != std::string::npos);
    for (; at != std::string::npos; at = text.find(from.toStdString(), at + std::size_t(to.size())))
      text.replace(at, std::size_t(from.size()), to.toStdString());
  }
  if (to.contains(QStringLiteral("D : bf16"))) {
    auto at = text.find("epilogue.store C[");
    text.replace(at, 17, "epilogue.store D[");
  }
  QTemporaryDir dir;
  std::string contract = writeTemp(dir, "g.json", kGemmContract);
  interp::RunResult r = interp::runOnCpu(test::compiler(), "g.cake", text, contract);
  QStringList got;
  for (const Diagnostic& d : r.findings)
    got << QString::fromStdString(d.code);
  QVERIFY2(got.join(",") == codes, qPrintable(test::messages(r.findings)));
  QCOMPARE(r.correct, correct);
  if (line < 0) {
    QCOMPARE(r.outputs.size(), std::size_t(1));
    QVERIFY(r.outputs[0].firstMismatch);
    QVERIFY(!r.outputs[0].firstMismatch->writtenBy.known);
    // The first element never written is the first of the skipped column block.
    QCOMPARE(r.outputs[0].firstMismatch->index, (std::vector<std::int64_t>{0, 48}));
  } else if (line) {
    QCOMPARE(r.outputs.size(), std::size_t(1));
    QVERIFY(r.outputs[0].firstMismatch);
    QCOMPARE(int(r.outputs[0].firstMismatch->writtenBy.line), line);
    QCOMPARE(QString::fromStdString(r.outputs[0].firstMismatch->writtenBy.op),
             QStringLiteral("epilogue.store"));
  }
  if (correct) {
    QCOMPARE(r.interleavings, 3);
    QCOMPARE(r.outputs[0].mismatches, std::int64_t(0));
    QVERIFY(r.outputs[0].maxAbsError < 0.05);
  }
}

void TstInterp::progressAndCancel() {
  QTemporaryDir dir;
  std::string contract = writeTemp(dir, "g.json", kGemmContract);
  // 16 CTAs x 3 interleavings: progress rises to exactly 1.
  interp::RunOptions options;
  std::vector<double> seen;
  options.progress = [&](double f) { seen.push_back(f); };
  interp::RunResult r = interp::runOnCpu(test::compiler(), "g.cake", kGemm, contract, options);
  QVERIFY(r.correct);
  QCOMPARE(seen.size(), std::size_t(48));
  QVERIFY(std::is_sorted(seen.begin(), seen.end()));
  QCOMPARE(seen.back(), 1.0);
  // Cancelled after the first CTA: no verdict, no finding.
  std::atomic<bool> stop{false};
  interp::RunOptions cancelling;
  cancelling.cancel = &stop;
  cancelling.progress = [&](double) { stop = true; };
  interp::RunResult c = interp::runOnCpu(test::compiler(), "g.cake", kGemm, contract, cancelling);
  QVERIFY(c.cancelled);
  QVERIFY(!c.ran);
  QVERIFY(!c.correct);
  QVERIFY2(c.findings.empty(), qPrintable(test::messages(c.findings)));
}

namespace {
std::string corpusFile(const char* relative) {
  QFile f(QStringLiteral(CAKE_CORPUS_DIR "/") + QString::fromUtf8(relative));
  if (!f.open(QIODevice::ReadOnly))
    return {};
  return f.readAll().toStdString();
}
} // namespace

// The GPU runner's host oracle (interp::hostReference): the contract bound to a corpus kernel at
// its full shapes, evaluated for inputs drawn elsewhere, judged by ref::judgeElement.
void TstInterp::hostReference_data() {
  QTest::addColumn<QString>("kernel");
  QTest::addColumn<QString>("workload");
  QTest::newRow("gemm") << "hopper_gemm/gemm_ws.cake" << "workloads/hopper_gemm.json";
  QTest::newRow("row softmax") << "softmax/row_softmax.cake" << "workloads/row_softmax.json";
  QTest::newRow("rmsnorm") << "rmsnorm/rmsnorm.cake" << "workloads/rmsnorm.json";
  QTest::newRow("kmeans (argmin, derived norms)") << "flash_kmeans/assign.cake"
                                                 << "workloads/flash_kmeans.json";
  QTest::newRow("block-scaled fp8 gemm") << "deepgemm/gemm_fp8_cluster.cake"
                                         << "workloads/deepgemm_fp8.json";
}

/// A corpus kernel and its contract at the contract's small shapes: the kernel's consts and the
/// contract's "shapes" rewritten to the "small" values (full shapes need gigabytes: a softmax
/// of 16384 x 8192, a 17 GB kmeans distance matrix).
static void shrink(std::string& text, std::string& contractText) {
  QJsonObject doc = QJsonDocument::fromJson(QByteArray::fromStdString(contractText)).object();
  QJsonObject small = doc.value("run").toObject().value("small").toObject();
  QJsonObject shapes = doc.value("shapes").toObject();
  for (auto it = small.begin(); it != small.end(); ++it) {
    std::regex re("const " + it.key().toStdString() + R"( = \d+)");
    text = std::regex_replace(text, re,
                              "const " + it.key().toStdString() + " = " +
                                  std::to_string(it.value().toInteger()),
                              std::regex_constants::format_first_only);
    shapes[it.key()] = it.value();
  }
  doc["shapes"] = shapes;
  contractText = QJsonDocument(doc).toJson().toStdString();
}

void TstInterp::hostReference() {
  QFETCH(QString, kernel);
  QFETCH(QString, workload);
  std::string text = corpusFile(qPrintable(kernel));
  QVERIFY(!text.empty());
  std::string contract = std::string(CAKE_CORPUS_DIR "/") + workload.toStdString();
  QTemporaryDir dir;
  std::string contractText = corpusFile(qPrintable(workload));
  shrink(text, contractText);
  contract = writeTemp(dir, "small.json", contractText);
  driver::CheckResult k = test::compiler().check(kernel.toStdString(), text);
  QVERIFY(k.accepted);
  // Inputs as the GPU runner draws them: mostly zeros, small values exact in every dtype.
  std::map<std::string, std::vector<double>> inputs, drawn;
  std::mt19937_64 rng(7);
  for (const sema::BufferInfo& b : k.model.buffers)
    if (b.kind == ir::DeclKind::Param && b.paramRole == "input") {
      std::vector<double> v(std::size_t(b.elements()));
      for (double& x : v)
        x = rng() % 4 == 0 ? double(int(rng() % 9) - 4) * 0.5 : 0.0;
      inputs[b.name] = v;
    }
  drawn = inputs;
  std::string error;
  auto e = interp::hostReference(test::compiler(), kernel.toStdString(), text, contract, inputs,
                                 error);
  QVERIFY2(e.has_value(), error.c_str());
  QVERIFY(!e->outputs.empty());
  for (const ref::ExpectedOutput& o : e->outputs) {
    const sema::BufferInfo* b = k.model.buffer(o.name);
    QVERIFY(b && b->paramRole == "output");
    QCOMPARE(qint64(o.values.size()), qint64(b->elements()));
    // The reference judged against itself passes; one element moved beyond the tolerance, or
    // NaN (never written), fails — and only that element.
    std::size_t bad = o.values.size() / 3, failed = 0;
    for (std::size_t i = 0; i < o.values.size(); ++i)
      failed += !ref::judgeElement(&o.spec, o.values[i], o.values[i], i, e->distances,
                                   e->centroids).ok;
    QCOMPARE(failed, std::size_t(0));
    double wrong;
    if (o.spec.compare == "argmin") {
      // Another centroid strictly farther than the chosen one.
      std::size_t row = bad * std::size_t(e->centroids);
      double best = e->distances[row + std::size_t(o.values[bad])];
      wrong = -1;
      for (std::int64_t c = 0; c < e->centroids; ++c)
        if (e->distances[row + std::size_t(c)] > best + o.spec.atol + o.spec.rtol * std::fabs(best) + 1e-9)
          wrong = double(c);
      QVERIFY(wrong >= 0);
      QVERIFY(!ref::judgeElement(&o.spec, double(e->centroids), o.values[bad], bad, e->distances,
                                 e->centroids).ok); // not a centroid index
    } else {
      wrong = o.values[bad] + 4 * (o.spec.atol + o.spec.rtol * std::fabs(o.values[bad])) + 1.0;
    }
    QVERIFY(!ref::judgeElement(&o.spec, wrong, o.values[bad], bad, e->distances, e->centroids).ok);
    QVERIFY(!ref::judgeElement(&o.spec, std::nan(""), o.values[bad], bad, e->distances,
                               e->centroids).ok);
  }
  if (kernel.contains("gemm")) {
    // An independent evaluation: the reference GEMM of the same inputs, rounded to C's dtype.
    const sema::BufferInfo *a = k.model.buffer("A"), *b = k.model.buffer("B"), *c = k.model.buffer("C");
    QVERIFY(a && b && c);
    std::vector<double> want(std::size_t(c->elements()));
    if (const sema::BufferInfo* sb = k.model.buffer("SB")) // per-block scales (DeepGEMM)
      ref::gemmBlockScaled(inputs["A"], inputs["B"], inputs["SA"], inputs["SB"], want, a->shape[0],
                           b->shape[0], a->shape[1], sb->shape[1], sb->shape[0]);
    else
      ref::gemmNT(inputs["A"], inputs["B"], want, a->shape[0], b->shape[0], a->shape[1]);
    for (double& x : want)
      x = ref::roundTo(c->dtype, x);
    QCOMPARE(e->outputs.front().values, want);
  }
  if (kernel.contains("kmeans")) {
    // CNorm follows the contract (row squared norms of C), not the drawn values.
    QVERIFY(inputs["CNorm"] != drawn["CNorm"]);
    const sema::BufferInfo* c = k.model.buffer("Cent");
    std::int64_t cols = c->shape[1];
    for (std::int64_t r = 0; r < c->shape[0]; ++r) {
      double s = 0;
      for (std::int64_t j = 0; j < cols; ++j)
        s += inputs["Cent"][std::size_t(r * cols + j)] * inputs["Cent"][std::size_t(r * cols + j)];
      QCOMPARE(inputs["CNorm"][std::size_t(r)], ref::roundTo(k.model.buffer("CNorm")->dtype, s));
    }
  } else {
    QCOMPARE(inputs, drawn); // nothing derived: the inputs are the runner's own
  }
}

void TstInterp::hostReferenceRefuses() {
  std::string text = corpusFile("softmax/row_softmax.cake");
  std::map<std::string, std::vector<double>> inputs;
  std::string error;
  // A contract for another operator does not bind.
  QVERIFY(!interp::hostReference(test::compiler(), "s.cake", text,
                                 CAKE_CORPUS_DIR "/workloads/rmsnorm.json", inputs, error));
  QVERIFY2(error.find("does not match") != std::string::npos, error.c_str());
  // The right contract but no inputs.
  error.clear();
  QVERIFY(!interp::hostReference(test::compiler(), "s.cake", text,
                                 CAKE_CORPUS_DIR "/workloads/row_softmax.json", inputs, error));
  QVERIFY2(error.find("needs") != std::string::npos, error.c_str());
  // A reference too large for the host is skipped with the estimate before any input is read
  // (kmeans at full shapes: 2^21 points x 1024 centroids, a 17 GB distance matrix).
  std::string kmeans = corpusFile("flash_kmeans/assign.cake");
  error.clear();
  auto e = interp::hostReference(test::compiler(), "a.cake", kmeans,
                                 CAKE_CORPUS_DIR "/workloads/flash_kmeans.json", inputs, error);
  QVERIFY2(e.has_value(), error.c_str());
  QVERIFY(e->outputs.empty());
  QVERIFY2(e->skipped.find("GiB") != std::string::npos, e->skipped.c_str());
}

namespace {

/// A template primitive over one register fragment with the given "semantics" section (empty:
/// none).
std::string formPrimitive(const std::string& name, const std::string& semantics) {
  return R"j({"name": ")j" + name + R"j(", "category": "elementwise", "summary": "s",
  "targets": ["sm_80"], "issue": "thread",
  "operands": [{"name": "dst", "kind": "buffer", "spaces": ["reg"], "access": "write", "doc": "d"},
               {"name": "src", "kind": "buffer", "spaces": ["reg"], "access": "read", "doc": "s"}],
  "attributes": [{"name": "k", "type": "float", "default": 1.0, "doc": "a factor"}],
  "effects": [{"kind": "read", "operand": "src"}, {"kind": "write", "operand": "dst"}],
  "hardware": {"ptx": "mov.b32", "min_ptx": "1.0", "requires": [], "note": "n"},
  "cost": {"class": "alu", "unit": "instr", "work": "elems(dst)"},)j" +
         (semantics.empty() ? "" : "\n  \"semantics\": " + semantics + ",") +
         R"j(
  "lowering": {"strategy": "template", "per": "element", "ptx": ["mov.b32 {dst.elem}, {src.elem};"]}})j";
}

/// An expansion applying `first` then `second` (in place) to a fragment.
std::string expansionPrimitive(const std::string& name, const std::string& first,
                               const std::string& second) {
  return R"j({"name": ")j" + name + R"j(", "category": "elementwise", "summary": "s",
  "targets": ["sm_80"], "issue": "thread",
  "operands": [{"name": "dst", "kind": "buffer", "spaces": ["reg"], "access": "write", "doc": "d"},
               {"name": "src", "kind": "buffer", "spaces": ["reg"], "access": "read", "doc": "s"}],
  "effects": [{"kind": "read", "operand": "src"}, {"kind": "write", "operand": "dst"}],
  "hardware": {"ptx": "mov.b32", "min_ptx": "1.0", "requires": [], "note": "n"},
  "cost": {"class": "alu", "unit": "instr", "work": "elems(dst)"},
  "lowering": {"strategy": "expansion", "steps": [
    {"primitive": ")j" + first + R"j(", "operands": ["dst", "src"]},
    {"primitive": ")j" + second + R"j(", "operands": ["dst", "dst"]}]}})j";
}

} // namespace

void TstInterp::dataSemantics_data() {
  QTest::addColumn<QString>("semantics"); ///< frag.f's section ("" : none)
  QTest::addColumn<QString>("op");        ///< the primitive applied to the accumulator
  QTest::addColumn<QString>("attrs");     ///< its attributes as written
  QTest::addColumn<bool>("correct");
  QTest::addColumn<QString>("codes");
  QTest::addColumn<QString>("kind"); ///< interp::cpuSemantics of `op`
  const QString id = R"j({"elementwise": "dst = src * k"})j";
  QTest::newRow("form: identity") << id << "frag.f" << "" << true << "" << "semantic form";
  QTest::newRow("form: attribute scales") << id << "frag.f" << " k=2.0" << false
                                          << "dc-wrong-result" << "semantic form";
  QTest::newRow("form: abs loses the sign")
      << R"j({"elementwise": "dst = abs(src)"})j" << "frag.f" << "" << false << "dc-wrong-result"
      << "semantic form";
  QTest::newRow("form: fma and max, f64")
      << R"j({"elementwise": "dst = max(fma(src, k, 0), -1e30) / 1", "dtype": "f64"})j"
      << "frag.f" << "" << true << "" << "semantic form";
  QTest::newRow("form: f16 rounding overflows")
      << R"j({"elementwise": "dst = src * 1e5 / 1e5", "dtype": "f16"})j" << "frag.f" << "" << false
      << "dc-wrong-result" << "semantic form";
  QTest::newRow("expansion: two negations")
      << R"j({"elementwise": "dst = -src"})j" << "frag.twice" << "" << true << "" << "expansion";
  QTest::newRow("expansion: negation once, then identity")
      << R"j({"elementwise": "dst = -src"})j" << "frag.once" << "" << false << "dc-wrong-result"
      << "expansion";
  QTest::newRow("expansion: nested") << R"j({"elementwise": "dst = -src"})j" << "frag.nested" << ""
                                     << true << "" << "expansion";
  QTest::newRow("expansion: step without semantics")
      << "" << "frag.twice" << "" << false << "hw-no-cpu-semantics" << "none";
  QTest::newRow("template without semantics")
      << "" << "frag.f" << "" << false << "hw-no-cpu-semantics" << "none";
}

void TstInterp::dataSemantics() {
  QFETCH(QString, semantics);
  QFETCH(QString, op);
  QFETCH(QString, attrs);
  QFETCH(bool, correct);
  QFETCH(QString, codes);
  QFETCH(QString, kind);
  DataOverlay overlay;
  auto add = [&](const std::string& name, const std::string& content) {
    overlay.primitives.push_back({"elementwise/" + name + ".json", name + ".json", content});
  };
  add("frag.f", formPrimitive("frag.f", semantics.toStdString()));
  add("frag.id", formPrimitive("frag.id", R"j({"elementwise": "dst = src"})j"));
  add("frag.twice", expansionPrimitive("frag.twice", "frag.f", "frag.f"));
  add("frag.once", expansionPrimitive("frag.once", "frag.f", "frag.id"));
  add("frag.nested", expansionPrimitive("frag.nested", "frag.twice", "frag.id"));
  auto compiler = driver::Compiler::load(
      {std::string(CAKE_SOURCE_DIR) + "/compiler/primitives",
       std::string(CAKE_SOURCE_DIR) + "/compiler/targets",
       std::string(CAKE_SOURCE_DIR) + "/compiler/rules"},
      overlay);
  QVERIFY2(compiler->ok(), qPrintable(test::messages(compiler->loadDiagnostics())));
  const reg::Primitive* prim = compiler->registry().find(op.toStdString());
  QVERIFY(prim);
  QCOMPARE(QString::fromStdString(std::string(interp::toString(interp::cpuSemantics(*prim).kind))),
           kind);
  // The accumulator passes through the data primitive before the store (line 22).
  std::string text = kGemm;
  std::string store = "      epilogue.store";
  text.replace(text.find(store), 0, "      " + op.toStdString() + " c_f, c_f" + attrs.toStdString() + "\n");
  QTemporaryDir dir;
  std::string contract = writeTemp(dir, "g.json", kGemmContract);
  interp::RunResult r = interp::runOnCpu(*compiler, "g.cake", text, contract);
  QStringList got;
  for (const Diagnostic& d : r.findings)
    got << QString::fromStdString(d.code);
  QVERIFY2(got.join(",") == codes, qPrintable(test::messages(r.findings)));
  QCOMPARE(r.correct, correct);
  if (codes == QLatin1String("hw-no-cpu-semantics")) {
    // At the operation's line; inside an expansion the finding names the step.
    QCOMPARE(int(r.findings[0].range.valid()), 1);
    std::string msg = r.findings[0].message;
    QVERIFY2(msg.find("'frag.f' has no CPU semantics") != std::string::npos, msg.c_str());
    if (op == QLatin1String("frag.twice"))
      QVERIFY2(msg.find("step 1 'frag.f' of the expansion of 'frag.twice'") != std::string::npos,
               msg.c_str());
  } else if (!correct) {
    QCOMPARE(int(r.outputs[0].firstMismatch->writtenBy.line), 22);
  }
}

void TstInterp::builtinNamesExist() {
  // The C++ list names shipped primitives only (a typo would silently refuse a primitive).
  for (const std::string& name : interp::builtinCpuSemantics()) {
    const reg::Primitive* p = test::compiler().registry().find(name);
    QVERIFY2(p, name.c_str());
    QVERIFY2(interp::cpuSemantics(*p).kind == interp::CpuSemantics::Builtin, name.c_str());
  }
}

QTEST_GUILESS_MAIN(TstInterp)
#include "tst_interp.moc"
