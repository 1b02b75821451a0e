// The IR graph's scene items (nodes, edges, clusters), painted from the shared palette and the
// label-placement model, the scene builder and the minimap picture.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "GraphItems.h"

#include "cake/widgets/GraphView.h"

#include <QFontMetricsF>
#include <QGraphicsScene>
#include <QGraphicsSceneMouseEvent>
#include <QGuiApplication>
#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>
#include <cmath>

namespace cake::widgets {

QFont graphTitleFont() {
  QFont f(QStringLiteral("DejaVu Sans"));
  f.setPixelSize(11);
  f.setBold(true);
  return f;
}
QFont graphDetailFont() {
  QFont f(QStringLiteral("DejaVu Sans Mono"));
  f.setPixelSize(10);
  return f;
}
QFont graphLabelFont() {
  QFont f(QStringLiteral("DejaVu Sans"));
  f.setPixelSize(10);
  return f;
}
QFont graphClusterFont(bool role) {
  QFont f(QStringLiteral("DejaVu Sans"));
  f.setPixelSize(role ? 12 : 11);
  f.setBold(role);
  f.setItalic(!role);
  return f;
}

QColor graphEdgeColor(const views::GraphEdge& e, const views::ViewPalette& pal) {
  switch (e.kind) {
  case views::EdgeKind::Order:
    return pal.edgeOrder;
  case views::EdgeKind::Data:
    return pal.edgeData;
  case views::EdgeKind::Rendezvous:
    return pal.edgeRendezvous;
  case views::EdgeKind::Sync:
    switch (e.mechanism) {
    case views::SyncMechanism::CompleteTx:
      return pal.syncTx;
    case views::SyncMechanism::Commit:
      return pal.syncCommit;
    default:
      return pal.syncOther;
    }
  }
  return pal.text;
}

QPen graphEdgePen(const views::GraphEdge& e, bool highlighted, const views::ViewPalette& pal) {
  QPen pen(graphEdgeColor(e, pal));
  pen.setCosmetic(false);
  pen.setCapStyle(Qt::RoundCap);
  switch (e.kind) {
  case views::EdgeKind::Order:
    pen.setWidthF(1.0);
    break;
  case views::EdgeKind::Data:
    pen.setWidthF(1.5);
    break;
  case views::EdgeKind::Sync:
    pen.setWidthF(1.6);
    pen.setStyle(Qt::DashLine);
    break;
  case views::EdgeKind::Rendezvous:
    pen.setWidthF(1.6);
    pen.setStyle(Qt::DotLine);
    break;
  }
  if (highlighted)
    pen.setWidthF(pen.widthF() + 1.4);
  return pen;
}

QColor graphDiffColor(views::DiffMark mark, const views::ViewPalette& pal) {
  switch (mark) {
  case views::DiffMark::Added:
    return pal.added;
  case views::DiffMark::Removed:
    return pal.removed;
  case views::DiffMark::Changed:
    return pal.changed;
  case views::DiffMark::None:
    break;
  }
  return {};
}

namespace {

/// The palette the items of a scene paint with (the view keeps the scene's palette its own).
const views::ViewPalette& paletteOf(const QGraphicsItem* item) {
  return views::ViewPalette::forPalette(item && item->scene() ? item->scene()->palette()
                                                              : QGuiApplication::palette());
}

double lod(const QStyleOptionGraphicsItem* option, QPainter* painter) {
  return option->levelOfDetailFromTransform(painter->worldTransform());
}

views::TextMeasure measureIn(const QFont& font) {
  return [fm = QFontMetricsF(font)](const QString& s) { return fm.horizontalAdvance(s); };
}

QFont boldLabelFont(int pixels) {
  QFont f = graphLabelFont();
  f.setBold(true);
  f.setPixelSize(pixels);
  return f;
}

} // namespace

// ---------------------------------------------------------------------------------------- node

NodeItem::NodeItem(GraphView* owner, int index, const views::GraphNode& node,
                   const views::NodeGeometry& geo)
    : m_owner(owner), m_index(index), m_node(node), m_size(geo.size) {
  setPos(geo.rect().topLeft());
  setZValue(3);
  setAcceptHoverEvents(true);
  setCursor(Qt::PointingHandCursor);
  QString tip =
      QStringLiteral("<b>%1</b> %2").arg(node.title.toHtmlEscaped(), node.detail.toHtmlEscaped());
  if (node.line > 0)
    tip += QStringLiteral("<br>line %1 · %2").arg(node.line).arg(node.id.toHtmlEscaped());
  if (node.collapsedOps > 0)
    tip += QStringLiteral("<br>collapsed: double-click or Enter to expand");
  if (node.findings > 0)
    tip += QStringLiteral("<br>%1 finding(s)").arg(node.findings);
  setToolTip(tip);
  // The largest the parts can be: badge, diff tag and rings (views::layoutNodeLabels).
  views::NodeLabelInput most;
  most.size = m_size;
  most.findings = 1;
  most.diffMark = true;
  m_bounds = views::layoutNodeLabels(
                 most, [](const QString&) { return 0.0; }, [](const QString&) { return 0.0; })
                 .bounds;
}

void NodeItem::setState(bool selected, bool match, bool currentMatch) {
  if (selected == m_selected && match == m_match && currentMatch == m_currentMatch)
    return;
  m_selected = selected;
  m_match = match;
  m_currentMatch = currentMatch;
  update();
}

void NodeItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) {
  QRectF r(QPointF(0, 0), m_size);
  double detail = lod(option, p);
  p->setRenderHint(QPainter::Antialiasing, detail > 0.3);
  const views::ViewPalette& pal = paletteOf(this);
  const auto mark = views::DiffMark(m_owner->diffMark(m_node.op));
  views::NodeLabelInput in;
  in.size = m_size;
  in.title = m_node.title;
  in.detail = m_node.detail;
  in.findings = m_node.findings;
  in.costShare = m_owner->costShare(m_node.op);
  in.diffMark = mark != views::DiffMark::None;
  static const QFont titleFont = graphTitleFont(), detailFont = graphDetailFont();
  static const views::TextMeasure titleMeasure = measureIn(titleFont),
                                  detailMeasure = measureIn(detailFont);
  const views::NodeLabels labels = views::layoutNodeLabels(in, titleMeasure, detailMeasure);

  QColor fill = m_match ? pal.match : pal.role(m_node.role);
  if (m_selected)
    fill = pal.selectionFill;
  QPen border(pal.border, 1.0);
  if (m_node.severity >= 0)
    border = QPen(pal.severity(m_node.severity), 2.2);
  if (m_node.collapsedOps > 0)
    border.setStyle(Qt::DashLine);
  p->setPen(border);
  p->setBrush(fill);
  p->drawRoundedRect(r, 5, 5);
  if (m_node.collapsedOps > 0) {
    p->setPen(Qt::NoPen);
    p->setBrush(QBrush(pal.hatch, Qt::BDiagPattern));
    p->drawRoundedRect(r, 5, 5);
  }
  if (in.diffMark) {
    // Compare view: an outline and a tag in the mark's colour.
    QColor c = graphDiffColor(mark, pal);
    p->setBrush(Qt::NoBrush);
    p->setPen(QPen(c, 3.0));
    p->drawRoundedRect(r.adjusted(-2, -2, 2, 2), 6, 6);
    p->setPen(Qt::NoPen);
    p->setBrush(c);
    p->drawEllipse(labels.diffTag);
    p->setPen(pal.onAccent);
    p->setFont(boldLabelFont(11));
    p->drawText(labels.diffTag, Qt::AlignCenter,
                mark == views::DiffMark::Added     ? QStringLiteral("+")
                : mark == views::DiffMark::Removed ? QStringLiteral("\u2212")
                                                   : QStringLiteral("~"));
  }
  if (m_selected || m_currentMatch) {
    p->setBrush(Qt::NoBrush);
    p->setPen(QPen(m_selected ? pal.selection : pal.currentMatch, 2.6));
    p->drawRoundedRect(r.adjusted(-3, -3, 3, 3), 7, 7);
  }
  if (detail < 0.42)
    return;
  p->setPen(pal.text);
  p->setFont(titleFont);
  p->drawText(labels.title, Qt::AlignLeft | Qt::AlignVCenter, labels.titleText);
  p->setFont(detailFont);
  p->setPen(pal.mutedText);
  p->drawText(labels.detail, Qt::AlignLeft | Qt::AlignVCenter, labels.detailText);
  if (!labels.badge.isEmpty()) {
    p->setPen(QPen(pal.canvas, 1.2));
    p->setBrush(pal.severity(m_node.severity));
    p->drawEllipse(labels.badge);
    p->setFont(boldLabelFont(labels.badgeText.size() > 1 ? 8 : 9));
    p->setPen(pal.onAccent);
    p->drawText(labels.badge, Qt::AlignCenter, labels.badgeText);
  }
  if (!labels.costBar.isEmpty()) {
    // Cost overlay: a bar along the bottom edge and the percentage at the top right (for
    // operations of at least 1% of the predicted time).
    p->setPen(Qt::NoPen);
    p->setBrush(pal.cost);
    p->drawRect(labels.costBar);
    p->setFont(boldLabelFont(10));
    p->setPen(pal.costText());
    p->drawText(labels.costText, Qt::AlignRight | Qt::AlignVCenter, labels.costLabel);
  }
}

