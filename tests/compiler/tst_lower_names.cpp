// Unit tests of emitted names: every corpus kernel, with each user loop renamed to every name the
// lowering introduces itself (repeat counters, role and pipeline variables, C++ keywords), emits
// CUDA in which no binding shadows a visible one; the scoped namer's own rules.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "TestUtil.h"

#include "cake/Lower/CudaEmitter.h"
#include "cake/Lower/Lowering.h"
#include "cake/Lower/Naming.h"
#include "cake/Support/StringUtil.h"

#include <QtTest>
#include <regex>
#include <set>

using namespace cake;

namespace {

/// Bindings of the kernel function in an emitted `.cu` file that shadow a binding visible where
/// they are declared (an enclosing `for` counter or declaration, a parameter, a file-level
/// constant), as "name (line N)". The emitter's layout is regular: one statement or brace per
/// line, string literals only inside `asm` statements.
QStringList shadowingBindings(const std::string& cuda) {
  QStringList out;
  std::set<std::string> fileScope;
  static const std::regex constant(R"(^inline constexpr [\w ]+? (\w+)(\[\])? =)");
  static const std::regex forLoop(R"(^for \(int (\w+) =)");
  static const std::regex decl(
      R"(^(?:int|uint32_t|uint64_t|int64_t|float|bool) (\w+)(\[\d+\])?;$)");
  static const std::regex param(R"((\w+)(?:,|\) \{)$)");
  static const std::regex literal(R"("(?:[^"\\]|\\.)*")");
  std::vector<std::set<std::string>> scopes;
  bool inKernel = false, inSignature = false;
  int lineNo = 0;
  auto bind = [&](const std::string& name, bool newScope) {
    bool seen = fileScope.count(name) != 0;
    for (const auto& s : scopes)
      seen |= s.count(name) != 0;
    if (seen)
      out << QString::fromStdString(name) + " (line " + QString::number(lineNo) + ")";
    if (newScope)
      scopes.push_back({name});
    else
      scopes.back().insert(name);
  };
  std::size_t pos = 0;
  while (pos < cuda.size()) {
    std::size_t nl = cuda.find('\n', pos);
    std::string raw = cuda.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? cuda.size() : nl + 1;
    ++lineNo;
    std::string line = std::regex_replace(raw, literal, "\"\"");
    line.erase(0, line.find_first_not_of(' '));
    std::smatch m;
    if (!inKernel && !inSignature) {
      if (std::regex_search(line, m, constant))
        fileScope.insert(m[1]);
      if (raw.rfind("extern \"C\" __global__", 0) == 0) {
        inSignature = true;
        scopes.push_back({});
      }
      continue;
    }
    if (inSignature) {
      if (std::regex_search(line, m, param))
        bind(m[1], false);
      if (line.size() >= 3 && line.compare(line.size() - 3, 3, ") {") == 0) {
        inSignature = false;
        inKernel = true;
      }
      continue;
    }
    if (std::regex_search(line, m, forLoop)) {
      bind(m[1], true);
    } else if (line == "}") {
      scopes.pop_back();
      if (scopes.empty())
        break; // the end of the kernel function
    } else if (line == "} else {") {
      scopes.back().clear();
    } else if (!line.empty() && line.back() == '{') {
      scopes.push_back({});
    } else if (std::regex_match(line, m, decl)) {
      bind(m[1], false);
    }
  }
  return out;
}

/// Every name the lowering gives its own variables (LowerOps.cpp repeat(...), Lowering.cpp
/// newVar(...)), plus names the C++ side owns.
const std::vector<std::string>& loweringNames() {
  static const std::vector<std::string> names = {
      "stage",     "blk",       "c",          "j",         "q",         "i",        "r",
      "k",         "w",         "h",          "mi",        "ni",        "tid",      "warp",
      "wg",        "lane",      "warp_id",    "smem",      "elected",   "t_x",      "t_y",
      "t_tile",    "ring_slot", "ring_phase", "accp_slot", "kv_slot",   "xr_phase", "cake_factor0",
      "cake_smem", "int",       "min",        "threadIdx", "TILE_COUNT"};
  return names;
}

} // namespace

class TestLowerNames : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void noShadowing_data() {
    QTest::addColumn<QString>("path");
    for (const char* p : {"bias_gelu/bias_gelu.cake", "softmax/row_softmax.cake",
                          "rmsnorm/rmsnorm.cake", "ampere_gemm/gemm_cp_async.cake",
                          "hopper_gemm/gemm_ws.cake", "flash_attention/fa_fwd.cake",
                          "flash_kmeans/assign.cake", "blackwell_gemm/gemm_tcgen05.cake"})
      QTest::newRow(p) << QString::fromLatin1(p);
  }

  /// Each user loop of the kernel (tile loops included) and its first two register buffers
  /// renamed to each lowering name: the kernel lowers and its CUDA
  /// export binds no name twice in nested scopes. At least one renaming per kernel has to be
  /// resolved by the namer (the emitted code contains a `_1` variant), so the row tests
  /// something.
  void noShadowing() {
    QFETCH(QString, path);
    std::string file = std::string(CAKE_CORPUS_DIR) + "/" + path.toStdString();
    std::string error;
    auto text = readFile(file, error);
    QVERIFY2(text, error.c_str());
    std::set<std::string> loops; // user names to rename
    static const std::regex userLoop(R"(\n\s*for (\w+) in )");
    for (std::sregex_iterator it(text->begin(), text->end(), userLoop), end; it != end; ++it)
      loops.insert((*it)[1]);
    // Register buffers become variables of the role scope too: the first two of each kernel.
    static const std::regex regBuffer(R"(\n\s*reg (\w+) :)");
    int buffers = 0;
    for (std::sregex_iterator it(text->begin(), text->end(), regBuffer), end;
         it != end && buffers < 2; ++it, ++buffers)
      loops.insert((*it)[1]);
    QVERIFY(!loops.empty());
    int lowered = 0, resolved = 0;
    for (const std::string& loop : loops) {
      for (const std::string& name : loweringNames()) {
        if (std::regex_search(*text, std::regex("\\b" + name + "\\b")))
          continue; // the kernel already uses the name for something else
        std::string renamed = std::regex_replace(*text, std::regex("\\b" + loop + "\\b"), name);
        driver::CheckResult r = test::compiler().check(file, renamed);
        if (!r.accepted)
          continue; // Cake reserves the name (tid, lane, ...): no user can write it
        lower::LoweredKernel k =
            lower::lowerKernel(r.module, r.model, test::compiler().registry(), *r.sources, file);
        QVERIFY2(k.ok, qPrintable(test::messages(k.findings)));
        std::string cuda = lower::emitCuda(k.program, k.metadata, {"k.cake", "0", "r"});
        QStringList bad = shadowingBindings(cuda);
        QVERIFY2(bad.isEmpty(), qPrintable(QString::fromStdString(loop + " -> " + name) +
                                           ": shadowing " + bad.join(", ")));
        ++lowered;
        resolved += cuda.find(" " + name + "_1") != std::string::npos ? 1 : 0;
      }
    }
    QVERIFY(lowered > 0);
    QVERIFY2(resolved > 0, "no renaming needed the namer: the row tests nothing");
  }

  /// The checker itself finds shadowing of a loop, a declaration and a file-level constant.
  void shadowingChecker() {
    std::string head = "inline constexpr int BN = 4;\n"
                       "extern \"C\" __global__ void __launch_bounds__(32, 1)\nk(float* A) {\n";
    QVERIFY(shadowingBindings(head + "  {\n    int c;\n    for (int i = 0; i < 2; ++i) {\n"
                                     "    }\n  }\n}\n")
                .isEmpty());
    QCOMPARE(shadowingBindings(head + "  for (int c = 0; c < 2; ++c) {\n"
                                      "    for (int c = 0; c < 4; ++c) {\n    }\n  }\n}\n"),
             QStringList{"c (line 5)"});
    QCOMPARE(shadowingBindings(head + "  {\n    int BN;\n  }\n}\n"), QStringList{"BN (line 5)"});
    QCOMPARE(shadowingBindings(head + "  {\n    float A[4];\n  }\n}\n"), QStringList{"A (line 5)"});
    // Siblings may reuse a name.
    QVERIFY(shadowingBindings(head + "  for (int c = 0; c < 2; ++c) {\n  }\n"
                                     "  for (int c = 0; c < 4; ++c) {\n  }\n}\n")
                .isEmpty());
  }

  /// The namer: fresh names per open scope, reuse in siblings, reserved names, sanitising.
  void scopedNamer() {
    lower::ScopedNamer n([](const std::string& s) { return s == "int" || s == "BN"; });
    QCOMPARE(n.bind(0, "c"), std::string("c"));
    n.pushScope();
    QCOMPARE(n.bind(1, "c"), std::string("c_1"));
    QCOMPARE(n.bind(2, "c_1"), std::string("c_1_1"));
    n.popScope();
    n.pushScope();
    QCOMPARE(n.bind(3, "c"), std::string("c_1")); // the sibling scope reuses the name
    n.popScope();
    QCOMPARE(n.bind(4, "int"), std::string("int_1"));
    QCOMPARE(n.bind(5, "BN"), std::string("BN_1"));
    QCOMPARE(n.nameOf(1), std::string("c_1"));
    QCOMPARE(n.nameOf(99), std::string());
    QCOMPARE(lower::ScopedNamer::sanitize("__x"), std::string("v_x"));
    QCOMPARE(lower::ScopedNamer::sanitize("a__b.c"), std::string("a_b_c"));
    QCOMPARE(lower::ScopedNamer::sanitize("3d"), std::string("v3d"));
    QVERIFY(lower::isReservedCudaName("threadIdx"));
    QVERIFY(lower::isReservedCudaName("__anything"));
    QVERIFY(!lower::isReservedCudaName("acc"));
  }
};

QTEST_GUILESS_MAIN(TestLowerNames)
#include "tst_lower_names.moc"
