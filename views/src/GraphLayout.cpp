// Layout entry point (Graphviz first, then the fallback), the fallback layered layout and the
// DOT text. No Graphviz here: GraphvizLayout.cpp is the only file that talks to it.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/GraphLayout.h"

#include <QElapsedTimer>
#include <QLineF>
#include <QTextStream>
#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

namespace cake::views {

bool GraphLayout::complete(const GraphDescription& graph) const {
  if (nodes.size() != graph.nodes.size() || edges.size() != graph.edges.size())
    return false;
  for (const NodeGeometry& n : nodes)
    if (!std::isfinite(n.center.x()) || !std::isfinite(n.center.y()) || n.size.isEmpty())
      return false;
  return true;
}

namespace {

QByteArray quote(const QString& s) {
  QString q = s;
  q.replace(QLatin1Char('\\'), QStringLiteral("\\\\"));
  q.replace(QLatin1Char('"'), QStringLiteral("\\\""));
  q.replace(QLatin1Char('\n'), QStringLiteral("\\n"));
  return '"' + q.toUtf8() + '"';
}

QByteArray inches(double points) { return QByteArray::number(points / 72.0, 'f', 4); }

/// Where the segment from the centre of `r` towards `to` leaves the rectangle.
QPointF clipToRect(const QRectF& r, QPointF to) {
  QPointF c = r.center();
  QPointF d = to - c;
  if (d.isNull())
    return c;
  double sx = d.x() != 0 ? (r.width() / 2) / std::abs(d.x()) : 1e9;
  double sy = d.y() != 0 ? (r.height() / 2) / std::abs(d.y()) : 1e9;
  double s = std::min(sx, sy);
  return c + d * std::min(1.0, s);
}

} // namespace

DotOptions layoutDotOptions(const GraphDescription& graph) {
  DotOptions o;
  o.backEdges = o.edgeLabels = graph.nodes.size() <= kGraphvizFullFeatureNodes;
  o.quick = !o.backEdges;
  return o;
}

QByteArray toDot(const GraphDescription& g, const DotOptions& options) {
  QByteArray out;
  out.reserve(256 + g.nodes.size() * 96 + g.edges.size() * 64);
  out += "digraph cake {\n";
  out += "  graph [newrank=true, rankdir=TB, nodesep=0.28, ranksep=0.3, compound=true,\n"
         "         fontname=\"DejaVu Sans\", fontsize=11, labeljust=l, margin=0];\n";
  if (options.quick)
    out += "  graph [nslimit=1, nslimit1=1];\n";
  if (g.leftToRight) // siblings stack vertically; room between ranks for fanned-out edges
    out += "  graph [rankdir=LR, ranksep=0.9, nodesep=0.12];\n";
  if (g.leftToRight && options.quick) // a large tree: fewer crossing-minimisation passes
    out += "  graph [mclimit=0.2];\n";
  out += "  node [shape=box, fixedsize=true, fontname=\"DejaVu Sans Mono\", fontsize=9];\n";
  out += "  edge [fontname=\"DejaVu Sans\", fontsize=9, arrowsize=0.7];\n";
  // Children of each cluster, in description order.
  QHash<QString, QVector<int>> childClusters, childNodes;
  QVector<int> topClusters, topNodes;
  for (int i = 0; i < g.clusters.size(); ++i) {
    if (g.clusters[i].parent.isEmpty())
      topClusters << i;
    else
      childClusters[g.clusters[i].parent] << i;
  }
  for (int i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].cluster.isEmpty() || g.clusterOf(g.nodes[i].cluster) < 0)
      topNodes << i;
    else
      childNodes[g.nodes[i].cluster] << i;
  }
  auto emitNode = [&](int i, int indent) {
    const GraphNode& n = g.nodes[i];
    out += QByteArray(indent, ' ') + "n" + QByteArray::number(i) + " [label=" +
           quote(n.detail.isEmpty() ? n.title : n.title + "\n" + n.detail) +
           ", width=" + inches(n.size.width()) + ", height=" + inches(n.size.height()) +
           ", tooltip=" + quote(n.id) + "];\n";
  };
  std::function<void(int, int)> emitCluster = [&](int c, int indent) {
    const GraphCluster& cl = g.clusters[c];
    QByteArray pad(indent, ' ');
    out += pad + "subgraph cluster_" + QByteArray::number(c) + " {\n";
    out += pad + "  label=" + quote(cl.label) + "; tooltip=" + quote(cl.id) + ";\n";
    out += pad + (cl.kind == ClusterKind::Role ? "  margin=14;\n" : "  margin=10;\n");
    for (int n : childNodes.value(cl.id))
      emitNode(n, indent + 2);
    for (int cc : childClusters.value(cl.id))
      emitCluster(cc, indent + 2);
    out += pad + "}\n";
  };
  for (int c : topClusters)
    emitCluster(c, 2);
  for (int n : topNodes)
    emitNode(n, 2);
  for (int i = 0; i < g.edges.size(); ++i) {
    const GraphEdge& e = g.edges[i];
    if (e.back && !options.backEdges)
      continue;
    // An edge between two roles (or between the prologue and a role) crosses the role
    // columns. Its label would be a virtual node in dot's crossing minimisation, which with the
    // nested loop clusters of a ping-pong kernel (two consumer roles reading the producer's
    // buffers) took dot 30-60 s; a data edge across roles would also pull the roles' ranks
    // together, though a role's own program order is what ranks it. So across roles: the label is
    // an external label (xlabel, placed after the layout; 0.6 s for that kernel) and a data edge
    // does not constrain the ranks (sync and order edges still do: a wait ranks below its arrive).
    bool crossRole = g.nodes[e.from].role != g.nodes[e.to].role;
    out += "  n" + QByteArray::number(e.from) + " -> n" + QByteArray::number(e.to) + " [id=e" +
           QByteArray::number(i);
    switch (e.kind) {
    case EdgeKind::Order:
      out += ", weight=8";
      break;
    case EdgeKind::Data:
      out += ", weight=2";
      break;
    case EdgeKind::Sync:
      out += ", style=dashed";
      break;
    case EdgeKind::Rendezvous:
      out += ", style=dotted, dir=none";
      break;
    }
    if (e.back || (crossRole && e.kind == EdgeKind::Data))
      out += ", constraint=false";
    if (!e.label.isEmpty() && options.edgeLabels)
      out += (crossRole ? ", xlabel=" : ", label=") + quote(e.label);
    out += "];\n";
  }
  out += "}\n";
  return out;
}

