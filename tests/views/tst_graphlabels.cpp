// Graph label placement without widgets (views::GraphLabels): elision at exact widths and
// surrogate pairs, finding badge text, node texts clear of the badge and cost share at the
// boundaries of the 1 % threshold, cluster titles clear of the toggle, edge labels kept,
// moved along the normal or sideways, hidden when boxed in, by priority then index, across grid
// cells and at negative coordinates, and a hidden label's text still named by the layout.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/GraphLabels.h"

#include <QtTest>

using namespace cake;

namespace {
/// Every UTF-16 unit is 6 wide (the ellipsis one unit too).
double mono6(const QString& s) {
  return 6.0 * double(s.size());
}
} // namespace

class TestGraphLabels : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void elision_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<double>("width");
    QTest::addColumn<QString>("expected");
    QTest::newRow("fits exactly") << "wgmma" << 30.0 << "wgmma";
    QTest::newRow("one unit short") << "wgmma" << 29.9 << QString::fromUtf8("wgm…");
    QTest::newRow("long operands")
        << "smem_a[s], smem_b[s]" << 60.0 << QString::fromUtf8("smem_a[s]…");
    QTest::newRow("only the ellipsis") << "wgmma" << 6.0 << QString::fromUtf8("…");
    QTest::newRow("not even the ellipsis") << "wgmma" << 5.9 << QString();
    QTest::newRow("zero width") << "wgmma" << 0.0 << QString();
    QTest::newRow("empty text") << "" << 0.0 << "";
    // "a", a surrogate pair, "b": a cut after the high surrogate keeps "a" only.
    QTest::newRow("surrogate pair kept whole") << QString::fromUtf8("a\xF0\x9F\x98\x80"
                                                                    "b")
                                               << 18.0 << QString::fromUtf8("a…");
    QTest::newRow("surrogate pair fits") << QString::fromUtf8("a\xF0\x9F\x98\x80"
                                                              "bc")
                                         << 24.0 << QString::fromUtf8("a\xF0\x9F\x98\x80…");
  }
  void elision() {
    QFETCH(QString, text);
    QFETCH(double, width);
    QFETCH(QString, expected);
    QString got = views::elideToWidth(text, width, mono6);
    QCOMPARE(got, expected);
    QVERIFY(mono6(got) <= width);
  }

  void badgeText_data() {
    QTest::addColumn<int>("findings");
    QTest::addColumn<QString>("expected");
    QTest::newRow("none") << 0 << QString();
    QTest::newRow("one") << 1 << "1";
    QTest::newRow("nine") << 9 << "9";
    QTest::newRow("ten") << 10 << "9+";
    QTest::newRow("many") << 250 << "9+";
  }
  void badgeText() {
    QFETCH(int, findings);
    QFETCH(QString, expected);
    QCOMPARE(views::findingBadgeText(findings), expected);
  }

  void nodeLabels_data() {
    QTest::addColumn<QSizeF>("size");
    QTest::addColumn<QString>("title");
    QTest::addColumn<int>("findings");
    QTest::addColumn<double>("share");
    QTest::addColumn<double>("titleWidth");
    QTest::addColumn<QString>("titleText");
    QTest::addColumn<QString>("costLabel");
    QTest::addColumn<double>("barWidth");
    const QString name = QStringLiteral("wgmma.mma_async");                         // 15 units: 90
    const QString longName = QStringLiteral("tcgen05.mma.cta_group_2.kind_f8f6f4"); // 34
    QTest::newRow("plain") << QSizeF(160, 40) << name << 0 << -1.0 << 144.0 << name << "" << 0.0;
    QTest::newRow("finding badge")
        << QSizeF(160, 40) << name << 3 << -1.0 << 132.0 << name << "" << 0.0;
    QTest::newRow("cost 25%") << QSizeF(160, 40) << name << 0 << 0.25 << 108.0 << name << "25%"
                              << 38.0;
    QTest::newRow("cost just below 1%")
        << QSizeF(160, 40) << name << 0 << 0.0099 << 144.0 << name << "" << 0.0;
    QTest::newRow("cost exactly 1%")
        << QSizeF(160, 40) << name << 0 << 0.01 << 108.0 << name << "1%" << 1.52;
    QTest::newRow("cost above the whole")
        << QSizeF(160, 40) << name << 0 << 1.7 << 108.0 << name << "170%" << 152.0;
    // 96 wide: 15 units and the ellipsis.
    QTest::newRow("badge, cost, long title")
        << QSizeF(160, 40) << longName << 2 << 0.5 << 96.0 << QString::fromUtf8("tcgen05.mma.cta…")
        << "50%" << 76.0;
    QTest::newRow("too narrow for a title")
        << QSizeF(56, 40) << name << 1 << 0.3 << 0.0 << QString() << "30%" << 14.4;
  }
  void nodeLabels() {
    QFETCH(QSizeF, size);
    QFETCH(QString, title);
    QFETCH(int, findings);
    QFETCH(double, share);
    QFETCH(double, titleWidth);
    QFETCH(QString, titleText);
    QFETCH(QString, costLabel);
    QFETCH(double, barWidth);
    views::NodeLabelInput in;
    in.size = size;
    in.title = title;
    in.detail = QStringLiteral("smem_a[s], smem_b[s], acc");
    in.findings = findings;
    in.costShare = share;
    in.diffMark = findings > 1;
    views::NodeLabels l = views::layoutNodeLabels(in, mono6, mono6);
    const QRectF box(QPointF(0, 0), size);
    QCOMPARE(l.title.width(), titleWidth);
    QCOMPARE(l.titleText, titleText);
    QVERIFY(mono6(l.titleText) <= l.title.width());
    QCOMPARE(l.costLabel, costLabel);
    QCOMPARE(l.costBar.width(), barWidth);
    // Every text inside the box; the title clear of the cost share and the badge.
    QVERIFY(l.title.width() == 0 || box.contains(l.title));
    QVERIFY(box.contains(l.detail));
    QVERIFY(mono6(l.detailText) <= l.detail.width());
    QVERIFY(!l.title.intersects(l.detail));
    if (share >= views::kMinCostShare) {
      QVERIFY(box.contains(l.costText) && box.contains(l.costBar));
      QVERIFY(l.title.right() <= l.costText.left());
      QCOMPARE(l.costBar.left(), 4.0);
      QVERIFY(l.costBar.bottom() <= box.bottom());
    } else {
      QVERIFY(l.costText.isEmpty() && l.costBar.isEmpty());
    }
    if (findings > 0) {
      QCOMPARE(l.badgeText, views::findingBadgeText(findings));
      QVERIFY(l.badge.contains(box.topRight())); // straddles the corner
      QVERIFY(l.title.right() <= l.badge.left() - 4);
      QVERIFY(!l.costText.intersects(l.badge));
    } else {
      QVERIFY(l.badge.isEmpty() && l.badgeText.isEmpty());
    }
    QCOMPARE(l.diffTag.isEmpty(), findings <= 1);
    if (!l.diffTag.isEmpty())
      QVERIFY(l.diffTag.contains(box.topLeft()));
    // The item's bounds hold everything it paints, rings included.
    for (const QRectF& r : {l.title, l.detail, l.badge, l.costText, l.costBar, l.diffTag,
                            box.adjusted(-4.3, -4.3, 4.3, 4.3)})
      QVERIFY(r.isEmpty() || l.bounds.contains(r));
  }

  void clusterLabels_data() {
    QTest::addColumn<QRectF>("box");
    QTest::addColumn<QString>("label");
    QTest::addColumn<QString>("expected");
    QTest::newRow("fits") << QRectF(0, 0, 200, 100) << "role producer (warps 0-3)"
                          << "role producer (warps 0-3)";
    // 200 - 9 - 25 = 166: 27 units and the ellipsis.
    QTest::newRow("elided before the toggle")
        << QRectF(0, 0, 200, 100) << "loop k in [0, K/64) step 1 pipelined"
        << QString::fromUtf8("loop k in [0, K/64) step 1…");
    QTest::newRow("narrow box") << QRectF(-50, -20, 30, 40) << "loop" << QString();
  }
  void clusterLabels() {
    QFETCH(QRectF, box);
    QFETCH(QString, label);
    QFETCH(QString, expected);
    views::ClusterLabels l = views::layoutClusterLabels(box, label, mono6);
    QCOMPARE(l.titleText, expected);
    QVERIFY(mono6(l.titleText) <= l.title.width());
    if (l.title.width() > 0)
      QVERIFY(l.title.right() <= l.toggle.left() - 5);
    QVERIFY(box.contains(l.toggle));
    QCOMPARE(l.title.left(), box.left() + 9);
  }

  void edgeLabelRect() {
    QRectF r = views::edgeLabelRect(QPointF(100, 50), QStringLiteral("full[s] ph"), mono6, 12);
    QCOMPARE(r, QRectF(66, 43, 68, 14));
    QCOMPARE(r.center(), QPointF(100, 50));
  }

  void priorities() {
    QVERIFY(views::edgeLabelPriority(views::EdgeKind::Sync) <
            views::edgeLabelPriority(views::EdgeKind::Data));
    QVERIFY(views::edgeLabelPriority(views::EdgeKind::Data) <
            views::edgeLabelPriority(views::EdgeKind::Order));
    QCOMPARE(views::edgeLabelPriority(views::EdgeKind::Rendezvous),
             views::edgeLabelPriority(views::EdgeKind::Order));
  }

  void placement_data() {
    QTest::addColumn<QVector<QRectF>>("nodes");
    QTest::addColumn<QVector<QRectF>>("labels");
    QTest::addColumn<QVector<int>>("priorities");
    QTest::addColumn<QVector<int>>("visible");
    QTest::addColumn<QVector<QPointF>>("offsets");
    const QRectF label(0, 0, 40, 14);
    QTest::newRow("free: stays") << QVector<QRectF>{} << QVector<QRectF>{label} << QVector<int>{1}
                                 << QVector<int>{1} << QVector<QPointF>{{0, 0}};
    QTest::newRow("touching a node: up along the normal")
        << QVector<QRectF>{{0, 20, 100, 40}} << QVector<QRectF>{{30, 14, 40, 14}} << QVector<int>{0}
        << QVector<int>{1} << QVector<QPointF>{{0, -13}};
    QTest::newRow("over a node's top half: down is nearer free")
        << QVector<QRectF>{{0, 0, 100, 12}} << QVector<QRectF>{{30, 4, 40, 14}} << QVector<int>{0}
        << QVector<int>{1} << QVector<QPointF>{{0, 13}};
    QTest::newRow("inside a large node: hidden")
        << QVector<QRectF>{{0, 0, 100, 60}} << QVector<QRectF>{{30, 23, 40, 14}} << QVector<int>{0}
        << QVector<int>{0} << QVector<QPointF>{{0, 0}};
    QTest::newRow("same place: the second moves twice up")
        << QVector<QRectF>{} << QVector<QRectF>{label, label} << QVector<int>{1, 1}
        << QVector<int>{1, 1} << QVector<QPointF>{{0, 0}, {0, -26}};
    QTest::newRow("sync before data, whatever the index")
        << QVector<QRectF>{} << QVector<QRectF>{label, label} << QVector<int>{1, 0}
        << QVector<int>{1, 1} << QVector<QPointF>{{0, -26}, {0, 0}};
    QTest::newRow("a node across a grid cell boundary: sideways")
        << QVector<QRectF>{{130, -5, 50, 30}} << QVector<QRectF>{{120, 0, 20, 14}}
        << QVector<int>{0} << QVector<int>{1} << QVector<QPointF>{{-30, 0}};
    QTest::newRow("negative coordinates")
        << QVector<QRectF>{{-140, -5, 50, 30}} << QVector<QRectF>{{-100, 0, 20, 14}}
        << QVector<int>{0} << QVector<int>{1} << QVector<QPointF>{{30, 0}};
    QTest::newRow("no label text")
        << QVector<QRectF>{} << QVector<QRectF>{QRectF()} << QVector<int>{0} << QVector<int>{0}
        << QVector<QPointF>{{0, 0}};
  }
  void placement() {
    QFETCH(QVector<QRectF>, nodes);
    QFETCH(QVector<QRectF>, labels);
    QFETCH(QVector<int>, priorities);
    QFETCH(QVector<int>, visible);
    QFETCH(QVector<QPointF>, offsets);
    QVector<views::EdgeLabelRequest> requests;
    for (int i = 0; i < labels.size(); ++i)
      requests.append({labels[i], priorities[i]});
    QVector<views::EdgeLabelPlacement> placed = views::placeEdgeLabels(nodes, requests);
    QCOMPARE(placed.size(), labels.size());
    for (int i = 0; i < labels.size(); ++i) {
      QCOMPARE(int(placed[i].visible), visible[i]);
      QCOMPARE(placed[i].rect, labels[i].translated(offsets[i]));
    }
    // Drawn labels never cover a node or each other.
    for (int i = 0; i < placed.size(); ++i) {
      if (!placed[i].visible)
        continue;
      for (const QRectF& n : nodes)
        QVERIFY(!placed[i].rect.intersects(n));
      for (int j = i + 1; j < placed.size(); ++j)
        QVERIFY(!placed[j].visible || !placed[i].rect.intersects(placed[j].rect));
    }
  }

  void denseColumnStaysApart() {
    // 2,000 labels on one column of nodes (the generated 2,000-op kernel's shape): every label
    // drawn is clear of every node and every other drawn label, and most are drawn.
    QVector<QRectF> nodes;
    QVector<views::EdgeLabelRequest> labels;
    for (int i = 0; i < 2000; ++i) {
      nodes << QRectF(0, i * 60, 160, 40);
      labels.append({views::edgeLabelRect(QPointF(80 + (i % 3) * 20, i * 60 + 50),
                                          QStringLiteral("bar[%1]").arg(i % 4), mono6, 12),
                     i % 3});
    }
    QVector<views::EdgeLabelPlacement> placed = views::placeEdgeLabels(nodes, labels);
    int shown = 0;
    for (int i = 0; i < placed.size(); ++i) {
      if (!placed[i].visible)
        continue;
      ++shown;
      int row = int(placed[i].rect.center().y() / 60);
      for (int n = std::max(0, row - 1); n <= std::min(1999, row + 1); ++n)
        QVERIFY(!placed[i].rect.intersects(nodes[n]));
      if (i + 1 < placed.size() && placed[i + 1].visible)
        QVERIFY(!placed[i].rect.intersects(placed[i + 1].rect));
    }
    QVERIFY2(shown >= 1900, qPrintable(QString::number(shown)));
  }
};

QTEST_GUILESS_MAIN(TestGraphLabels)
#include "tst_graphlabels.moc"
