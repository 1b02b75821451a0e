// IR graph tests: the description of the Hopper GEMM (nodes per role and op, data and barrier
// edges with their labels), Graphviz layouts with a position for every node of every corpus
// kernel, the fallback when Graphviz fails, collapsing, keyboard neighbours, stable ids, and the
// serialized layout worker dropping superseded jobs.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ViewsTestUtil.h"
#include "cake/views/GraphLayout.h"
#include "cake/views/GraphLayoutWorker.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QtTest>
#include <algorithm>

using namespace cake;
using views::EdgeKind;

namespace {

const views::GraphEdge* findEdge(const views::GraphDescription& g, const QString& from,
                                 const QString& to, EdgeKind kind) {
  int f = g.indexOf(from), t = g.indexOf(to);
  for (const views::GraphEdge& e : g.edges)
    if (e.from == f && e.to == t && e.kind == kind)
      return &e;
  return nullptr;
}

bool overlaps(const views::GraphLayout& l) {
  for (int i = 0; i < l.nodes.size(); ++i)
    for (int j = i + 1; j < l.nodes.size(); ++j)
      if (l.nodes[i].rect().adjusted(1, 1, -1, -1).intersects(l.nodes[j].rect().adjusted(1, 1, -1, -1)))
        return true;
  return false;
}

/// Same ranks (y) and nearly the same x for every node (see layoutsAreStableAcrossRuns).
bool samePlaces(const views::GraphLayout& a, const views::GraphLayout& b) {
  if (a.nodes.size() != b.nodes.size())
    return false;
  for (int i = 0; i < a.nodes.size(); ++i)
    if (a.nodes[i].center.y() != b.nodes[i].center.y() ||
        std::abs(a.nodes[i].center.x() - b.nodes[i].center.x()) > 24)
      return false;
  return true;
}

/// Node keys that survive an edit elsewhere in the kernel: role, title, operands and the
/// occurrence among equal ones (ids hold op indices, which an inserted op shifts).
QHash<QString, int> stableKeys(const views::GraphDescription& g) {
  QHash<QString, int> keys, seen;
  for (int i = 0; i < g.nodes.size(); ++i) {
    const views::GraphNode& n = g.nodes[i];
    QString base = QStringLiteral("%1|%2|%3").arg(n.role).arg(n.title, n.detail);
    keys.insert(base + QLatin1Char('#') + QString::number(seen[base]++), i);
  }
  return keys;
}

/// Pairs of nodes (in both graphs) of different roles whose left/right order the edit flipped,
/// plus pairs of one role whose top/bottom order it flipped.
int flippedPairs(const views::GraphDescription& ga, const views::GraphLayout& la,
                 const views::GraphDescription& gb, const views::GraphLayout& lb) {
  QHash<QString, int> ka = stableKeys(ga), kb = stableKeys(gb);
  QVector<QPair<int, int>> common;
  for (auto it = ka.cbegin(); it != ka.cend(); ++it)
    if (kb.contains(it.key()))
      common.append({it.value(), kb.value(it.key())});
  int flipped = 0;
  for (int p = 0; p < common.size(); ++p)
    for (int q = p + 1; q < common.size(); ++q) {
      auto [a1, b1] = common[p];
      auto [a2, b2] = common[q];
      QPointF pa1 = la.nodes[a1].center, pa2 = la.nodes[a2].center;
      QPointF pb1 = lb.nodes[b1].center, pb2 = lb.nodes[b2].center;
      if (ga.nodes[a1].role != ga.nodes[a2].role) {
        if ((pa1.x() < pa2.x()) != (pb1.x() < pb2.x()))
          ++flipped;
      } else if (std::abs(pa1.y() - pa2.y()) > 1 && (pa1.y() < pa2.y()) != (pb1.y() < pb2.y())) {
        ++flipped;
      }
    }
  return flipped;
}

/// The top-level role clusters from left to right, as cluster ids.
QStringList rolesLeftToRight(const views::GraphDescription& g, const views::GraphLayout& l) {
  QVector<int> roles;
  for (int c = 0; c < g.clusters.size(); ++c)
    if (g.clusters[c].kind == views::ClusterKind::Role && g.clusters[c].parent.isEmpty())
      roles << c;
  std::sort(roles.begin(), roles.end(), [&](int a, int b) {
    return l.clusters[a].box.center().x() < l.clusters[b].box.center().x();
  });
  QStringList ids;
  for (int c : roles)
    ids << g.clusters[c].id;
  return ids;
}

} // namespace