void NodeItem::mousePressEvent(QGraphicsSceneMouseEvent* e) {
  if (e->button() == Qt::LeftButton) {
    m_owner->selectNode(m_index);
    e->accept();
    return;
  }
  QGraphicsItem::mousePressEvent(e);
}

void NodeItem::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* e) {
  if (!m_node.collapsedCluster.isEmpty())
    m_owner->toggleCluster(m_node.collapsedCluster);
  e->accept();
}

// ---------------------------------------------------------------------------------------- edge

EdgeItem::EdgeItem(const views::GraphEdge& edge, const views::EdgeGeometry& geo, QColor diffColor)
    : m_edge(edge), m_diffColor(diffColor) {
  setZValue(edge.kind == views::EdgeKind::Order ? 1 : 2);
  const QVector<QPointF>& q = geo.points;
  if (!q.isEmpty()) {
    m_path.moveTo(q[0]);
    for (int i = 1; i + 2 < q.size(); i += 3)
      m_path.cubicTo(q[i], q[i + 1], q[i + 2]);
    if (geo.hasArrow) {
      QLineF dir(q.last(), geo.arrowTip);
      if (dir.length() < 0.5 && q.size() >= 2)
        dir = QLineF(q[q.size() - 2], geo.arrowTip);
      double len = std::max(7.0, dir.length());
      QLineF unit = dir.unitVector();
      QPointF d(unit.dx(), unit.dy()), n(-d.y(), d.x());
      QPointF tip = geo.arrowTip, base = tip - d * len;
      m_arrow << tip << base + n * 3.8 << base - n * 3.8;
      m_path.lineTo(base);
    }
  }
  if (!edge.tooltip.isEmpty())
    setToolTip(edge.tooltip);
  if (geo.hasLabel && !edge.label.isEmpty()) {
    static const QFont font = graphLabelFont();
    static const views::TextMeasure measure = measureIn(font);
    m_preferredLabel =
        views::edgeLabelRect(geo.labelPos, edge.label, measure, QFontMetricsF(font).height());
  }
  m_labelRect = m_preferredLabel;
  m_bounds = m_path.boundingRect().united(m_arrow.boundingRect()).adjusted(-4, -4, 4, 4);
}

