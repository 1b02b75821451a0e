// Timeline tests: geometry math (time ↔ x, zoom around the cursor, pan, focus, clamping,
// lanes, hit testing) as data-driven tables, and the timeline data of the Hopper GEMM and of
// deadlocked kernels (lanes, non-overlapping blocks, flows with slot/phase labels, findings,
// the blocked waits with their root cause and consequences); the level of detail (flows merged
// per pixel bucket, label collision), the axis format, and the timeline in predicted time for
// several corpus kernels.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ViewsTestUtil.h"
#include "cake/Cost/CostModel.h"
#include "cake/views/TimelineGeometry.h"

#include <QtTest>

using namespace cake;
using views::TimelineGeometry;

namespace {
TimelineGeometry standard() {
  TimelineGeometry g;
  g.left = 100;
  g.width = 1000;
  g.top = 20;
  g.laneHeight = 30;
  g.laneGap = 10;
  g.setRange(0, 100); // 10 px per step
  return g;
}
} // namespace

class TestTimeline : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void mapping_data() {
    QTest::addColumn<double>("time");
    QTest::addColumn<double>("x");
    QTest::newRow("left edge") << 0.0 << 100.0;
    QTest::newRow("middle") << 50.0 << 600.0;
    QTest::newRow("right edge") << 100.0 << 1100.0;
    QTest::newRow("before") << -10.0 << 0.0;
    QTest::newRow("fraction") << 12.5 << 225.0;
  }
  void mapping() {
    QFETCH(double, time);
    QFETCH(double, x);
    TimelineGeometry g = standard();
    QCOMPARE(g.pixelsPerUnit(), 10.0);
    QCOMPARE(g.xOf(time), x);
    QCOMPARE(g.timeAt(x), time);
  }

  void zoomKeepsTheTimeUnderTheCursor_data() {
    QTest::addColumn<double>("x");
    QTest::addColumn<double>("factor");
    QTest::addColumn<double>("span");
    QTest::newRow("in at centre") << 600.0 << 0.5 << 50.0;
    QTest::newRow("in at left edge") << 100.0 << 0.8 << 80.0;
    QTest::newRow("out at right edge") << 1100.0 << 1.25 << 125.0;
    QTest::newRow("out near left") << 150.0 << 2.0 << 200.0;
    QTest::newRow("clamped to min span") << 400.0 << 0.001 << 4.0;
  }
  void zoomKeepsTheTimeUnderTheCursor() {
    QFETCH(double, x);
    QFETCH(double, factor);
    QFETCH(double, span);
    TimelineGeometry g = standard();
    double before = g.timeAt(x);
    g.zoomAround(x, factor);
    QCOMPARE(g.span(), span);
    QVERIFY(qAbs(g.timeAt(x) - before) < 1e-9);
  }

  void panFocusClamp() {
    TimelineGeometry g = standard();
    g.panPixels(100); // 10 steps later
    QCOMPARE(g.viewStart, 10.0);
    QCOMPARE(g.viewEnd, 110.0);
    g.panPixels(-300);
    QCOMPARE(g.viewStart, -20.0);
    g.focus(40, 60, 0.1);
    QCOMPARE(g.viewStart, 38.0);
    QCOMPARE(g.viewEnd, 62.0);
    g.focus(10, 10, 0); // a single instant: the minimum span
    QCOMPARE(g.span(), g.minSpan);
    // Clamping keeps the view near [0, total] without changing the span.
    g.setRange(-500, -400);
    g.clampTo(1000);
    QCOMPARE(g.span(), 100.0);
    QVERIFY(g.viewStart >= -5.0 - 1e-9);
    g.setRange(5000, 5100);
    g.clampTo(1000);
    QVERIFY(g.viewEnd <= 1005.0 + 1e-9);
    g.setRange(0, 5000); // wider than the trace: pinned at the start
    g.clampTo(1000);
    QCOMPARE(g.viewStart, -250.0);
    QVERIFY(g.visible(10, 20));
    g.setRange(0, 100);
    QVERIFY(!g.visible(100, 120));
    QVERIFY(!g.visible(-5, 0));
  }

  void lanesAndRects_data() {
    QTest::addColumn<double>("y");
    QTest::addColumn<int>("lane");
    QTest::newRow("above") << 5.0 << -1;
    QTest::newRow("lane 0 top") << 20.0 << 0;
    QTest::newRow("lane 0 bottom") << 49.9 << 0;
    QTest::newRow("gap") << 55.0 << -1;
    QTest::newRow("lane 1") << 60.0 << 1;
    QTest::newRow("lane 2") << 110.0 << 2;
    QTest::newRow("past the last lane") << 140.0 << -1;
  }
  void lanesAndRects() {
    QFETCH(double, y);
    QFETCH(int, lane);
    TimelineGeometry g = standard();
    QCOMPARE(g.laneAt(y, 3), lane);
    QCOMPARE(g.blockRect(10, 12, 1), QRectF(200, 60, 20, 30));
    g.setRange(0, 100000);
    QCOMPARE(g.blockRect(10, 11, 0).width(), 1.0); // never thinner than a pixel
  }

  // B2: lanes share the viewport within [34, 64] px; those that do not fit make the content
  // taller than the viewport (the widget scrolls), never thinner than the minimum.
  void fitLanes_data() {
    QTest::addColumn<double>("viewport");
    QTest::addColumn<int>("lanes");
    QTest::addColumn<double>("laneHeight");
    QTest::addColumn<bool>("scrolls");
    // top 52, gap 12, bottom 30: (viewport - 82) / lanes - 12.
    QTest::newRow("3 lanes in 400 px") << 400.0 << 3 << 64.0 << false;
    QTest::newRow("3 lanes in 220 px: exactly the minimum") << 220.0 << 3 << 34.0 << false;
    QTest::newRow("3 lanes in 219 px: scrolls") << 219.0 << 3 << 34.0 << true;
    QTest::newRow("3 lanes in 150 px") << 150.0 << 3 << 34.0 << true;
    QTest::newRow("2 lanes in 200 px") << 200.0 << 2 << 47.0 << false;
    QTest::newRow("12 lanes in 600 px") << 600.0 << 12 << 34.0 << true;
    QTest::newRow("12 lanes in 640 px: 34.5 each") << 640.0 << 12 << 34.5 << false;
  }
  void fitLanes() {
    QFETCH(double, viewport);
    QFETCH(int, lanes);
    QFETCH(double, laneHeight);
    QFETCH(bool, scrolls);
    TimelineGeometry g;
    g.top = 52;
    g.laneGap = 12;
    g.bottom = 30;
    g.fitLanes(viewport, lanes);
    QCOMPARE(g.laneHeight, laneHeight);
    QCOMPARE(g.contentHeight(lanes) > viewport + 1e-9, scrolls);
    // The last lane ends inside the content.
    QVERIFY(g.laneTop(lanes - 1) + g.laneHeight <= g.contentHeight(lanes));
  }

  void hitTesting() {
    views::TimelineData d;
    d.lanes = {"producer", "consumer"};
    auto block = [](int lane, qint64 s, qint64 e, views::TimelineBlock::Kind k, int event) {
      views::TimelineBlock b;
      b.lane = lane;
      b.start = s;
      b.end = e;
      b.kind = k;
      b.event = event;
      return b;
    };
    using K = views::TimelineBlock::Kind;
    d.blocks = {block(0, 0, 2, K::Op, 0), block(0, 2, 10, K::Wait, 1), block(0, 10, 12, K::Op, 2),
                block(1, 0, 1, K::Op, 3), block(1, 5, 6, K::Op, 4)};
    d.laneStart = {0, 3, 5};
    views::TimelineMark m;
    m.lane = 1;
    m.time = 20;
    m.event = 5;
    d.marks = {m};
    views::TimelineFinding f;
    f.lane = 0;
    f.time = 50;
    f.finding = 0;
    d.findings = {f};
    TimelineGeometry g = standard();
    QCOMPARE(views::hitTest(d, g, {g.xOf(1), g.laneCenter(0)}).block, 0);
    QCOMPARE(views::hitTest(d, g, {g.xOf(5), g.laneCenter(0)}).block, 1);
    QCOMPARE(views::hitTest(d, g, {g.xOf(11), g.laneCenter(0)}).block, 2);
    QCOMPARE(views::hitTest(d, g, {g.xOf(5.5), g.laneCenter(1)}).block, 4);
    QCOMPARE(views::hitTest(d, g, {g.xOf(3), g.laneCenter(1)}).block, -1); // empty space
    QCOMPARE(views::hitTest(d, g, {g.xOf(20) + 2, g.laneCenter(1)}).mark, 0);
    QCOMPARE(views::hitTest(d, g, {g.xOf(50) + 1, g.laneTop(0) + 3}).finding, 0);
    QCOMPARE(views::hitTest(d, g, {g.xOf(1), 5}).block, -1); // above the lanes
    QCOMPARE(d.blocksInRange(0, 3, 11), QVector<int>({1, 2}));
    QCOMPARE(d.blocksInRange(1, 0, 100), QVector<int>({3, 4}));
    QCOMPARE(d.blocksInRange(1, 1, 5), QVector<int>());
    QCOMPARE(d.blocksInRange(7, 0, 100), QVector<int>());
  }

  // ------------------------------------------------------------------ level of detail

  void placeLabels_data() {
    QTest::addColumn<QVector<QRectF>>("rects");
    QTest::addColumn<double>("gap");
    QTest::addColumn<QVector<int>>("kept");
    QTest::newRow("none") << QVector<QRectF>() << 2.0 << QVector<int>();
    QTest::newRow("apart") << QVector<QRectF>{{0, 0, 40, 12}, {60, 0, 40, 12}} << 2.0
                           << QVector<int>{0, 1};
    QTest::newRow("overlap: first wins") << QVector<QRectF>{{0, 0, 40, 12}, {30, 4, 40, 12}}
                                         << 2.0 << QVector<int>{0};
    QTest::newRow("touching within the gap") << QVector<QRectF>{{0, 0, 40, 12}, {41, 0, 40, 12}}
                                             << 2.0 << QVector<int>{0};
    QTest::newRow("touching, no gap") << QVector<QRectF>{{0, 0, 40, 12}, {40.5, 0, 40, 12}}
                                      << 0.0 << QVector<int>{0, 1};
    QTest::newRow("other row") << QVector<QRectF>{{0, 0, 40, 12}, {10, 20, 40, 12}} << 2.0
                               << QVector<int>{0, 1};
    // The third collides with the second, which was dropped: it is kept (only kept ones block).
    QTest::newRow("chain") << QVector<QRectF>{{0, 0, 40, 12}, {35, 0, 40, 12}, {70, 0, 40, 12}}
                           << 2.0 << QVector<int>{0, 2};
    QTest::newRow("wide over many cells")
        << QVector<QRectF>{{-300, 100, 900, 14}, {500, 105, 10, 10}, {610, 100, 20, 14}} << 2.0
        << QVector<int>{0, 2};
    QTest::newRow("empty rect skipped") << QVector<QRectF>{{0, 0, 0, 0}, {0, 0, 10, 10}} << 2.0
                                        << QVector<int>{1};
  }
  void placeLabels() {
    QFETCH(QVector<QRectF>, rects);
    QFETCH(double, gap);
    QFETCH(QVector<int>, kept);
    QCOMPARE(views::placeLabels(rects, gap), kept);
  }

  /// Many labels: no two kept ones overlap, and each dropped one overlaps a kept one.
  void placeLabelsDense() {
    QVector<QRectF> rects;
    for (int i = 0; i < 2000; ++i)
      rects << QRectF((i * 37) % 1200, (i * 11) % 300, 30 + i % 50, 12);
    QVector<int> kept = views::placeLabels(rects, 1);
    QVERIFY(kept.size() > 10 && kept.size() < rects.size());
    QSet<int> keptSet(kept.begin(), kept.end());
    for (int a = 0; a < kept.size(); ++a)
      for (int b = a + 1; b < kept.size(); ++b)
        QVERIFY(!rects[kept[a]].adjusted(-1, -1, 1, 1).intersects(rects[kept[b]]));
    for (int i = 0; i < rects.size(); ++i)
      if (!keptSet.contains(i)) {
        bool blocked = false;
        for (int k : kept)
          blocked = blocked || (k < i && rects[k].intersects(rects[i].adjusted(-1, -1, 1, 1)));
        QVERIFY2(blocked, qPrintable(QString::number(i)));
      }
  }

  void groupFlows_data() {
    QTest::addColumn<double>("viewEnd");
    QTest::addColumn<int>("groups");
    QTest::addColumn<QStringList>("labels");
    // 40 flows lane 0 → 1 at t = 0, 10, ..., 390 labelled full[i%4]; 2 flows 0 → 2 at 0, 10;
    // 4 flows 1 → 0 at 5, 105...
    // 1000 px wide: a view of 1000 units is 1 px a unit, 80 units per 8-px bucket.
    QTest::newRow("zoomed in: all apart") << 400.0 << 46 << QStringList();
    QTest::newRow("zoomed out: per bucket")
        << 100000.0 << 3 << QStringList{"40 arrows", "done ×2", "empty[0] ×4"};
    QTest::newRow("middle: 32-unit buckets") << 4000.0 << 13 + 1 + 4 << QStringList();
  }
  void groupFlows() {
    QFETCH(double, viewEnd);
    QFETCH(int, groups);
    QFETCH(QStringList, labels);
    views::TimelineData d;
    d.lanes = QStringList{"producer", "consumer"};
    for (int i = 0; i < 40; ++i) {
      views::TimelineFlow f;
      f.fromLane = 0;
      f.toLane = 1;
      f.fromTime = i * 10;
      f.toTime = i * 10 + 2;
      f.toBlock = i;
      f.label = QStringLiteral("full[%1]").arg(i % 4);
      d.flows << f;
    }
    // Two flows from lane 0 into a third lane at the same times as two of the first: a group
    // of their own (same tail lane, other head lane).
    d.lanes << QStringLiteral("epilogue");
    for (int i = 0; i < 2; ++i) {
      views::TimelineFlow f;
      f.fromLane = 0;
      f.toLane = 2;
      f.fromTime = i * 10;
      f.toTime = i * 10 + 2;
      f.toBlock = 200 + i;
      f.label = QStringLiteral("done");
      d.flows << f;
    }
    for (int i = 0; i < 4; ++i) {
      views::TimelineFlow f;
      f.fromLane = 1;
      f.toLane = 0;
      f.fromTime = 5 + i * 100;
      f.toTime = 6 + i * 100;
      f.toBlock = 100 + i;
      f.label = QStringLiteral("empty[0]");
      d.flows << f;
    }
    TimelineGeometry g;
    g.left = 0;
    g.width = 1000;
    g.setRange(0, viewEnd);
    QVector<views::TimelineFlowGroup> out = views::groupFlows(d, g, 8);
    QCOMPARE(out.size(), groups);
    int total = 0;
    for (const views::TimelineFlowGroup& grp : out) {
      total += grp.count;
      QVERIFY(grp.count >= 1);
    }
    QCOMPARE(total, 46); // every visible flow is in one group
    if (!labels.isEmpty()) {
      QStringList got;
      for (const views::TimelineFlowGroup& grp : out)
        got << grp.label(d);
      QCOMPARE(got, labels);
    }
    // A highlighted flow (its wait block selected) is never merged away.
    QVector<views::TimelineFlowGroup> kept = views::groupFlows(d, g, 8, {7});
    bool alone = false;
    for (const views::TimelineFlowGroup& grp : kept)
      alone = alone || (grp.first == 7 && grp.count == 1);
    QVERIFY(alone);
    // Flows outside the view are not grouped at all.
    g.setRange(10000, 10000 + viewEnd);
    QVERIFY(views::groupFlows(d, g, 8).isEmpty());
  }

  void formatTime_data() {
    QTest::addColumn<double>("units");
    QTest::addColumn<double>("unitsPerUs");
    QTest::addColumn<double>("span");
    QTest::addColumn<QString>("time");
    QTest::addColumn<QString>("duration");
    QTest::newRow("steps") << 12.0 << 0.0 << 5.0 << "12" << "12 steps";
    QTest::newRow("one step") << 1.0 << 0.0 << 1.0 << "1" << "1 step";
    QTest::newRow("µs, 0.5 µs ticks") << 1.5e6 << 1e6 << 0.5e6 << "1.5 µs" << "1.50 µs";
    QTest::newRow("µs, 1 µs ticks") << 3e6 << 1e6 << 1e6 << "3 µs" << "3.00 µs";
    QTest::newRow("ns ticks") << 350e3 << 1e6 << 50e3 << "350 ns" << "350 ns";
    QTest::newRow("ms ticks") << 4e9 << 1e6 << 2e9 << "4 ms" << "4.00 ms";
    QTest::newRow("12.5 µs") << 12.5e6 << 1e6 << 0.1e6 << "12.5 µs" << "12.5 µs";
  }
  void formatTime() {
    QFETCH(double, units);
    QFETCH(double, unitsPerUs);
    QFETCH(double, span);
    QFETCH(QString, time);
    QFETCH(QString, duration);
    QCOMPARE(views::formatTimelineTime(units, unitsPerUs, span), time);
    QCOMPARE(views::formatTimelineDuration(units, unitsPerUs), duration);
  }

  // ------------------------------------------------------------------ predicted time axis

  void timelineInTime_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("hopper gemm") << "hopper_gemm/gemm_ws.cake";
    QTest::newRow("ampere cp.async") << "ampere_gemm/gemm_cp_async.cake";
    QTest::newRow("blackwell tcgen05") << "blackwell_gemm/gemm_tcgen05.cake";
    QTest::newRow("flash attention") << "flash_attention/fa_fwd.cake";
    QTest::newRow("softmax") << "softmax/row_softmax.cake";
    QTest::newRow("rmsnorm") << "rmsnorm/rmsnorm.cake";
  }
  /// The timeline on the cost model's time axis: every block at its event's predicted
  /// interval, lanes sorted and non-overlapping, flows forward in time, all of it within the
  /// predicted time of one CTA.
  void timelineInTime() {
    QFETCH(QString, file);
    auto snap = test::corpusSnapshot(file);
    QVERIFY(snap->result.accepted);
    cost::Options o;
    o.hints = false;
    cost::Estimate e = cost::estimate(*test::compiler(), snap->result, o);
    QVERIFY2(e.ok, e.error.c_str());
    const auto& trace = snap->result.verification.trace;
    QCOMPARE(e.schedule.size(), trace.size());
    const views::TimelineData& steps = snap->views->timeline;
    views::TimelineData t = views::timelineInTime(steps, e.schedule, trace.size());
    QVERIFY(t.inTime());
    QVERIFY(!steps.inTime());
    QCOMPARE(t.lanes, steps.lanes);
    QVERIFY(t.endTime > 0);
    // Within one CTA's predicted time (the schedule covers the analysed tiles).
    QVERIFY2(double(t.endTime) / t.unitsPerUs <= e.ctaUs * (1 + 1e-9) + 1e-6,
             qPrintable(QStringLiteral("%1 > %2").arg(double(t.endTime) / t.unitsPerUs).arg(e.ctaUs)));
    int ops = 0, stepOps = 0;
    for (const views::TimelineBlock& b : steps.blocks)
      stepOps += b.kind == views::TimelineBlock::Kind::Op;
    for (int k = 0; k < t.blocks.size(); ++k) {
      const views::TimelineBlock& b = t.blocks[k];
      QVERIFY(b.end > b.start);
      const cost::EventTime& et = e.schedule[std::size_t(b.event)];
      QVERIFY(qAbs(double(b.start) - et.startUs * t.unitsPerUs) <= 1);
      ops += b.kind == views::TimelineBlock::Kind::Op;
      if (k > 0 && t.blocks[k - 1].lane == b.lane)
        QVERIFY2(t.blocks[k - 1].end <= b.start,
                 qPrintable(QStringLiteral("%1 ends %2 after %3 starts %4")
                                .arg(t.blocks[k - 1].label).arg(t.blocks[k - 1].end)
                                .arg(b.label).arg(b.start)));
      if (k > 0)
        QVERIFY(t.blocks[k - 1].lane <= b.lane);
    }
    QCOMPARE(ops, stepOps); // no operation is lost
    for (const views::TimelineFlow& f : t.flows) {
      QVERIFY(f.fromTime <= f.toTime);
      if (f.toBlock >= 0)
        QCOMPARE(t.blocks[f.toBlock].lane, f.toLane);
    }
    for (int k = 1; k < t.marks.size(); ++k)
      QVERIFY(t.marks[k - 1].time <= t.marks[k].time);
    for (auto it = t.blocksOfOp.begin(); it != t.blocksOfOp.end(); ++it)
      for (int b : it.value())
        QCOMPARE(t.blocks[b].op, it.key());
    // A schedule of another trace is refused: the steps stay.
    std::vector<cost::EventTime> wrong(e.schedule.begin(), e.schedule.end() - 1);
    QVERIFY(!views::timelineInTime(steps, wrong, trace.size()).inTime());
  }

  void hopperGemmTimeline() {
    auto snap = test::corpusSnapshot("hopper_gemm/gemm_ws.cake");
    const views::TimelineData& t = snap->views->timeline;
    QCOMPARE(t.lanes, QStringList({"producer", "consumer"}));
    QVERIFY(t.verified);
    QVERIFY(!t.deadlock);
    QCOMPARE(t.tilesAnalysed, 3);
    QVERIFY(t.endTime > 100);
    // Blocks are sorted per lane and never overlap: the binary search relies on it.
    for (int k = 1; k < t.blocks.size(); ++k) {
      const views::TimelineBlock &a = t.blocks[k - 1], &b = t.blocks[k];
      QVERIFY(a.lane <= b.lane);
      if (a.lane == b.lane)
        QVERIFY2(a.end <= b.start, qPrintable(QStringLiteral("%1 [%2,%3) vs %4 [%5,%6)")
                                                 .arg(a.label).arg(a.start).arg(a.end).arg(b.label).arg(b.start).arg(b.end)));
    }
    // blocksInRange agrees with a scan.
    for (int lane = 0; lane < 2; ++lane) {
      QVector<int> scan;
      for (int k = 0; k < t.blocks.size(); ++k)
        if (t.blocks[k].lane == lane && t.blocks[k].end > 100 && t.blocks[k].start < 160)
          scan << k;
      QCOMPARE(t.blocksInRange(lane, 100, 160), scan);
    }
    // Every consumer wait on full is released by a flow from the producer, labelled with the
    // slot, the phase and the parity it observed.
    int fromProducer = 0;
    for (const views::TimelineFlow& f : t.flows) {
      QVERIFY(f.fromTime <= f.toTime);
      QVERIFY(f.label.contains(QStringLiteral(" φ")) && f.label.contains(QStringLiteral(" p")));
      if (f.fromLane == 0 && f.toLane == 1) {
        ++fromProducer;
        QVERIFY(f.label.startsWith("full["));
      }
    }
    QCOMPARE(fromProducer, 3 * 64); // 3 tiles × 64 K steps
    QVERIFY(t.flows.first().toBlock >= 0);
    QCOMPARE(t.blocks[t.flows.first().toBlock].label, QStringLiteral("mbarrier.try_wait"));
    // Marks for the TMA's complete_tx and the phase completions.
    bool completeTx = false, phaseDone = false;
    for (const views::TimelineMark& m : t.marks) {
      completeTx = completeTx || m.kind == views::TimelineMark::Kind::CompleteTx;
      phaseDone = phaseDone || m.kind == views::TimelineMark::Kind::PhaseDone;
    }
    QVERIFY(completeTx && phaseDone);
    // The blocks of one op are indexed.
    int tma = snap->views->opAtLine.value(61);
    QCOMPARE(t.blocksOfOp.value(tma).size(), 3 * 64);
  }

  void deadlockedKernel() {
    auto snap = test::corpusSnapshot("negative/wait-cycle.cake");
    const views::TimelineData& t = snap->views->timeline;
    QVERIFY(t.deadlock);
    // Both roles of the wait cycle are marked where they stopped.
    QSet<int> blockedLanes;
    for (const views::TimelineFinding& f : t.findings)
      if (f.blocked) {
        blockedLanes.insert(f.lane);
        QVERIFY(f.text.contains("ps-wait-cycle"));
        QCOMPARE(f.severity, int(Severity::Blocking));
      }
    QCOMPARE(blockedLanes, QSet<int>({0, 1}));
  }

  /// The blocked waits of every deadlocking negative corpus case: one per stopped role, where
  /// it stopped, what it waits for, and whether the finding that explains it sits on this
  /// wait (root cause) or elsewhere (consequence). Encoded "lane line barrier phase parity
  /// root|consequence causeLine code".
  void blockedWaits_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("wait cycle: the producer's wrong start parity")
        << "negative/wait-cycle.cake"
        << QStringList{"0 32 empty[0] 0 0 root 32 ps-wait-cycle",
                       "1 43 full[0] 0 0 consequence 32 ps-wait-cycle"};
    QTest::newRow("parity that does not flip: the consumer's second wait")
        << "negative/parity-no-flip.cake"
        << QStringList{"0 32 empty[0] 1 1 consequence 43 ps-parity-cadence",
                       "1 43 full[0] 2 0 root 43 ps-parity-cadence"};
    QTest::newRow("a wait no producer completes")
        << "negative/deadlock-extra-wait.cake"
        << QStringList{"1 42 full[0] 8 0 root 42 ps-deadlock-no-producer"};
    QTest::newRow("cta.sync reached unequally often")
        << "negative/cta-sync-divergence.cake"
        << QStringList{"1 51 cta -1 -1 root 51 ps-cta-sync-divergence"};
  }
  void blockedWaits() {
    QFETCH(QString, file);
    QFETCH(QStringList, expected);
    auto snap = test::corpusSnapshot(file);
    const views::TimelineData& t = snap->views->timeline;
    QVERIFY(t.deadlock);
    QStringList actual;
    for (const views::TimelineBlocked& b : t.blocked) {
      actual << QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8")
                    .arg(b.lane)
                    .arg(b.line)
                    .arg(b.barrier)
                    .arg(b.phase)
                    .arg(b.parity)
                    .arg(b.rootCause ? "root" : "consequence")
                    .arg(b.causeLine)
                    .arg(b.code);
      // The label says what the role waits for and where the cause is.
      QVERIFY2(b.label.startsWith(QStringLiteral("blocked: waits ")), qPrintable(b.label));
      QVERIFY2(b.label.contains(QStringLiteral("line %1 [%2]").arg(b.causeLine).arg(b.code)),
               qPrintable(b.label));
      QVERIFY2(b.label.contains(b.rootCause ? "root cause" : "consequence of"),
               qPrintable(b.label));
      if (b.phase >= 0)
        QVERIFY2(b.label.contains(QStringLiteral("phase %1 of %2").arg(b.phase).arg(b.barrier)),
                 qPrintable(b.label));
      // It refers to the finding it names, and sits after the role's last block.
      QVERIFY(b.finding >= 0 && b.finding < int(snap->result.diagnostics.size()));
      QCOMPARE(QString::fromStdString(snap->result.diagnostics[std::size_t(b.finding)].code),
               b.code);
      int last = t.laneStart[b.lane + 1] - 1;
      QVERIFY(last >= t.laneStart[b.lane]);
      QCOMPARE(b.time, t.blocks[last].end);
    }
    QCOMPARE(actual, expected);
    // Hit testing: the bar from where the role stopped to the lane's end selects it.
    views::TimelineGeometry g = standard();
    g.setRange(0, double(t.endTime) * 2);
    for (int i = 0; i < t.blocked.size(); ++i) {
      const views::TimelineBlocked& b = t.blocked[i];
      QCOMPARE(views::hitTest(t, g, {g.xOf(double(b.time)) + 5, g.laneCenter(b.lane) + 4}).blocked,
               i);
      QCOMPARE(views::hitTest(t, g, {g.xOf(double(b.time)) - 5, g.laneCenter(b.lane) + 4}).blocked,
               -1);
    }
  }

  void noBlockedWaitsWithoutDeadlock() {
    auto snap = test::corpusSnapshot("hopper_gemm/gemm_ws.cake");
    QVERIFY(snap->views->timeline.blocked.isEmpty());
  }

  void noTraceWithoutTypeCheck() {
    QString text = test::readFile(test::corpusPath("hopper_gemm/gemm_ws.cake"));
    text.replace("ew.fill acc value=0.0", "ew.fill acc value=0.0 bogus=1");
    auto snap = test::snapshotOf("broken.cake", text);
    const views::TimelineData& t = snap->views->timeline;
    QVERIFY(!t.verified);
    QVERIFY(t.blocks.isEmpty());
    QVERIFY(t.note.contains("type checking"));
    QCOMPARE(t.lanes.size(), 2);
  }
};

QTEST_MAIN(TestTimeline)
#include "tst_timeline.moc"