namespace detail {

void routeMissingEdges(const GraphDescription& graph, GraphLayout& layout) {
  constexpr double kArrow = 8;
  for (int k = 0; k < layout.edges.size() && k < graph.edges.size(); ++k) {
    EdgeGeometry& geo = layout.edges[k];
    const GraphEdge& e = graph.edges[k];
    if (geo.points.isEmpty()) {
      QRectF a = layout.nodes[e.from].rect(), b = layout.nodes[e.to].rect();
      QPointF start, end, c1, c2;
      if (std::abs(a.center().x() - b.center().x()) < (a.width() + b.width()) / 2) {
        // Same column: a loop out of the right sides.
        start = QPointF(a.right(), a.center().y());
        end = QPointF(b.right(), b.center().y());
        double out = std::max(a.right(), b.right()) + std::min(40 + 0.08 * std::abs(end.y() - start.y()), 160.0);
        c1 = QPointF(out, start.y());
        c2 = QPointF(out, end.y());
      } else {
        bool right = b.center().x() > a.center().x();
        start = QPointF(right ? a.right() : a.left(), a.center().y());
        end = QPointF(right ? b.left() : b.right(), b.center().y());
        double dx = (end.x() - start.x()) * 0.5;
        c1 = QPointF(start.x() + dx, start.y());
        c2 = QPointF(end.x() - dx, end.y());
      }
      bool arrow = e.kind != EdgeKind::Rendezvous;
      QLineF last(c2, end);
      QPointF base = arrow && last.length() > kArrow ? last.pointAt(1.0 - kArrow / last.length()) : end;
      geo.points = {start, c1, c2, base};
      geo.arrowTip = end;
      geo.hasArrow = arrow;
    }
    if (!geo.hasLabel && !e.label.isEmpty() && geo.points.size() >= 4) {
      // The middle of the middle Bézier piece.
      int pieces = int(geo.points.size() - 1) / 3;
      int p = 3 * (pieces / 2);
      const QVector<QPointF>& q = geo.points;
      geo.labelPos = (q[p] + 3 * q[p + 1] + 3 * q[p + 2] + q[p + 3]) / 8;
      geo.hasLabel = true;
    }
  }
}

} // namespace detail

