// Performance analysis tests: shared-memory bank conflicts of ldmatrix / ld.shared / cp.async
// under each swizzle (with the swizzle hint), coalescing and vector width of global accesses,
// and no such finding on the expert-written corpus kernels.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "TestUtil.h"

#include "cake/Support/StringUtil.h"

#include <QtTest>

using namespace cake;

namespace {
// Line 8 is %SMEM%, line 9 is %REG%, line 13 is %OP% (inside the tile loop and a k loop).
const char* kTemplate = R"(kernel k target=sm_80 {
  const M = 4096
  const K = 4096
  param A : bf16[M, K] role=input
  param F : f32[M, K] role=output
  grid tiles=[M / 128]
  role main warps=0..4
  %SMEM%
  %REG%
  on main {
    for t in tiles {
      for k in 0..4 {
        %OP%
      }
    }
  }
}
)";

std::string instantiate(const QString& smem, const QString& reg, const QString& op) {
  QString s = QString::fromUtf8(kTemplate);
  s.replace("%SMEM%", smem.isEmpty() ? "const UNUSED_S = 0" : smem);
  s.replace("%REG%", reg.isEmpty() ? "const UNUSED_R = 0" : reg);
  s.replace("%OP%", op);
  return s.toStdString();
}

bool isPerformanceCode(const std::string& code) {
  return code == "perf-bank-conflict" || code == "perf-swizzle-hint" || code == "perf-uncoalesced" ||
         code == "perf-vector-width";
}

/// "code@line:col" of the findings of this analysis; `messages` gets their texts.
QStringList check(const std::string& text, QString* messages = nullptr, bool* verified = nullptr) {
  auto r = test::compiler().check("k.cake", text);
  std::vector<Diagnostic> mine;
  for (const Diagnostic& d : r.diagnostics)
    if (isPerformanceCode(d.code))
      mine.push_back(d);
  if (messages)
    *messages = test::messages(mine);
  if (verified)
    *verified = r.verification.ran;
  return test::codes(mine, *r.sources);
}
} // namespace

class TestPerformance : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void accesses_data() {
    QTest::addColumn<QString>("smem");
    QTest::addColumn<QString>("reg");
    QTest::addColumn<QString>("op");
    QTest::addColumn<QStringList>("expected");
    QTest::addColumn<QStringList>("texts"); // substrings of the messages, in order

    // ldmatrix from 128-byte rows (bf16[*, 64]): the eight rows of a matrix share their banks
    // unless the 128B swizzle spreads their 16-byte chunks.
    const QString ldm = "ldmatrix b_f, b_s[warp * 32 +: 32, k * 16 +: 16]";
    const QString frag = "reg b_f : bf16[32, 16] scope=warp";
    QTest::newRow("ldmatrix 128B-swizzled 128-byte rows")
        << "smem b_s : bf16[128, 64] offset=0 swizzle=128B" << frag << ldm << QStringList{}
        << QStringList{};
    QTest::newRow("ldmatrix unswizzled 128-byte rows")
        << "smem b_s : bf16[128, 64] offset=0" << frag << ldm
        << QStringList{"perf-swizzle-hint@8:8", "perf-bank-conflict@13:23"}
        << QStringList{"swizzle=128B on 'b_s' removes the 8-way bank conflicts of its 'ldmatrix' access",
                       "'ldmatrix' on 'b_s' has 8-way bank conflicts (8 wavefronts per 8x8 matrix "
                       "instead of 1) under swizzle none"};
    QTest::newRow("ldmatrix 64B swizzle on 128-byte rows")
        << "smem b_s : bf16[128, 64] offset=0 swizzle=64B" << frag << ldm
        << QStringList{"perf-swizzle-hint@8:8", "perf-bank-conflict@13:23"}
        << QStringList{"swizzle=128B on 'b_s' removes the 2-way", "2-way bank conflicts"};
    // 64-byte rows (bf16[*, 32], the Ampere GEMM's tiles): 4-way unswizzled, 2-way with 32B,
    // conflict-free with 64B; 128B does not divide the row and is not proposed.
    const QString ldm64 = "ldmatrix a_f, a_s[warp * 32 +: 32, 0 +: 16]";
    const QString frag64 = "reg a_f : bf16[32, 16] scope=warp";
    QTest::newRow("ldmatrix 64B-swizzled 64-byte rows")
        << "smem a_s : bf16[128, 32] offset=0 swizzle=64B" << frag64 << ldm64 << QStringList{}
        << QStringList{};
    QTest::newRow("ldmatrix unswizzled 64-byte rows")
        << "smem a_s : bf16[128, 32] offset=0" << frag64 << ldm64
        << QStringList{"perf-swizzle-hint@8:8", "perf-bank-conflict@13:23"}
        << QStringList{"swizzle=64B on 'a_s' removes the 4-way", "4-way bank conflicts"};
    QTest::newRow("ldmatrix 32B swizzle on 64-byte rows")
        << "smem a_s : bf16[128, 32] offset=0 swizzle=32B" << frag64 << ldm64
        << QStringList{"perf-swizzle-hint@8:8", "perf-bank-conflict@13:23"}
        << QStringList{"swizzle=64B on 'a_s' removes the 2-way", "2-way bank conflicts"};
    QTest::newRow("ldmatrix misaligned for any swizzle")
        << "smem a_s : bf16[128, 32] offset=128" << frag64 << ldm64
        << QStringList{"perf-bank-conflict@13:23"} << QStringList{"4-way"};

