// One story in the numbers (B22): for several corpus kernels the memory view, the residency
// finding, `cake trace`'s resources, the graph's cost shares, the performance view's per-op bars
// and `cake cost` state the same quantities, each computed once, with the same scope: shared
// memory per CTA (and per SM with the reserved bytes), the time per op as a share of the
// predicted time on the busiest SM. A divergence in any of them fails here.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ViewsTestUtil.h"
#include "cake/Verify/SmemFootprint.h"
#include "cake/views/PerformanceData.h"

#include <QProcess>
#include <QtTest>
#include <cmath>

using namespace cake;

namespace {

QByteArray runCli(const QStringList& args) {
  QProcess p;
  p.start(QStringLiteral(CAKE_CLI), args);
  p.waitForFinished(120000);
  return p.readAllStandardOutput();
}

/// "163,904 B", as the compiler's messages group bytes.
QString grouped(qint64 n) {
  QString digits = QString::number(n), out;
  for (int i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0)
      out += QLatin1Char(',');
    out += digits[i];
  }
  return out + QStringLiteral(" B");
}

} // namespace

class TestNumbers : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void kernels_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("hopper gemm") << "hopper_gemm/gemm_ws.cake";
    QTest::newRow("hopper gemm pending") << "hopper_gemm/gemm_ws_pending1.cake";
    QTest::newRow("ampere cp.async") << "ampere_gemm/gemm_cp_async.cake";
    QTest::newRow("blackwell tcgen05") << "blackwell_gemm/gemm_tcgen05.cake";
    QTest::newRow("flash attention") << "flash_attention/fa_fwd.cake";
    QTest::newRow("softmax") << "softmax/row_softmax.cake";
    QTest::newRow("rmsnorm") << "rmsnorm/rmsnorm.cake";
  }

  /// Shared memory: the memory view's figures are the verifier's, the residency bound (and its
  /// finding) and `cake trace` name the same bytes, per CTA and per SM.
  void sharedMemory_data() { kernels_data(); }
  void sharedMemory() {
    QFETCH(QString, file);
    auto snap = test::corpusSnapshot(file);
    QVERIFY(snap->result.verification.ran);
    const views::MemoryMap& map = snap->views->memory;
    const verify::ResourceSummary& res = snap->result.verification.resources;
    QCOMPARE(map.total, res.smemTotal);
    const verify::SmemFootprint fp = verify::smemFootprint(snap->result.model);
    QCOMPARE(map.reserved, fp.reserved);
    QCOMPARE(map.withReserved, res.smemTotal + fp.reserved);
    QCOMPARE(map.perSm, fp.perSm);
    QVERIFY(map.total >= map.buffersEnd + map.barrierBytes);
    QVERIFY(map.perCtaSummary().startsWith(QStringLiteral("per CTA: needs ") + grouped(map.total)));
    if (map.total > 0 && map.perSm > 0) {
      QVERIFY(map.reserved > 0); // every target in the corpus reserves some
      QVERIFY(map.perSmSummary().contains(grouped(map.withReserved)));
      QVERIFY(map.perSmSummary().contains(grouped(map.reserved)));
      // The residency bound states the per-CTA need and the per-SM count the same way.
      bool bound = false;
      for (const verify::ResidencyBound& b : res.bounds)
        if (b.resource == "shared memory") {
          bound = true;
          QString detail = QString::fromStdString(b.detail);
          QVERIFY2(detail.contains(grouped(map.total) + QStringLiteral(" per CTA")), qPrintable(detail));
          QVERIFY2(detail.contains(QStringLiteral("= ") + grouped(map.withReserved)), qPrintable(detail));
          QCOMPARE(b.ctasPerSm, map.perSm / map.withReserved);
          QVERIFY(map.perSmSummary().contains(QStringLiteral("%1 CTA(s)").arg(b.ctasPerSm)));
          // A finding that quotes the bound quotes it whole.
          for (const Diagnostic& d : snap->result.diagnostics)
            if (QString::fromStdString(d.message).contains(QStringLiteral("bound by shared memory")))
              QVERIFY(QString::fromStdString(d.message).contains(detail));
        }
      QVERIFY(bound);
    }
    // `cake trace` reports the same resources.
    QJsonObject trace = QJsonDocument::fromJson(
                            runCli({QStringLiteral("trace"), QStringLiteral("--format"),
                                    QStringLiteral("json"), test::corpusPath(file)}))
                            .object();
    QJsonObject r = trace.value(QStringLiteral("analysis"))
                        .toObject()
                        .value(QStringLiteral("resources"))
                        .toObject();
    QVERIFY2(!r.isEmpty(), "cake trace --format json has no resources");
    QCOMPARE(qint64(r.value(QStringLiteral("smem_total")).toDouble()), map.total);
    QCOMPARE(qint64(r.value(QStringLiteral("smem_reserved")).toDouble()), map.reserved);
    QCOMPARE(qint64(r.value(QStringLiteral("smem_per_sm")).toDouble()), map.perSm);
  }

  /// Time per op: the graph's shares, the performance view's bars and `cake cost` (JSON and
  /// text) show the cost model's one figure, and no op is given more than the kernel's time.
  void timePerOp_data() { kernels_data(); }
  void timePerOp() {
    QFETCH(QString, file);
    auto snap = test::corpusSnapshot(file);
    views::CostSnapshotPtr cost = views::buildCostSnapshot(*test::compiler(), snap, 1);
    QVERIFY(cost->estimate && cost->estimate->ok);
    const cost::Estimate& e = *cost->estimate;
    double sum = 0;
    for (const cost::OpCost& o : e.perOp) {
      QVERIFY(o.timeShare >= 0 && o.timeShare <= 1);
      QVERIFY(o.timeUs <= e.predictedUs * (1 + 1e-9));
      QCOMPARE(cost->shares.value(int(o.op), 0.0), o.timeShare);
      sum += o.timeShare;
    }
    QVERIFY(sum <= 1 + 1e-9);
    QVERIFY(sum > 0.99); // the shares split the whole time
    // Performance bars: busy + waiting is the op's time; all bars within the kernel's time.
    double bars = 0;
    QVERIFY(!cost->data.ops.isEmpty());
    for (const views::TimeBar& b : cost->data.ops) {
      const cost::OpCost* o = nullptr;
      for (const cost::OpCost& c : e.perOp)
        if (int(c.op) == b.op)
          o = &c;
      QVERIFY(o);
      QVERIFY(qAbs(b.us + b.waitUs - o->timeUs) <= 1e-9 * std::max(1.0, o->timeUs));
      QVERIFY(b.us + b.waitUs <= cost->data.predictedUs * (1 + 1e-9));
      QVERIFY(b.detail.contains(QStringLiteral("%1% of the predicted time").arg(o->timeShare * 100, 0, 'f', 1)));
      bars += b.us + b.waitUs;
    }
    QVERIFY(bars <= cost->data.predictedUs * (1 + 1e-9));
    // `cake cost --format json`: the same shares (rounded to six digits).
    QJsonObject json = QJsonDocument::fromJson(
                           runCli({QStringLiteral("cost"), QStringLiteral("--format"),
                                   QStringLiteral("json"), test::corpusPath(file)}))
                           .object();
    QJsonArray perOp = json.value(QStringLiteral("per_op")).toArray();
    QCOMPARE(perOp.size(), qsizetype(e.perOp.size()));
    for (const QJsonValue& v : perOp) {
      QJsonObject o = v.toObject();
      int op = o.value(QStringLiteral("op")).toInt();
      double share = o.value(QStringLiteral("time_share")).toDouble(-1);
      QVERIFY2(qAbs(share - cost->shares.value(op, 0.0)) <= 1e-5,
               qPrintable(QStringLiteral("op %1: CLI %2, graph %3").arg(op).arg(share).arg(cost->shares.value(op))));
    }
    // The text names both figures of each attributed op with their scope.
    QString text = QString::fromUtf8(runCli({QStringLiteral("cost"), test::corpusPath(file)}));
    QVERIFY(text.contains(QStringLiteral("time per operation (share of the predicted time, busiest SM)")));
    for (std::size_t i : e.bottleneckOps) {
      const cost::OpCost& o = e.perOp[i];
      QString line = QStringLiteral("[of %1; %2% of the predicted time]")
                         .arg(QString::fromStdString(e.bottleneckResource))
                         .arg(o.timeShare * 100, 0, 'f', 1);
      QVERIFY2(text.contains(line), qPrintable(line + "\n" + text));
    }
  }
};

QTEST_MAIN(TestNumbers)
#include "tst_numbers.moc"