GraphLayout fallbackLayout(const GraphDescription& g) {
  QElapsedTimer timer;
  timer.start();
  GraphLayout out;
  out.fallback = true;
  out.engine = QStringLiteral("fallback");
  out.nodes.resize(g.nodes.size());
  out.edges.resize(g.edges.size());
  out.clusters.resize(g.clusters.size());
  constexpr double kColumnGap = 60, kRowGap = 22, kClusterPad = 12, kLabelSpace = 20;

  // Columns: one per role (nodes without a role share a last column), in role order.
  int roles = 0;
  for (const GraphNode& n : g.nodes)
    roles = std::max(roles, n.role + 1);
  QVector<double> columnWidth(roles + 1, kNodeMinWidth);
  QVector<QVector<int>> columns(roles + 1);
  for (int i = 0; i < g.nodes.size(); ++i) {
    int c = g.nodes[i].role >= 0 ? g.nodes[i].role : roles;
    columns[c] << i;
    columnWidth[c] = std::max(columnWidth[c], g.nodes[i].size.width());
  }
  // Depth of each cluster, for the room its box needs around its nodes.
  auto chainOf = [&](const QString& cluster) {
    QStringList chain;
    for (QString p = cluster; !p.isEmpty();) {
      int i = g.clusterOf(p);
      if (i < 0)
        break;
      chain.prepend(p);
      p = g.clusters[i].parent;
    }
    return chain;
  };
  double x = 0;
  for (int c = 0; c < columns.size(); ++c) {
    // Program order is the layer; crossing cluster borders leaves room for the boxes.
    std::stable_sort(columns[c].begin(), columns[c].end(),
                     [&](int a, int b) {
                       return std::pair(g.nodes[a].line, g.nodes[a].op) < std::pair(g.nodes[b].line, g.nodes[b].op);
                     });
    double y = 0;
    QStringList previous;
    for (int i : columns[c]) {
      const GraphNode& n = g.nodes[i];
      QStringList chain = chainOf(n.cluster);
      int common = 0;
      while (common < chain.size() && common < previous.size() && chain[common] == previous[common])
        ++common;
      int crossings = int(previous.size() - common) + int(chain.size() - common);
      y += (crossings ? crossings * kClusterPad + int(chain.size() - common) * kLabelSpace : 0);
      double depthPad = chain.size() * kClusterPad;
      out.nodes[i].size = n.size;
      out.nodes[i].center = QPointF(x + depthPad + columnWidth[c] / 2, y + n.size.height() / 2);
      y += n.size.height() + kRowGap;
      previous = chain;
    }
    double maxDepth = 0;
    for (int i : columns[c])
      maxDepth = std::max<double>(maxDepth, chainOf(g.nodes[i].cluster).size());
    x += columnWidth[c] + 2 * maxDepth * kClusterPad + kColumnGap;
  }
  // Cluster boxes bottom-up: nodes, then nested boxes, plus padding and the label band.
  QVector<QRectF> boxes(g.clusters.size());
  QVector<int> depth(g.clusters.size(), 0);
  for (int i = 0; i < g.clusters.size(); ++i)
    depth[i] = int(chainOf(g.clusters[i].id).size());
  QVector<int> order(g.clusters.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return depth[a] > depth[b]; });
  for (int c : order) {
    QRectF box;
    for (int i = 0; i < g.nodes.size(); ++i)
      if (g.nodes[i].cluster == g.clusters[c].id)
        box = box.united(out.nodes[i].rect());
    for (int k = 0; k < g.clusters.size(); ++k)
      if (g.clusters[k].parent == g.clusters[c].id && !boxes[k].isNull())
        box = box.united(boxes[k]);
    if (box.isNull())
      continue;
    boxes[c] = box.adjusted(-kClusterPad, -kClusterPad - kLabelSpace, kClusterPad, kClusterPad);
  }
  for (int c = 0; c < g.clusters.size(); ++c)
    out.clusters[c].box = boxes[c];
  for (int i = 0; i < g.edges.size(); ++i) {
    const GraphEdge& e = g.edges[i];
    QRectF a = out.nodes[e.from].rect(), b = out.nodes[e.to].rect();
    QPointF p0 = clipToRect(a, b.center()), p1 = clipToRect(b, a.center());
    QLineF line(p0, p1);
    QPointF base = line.length() > 8 ? line.pointAt(1.0 - 8.0 / line.length()) : p1;
    EdgeGeometry& geo = out.edges[i];
    geo.points = {p0, p0 + (base - p0) / 3, p0 + (base - p0) * 2 / 3, base};
    geo.arrowTip = p1;
    geo.hasArrow = e.kind != EdgeKind::Rendezvous;
    geo.labelPos = (p0 + p1) / 2;
    geo.hasLabel = !e.label.isEmpty();
  }
  QRectF bounds;
  for (const NodeGeometry& n : out.nodes)
    bounds = bounds.united(n.rect());
  for (const ClusterGeometry& c : out.clusters)
    if (!c.box.isNull())
      bounds = bounds.united(c.box);
  out.bounds = bounds;
  out.elapsedMs = timer.elapsed();
  return out;
}