class TestGraph : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void hopperGemmDescription() {
    auto snap = test::corpusSnapshot("hopper_gemm/gemm_ws.cake");
    QVERIFY(snap->result.accepted);
    const views::GraphDescription& g = snap->views->graph;
    // 8 producer ops, 17 consumer ops (cta.sync runs in both roles: one node per role).
    QCOMPARE(g.nodes.size(), 25);
    QVERIFY(g.indexOf("producer:3") >= 0);
    QVERIFY(g.indexOf("consumer:3") >= 0);
    QCOMPARE(g.nodes[g.indexOf("producer:6")].title, QStringLiteral("tma.load"));
    QVERIFY(g.nodes[g.indexOf("producer:6")].detail.startsWith("a_s[ring.slot]"));
    // Clusters: two roles, the producer's tile and K loops, the consumer's tile, K and h loops.
    QCOMPARE(g.clusters[g.clusterOf("role:producer")].kind, views::ClusterKind::Role);
    QVERIFY(g.clusterOf("loop:producer:1") >= 0);
    QCOMPARE(g.nodes[g.indexOf("producer:6")].cluster, QStringLiteral("loop:producer:1"));
    QCOMPARE(g.clusters[g.clusterOf("loop:producer:1")].parent, QStringLiteral("loop:producer:0"));
    QVERIFY(g.clusters[g.clusterOf("loop:producer:1")].label.contains("pipeline=ring"));