QRectF EdgeItem::boundingRect() const {
  return m_labelVisible ? m_bounds.united(m_labelRect) : m_bounds;
}

QPainterPath EdgeItem::shape() const {
  QPainterPathStroker s;
  s.setWidth(7);
  QPainterPath p = s.createStroke(m_path);
  if (m_labelVisible)
    p.addRect(m_labelRect);
  return p;
}

void EdgeItem::setHighlighted(bool h) {
  if (h != m_highlighted) {
    m_highlighted = h;
    update();
  }
}

void EdgeItem::setLabelPlacement(const views::EdgeLabelPlacement& placement) {
  prepareGeometryChange();
  m_labelRect = placement.rect;
  m_labelVisible = placement.visible && !m_preferredLabel.isEmpty();
}

void EdgeItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) {
  double detail = lod(option, p);
  p->setRenderHint(QPainter::Antialiasing, detail > 0.3);
  const views::ViewPalette& pal = paletteOf(this);
  QPen pen = graphEdgePen(m_edge, m_highlighted, pal);
  if (m_highlighted && m_edge.kind == views::EdgeKind::Order)
    pen.setColor(pal.mutedText);
  if (m_diffColor.isValid()) {
    // An edge of this side only (Compare view).
    pen.setColor(m_diffColor);
    pen.setWidthF(pen.widthF() + 1.6);
  }
  p->setPen(pen);
  p->setBrush(Qt::NoBrush);
  p->drawPath(m_path);
  if (!m_arrow.isEmpty()) {
    p->setPen(Qt::NoPen);
    p->setBrush(pen.color());
    p->drawPolygon(m_arrow);
  }
  if (m_labelVisible && detail > 0.3) {
    p->setPen(QPen(pal.labelOutline(pen.color()), 0.8));
    p->setBrush(pal.plate);
    p->drawRoundedRect(m_labelRect, 3, 3);
    p->setPen(pal.labelText(pen.color()));
    QFont f = graphLabelFont();
    f.setBold(m_highlighted);
    p->setFont(f);
    p->drawText(m_labelRect, Qt::AlignCenter, m_edge.label);
  }
}