int neighbourInDirection(const GraphLayout& layout, int from, NavDirection direction) {
  if (from < 0 || from >= layout.nodes.size())
    return -1;
  QPointF c = layout.nodes[from].center;
  // The nearest node inside the cone; failing that, the nearest in the half-plane.
  int best = -1, wide = -1;
  double bestScore = 0, wideScore = 0;
  for (int i = 0; i < layout.nodes.size(); ++i) {
    if (i == from)
      continue;
    QPointF d = layout.nodes[i].center - c;
    double along = 0, across = 0;
    switch (direction) {
    case NavDirection::Up:
      along = -d.y(), across = d.x();
      break;
    case NavDirection::Down:
      along = d.y(), across = d.x();
      break;
    case NavDirection::Left:
      along = -d.x(), across = d.y();
      break;
    case NavDirection::Right:
      along = d.x(), across = d.y();
      break;
    }
    if (along <= 0.5)
      continue;
    double score = along + 2.0 * std::abs(across);
    if (std::abs(across) <= along && (best < 0 || score < bestScore)) {
      best = i;
      bestScore = score;
    }
    if (wide < 0 || score < wideScore) {
      wide = i;
      wideScore = score;
    }
  }
  return best >= 0 ? best : wide;
}

bool orderRolesByDeclaration(const GraphDescription& graph, GraphLayout& layout) {
  if (layout.clusters.size() != graph.clusters.size())
    return false;
  QVector<int> roles; // top-level role clusters in declaration (role index) order
  for (int c = 0; c < graph.clusters.size(); ++c)
    if (graph.clusters[c].kind == ClusterKind::Role && graph.clusters[c].parent.isEmpty() &&
        !layout.clusters[c].box.isEmpty())
      roles << c;
  std::sort(roles.begin(), roles.end(),
            [&](int a, int b) { return graph.clusters[a].role < graph.clusters[b].role; });
  int inOrder = 0, inverted = 0;
  for (int i = 0; i < roles.size(); ++i)
    for (int j = i + 1; j < roles.size(); ++j) {
      double a = layout.clusters[roles[i]].box.center().x();
      double b = layout.clusters[roles[j]].box.center().x();
      inOrder += a < b;
      inverted += a > b;
    }
  if (inverted <= inOrder)
    return false;
  const double axis = layout.bounds.left() + layout.bounds.right();
  auto flip = [axis](QPointF& p) { p.setX(axis - p.x()); };
  for (NodeGeometry& n : layout.nodes)
    flip(n.center);
  for (EdgeGeometry& e : layout.edges) {
    for (QPointF& p : e.points)
      flip(p);
    flip(e.arrowTip);
    flip(e.labelPos);
  }
  for (ClusterGeometry& c : layout.clusters)
    c.box = QRectF(axis - c.box.right(), c.box.top(), c.box.width(), c.box.height());
  return true;
}

GraphLayout layoutGraph(const GraphDescription& graph, const LayoutOptions& options) {
  QString error = QStringLiteral("Graphviz not used");
  if (options.useGraphviz) {
    QElapsedTimer timer;
    timer.start();
    GraphLayout out;
    if (detail::graphvizLayout(graph, options, out, error) && out.complete(graph)) {
      out.engine = options.engine;
      if (options.orderRoles)
        orderRolesByDeclaration(graph, out);
      out.elapsedMs = timer.elapsed();
      return out;
    }
    if (error.isEmpty())
      error = QStringLiteral("Graphviz returned an incomplete layout");
  }
  GraphLayout out = fallbackLayout(graph);
  out.error = error;
  return out;
}

} // namespace cake::views