    // Per-thread shared-memory accesses.
    const QString x1 = "reg x : f32[1] scope=thread";
    const QString x4 = "reg x : f32[4] scope=thread";
    QTest::newRow("ld.shared consecutive words")
        << "smem s : f32[32, 32] offset=0" << x1 << "ld.shared x, s[tid / 32, tid % 32]"
        << QStringList{} << QStringList{};
    QTest::newRow("ld.shared column")
        << "smem s : f32[32, 32] offset=0" << x1 << "ld.shared x, s[tid % 32, 0]"
        << QStringList{"perf-swizzle-hint@8:8", "perf-bank-conflict@13:22"}
        << QStringList{"swizzle=128B on 's' reduces the 32-way bank conflicts of its 'ld.shared' "
                       "access to 4-way",
                       "32-way bank conflicts (32 wavefronts per phase of 32 threads x 4 B"};
    QTest::newRow("ld.shared padded column")
        << "smem s : f32[32, 33] offset=0" << x1 << "ld.shared x, s[tid % 32, 0]" << QStringList{}
        << QStringList{};
    QTest::newRow("ld.shared broadcast")
        << "smem s : f32[32, 32] offset=0" << x1 << "ld.shared x, s[0, 0]" << QStringList{}
        << QStringList{};
    QTest::newRow("ld.shared 16-byte vectors")
        << "smem s : f32[32, 32] offset=0" << x4 << "ld.shared x, s[tid / 8, tid % 8 * 4 +: 4]"
        << QStringList{} << QStringList{};
    QTest::newRow("st.shared stride two words")
        << "smem s : f32[32, 32] offset=0" << x1 << "st.shared s[tid / 16, tid % 16 * 2], x"
        << QStringList{"perf-bank-conflict@13:19"} << QStringList{"2-way bank conflicts"};
    QTest::newRow("ld.shared warp-scoped tile not modelled")
        << "smem s : f32[32, 32] offset=0" << "reg x : f32[32] scope=warp"
        << "ld.shared x, s[:, 0]" << QStringList{} << QStringList{};

    // cp.async: 16-byte chunks of a 64-byte-row tile are conflict-free with or without swizzle,
    // and read whole rows of A; 4-byte chunks of 4-byte rows leave most of each sector unused.
    QTest::newRow("cp.async coalesced, conflict-free")
        << "smem a_s : bf16[128, 32] offset=0 swizzle=64B" << QString()
        << "cp.async a_s, A[t.x * 128 +: 128, k * 32 +: 32]" << QStringList{} << QStringList{};
    QTest::newRow("cp.async narrow rows")
        << "smem a_s : bf16[128, 2] offset=0" << QString()
        << "cp.async a_s, A[t.x * 128 +: 128, k * 2 +: 2] chunk=4 cache=ca"
        << QStringList{"perf-uncoalesced@13:23"}
        << QStringList{"a warp touches 32 32-byte sectors for 128 bytes (4 needed, 8.0x) with 4-byte chunks"};