// ------------------------------------------------------------------------------------- cluster

ClusterItem::ClusterItem(GraphView* owner, const views::GraphCluster& cluster, const QRectF& box,
                         int depth)
    : m_owner(owner), m_cluster(cluster), m_box(box), m_depth(depth) {
  setZValue(0.1 * depth);
  setToolTip(QStringLiteral("%1\nclick − to collapse").arg(cluster.label));
}

QRectF ClusterItem::toggleRect() const {
  static const views::TextMeasure none = [](const QString&) { return 0.0; };
  return views::layoutClusterLabels(m_box, QString(), none).toggle;
}

void ClusterItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) {
  double detail = lod(option, p);
  p->setRenderHint(QPainter::Antialiasing, detail > 0.3);
  bool role = m_cluster.kind == views::ClusterKind::Role;
  const views::ViewPalette& pal = paletteOf(this);
  if (role) {
    p->setPen(QPen(pal.roleClusterBorder(m_cluster.role), 1.4));
    p->setBrush(pal.roleClusterFill(m_cluster.role));
  } else {
    p->setPen(QPen(pal.nestedBorder, 1.1, Qt::DashLine));
    p->setBrush(pal.nested[m_depth % 2]);
  }
  p->drawRoundedRect(m_box, role ? 10 : 7, role ? 10 : 7);
  if (detail < 0.4)
    return;
  QFont f = graphClusterFont(role);
  p->setFont(f);
  p->setPen(role ? pal.roleText(m_cluster.role) : pal.nestedText);
  const views::ClusterLabels labels =
      views::layoutClusterLabels(m_box, m_cluster.label, measureIn(f));
  p->drawText(labels.title, Qt::AlignLeft | Qt::AlignVCenter, labels.titleText);
  QRectF t = labels.toggle;
  p->setPen(QPen(pal.border, 1));
  p->setBrush(pal.canvas);
  p->drawRoundedRect(t, 2, 2);
  p->drawLine(QPointF(t.left() + 3.5, t.center().y()), QPointF(t.right() - 3.5, t.center().y()));
}

void ClusterItem::mousePressEvent(QGraphicsSceneMouseEvent* e) {
  if (e->button() == Qt::LeftButton && toggleRect().adjusted(-3, -3, 3, 3).contains(e->pos())) {
    e->accept();
    QString id = m_cluster.id;
    GraphView* owner = m_owner;
    // Rebuilding the scene deletes this item: toggle after the event returns.
    QMetaObject::invokeMethod(
        owner, [owner, id] { owner->toggleCluster(id); }, Qt::QueuedConnection);
    return;
  }
  e->ignore();
}

// --------------------------------------------------------------------------------------- scene

