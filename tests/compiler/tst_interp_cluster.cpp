// The CPU run of thread-block clusters: the block-scaled GEMM reference against hand-computed
// values, and the DeepGEMM-style FP8 cluster kernel run at small shapes with every CTA of a
// cluster together (multicast B copies into both CTAs, remote releases of both CTAs' empty
// barriers, cluster.sync): correct as written, wrong with a scale or a tile subscript moved.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "TestUtil.h"
#include "cake/Interp/Run.h"
#include "cake/Reference/Operators.h"

#include <QFile>
#include <QtTest>

using namespace cake;

namespace {

std::string corpusText(const char* relative) {
  QFile f(QStringLiteral(CAKE_CORPUS_DIR "/") + QString::fromUtf8(relative));
  if (!f.open(QIODevice::ReadOnly))
    return {};
  return f.readAll().toStdString();
}

} // namespace

class TstInterpCluster : public QObject {
  Q_OBJECT
private slots:
  void blockScaledReference();
  void clusterRun_data();
  void clusterRun();
};

void TstInterpCluster::blockScaledReference() {
  // M = 1, N = 2, K = 4 in two K blocks of 2, N in two blocks of 1:
  // block 0: A.B0 = 1*1 + 2*0 = 1, A.B1 = 1*0 + 2*1 = 2; block 1: A.B0 = 3*1 + 4*1 = 7,
  // A.B1 = 3*2 + 4*0 = 6. C[0, n] = sa[0,0] sb[n,0] blk0 + sa[0,1] sb[n,1] blk1.
  std::vector<double> a{1, 2, 3, 4}, b{1, 0, 1, 1, 0, 1, 2, 0};
  std::vector<double> sa{2, 0.5}, sb{1, 3, 10, 0.25}, c(2);
  ref::gemmBlockScaled(a, b, sa, sb, c, 1, 2, 4, 2, 2);
  QCOMPARE(c[0], 2 * 1 * 1.0 + 0.5 * 3 * 7.0);
  QCOMPARE(c[1], 2 * 10 * 2.0 + 0.5 * 0.25 * 6.0);
  // One N block: both columns take sb[0, q].
  std::vector<double> sb1{1, 3};
  ref::gemmBlockScaled(a, b, sa, sb1, c, 1, 2, 4, 2, 1);
  QCOMPARE(c[1], 2 * 1 * 2.0 + 0.5 * 3 * 6.0);
  // A block count that does not divide K leaves C zero.
  ref::gemmBlockScaled(a, b, sa, sb1, c, 1, 2, 4, 3, 1);
  QCOMPARE(c, (std::vector<double>{0, 0}));
}

void TstInterpCluster::clusterRun_data() {
  QTest::addColumn<QString>("from");
  QTest::addColumn<QString>("to");
  QTest::addColumn<bool>("correct");
  QTest::newRow("as written") << ""
                              << "" << true;
  // The B scale of the next K block for the first batch: wrong in every tile.
  QTest::newRow("SB of the next scale block") << "ld.global sb, SB[t.y, 2 * k]"
                                              << "ld.global sb, SB[t.y, 2 * k + 1]" << false;
  // Both math warpgroups read the A scales of the first 64 rows: rows 64..127 wrong.
  QTest::newRow("SA rows of warpgroup 0 only") << "SA[t.x * BM + wg * 64 +: 64,"
                                               << "SA[t.x * BM +: 64," << false;
  // The multicast B tile is the one of the other column block: every tile wrong.
  QTest::newRow("B tile from t.x") << "tB[t.y * BN, (2 * k + h) * BK]"
                                   << "tB[t.x * BN, (2 * k + h) * BK]" << false;
}

void TstInterpCluster::clusterRun() {
  QFETCH(QString, from);
  QFETCH(QString, to);
  QFETCH(bool, correct);
  std::string text = corpusText("deepgemm/gemm_fp8_cluster.cake");
  QVERIFY(!text.empty());
  if (!from.isEmpty()) {
    std::string f = from.toStdString();
    for (auto at = text.find(f); at != std::string::npos; at = text.find(f, at + 1))
      text.replace(at, f.size(), to.toStdString());
    QVERIFY(text.find(to.toStdString()) != std::string::npos);
  }
  interp::RunResult r = interp::runOnCpu(test::compiler(), "gemm_fp8_cluster.cake", text,
                                         CAKE_CORPUS_DIR "/workloads/deepgemm_fp8.json");
  QCOMPARE(r.correct, correct);
  QCOMPARE(r.outputs.size(), std::size_t(1));
  if (correct) {
    QVERIFY2(r.findings.empty(), qPrintable(test::messages(r.findings)));
    QCOMPARE(r.interleavings, 3);
    QCOMPARE(r.outputs[0].mismatches, std::int64_t(0));
    QVERIFY(r.outputs[0].maxAbsError < 0.02);
    return;
  }
  QVERIFY(r.outputs[0].mismatches > 0);
  QVERIFY(r.outputs[0].firstMismatch);
  // Written by the epilogue's TMA store (the kernel runs to its end: no deadlock).
  QCOMPARE(QString::fromStdString(r.outputs[0].firstMismatch->writtenBy.op),
           QStringLiteral("tma.store"));
}

QTEST_GUILESS_MAIN(TstInterpCluster)
#include "tst_interp_cluster.moc"