    // Global accesses of per-thread register tiles.
    QTest::newRow("ld.global 16-byte vectors, consecutive lanes")
        << QString() << "reg x_r : bf16[8] scope=thread" << "ld.global x_r, A[t.x, k * 1024 + tid * 8 +: 8]"
        << QStringList{} << QStringList{};
    QTest::newRow("ld.global one row per lane")
        << QString() << "reg x_r : bf16[4] scope=thread" << "ld.global x_r, A[t.x * 128 + tid, k * 4 +: 4]"
        << QStringList{"perf-uncoalesced@13:24"}
        << QStringList{"a warp touches 32 32-byte sectors for 256 bytes (8 needed, 4.0x) with 8-byte "
                       "accesses, consecutive lanes 8192 bytes apart"};
    QTest::newRow("st.global scalar column")
        << QString() << "reg x : f32[1] scope=thread" << "st.global F[t.x * 128 + tid, k], x"
        << QStringList{"perf-uncoalesced@13:19"} << QStringList{"(4 needed, 8.0x)"};
    QTest::newRow("ld.global 16 bytes per row is not above twice")
        << QString() << "reg x_r : bf16[8] scope=thread" << "ld.global x_r, A[t.x * 128 + tid, k * 8 +: 8]"
        << QStringList{} << QStringList{};
    QTest::newRow("ld.global 8 bytes per thread, dense")
        << QString() << "reg x_r : bf16[4] scope=thread" << "ld.global x_r, A[t.x, k * 512 + tid * 4 +: 4]"
        << QStringList{"perf-vector-width@13:24"}
        << QStringList{"each thread of 'ld.global' moves 8 contiguous bytes of 'A' (4 x bf16) and "
                       "consecutive lanes move adjacent slices: 2x the instructions"};
    QTest::newRow("st.global scalar, dense")
        << QString() << "reg x : f32[1] scope=thread" << "st.global F[t.x, k * 128 + tid], x"
        << QStringList{"perf-vector-width@13:19"} << QStringList{"4 contiguous bytes of 'F' (1 x f32)"};
    QTest::newRow("ld.global warp-scoped tile not modelled")
        << QString() << "reg x_r : bf16[1024] scope=warp" << "ld.global x_r, A[t.x, warp * 1024 +: 1024]"
        << QStringList{} << QStringList{};
  }

  void accesses() {
    QFETCH(QString, smem);
    QFETCH(QString, reg);
    QFETCH(QString, op);
    QFETCH(QStringList, expected);
    QFETCH(QStringList, texts);
    QString messages;
    bool verified = false;
    QStringList got = check(instantiate(smem, reg, op), &messages, &verified);
    QVERIFY2(verified, "the kernel must reach the verifier");
    QCOMPARE(got, expected);
    qsizetype at = 0;
    for (const QString& t : texts) {
      qsizetype found = messages.indexOf(t, at);
      QVERIFY2(found >= 0, qPrintable("'" + t + "' not in:\n" + messages));
      at = found + t.size();
    }
  }

  // The hint names the tensor map a TMA store of the buffer uses.
  void swizzleHintNamesTensorMap() {
    std::string error;
    auto text = readFile(std::string(CAKE_CORPUS_DIR) + "/hopper_gemm/gemm_ws.cake", error);
    QVERIFY2(text, error.c_str());
    QString k = QString::fromStdString(*text);
    const QString cs = "smem c_s : bf16[BM, 64] offset=131072 stages=2 swizzle=128B";
    const QString tc = "tensormap tC : bf16[BM, 64] source=C swizzle=128B";
    QVERIFY(k.contains(cs) && k.contains(tc));
    k.replace(cs, "smem c_s : bf16[BM, 64] offset=131072 stages=2");
    k.replace(tc, "tensormap tC : bf16[BM, 64] source=C");
    QString messages;
    QStringList got = check(k.toStdString(), &messages);
    QCOMPARE(got.size(), 2);
    QVERIFY2(messages.contains("'stmatrix' on 'c_s' has 8-way bank conflicts"), qPrintable(messages));
    QVERIFY2(messages.contains("swizzle=128B on 'c_s' removes the 8-way bank conflicts of its "
                               "'stmatrix' access (128-byte rows, declared with swizzle none); the "
                               "tensor map 'tC' of the TMA copies of 'c_s' must use swizzle=128B too"),
             qPrintable(messages));
  }

  // The expert-written kernels are conflict-free and coalesced under this model.
  void corpusIsClean_data() {
    QTest::addColumn<QString>("path");
    const QStringList paths = test::corpusKernels(test::CorpusKernels::Positive);
    QVERIFY(paths.size() >= 8);
    for (const QString& p : paths)
      QTest::newRow(qPrintable(QDir(QStringLiteral(CAKE_CORPUS_DIR)).relativeFilePath(p))) << p;
  }
  void corpusIsClean() {
    QFETCH(QString, path);
    std::string error;
    auto text = readFile(path.toStdString(), error);
    QVERIFY2(text, error.c_str());
    QString messages;
    bool verified = false;
    QCOMPARE(check(*text, &messages, &verified), QStringList{});
    QVERIFY(verified);
  }
};

QTEST_APPLESS_MAIN(TestPerformance)
#include "tst_performance.moc"