GraphSceneItems buildGraphScene(QGraphicsScene& scene, GraphView* owner,
                                const views::GraphDescription& g, const views::GraphLayout& l,
                                const QSet<QString>& diffEdges, views::DiffMark edgeMark,
                                const views::ViewPalette& pal) {
  scene.clear();
  GraphSceneItems items;
  for (int c = 0; c < g.clusters.size() && c < l.clusters.size(); ++c) {
    if (l.clusters[c].box.isNull())
      continue;
    int depth = 0;
    for (QString p = g.clusters[c].parent; !p.isEmpty() && depth < 32; ++depth)
      p = g.clusters.value(g.clusterOf(p)).parent;
    auto* item = new ClusterItem(owner, g.clusters[c], l.clusters[c].box, depth);
    scene.addItem(item);
    items.clusters << item;
  }
  for (int e = 0; e < g.edges.size() && e < l.edges.size(); ++e) {
    QColor diff;
    if (!diffEdges.isEmpty() && diffEdges.contains(views::edgeDiffKey(g, g.edges[e])))
      diff = graphDiffColor(edgeMark, pal);
    auto* item = new EdgeItem(g.edges[e], l.edges[e], diff);
    scene.addItem(item);
    items.edges << item;
  }
  QVector<QRectF> nodeBoxes;
  nodeBoxes.reserve(l.nodes.size());
  for (int n = 0; n < g.nodes.size() && n < l.nodes.size(); ++n) {
    auto* item = new NodeItem(owner, n, g.nodes[n], l.nodes[n]);
    scene.addItem(item);
    items.nodes << item;
    nodeBoxes << l.nodes[n].rect();
  }
  // Edge labels: barrier labels first, then buffers; one that would cover a node or another
  // label moves a little, else it is left out (the edge's tool tip has it).
  QVector<views::EdgeLabelRequest> requests;
  requests.reserve(items.edges.size());
  for (const EdgeItem* item : std::as_const(items.edges))
    requests.append({item->preferredLabelRect(), views::edgeLabelPriority(item->edge().kind)});
  const QVector<views::EdgeLabelPlacement> placed = views::placeEdgeLabels(nodeBoxes, requests);
  for (int e = 0; e < items.edges.size(); ++e)
    items.edges[e]->setLabelPlacement(placed[e]);
  QRectF bounds = l.bounds.united(scene.itemsBoundingRect()); // unsorted, unlike items()
  scene.setSceneRect(bounds.adjusted(-30, -30, 30, 30));
  return items;
}

QImage renderGraphMinimap(const views::GraphDescription& g, const views::GraphLayout& l,
                          const QRectF& sr, const views::ViewPalette& pal) {
  double s = std::min(190.0 / sr.width(), 150.0 / sr.height());
  QSizeF size(sr.width() * s, sr.height() * s);
  if (size.width() < 36)
    size.setWidth(36); // very tall graphs: stretch sideways to stay usable
  if (size.height() < 24)
    size.setHeight(24);
  QImage image(size.toSize().expandedTo(QSize(8, 8)), QImage::Format_ARGB32_Premultiplied);
  image.fill(pal.canvas);
  QPainter p(&image);
  p.setRenderHint(QPainter::Antialiasing);
  p.scale(image.width() / sr.width(), image.height() / sr.height());
  p.translate(-sr.topLeft());
  p.setBrush(Qt::NoBrush);
  p.setPen(QPen(pal.border, 0));
  for (const views::ClusterGeometry& c : l.clusters)
    if (!c.box.isNull())
      p.drawRect(c.box);
  for (int e = 0; e < g.edges.size() && e < l.edges.size(); ++e) {
    const QVector<QPointF>& q = l.edges[e].points;
    if (q.size() < 2)
      continue;
    p.setPen(QPen(graphEdgeColor(g.edges[e], pal), 0));
    p.drawLine(q.first(), q.last());
  }
  p.setPen(QPen(pal.border, 0));
  for (int n = 0; n < g.nodes.size() && n < l.nodes.size(); ++n) {
    p.setBrush(pal.role(g.nodes[n].role));
    p.drawRect(l.nodes[n].rect());
  }
  p.end();
  return image;
}

} // namespace cake::widgets
