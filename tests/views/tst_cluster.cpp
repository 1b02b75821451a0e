// Thread-block clusters in the views: the memory map's cross-CTA signals (multicast buffers
// with their receiving ranks, remote barriers) and the cluster-wide timeline (one lane per
// CTA x role from the verifier's cluster model, multicast deliveries and remote arrivals as
// arrows into the other CTA), on corpus kernels, a broken variant and a hand-made trace.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ViewsTestUtil.h"
#include "cake/Verify/ClusterTrace.h"
#include "cake/views/ClusterTimeline.h"
#include "cake/views/MemoryMap.h"

#include <QtTest>

using namespace cake;
using views::ClusterDelivery;
using views::TimelineBlock;

namespace {

QString deepGemm() {
  return test::readFile(test::corpusPath("deepgemm/gemm_fp8_cluster.cake"));
}

QString bf16Cluster() {
  return test::readFile(QStringLiteral(CAKE_SOURCE_DIR) +
                        "/tests/lit/lower/Inputs/cluster-multicast.cake");
}

} // namespace

class TestCluster : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void memoryDeliveries_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("ctas");
    QTest::addColumn<QString>("shape");
    QTest::addColumn<QStringList>("expected"); ///< "kind target issuer ranks barrier"
    QTest::addColumn<QString>("multicastRow"); ///< buffer row with multicast ranks
    QTest::newRow("deepgemm fp8 2x1")
        << deepGemm() << 2 << "2x1x1"
        << QStringList{"multicast b_s 0 0,1 full", "remote empty -1 0,1 empty"} << "b_s";
    QTest::newRow("bf16 multicast 2x1")
        << bf16Cluster() << 2 << "2x1x1"
        << QStringList{"multicast b_s 0 0,1 full", "remote empty -1 0,1 empty"} << "b_s";
    // Rank 1 alone receives B (and issues it): the map shows what the kernel says.
    QString one = deepGemm();
    one.replace(QStringLiteral("multicast=3"), QStringLiteral("multicast=2"));
    QTest::newRow("multicast to rank 1 only")
        << one << 2 << "2x1x1" << QStringList{"multicast b_s 1 1 full", "remote empty -1 0,1 empty"}
        << "b_s";
    QTest::newRow("no cluster") << test::readFile(test::corpusPath("hopper_gemm/gemm_ws.cake")) << 1
                                << "1x1x1" << QStringList{} << "";
  }
  void memoryDeliveries() {
    QFETCH(QString, text);
    QFETCH(int, ctas);
    QFETCH(QString, shape);
    QFETCH(QStringList, expected);
    QFETCH(QString, multicastRow);
    QVERIFY(!text.isEmpty());
    auto snap = test::snapshotOf(QStringLiteral("k.cake"), text);
    const views::MemoryMap& m = snap->views->memory;
    QCOMPARE(m.clusterSize, ctas);
    QCOMPARE(m.clusterShape, shape);
    QStringList got;
    for (const ClusterDelivery& d : m.cluster) {
      QStringList ranks;
      for (int r : d.ranks)
        ranks << QString::number(r);
      got << QStringLiteral("%1 %2 %3 %4 %5")
                 .arg(d.kind == ClusterDelivery::Kind::Multicast ? "multicast" : "remote", d.target)
                 .arg(d.issuer)
                 .arg(ranks.join(','), d.barrier);
      QVERIFY(d.line > 0);
      QVERIFY(d.text().contains(QStringLiteral("line %1").arg(d.line)));
    }
    QCOMPARE(got, expected);
    for (const views::MemoryRow& row : m.rows)
      QCOMPARE(!row.multicastRanks.isEmpty(), row.label == multicastRow);
  }

  void deepGemmTimeline() {
    auto snap = test::snapshotOf(QStringLiteral("dg.cake"), deepGemm());
    QVERIFY(snap->result.accepted);
    const views::TimelineData& t = snap->views->clusterTimeline;
    QCOMPARE(t.lanes, (QStringList{"CTA 0 · producer", "CTA 0 · consumer", "CTA 1 · producer",
                                   "CTA 1 · consumer"}));
    QVERIFY(!t.deadlock);
    QVERIFY(t.note.contains("ran to its end"));
    QCOMPARE(t.laneStart.size(), t.lanes.size() + 1);
    // Every lane passes the two cluster barriers (the one after init and the one at the end).
    for (int lane = 0; lane < 4; ++lane) {
      int syncs = 0;
      for (const TimelineBlock& b : t.blocks)
        syncs += b.lane == lane && b.op >= 0 &&
                 snap->result.model.ops[std::size_t(b.op)].primitive->name == "cluster.sync" &&
                 b.kind == TimelineBlock::Kind::Op;
      QCOMPARE(syncs, 2);
    }
    // Arrows cross CTAs: multicast deliveries from CTA 0's producer only (the mask's lowest
    // rank) into CTA 1, remote arrivals from both CTAs' consumers into the other CTA.
    int multicast = 0, remoteFrom0 = 0, remoteFrom1 = 0;
    for (const views::TimelineFlow& f : t.flows) {
      QVERIFY(f.fromLane / 2 != f.toLane / 2);
      QVERIFY(f.toTime >= f.fromTime);
      if (f.label.startsWith("multicast")) {
        ++multicast;
        QCOMPARE(f.fromLane, 0);
        QVERIFY(f.label.contains("full[") && f.label.endsWith("→ CTA 1"));
        QVERIFY(f.toBlock >= 0);
        QCOMPARE(t.blocks[f.toBlock].lane, 3); // CTA 1's consumer waits on full
      } else {
        QVERIFY(f.label.startsWith("remote empty["));
        (f.fromLane == 1 ? remoteFrom0 : remoteFrom1) += 1;
        QVERIFY(f.fromLane == 1 || f.fromLane == 3);
      }
    }
    QVERIFY(multicast > 0);
    QVERIFY(remoteFrom0 > 0);
    QVERIFY(remoteFrom1 > 0);
    // The one-CTA timeline stays as it was: one lane per role.
    QCOMPARE(snap->views->timeline.lanes.size(), 2);
  }

  void brokenClusterTimeline() {
    // Remote release of rank 0's barrier only: CTA 1's producer waits forever on its empty
    // barrier, and the timeline says which lanes never finished.
    QString text = deepGemm();
    text.replace(QStringLiteral("cta_mask=3"), QStringLiteral("cta_mask=1"));
    auto snap = test::snapshotOf(QStringLiteral("broken.cake"), text);
    QVERIFY(!snap->result.accepted);
    const views::TimelineData& t = snap->views->clusterTimeline;
    QCOMPARE(t.lanes.size(), 4);
    QVERIFY(t.deadlock);
    QVERIFY2(t.note.contains("CTA 1 · producer"), qPrintable(t.note));
    for (const views::TimelineFlow& f : t.flows)
      if (f.label.startsWith("remote"))
        QVERIFY(f.label.endsWith("→ CTA 0"));
  }

  void noClusterTimeline() {
    auto snap = test::corpusSnapshot("hopper_gemm/gemm_ws.cake");
    QVERIFY(snap->views->clusterTimeline.lanes.isEmpty());
  }

  void handMadeTrace() {
    // Two CTAs x one role: CTA 0 multicasts at round 2 into CTA 1, whose wait on full[0]
    // started at round 1 and passes at round 3; an arrival that no wait follows points at the
    // receiving CTA's lane at its own round.
    auto snap = test::snapshotOf(QStringLiteral("dg.cake"), deepGemm());
    verify::ClusterTrace tr;
    tr.ctas = 2;
    tr.roles = {0};
    auto ev = [](verify::ClusterEvent::Kind k, std::int64_t cta, std::uint64_t time,
                 std::uint64_t start, std::int64_t target, std::string bar) {
      verify::ClusterEvent e;
      e.kind = k;
      e.cta = cta;
      e.role = 0;
      e.op = 0;
      e.time = time;
      e.start = start;
      e.target = target;
      e.barrier = std::move(bar);
      e.amount = 16;
      return e;
    };
    using K = verify::ClusterEvent::Kind;
    tr.events = {ev(K::Step, 0, 0, 0, -1, ""),           ev(K::Step, 0, 2, 2, -1, ""),
                 ev(K::Delivery, 0, 2, 2, 1, "full[0]"), ev(K::Step, 1, 3, 1, -1, "full[0]"),
                 ev(K::Remote, 1, 4, 4, 0, "empty[0]"),  ev(K::Step, 1, 4, 4, -1, "")};
    tr.rounds = 5;
    views::TimelineData t = views::clusterTimelineData(tr, snap->result);
    QCOMPARE(t.lanes.size(), 2);
    QCOMPARE(t.endTime, 5);
    // CTA 1: the wait [1, 3), then its op at [3, 4) and the next op at [4, 5).
    QVector<int> lane1;
    for (int i = 0; i < t.blocks.size(); ++i)
      if (t.blocks[i].lane == 1)
        lane1 << i;
    QCOMPARE(lane1.size(), 3);
    QCOMPARE(t.blocks[lane1[0]].kind, TimelineBlock::Kind::Wait);
    QCOMPARE(t.blocks[lane1[0]].start, 1);
    QCOMPARE(t.blocks[lane1[0]].end, 3);
    QCOMPARE(t.blocks[lane1[0]].label, QStringLiteral("wait full[0]"));
    QCOMPARE(t.blocks[lane1[1]].start, 3);
    QCOMPARE(t.flows.size(), 2);
    QCOMPARE(t.flows[0].fromLane, 0);
    QCOMPARE(t.flows[0].toLane, 1);
    QCOMPARE(t.flows[0].fromTime, 2);
    QCOMPARE(t.flows[0].toTime, 3);
    QCOMPARE(t.flows[0].toBlock, lane1[0]);
    QCOMPARE(t.flows[0].label, QStringLiteral("multicast full[0] → CTA 1"));
    QCOMPARE(t.flows[1].fromLane, 1);
    QCOMPARE(t.flows[1].toLane, 0);
    QCOMPARE(t.flows[1].toBlock, -1);
    QCOMPARE(t.flows[1].toTime, 4);
    QCOMPARE(t.marks.size(), 2);
    QCOMPARE(t.marks[0].kind, views::TimelineMark::Kind::CompleteTx);
    // The lane index: lane 0 starts at block 0, lane 1 after CTA 0's two op blocks.
    QCOMPARE(t.laneStart, (QVector<int>{0, 2, 5}));
    // No cluster: no lanes and a note.
    verify::ClusterTrace none;
    QVERIFY(views::clusterTimelineData(none, snap->result).lanes.isEmpty());
  }
};

QTEST_GUILESS_MAIN(TestCluster)
#include "tst_cluster.moc"
