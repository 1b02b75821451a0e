// The timeline widget in predicted time (B20): the cost job's schedule becomes the x axis (steps
// stay an option), zoomed out the arrows merge, a drag on the axis measures an interval with a
// duration readout (Esc clears), the legend names what is drawn; an estimate of another check is
// ignored. Offscreen, with QTest mouse and key events.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "../views/ViewsTestUtil.h"
#include "cake/views/PerformanceData.h"
#include "cake/widgets/TimelineView.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QtTest>

using namespace cake;

class TestTimelineTime : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void axisFromTheCostModel_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("hopper gemm") << "hopper_gemm/gemm_ws.cake";
    QTest::newRow("blackwell tcgen05") << "blackwell_gemm/gemm_tcgen05.cake";
    QTest::newRow("flash attention") << "flash_attention/fa_fwd.cake";
  }
  void axisFromTheCostModel() {
    QFETCH(QString, file);
    views::SelectionModel sel;
    widgets::TimelineView view(&sel);
    view.resize(1024, 360);
    view.show();
    auto snap = test::corpusSnapshot(file);
    sel.setSnapshot(snap);
    view.setSnapshot(snap);
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    // Before the estimate: logical steps, and the status says why.
    QVERIFY(!view.hasTimeAxis());
    QVERIFY(view.data() && !view.data()->inTime());
    auto* status = view.findChild<QLabel*>(QStringLiteral("timelineStatus"));
    QVERIFY(status && status->text().contains(QStringLiteral("logical steps")));
    // An estimate of another check is ignored.
    auto other = test::corpusSnapshot(file);
    view.setCost(views::buildCostSnapshot(*test::compiler(), other, 2));
    QVERIFY(!view.hasTimeAxis());
    // This check's estimate: predicted time, fitted to the whole CTA.
    view.setCost(views::buildCostSnapshot(*test::compiler(), snap, 1));
    QVERIFY(view.hasTimeAxis());
    QCOMPARE(view.axis(), widgets::TimelineView::Axis::Time);
    const views::TimelineData* d = view.data();
    QVERIFY(d->inTime());
    QVERIFY(status->text().contains(QStringLiteral("predicted (one CTA)")));
    const views::TimelineGeometry& g = view.geometry();
    QVERIFY(g.viewEnd >= double(d->endTime));
    // Zoomed out on the whole CTA the arrows merge: fewer drawn than there are.
    QVector<views::TimelineFlowGroup> groups = views::groupFlows(*d, g, 8);
    int flows = 0;
    for (const views::TimelineFlowGroup& grp : groups)
      flows += grp.count;
    // At most one arrow per lane pair and 8-px bucket is drawn.
    QSet<QPair<int, int>> pairs;
    for (const views::TimelineFlow& f : d->flows)
      pairs.insert({f.fromLane, f.toLane});
    QVERIFY(groups.size() <= pairs.size() * (int(g.width / 8) + 2));
    if (d->flows.size() > 50) {
      QVERIFY2(groups.size() < d->flows.size(),
               qPrintable(QStringLiteral("%1 groups of %2 flows").arg(groups.size()).arg(d->flows.size())));
      QCOMPARE(flows, int(d->flows.size()));
    }
    // The axis box switches to steps and back.
    auto* box = view.findChild<QComboBox*>(QStringLiteral("timelineAxis"));
    QVERIFY(box);
    view.setAxis(widgets::TimelineView::Axis::Steps);
    QVERIFY(!view.data()->inTime());
    QCOMPARE(box->currentIndex(), 1);
    QVERIFY(status->text().contains(QStringLiteral(" steps")));
    view.setAxis(widgets::TimelineView::Axis::Time);
    QVERIFY(view.data()->inTime());
    // A new check of the same file: steps until its own estimate arrives.
    view.setSnapshot(other);
    QVERIFY(!view.hasTimeAxis() && !view.data()->inTime());
  }

  void dragOnTheAxisMeasures() {
    views::SelectionModel sel;
    widgets::TimelineView view(&sel);
    view.resize(1024, 360);
    view.show();
    auto snap = test::corpusSnapshot("hopper_gemm/gemm_ws.cake");
    sel.setSnapshot(snap);
    view.setSnapshot(snap);
    view.setCost(views::buildCostSnapshot(*test::compiler(), snap, 1));
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(view.data()->inTime());
    views::TimelineGeometry& g = view.geometry();
    QWidget* canvas = view.canvas();
    const double start = g.viewStart, end = g.viewEnd;
    int x0 = int(g.left + 100), x1 = int(g.left + 400);
    QTest::mousePress(canvas, Qt::LeftButton, {}, QPoint(x0, 8));
    QTest::mouseMove(canvas, QPoint(x0 + 150, 8));
    QTest::mouseMove(canvas, QPoint(x1, 8));
    QTest::mouseRelease(canvas, Qt::LeftButton, {}, QPoint(x1, 8));
    // Measuring does not pan.
    QCOMPARE(g.viewStart, start);
    QCOMPARE(g.viewEnd, end);
    auto [a, b] = view.area();
    QVERIFY(b > a);
    QVERIFY(qAbs(a - g.timeAt(x0)) <= g.span() / g.width + 1);
    QVERIFY(qAbs(b - g.timeAt(x1)) <= g.span() / g.width + 1);
    QString readout = view.areaReadout();
    QVERIFY2(readout.startsWith(QStringLiteral("Δ ") +
                                views::formatTimelineDuration(b - a, view.data()->unitsPerUs)),
             qPrintable(readout));
    QVERIFY(readout.contains(QStringLiteral("s (")) || readout.contains(QStringLiteral("s →")));
    auto* status = view.findChild<QLabel*>(QStringLiteral("timelineStatus"));
    QVERIFY(status->text().startsWith(readout));
    // Shift+drag on the lanes measures too (a plain drag pans).
    QTest::mousePress(canvas, Qt::LeftButton, Qt::ShiftModifier, QPoint(x0, int(g.laneCenter(0))));
    QTest::mouseMove(canvas, QPoint(x0 + 60, int(g.laneCenter(0))));
    QTest::mouseRelease(canvas, Qt::LeftButton, Qt::ShiftModifier, QPoint(x0 + 60, int(g.laneCenter(0))));
    QVERIFY(view.area().second > view.area().first);
    QVERIFY(view.area().second < b); // the new, shorter interval
    QCOMPARE(g.viewStart, start);
    // Esc clears it.
    canvas->setFocus();
    QTest::keyClick(canvas, Qt::Key_Escape);
    QVERIFY(view.areaReadout().isEmpty());
    QVERIFY(view.area().first == view.area().second);
    // In steps the readout counts steps.
    view.setAxis(widgets::TimelineView::Axis::Steps);
    view.setArea(10, 22);
    QCOMPARE(view.areaReadout(), QStringLiteral("Δ 12 steps (10 → 22)"));
  }

  void legend() {
    views::SelectionModel sel;
    widgets::TimelineView view(&sel);
    view.resize(1024, 360);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QWidget* legend = view.legend();
    QVERIFY(legend && legend->isVisible());
    // Every kind of thing the timeline draws is named.
    const QStringList entries = view.legendEntries();
    for (const char* what : {"tensor op", "async copy", "waiting", "arrive/expect_tx", "complete_tx",
                             "commit", "phase complete", "blocking", "report", "hint"})
      QVERIFY2(entries.contains(QString::fromUtf8(what)), what);
    QVERIFY(std::any_of(entries.begin(), entries.end(),
                        [](const QString& e) { return e.contains(QStringLiteral("×N")); }));
    auto* toggle = view.findChild<QCheckBox*>(QStringLiteral("timelineLegendToggle"));
    QVERIFY(toggle && toggle->isChecked());
    toggle->click();
    QVERIFY(!legend->isVisible());
    toggle->click();
    QVERIFY(legend->isVisible());
    // It wraps into more rows in a narrow dock, within its width.
    QCoreApplication::processEvents();
    int wide = legend->height();
    view.resize(480, 360);
    QCoreApplication::processEvents();
    QVERIFY2(legend->height() > wide, qPrintable(QStringLiteral("%1 -> %2").arg(wide).arg(legend->height())));
    QVERIFY(legend->width() <= 480);
  }
};

QTEST_MAIN(TestTimelineTime)
#include "tst_timelinetime.moc"
