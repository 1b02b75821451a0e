// The only file that talks to Graphviz: lays out the DOT text of a graph description with
// cgraph/gvc (`dot`, newrank, fixed node sizes at 72 dpi, constraint=false on back edges) and
// reads positions, splines and cluster boxes back. Graphviz is not thread-safe: one global lock.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/GraphLayout.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <QLineF>
#include <mutex>

namespace cake::views::detail {

namespace {

std::mutex& graphvizLock() {
  static std::mutex lock;
  return lock;
}

/// One context for the process: loading the plugins costs more than a small layout.
GVC_t* graphvizContext() {
  static GVC_t* context = gvContext();
  return context;
}

/// Graphviz reports errors through a global callback; collected under the lock.
QString& collectedErrors() {
  static QString text;
  return text;
}

int collectError(char* message) {
  collectedErrors() += QString::fromUtf8(message).trimmed() + QLatin1Char(' ');
  return 0;
}

/// "n12" / "e7" / "cluster_3" → 12 / 7 / 3, or -1.
int indexAfter(const char* name, const char* prefix) {
  if (!name)
    return -1;
  QByteArray n(name), p(prefix);
  if (!n.startsWith(p))
    return -1;
  bool ok = false;
  int i = n.mid(p.size()).toInt(&ok);
  return ok ? i : -1;
}

struct Reader {
  GraphLayout& out;
  double left, top;
  QPointF map(pointf p) const { return {p.x - left, top - p.y}; }

  void clusters(Agraph_t* g) {
    for (Agraph_t* sg = agfstsubg(g); sg; sg = agnxtsubg(sg)) {
      int c = indexAfter(agnameof(sg), "cluster_");
      if (c >= 0 && c < out.clusters.size()) {
        boxf bb = GD_bb(sg);
        QPointF a = map(bb.LL), b = map(bb.UR);
        out.clusters[c].box = QRectF(a, b).normalized();
      }
      clusters(sg);
    }
  }
};

} // namespace

bool graphvizLayout(const GraphDescription& graph, const LayoutOptions& options, GraphLayout& out,
                    QString& error) {
  std::lock_guard<std::mutex> guard(graphvizLock());
  collectedErrors().clear();
  agseterr(AGERR);
  agseterrf(collectError);
  QByteArray dot = toDot(graph, layoutDotOptions(graph));
  Agraph_t* g = agmemread(dot.constData());
  if (!g) {
    error = QStringLiteral("Graphviz could not read the graph: %1").arg(collectedErrors().trimmed());
    return false;
  }
  GVC_t* gvc = graphvizContext();
  // Pitfall: Graphviz takes char*; pass a local buffer, never a literal.
  QByteArray engine = options.engine.toUtf8();
  if (!gvc || gvLayout(gvc, g, engine.data()) != 0) {
    error = QStringLiteral("Graphviz layout '%1' failed: %2")
                .arg(options.engine, collectedErrors().trimmed().isEmpty() ? QStringLiteral("no layout")
                                                                           : collectedErrors().trimmed());
    agclose(g);
    return false;
  }
  out.nodes.resize(graph.nodes.size());
  out.edges.resize(graph.edges.size());
  out.clusters.resize(graph.clusters.size());
  for (NodeGeometry& n : out.nodes)
    n.center = QPointF(qQNaN(), qQNaN());
  boxf bb = GD_bb(g);
  Reader reader{out, bb.LL.x, bb.UR.y};
  out.bounds = QRectF(0, 0, bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y);
  char idAttr[] = "id";
  for (Agnode_t* n = agfstnode(g); n; n = agnxtnode(g, n)) {
    int i = indexAfter(agnameof(n), "n");
    if (i < 0 || i >= out.nodes.size())
      continue;
    out.nodes[i].center = reader.map(ND_coord(n));
    out.nodes[i].size = QSizeF(ND_width(n) * 72.0, ND_height(n) * 72.0);
    for (Agedge_t* e = agfstout(g, n); e; e = agnxtout(g, e)) {
      int k = indexAfter(agget(e, idAttr), "e");
      if (k < 0 || k >= out.edges.size())
        continue;
      EdgeGeometry& geo = out.edges[k];
      splines* spl = ED_spl(e);
      if (spl && spl->size > 0 && spl->list[0].size > 0) {
        const bezier& bz = spl->list[0];
        for (int p = 0; p < bz.size; ++p)
          geo.points << reader.map(bz.list[p]);
        geo.hasArrow = bz.eflag != 0;
        geo.arrowTip = bz.eflag ? reader.map(bz.ep) : geo.points.last();
      }
      // A label (edges within a role) or an external label (edges across roles, placed after
      // the layout: see toDot).
      textlabel_t* label = ED_label(e);
      if (!label || !label->set)
        label = ED_xlabel(e);
      if (label && label->set) {
        geo.hasLabel = true;
        geo.labelPos = reader.map(label->pos);
      }
    }
  }
  reader.clusters(g);
  gvFreeLayout(gvc, g);
  agclose(g);
  // Edges left out of the DOT text (back edges of large graphs) and labels dot did not place.
  routeMissingEdges(graph, out);
  return true;
}

} // namespace cake::views::detail