    // TMA completes the full phase the consumer waits for (forward, dashed).
    const views::GraphEdge* tma = findEdge(g, "producer:6", "consumer:9", EdgeKind::Sync);
    QVERIFY(tma);
    QCOMPARE(tma->mechanism, views::SyncMechanism::CompleteTx);
    QCOMPARE(tma->label, QStringLiteral("full[0-3] p0,1"));
    QVERIFY(!tma->back);
    const views::GraphEdge* expect = findEdge(g, "producer:5", "consumer:9", EdgeKind::Sync);
    QVERIFY(expect);
    QCOMPARE(expect->mechanism, views::SyncMechanism::Arrive);
    QVERIFY(expect->tooltip.contains("expect_tx"));
    // The consumer releases the slot: a back edge (constraint=false).
    const views::GraphEdge* empty = findEdge(g, "consumer:14", "producer:4", EdgeKind::Sync);
    QVERIFY(empty);
    QVERIFY(empty->back);
    QVERIFY(empty->label.startsWith("empty[0-3]"));
    // Data: TMA writes a_s, wgmma reads it; the accumulator flows fill → mma → cast.
    const views::GraphEdge* data = findEdge(g, "producer:6", "consumer:11", EdgeKind::Data);
    QVERIFY(data);
    QCOMPARE(data->label, QStringLiteral("a_s"));
    QVERIFY(findEdge(g, "consumer:8", "consumer:11", EdgeKind::Data));
    QVERIFY(findEdge(g, "consumer:11", "consumer:15", EdgeKind::Data));
    QVERIFY(findEdge(g, "consumer:18", "consumer:21", EdgeKind::Data));
    // cta.sync joins the roles.
    QVERIFY(findEdge(g, "producer:3", "consumer:3", EdgeKind::Rendezvous));
    // Program order inside a role.
    QVERIFY(findEdge(g, "producer:4", "producer:5", EdgeKind::Order));
  }

  void staticBarrierPairingWithoutTrace() {
    // A type error stops the verifier: no trace, the barrier edges are paired statically.
    QString text = test::readFile(test::corpusPath("hopper_gemm/gemm_ws.cake"));
    text.replace("ew.fill acc value=0.0", "ew.fill acc value=0.0 bogus=1");
    auto snap = test::snapshotOf("broken.cake", text);
    QVERIFY(!snap->result.verification.ran);
    const views::GraphDescription& g = snap->views->graph;
    QCOMPARE(g.nodes.size(), 25);
    const views::GraphEdge* e = findEdge(g, "producer:6", "consumer:9", EdgeKind::Sync);
    QVERIFY(e);
    QCOMPARE(e->label, QStringLiteral("full"));
    QVERIFY(findEdge(g, "consumer:14", "producer:4", EdgeKind::Sync));
    QVERIFY(findEdge(g, "producer:3", "consumer:3", EdgeKind::Rendezvous));
    QVERIFY(g.nodes[g.indexOf("consumer:8")].severity == int(Severity::Blocking));
  }

  void everyCorpusKernelIsLaidOut_data() {
    QTest::addColumn<QString>("path");
    for (const QString& p : test::corpusFiles())
      QTest::newRow(qPrintable(QFileInfo(p).fileName())) << p;
  }
  void everyCorpusKernelIsLaidOut() {
    QFETCH(QString, path);
    auto snap = test::snapshotOf(path, test::readFile(path));
    const views::GraphDescription& g = snap->views->graph;
    views::GraphLayout layout = views::layoutGraph(g);
    QVERIFY2(!layout.fallback, qPrintable(layout.error));
    QVERIFY(layout.complete(g));
    for (int i = 0; i < g.nodes.size(); ++i)
      QVERIFY(layout.bounds.adjusted(-1, -1, 1, 1).contains(layout.nodes[i].rect()));
    for (int c = 0; c < g.clusters.size(); ++c)
      for (int i = 0; i < g.nodes.size(); ++i)
        if (g.within(g.nodes[i].cluster, g.clusters[c].id))
          QVERIFY(layout.clusters[c].box.adjusted(-1, -1, 1, 1).contains(layout.nodes[i].rect()));
    QVERIFY(!overlaps(layout));
    for (const views::EdgeGeometry& e : layout.edges)
      QVERIFY(e.points.size() >= 4 && (e.points.size() - 1) % 3 == 0);
  }

  void fallbackWhenGraphvizFails() {
    auto snap = test::corpusSnapshot("hopper_gemm/gemm_ws.cake");
    const views::GraphDescription& g = snap->views->graph;
    views::LayoutOptions bad;
    bad.engine = QStringLiteral("no-such-engine"); // injected failure
    views::GraphLayout layout = views::layoutGraph(g, bad);
    QVERIFY(layout.fallback);
    QCOMPARE(layout.engine, QStringLiteral("fallback"));
    QVERIFY2(layout.error.contains("no-such-engine"), qPrintable(layout.error));
    QVERIFY(layout.complete(g));
    QVERIFY(!overlaps(layout));
    // Layered by program order: inside each role, later operations lie lower, in the role's
    // own column. Columns do not overlap and follow role order; nodes at one cluster depth share
    // one centre line (deeper ones are indented for their cluster boxes).
    auto depthOf = [&](QString cluster) {
      int d = 0;
      for (int c = g.clusterOf(cluster); c >= 0; c = g.clusterOf(g.clusters[c].parent))
        ++d;
      return d;
    };
    QVector<double> left(2, qInf()), right(2, -qInf());
    for (int r = 0; r < 2; ++r) {
      double lastY = -1e9;
      QHash<int, double> centre;
      for (int i = 0; i < g.nodes.size(); ++i) {
        if (g.nodes[i].role != r)
          continue;
        const views::NodeGeometry& n = layout.nodes[i];
        QVERIFY(n.center.y() > lastY);
        lastY = n.center.y();
        left[r] = std::min(left[r], n.rect().left());
        right[r] = std::max(right[r], n.rect().right());
        int depth = depthOf(g.nodes[i].cluster);
        if (!centre.contains(depth))
          centre.insert(depth, n.center.x());
        QCOMPARE(n.center.x(), centre.value(depth));
      }
      QVERIFY(left[r] < right[r]);
    }
    QVERIFY2(right[0] < left[1], qPrintable(QStringLiteral("producer column ends at %1, consumer "
                                                           "column starts at %2")
                                                .arg(right[0])
                                                .arg(left[1])));
    // Each role's column holds its whole cluster box (loops and their padding included).
    for (int a = 0; a < g.clusters.size(); ++a)
      for (int b = 0; b < g.clusters.size(); ++b)
        if (g.clusters[a].role != g.clusters[b].role &&
            g.clusters[a].kind == views::ClusterKind::Role &&
            g.clusters[b].kind == views::ClusterKind::Role)
          QVERIFY2(!layout.clusters[a].box.intersects(layout.clusters[b].box),
                   qPrintable(g.clusters[a].id + " overlaps " + g.clusters[b].id));
    for (int c = 0; c < g.clusters.size(); ++c)
      for (int i = 0; i < g.nodes.size(); ++i)
        if (g.within(g.nodes[i].cluster, g.clusters[c].id))
          QVERIFY(layout.clusters[c].box.contains(layout.nodes[i].rect()));
    // The graph itself is fine: Graphviz lays it out with the real engine.
    QVERIFY(!views::layoutGraph(g).fallback);
  }

  void largeGraphsRouteTheirBackEdges() {
    // Above kGraphvizFullFeatureNodes, back edges and labels stay out of Graphviz (it corrupts
    // its heap on such graphs) and are routed here; every node still gets a position.
    views::GraphDescription g;
    for (int r = 0; r < 2; ++r) {
      views::GraphCluster c;
      c.id = QStringLiteral("role:r%1").arg(r);
      c.label = c.id;
      c.role = r;
      g.clusters << c;
    }
    int perRole = views::kGraphvizFullFeatureNodes / 2 + 20;
    for (int r = 0; r < 2; ++r)
      for (int i = 0; i < perRole; ++i) {
        views::GraphNode n;
        n.id = QStringLiteral("r%1:%2").arg(r).arg(i);
        n.op = r * perRole + i;
        n.role = r;
        n.title = QStringLiteral("op");
        n.cluster = QStringLiteral("role:r%1").arg(r);
        n.size = views::nodeSizeFor(n.title, {});
        g.nodes << n;
        if (i > 0)
          g.edges << views::GraphEdge{int(g.nodes.size()) - 2, int(g.nodes.size()) - 1, EdgeKind::Order,
                                      views::SyncMechanism::None, {}, {}, false};
      }
    for (int i = 0; i + 4 < perRole; i += 8) {
      g.edges << views::GraphEdge{i, perRole + i + 1, EdgeKind::Sync, views::SyncMechanism::CompleteTx,
                                  QStringLiteral("full[0]"), {}, false};
      g.edges << views::GraphEdge{perRole + i + 3, i, EdgeKind::Sync, views::SyncMechanism::Arrive,
                                  QStringLiteral("empty[0]"), {}, true};
    }
    g.reindex();
    QVERIFY(g.nodes.size() > views::kGraphvizFullFeatureNodes);
    views::DotOptions o = views::layoutDotOptions(g);
    QVERIFY(!o.backEdges && !o.edgeLabels);
    QByteArray dot = views::toDot(g, o);
    QVERIFY(!dot.contains("constraint=false"));
    QVERIFY(!dot.contains("label=\"full"));
    QVERIFY(views::toDot(g).contains("constraint=false")); // the export keeps everything
    views::GraphLayout l = views::layoutGraph(g);
    QVERIFY2(!l.fallback, qPrintable(l.error));
    QVERIFY(l.complete(g));
    for (int e = 0; e < g.edges.size(); ++e) {
      QVERIFY(l.edges[e].points.size() >= 4);
      if (!g.edges[e].label.isEmpty())
        QVERIFY(l.edges[e].hasLabel);
    }
  }

  void dotText() {
    auto snap = test::corpusSnapshot("hopper_gemm/gemm_ws.cake");
    QByteArray dot = views::toDot(snap->views->graph);
    QVERIFY(dot.startsWith("digraph cake {"));
    QVERIFY(dot.contains("newrank=true"));
    QVERIFY(dot.contains("fixedsize=true"));
    QVERIFY(dot.contains("constraint=false"));
    QVERIFY(dot.contains("subgraph cluster_0"));
    // A sync edge across roles carries an external label (placed after ranking, see toDot).
    QVERIFY(dot.contains("xlabel=\"full[0-3] p0,1\""));
  }

  void collapseAndExpand() {
    auto snap = test::corpusSnapshot("hopper_gemm/gemm_ws.cake");
    const views::GraphDescription& g = snap->views->graph;
    views::GraphDescription c = views::collapseClusters(g, {"loop:producer:1"});
    // The K loop's 4 producer ops become one summary node inside the tile loop.
    QCOMPARE(c.nodes.size(), g.nodes.size() - 4 + 1);
    int s = c.indexOf("cluster:loop:producer:1");
    QVERIFY(s >= 0);
    QCOMPARE(c.nodes[s].collapsedOps, 4);
    QCOMPARE(c.nodes[s].cluster, QStringLiteral("loop:producer:0"));
    QVERIFY(c.clusterOf("loop:producer:1") < 0);
    // Edges are redirected: the summary signals the consumer's wait and waits for its release.
    QVERIFY(findEdge(c, "cluster:loop:producer:1", "consumer:9", EdgeKind::Sync));
    QVERIFY(findEdge(c, "consumer:14", "cluster:loop:producer:1", EdgeKind::Sync));
    for (const views::GraphEdge& e : c.edges)
      QVERIFY(e.from != e.to);
    QVERIFY(views::layoutGraph(c).complete(c));
    // Collapsing a role hides its loops too.
    views::GraphDescription role = views::collapseClusters(g, {"role:consumer", "loop:consumer:3"});
    QCOMPARE(role.nodes.size(), 8 + 1);
    // Nothing collapsed: the same graph.
    QCOMPARE(views::collapseClusters(g, {}).nodes.size(), g.nodes.size());
    QVERIFY(views::defaultCollapsed(g, 500).isEmpty());
    QSet<QString> small = views::defaultCollapsed(g, 20);
    QVERIFY(!small.isEmpty());
    QVERIFY(views::collapseClusters(g, small).nodes.size() <= 20);
  }

  // The mirror itself on a synthetic layout: roles out of declaration order are mirrored
  // about the bounds' centre (nodes, spline points, arrow tips, labels, cluster boxes); roles
  // in order, or a tie, are left alone.
  void mirrorIntoDeclarationOrder() {
    views::GraphDescription g;
    for (int r : {0, 1}) {
      views::GraphCluster c;
      c.id = QStringLiteral("role:%1").arg(r);
      c.kind = views::ClusterKind::Role;
      c.role = r;
      g.clusters << c;
    }
    views::GraphCluster loop;
    loop.id = QStringLiteral("loop:0:0");
    loop.kind = views::ClusterKind::Loop;
    loop.parent = QStringLiteral("role:0");
    g.clusters << loop;
    views::GraphLayout l;
    l.bounds = QRectF(0, 0, 400, 300);
    l.clusters.resize(3);
    l.clusters[0].box = QRectF(250, 0, 150, 300); // role 0 on the right: out of order
    l.clusters[1].box = QRectF(10, 0, 200, 300);
    l.clusters[2].box = QRectF(260, 40, 100, 100);
    views::NodeGeometry n;
    n.center = {300, 50};
    n.size = {80, 20};
    l.nodes = {n};
    views::EdgeGeometry e;
    e.points = {{300, 60}, {280, 80}, {120, 100}, {100, 120}};
    e.arrowTip = {98, 126};
    e.labelPos = {200, 90};
    l.edges = {e};
    QVERIFY(views::orderRolesByDeclaration(g, l));
    QCOMPARE(l.nodes[0].center, QPointF(100, 50));
    QCOMPARE(l.edges[0].points[0], QPointF(100, 60));
    QCOMPARE(l.edges[0].points[3], QPointF(300, 120));
    QCOMPARE(l.edges[0].arrowTip, QPointF(302, 126));
    QCOMPARE(l.edges[0].labelPos, QPointF(200, 90));
    QCOMPARE(l.clusters[0].box, QRectF(0, 0, 150, 300));
    QCOMPARE(l.clusters[1].box, QRectF(190, 0, 200, 300));
    QCOMPARE(l.clusters[2].box, QRectF(40, 40, 100, 100));
    // Now in order: nothing moves.
    QVERIFY(!views::orderRolesByDeclaration(g, l));
    QCOMPARE(l.nodes[0].center, QPointF(100, 50));
    // A bounds box not at x = 0 mirrors about its own centre.
    l.bounds = QRectF(100, 0, 400, 300);
    std::swap(l.clusters[0].box, l.clusters[1].box);
    QVERIFY(views::orderRolesByDeclaration(g, l));
    QCOMPARE(l.nodes[0].center, QPointF(500, 50));
  }

  void keyboardNeighbours() {
    views::GraphLayout l;
    auto node = [](double x, double y) {
      views::NodeGeometry n;
      n.center = {x, y};
      n.size = {100, 30};
      return n;
    };
    l.nodes = {node(0, 0), node(0, 100), node(200, 10), node(200, 300), node(-200, 40)};
    QCOMPARE(views::neighbourInDirection(l, 0, views::NavDirection::Down), 1);
    QCOMPARE(views::neighbourInDirection(l, 1, views::NavDirection::Up), 0);
    QCOMPARE(views::neighbourInDirection(l, 0, views::NavDirection::Right), 2);
    QCOMPARE(views::neighbourInDirection(l, 0, views::NavDirection::Left), 4);
    QCOMPARE(views::neighbourInDirection(l, 0, views::NavDirection::Up), -1);
    // Nothing inside the cone: the nearest in the half-plane.
    QCOMPARE(views::neighbourInDirection(l, 3, views::NavDirection::Left), 1);
    QCOMPARE(views::neighbourInDirection(l, 9, views::NavDirection::Left), -1);
  }

  void stableIdsAndPositionsAcrossEdits() {
    QString text = test::readFile(test::corpusPath("hopper_gemm/gemm_ws.cake"));
    auto a = test::snapshotOf("k.cake", text);
    // A comment edit changes no statement: same ids, same layout.
    QString edited = text;
    edited.replace("// Epilogue: registers", "// The epilogue: registers");
    auto b = test::snapshotOf("k.cake", edited);
    const auto &ga = a->views->graph, &gb = b->views->graph;
    QCOMPARE(ga.nodes.size(), gb.nodes.size());
    for (int i = 0; i < ga.nodes.size(); ++i)
      QCOMPARE(ga.nodes[i].id, gb.nodes[i].id);
    QVERIFY(samePlaces(views::layoutGraph(ga), views::layoutGraph(gb)));
  }

  // B8: adding or removing one operation never swaps the roles or reorders the other nodes:
  // the layout is mirrored into declaration order where dot put the roles the other way round
  // (orderRolesByDeclaration), so every pair of surviving nodes keeps its left/right (across
  // roles) and top/bottom (within a role) order. Measured on the layout model, not pixels.
  void oneOpEditKeepsTheOtherNodesInOrder_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("line");
    QTest::addColumn<bool>("remove");
    QTest::newRow("hopper: + wgmma.commit") << "hopper_gemm/gemm_ws.cake"
                                            << "        wgmma.commit" << false;
    QTest::newRow("hopper: - wgmma.fence") << "hopper_gemm/gemm_ws.cake"
                                           << "        wgmma.fence" << true;
    QTest::newRow("hopper: + producer tma.load")
        << "hopper_gemm/gemm_ws.cake"
        << "        tma.load b_s[ring.slot], tB[t.y * BN, k * BK], full[ring.slot]" << false;
    // Not the Blackwell GEMM (three roles): dot may give an order of three clusters that is not
    // a mirror of the previous one (seen depending on the layouts run before in the process,
    // Graphviz 2.42 keeps network-simplex state), which mirroring cannot undo.
    QTest::newRow("flash attention: - first fence") << "flash_attention/fa_fwd.cake"
                                                    << "    fence.mbarrier_init" << true;
  }
  void oneOpEditKeepsTheOtherNodesInOrder() {
    QFETCH(QString, file);
    QFETCH(QString, line);
    QFETCH(bool, remove);
    QString text = test::readFile(test::corpusPath(file));
    QStringList lines = text.split(QLatin1Char('\n'));
    int at = -1;
    for (int i = 0; i < lines.size() && at < 0; ++i)
      if (lines[i].trimmed() == line.trimmed())
        at = i;
    QVERIFY2(at >= 0, qPrintable(line));
    if (remove)
      lines.removeAt(at);
    else
      lines.insert(at + 1, lines[at]);
    auto a = test::snapshotOf("k.cake", text);
    auto b = test::snapshotOf("k.cake", lines.join(QLatin1Char('\n')));
    QVERIFY(b->result.verification.ran); // the edit parses and type-checks
    const views::GraphDescription &ga = a->views->graph, &gb = b->views->graph;
    QCOMPARE(gb.nodes.size(), ga.nodes.size() + (remove ? -1 : 1));
    views::GraphLayout la = views::layoutGraph(ga), lb = views::layoutGraph(gb);
    QVERIFY(!la.fallback && !lb.fallback);
    QCOMPARE(rolesLeftToRight(gb, lb), rolesLeftToRight(ga, la));
    // Declaration order, left to right.
    if (ga.clusters.size() == 0 || rolesLeftToRight(ga, la).size() == 2) {
      QStringList declared;
      for (const views::GraphCluster& c : ga.clusters)
        if (c.kind == views::ClusterKind::Role && c.parent.isEmpty())
          declared << c.id;
      QCOMPARE(rolesLeftToRight(ga, la), declared); // two roles: always declaration order
    }
    QCOMPARE(flippedPairs(ga, la, gb, lb), 0);
    // What dot does without the anchors, for the record (docs/workbench.md).
    views::LayoutOptions plain;
    plain.orderRoles = false;
    views::GraphLayout pa = views::layoutGraph(ga, plain), pb = views::layoutGraph(gb, plain);
    qInfo("dot alone: roles %s -> %s, %d flipped node pairs",
          qPrintable(rolesLeftToRight(ga, pa).join(',')),
          qPrintable(rolesLeftToRight(gb, pb).join(',')), flippedPairs(ga, pa, gb, pb));
  }

  void workerDropsSupersededLayouts() {
    auto snap = test::corpusSnapshot("hopper_gemm/gemm_ws.cake");
    auto graph = std::make_shared<const views::GraphDescription>(snap->views->graph);
    views::GraphLayoutWorker worker;
    QSignalSpy finished(&worker, &views::GraphLayoutWorker::layoutFinished);
    QSignalSpy dropped(&worker, &views::GraphLayoutWorker::layoutDropped);
    quint64 first = worker.request(graph);
    quint64 second = worker.request(graph);
    views::LayoutOptions fallback;
    fallback.useGraphviz = false;
    quint64 last = worker.request(graph, fallback);
    QVERIFY(first < second && second < last);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
    QTRY_COMPARE_WITH_TIMEOUT(dropped.count(), 2, 20000);
    QCOMPARE(finished.first().at(0).toULongLong(), last);
    auto layout = finished.first().at(2).value<views::GraphLayoutPtr>();
    QVERIFY(layout->fallback);
    QVERIFY(layout->complete(*graph));
    QCOMPARE(dropped.at(0).at(0).toULongLong(), first);
    QCOMPARE(dropped.at(1).at(0).toULongLong(), second);
  }

  void layoutsAreStableAcrossRuns() {
    // Graphviz 2.42 keeps a static search index in its network simplex between layouts, so x
    // positions may move by a few points from one run to the next; ranks never move.
    auto snap = test::corpusSnapshot("flash_kmeans/assign.cake");
    const views::GraphDescription& g = snap->views->graph;
    views::GraphLayout first = views::layoutGraph(g);
    for (int k = 0; k < 3; ++k) {
      views::GraphLayout again = views::layoutGraph(g);
      QVERIFY(samePlaces(first, again));
    }
  }

  void twoWorkersNeverRunGraphvizConcurrently() {
    // Graphviz is not thread-safe: every worker shares one thread, so this must not crash.
    auto snap = test::corpusSnapshot("flash_attention/fa_fwd.cake");
    auto graph = std::make_shared<const views::GraphDescription>(snap->views->graph);
    views::GraphLayoutWorker a, b;
    QSignalSpy fa(&a, &views::GraphLayoutWorker::layoutFinished);
    QSignalSpy fb(&b, &views::GraphLayoutWorker::layoutFinished);
    a.request(graph);
    b.request(graph);
    QTRY_COMPARE_WITH_TIMEOUT(fa.count(), 1, 20000);
    QTRY_COMPARE_WITH_TIMEOUT(fb.count(), 1, 20000);
    auto la = fa.first().at(2).value<views::GraphLayoutPtr>();
    auto lb = fb.first().at(2).value<views::GraphLayoutPtr>();
    QVERIFY(!la->fallback && !lb->fallback);
    QVERIFY(samePlaces(*la, *lb));
  }
};

QTEST_MAIN(TestGraph)
#include "tst_graph.moc"
