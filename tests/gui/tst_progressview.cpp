// The Progress view offscreen: a click on a point of an arm's curve (or of the scatter) names
// that candidate, through the plot's point order (QCustomPlot sorts points by x); the campaign
// choice and the axis selector redraw the curves.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/Plot.h"
#include "cake/widgets/ProgressView.h"

#include <QSignalSpy>
#include <QToolButton>
#include <QtTest>

using namespace cake;

namespace {

views::ProgressCandidate candidate(const QString& id, const QString& arm, const QString& parent,
                                   double predicted, std::optional<double> measured = {},
                                   double tokens = 0) {
  views::ProgressCandidate c;
  c.id = id;
  c.arm = arm;
  if (!parent.isEmpty())
    c.parents << parent;
  c.kernel = QStringLiteral("kernels/%1.cake").arg(id);
  c.accepted = c.loweredOk = true;
  c.predictedUs = predicted;
  c.measuredUs = measured;
  c.tokens = tokens;
  return c;
}

views::ProgressStorePtr store() {
  auto s = std::make_shared<views::ProgressStore>();
  views::ProgressCampaign a;
  a.name = "alpha";
  a.folder = "/campaigns/alpha";
  a.arms = {"x", "y"};
  a.candidates = {candidate("root", "", "", 100, 100, 0), candidate("x1", "x", "root", 50, 60, 10),
                  candidate("y1", "y", "root", 80, 70, 5), candidate("x2", "x", "x1", 25, 30, 10)};
  views::ProgressCampaign b;
  b.name = "beta";
  b.folder = "/campaigns/beta";
  b.arms = {"z"};
  b.candidates = {candidate("r", "", "", 10), candidate("z1", "z", "r", 5)};
  s->campaigns = {a, b};
  return s;
}

QWidget* canvas(widgets::Plot* plot) {
  return plot->findChild<QWidget*>(QStringLiteral("plotCanvas"));
}

} // namespace

class TestProgressView : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void clickOpensCandidate();
  void campaignsAndAxis();
};

void TestProgressView::clickOpensCandidate() {
  widgets::ProgressView view;
  view.resize(1000, 500);
  view.setStore(store());
  view.setSelectedCampaigns({"alpha"});
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  QSignalSpy spy(&view, &widgets::ProgressView::candidateActivated);
  // Arm x: the root at x = 0, x1 (2x) at 1, x2 (4x) at 2. Click x1's point.
  const views::ProgressCurve& x = view.chart().curves.at(0);
  QCOMPARE(x.label, QStringLiteral("x"));
  widgets::Plot* plot = view.progressPlot();
  plot->replot();
  QTest::mouseClick(canvas(plot), Qt::LeftButton, {}, plot->toPixel(x.points.at(1)));
  QCOMPARE(spy.count(), 1);
  QCOMPARE(spy.at(0).at(0).toString(), QStringLiteral("alpha"));
  QCOMPARE(spy.at(0).at(1).toString(), QStringLiteral("x1"));
  QCOMPARE(spy.at(0).at(2).toString(), QStringLiteral("/campaigns/alpha"));
  QCOMPARE(spy.at(0).at(3).toString(), QStringLiteral("kernels/x1.cake"));
  // The scatter's points are given in import order, not sorted by predicted time: the click on
  // the point of x2 (25 µs predicted, 30 measured: drawn first) names x2.
  widgets::Plot* scatter = view.scatterPlot();
  scatter->replot();
  QCOMPARE(view.scatter().points.size(), 4);
  QTest::mouseClick(canvas(scatter), Qt::LeftButton, {}, scatter->toPixel(QPointF(25, 30)));
  QCOMPARE(spy.count(), 2);
  QCOMPARE(spy.at(1).at(1).toString(), QStringLiteral("x2"));
  // An empty spot names nothing.
  QTest::mouseClick(canvas(scatter), Qt::LeftButton, {}, QPoint(5, 5));
  QCOMPARE(spy.count(), 2);
}

void TestProgressView::campaignsAndAxis() {
  widgets::ProgressView view;
  view.setStore(store());
  // Every campaign by default: three curves, labelled by campaign.
  QCOMPARE(view.selectedCampaigns(), (QStringList{"alpha", "beta"}));
  QCOMPARE(view.chart().curves.size(), std::size_t(3));
  QCOMPARE(view.chart().curves.at(2).label, QStringLiteral("beta / z"));
  QVERIFY2(view.summaryText().contains(QStringLiteral("rho 1")), qPrintable(view.summaryText()));
  view.setSelectedCampaigns({"beta", "nosuch"});
  QCOMPARE(view.selectedCampaigns(), QStringList{"beta"});
  QCOMPARE(view.chart().curves.size(), std::size_t(1));
  QVERIFY2(view.summaryText().contains(QStringLiteral("no measurements")),
           qPrintable(view.summaryText()));
  // Tokens: beta spent none (a note, no curve); alpha's arms are drawn by spend.
  view.setAxis(views::ProgressAxis::Tokens);
  QCOMPARE(view.chart().curves.size(), std::size_t(0));
  QVERIFY(view.chart().notes.join(' ').contains(QStringLiteral("recorded no tokens")));
  view.setSelectedCampaigns({"alpha"});
  QCOMPARE(view.chart().curves.at(0).points.last().x(), 20.0);
  // A new read keeps the choice when the campaign still exists.
  view.setStore(store());
  QCOMPARE(view.selectedCampaigns(), QStringList{"alpha"});
  // Reload asks the dock for a new read.
  QSignalSpy reload(&view, &widgets::ProgressView::reloadRequested);
  auto* button = view.findChild<QToolButton*>(QStringLiteral("progressReload"));
  QVERIFY(button);
  button->click();
  QCOMPARE(reload.count(), 1);
}

QTEST_MAIN(TestProgressView)
#include "tst_progressview.moc"
