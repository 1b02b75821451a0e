// The Lineage canvas's scene data, built off the GUI thread (the scene build was the GUI
// thread's longest stall on a 2,000-candidate campaign).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/LineageScene.h"

#include <QLineF>
#include <QObject>
#include <QStringList>

namespace cake::views {

QString candidateTooltip(const LineageNode& node, const QString& title) {
  QString tip = QStringLiteral("%1 — %2\n%3").arg(title, outcomeName(node.outcome), node.author);
  if (!node.record.rationale.empty())
    tip += QLatin1Char('\n') + QString::fromStdString(node.record.rationale);
  if (!node.record.codes.empty()) {
    QStringList codes;
    for (const std::string& c : node.record.codes)
      codes << QString::fromStdString(c);
    tip += QStringLiteral("\nfindings: ") + codes.join(QStringLiteral(", "));
  }
  if (node.record.predictedUs)
    tip += QStringLiteral("\npredicted %1 µs").arg(*node.record.predictedUs, 0, 'f', 2);
  if (node.record.measuredUs)
    tip += QStringLiteral(", measured %1 µs").arg(*node.record.measuredUs, 0, 'f', 2);
  return tip;
}

QPolygonF lineageArrowHead(QPointF base, QPointF tip) {
  QLineF l(tip, base);
  if (l.length() < 0.5)
    return {};
  QLineF side = l.normalVector();
  side.setLength(3.5);
  QPointF n = side.p2() - side.p1();
  return QPolygonF({tip, base + n, base - n});
}

LineageScene buildLineageScene(const Lineage& lineage, const LineageGraph& g,
                               const GraphLayout& l) {
  LineageScene s;
  const int nodes = int(std::min(g.graph.nodes.size(), l.nodes.size()));
  s.nodes.reserve(nodes);
  for (int i = 0; i < nodes; ++i) {
    const LineageNode& c = lineage.nodes[g.nodeCandidate[i]];
    LineageSceneNode n;
    n.rect = l.nodes[i].rect();
    n.title = g.graph.nodes[i].title;
    n.detail = g.graph.nodes[i].detail;
    n.tooltip = candidateTooltip(c, n.title);
    n.outcome = c.outcome;
    n.best = g.nodeBest[i];
    n.dimmed = g.nodeDimmed[i];
    s.nodes.push_back(std::move(n));
  }
  const int edges = int(std::min(g.graph.edges.size(), l.edges.size()));
  s.edges.resize(edges);
  const QString click = QObject::tr("\nclick: compare parent and child");
  for (int k = 0; k < edges; ++k) {
    const EdgeGeometry& geo = l.edges[k];
    LineageSceneEdge& e = s.edges[k];
    e.kind = g.graph.edges[k].kind;
    e.best = g.edgeBest[k];
    e.tooltip = g.graph.edges[k].tooltip + click;
    if (geo.points.size() < 2)
      continue;
    QPainterPath path(geo.points[0]);
    for (int p = 1; p + 2 < geo.points.size(); p += 3)
      path.cubicTo(geo.points[p], geo.points[p + 1], geo.points[p + 2]);
    if (geo.points.size() % 3 != 1)
      path.lineTo(geo.points.last());
    e.path = std::move(path);
    if (geo.hasArrow)
      e.arrow = lineageArrowHead(geo.points.last(), geo.arrowTip);
  }
  s.sceneRect = l.bounds.adjusted(-20, -20, 20, 20);
  return s;
}

} // namespace cake::views
