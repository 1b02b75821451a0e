// IR graph view: scene items for nodes, edges and clusters, the canvas (pan/zoom, keys), the
// minimap and legend overlays, search, collapse/expand, selection linking and export.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/GraphView.h"

#include "cake/widgets/ElidedLabel.h"
#include "cake/views/ViewPalette.h"

#include <QApplication>
#include <QFile>
#include <QFileDialog>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QGraphicsSceneMouseEvent>
#include <QGraphicsView>
#include <QHash>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPainter>
#include <QPainterPath>
#include <QPainterPathStroker>
#include <QScrollBar>
#include <QShortcut>
#include <QStyleOptionGraphicsItem>
#include <QSvgGenerator>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <cmath>

namespace cake::widgets {

namespace {

QFont titleFont() {
  QFont f(QStringLiteral("DejaVu Sans"));
  f.setPixelSize(11);
  f.setBold(true);
  return f;
}
QFont detailFont() {
  QFont f(QStringLiteral("DejaVu Sans Mono"));
  f.setPixelSize(10);
  return f;
}
QFont labelFont() {
  QFont f(QStringLiteral("DejaVu Sans"));
  f.setPixelSize(10);
  return f;
}
QFont clusterFont(bool role) {
  QFont f(QStringLiteral("DejaVu Sans"));
  f.setPixelSize(role ? 12 : 11);
  f.setBold(role);
  f.setItalic(!role);
  return f;
}

/// The palette the items of a scene paint with (the view keeps the scene's palette its own).
const views::ViewPalette& paletteOf(const QGraphicsItem* item) {
  return views::ViewPalette::forPalette(item && item->scene() ? item->scene()->palette()
                                                              : QGuiApplication::palette());
}

QColor edgeColor(const views::GraphEdge& e, const views::ViewPalette& pal) {
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

QPen edgePen(const views::GraphEdge& e, bool highlighted, const views::ViewPalette& pal) {
  QPen pen(edgeColor(e, pal));
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

double lod(const QStyleOptionGraphicsItem* option, QPainter* painter) {
  return option->levelOfDetailFromTransform(painter->worldTransform());
}

} // namespace

static QColor diffColor(views::DiffMark mark, const views::ViewPalette& pal) {
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

QColor GraphView::roleColor(int role) {
  return views::ViewPalette::forPalette(QGuiApplication::palette()).role(role);
}

// ------------------------------------------------------------------------------------- items

class NodeItem : public QGraphicsItem {
public:
  NodeItem(GraphView* owner, int index, const views::GraphNode& node, const views::NodeGeometry& geo)
      : m_owner(owner), m_index(index), m_node(node), m_size(geo.size) {
    setPos(geo.rect().topLeft());
    setZValue(3);
    setAcceptHoverEvents(true);
    setCursor(Qt::PointingHandCursor);
    QString tip = QStringLiteral("<b>%1</b> %2").arg(node.title.toHtmlEscaped(), node.detail.toHtmlEscaped());
    if (node.line > 0)
      tip += QStringLiteral("<br>line %1 · %2").arg(node.line).arg(node.id.toHtmlEscaped());
    if (node.collapsedOps > 0)
      tip += QStringLiteral("<br>collapsed: double-click or Enter to expand");
    if (node.findings > 0)
      tip += QStringLiteral("<br>%1 finding(s)").arg(node.findings);
    setToolTip(tip);
  }
  QRectF boundingRect() const override { return QRectF(QPointF(0, 0), m_size).adjusted(-4, -10, 10, 4); }
  void setState(bool selected, bool match, bool currentMatch) {
    if (selected == m_selected && match == m_match && currentMatch == m_currentMatch)
      return;
    m_selected = selected;
    m_match = match;
    m_currentMatch = currentMatch;
    update();
  }
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) override {
    QRectF r(QPointF(0, 0), m_size);
    double detail = lod(option, p);
    p->setRenderHint(QPainter::Antialiasing, detail > 0.3);
    const views::ViewPalette& pal = paletteOf(this);
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
    if (auto mark = views::DiffMark(m_owner->diffMark(m_node.op)); mark != views::DiffMark::None) {
      // Compare view: an outline and a tag in the mark's colour.
      QColor c = diffColor(mark, pal);
      p->setBrush(Qt::NoBrush);
      p->setPen(QPen(c, 3.0));
      p->drawRoundedRect(r.adjusted(-2, -2, 2, 2), 6, 6);
      QRectF tag(r.left() - 6, r.top() - 8, 14, 14);
      p->setPen(Qt::NoPen);
      p->setBrush(c);
      p->drawEllipse(tag);
      p->setPen(pal.onAccent);
      QFont bf = labelFont();
      bf.setBold(true);
      bf.setPixelSize(11);
      p->setFont(bf);
      p->drawText(tag, Qt::AlignCenter,
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
    QFont tf = titleFont();
    p->setFont(tf);
    QFontMetrics tm(tf);
    QRectF textRect = r.adjusted(8, 4, -8, -4);
    p->drawText(QRectF(textRect.left(), textRect.top(), textRect.width(), 15), Qt::AlignLeft | Qt::AlignVCenter,
                tm.elidedText(m_node.title, Qt::ElideRight,
                              int(textRect.width() - (m_node.findings ? 12 : 0) -
                                  (m_owner->costShare(m_node.op) >= 0.01 ? 36 : 0))));
    QFont df = detailFont();
    p->setFont(df);
    p->setPen(pal.mutedText);
    QFontMetrics dm(df);
    p->drawText(QRectF(textRect.left(), textRect.top() + 16, textRect.width(), 14), Qt::AlignLeft | Qt::AlignVCenter,
                dm.elidedText(m_node.detail, Qt::ElideRight, int(textRect.width())));
    if (m_node.findings > 0) {
      QRectF badge(r.right() - 7, r.top() - 7, 15, 15);
      p->setPen(QPen(pal.canvas, 1.2));
      p->setBrush(pal.severity(m_node.severity));
      p->drawEllipse(badge);
      QFont bf = labelFont();
      bf.setBold(true);
      bf.setPixelSize(9);
      p->setFont(bf);
      p->setPen(pal.onAccent);
      p->drawText(badge, Qt::AlignCenter, QString::number(std::min(m_node.findings, 9)));
    }
    if (double share = m_owner->costShare(m_node.op); share >= 0.01) {
      // Cost overlay: a bar along the bottom edge and the percentage at the top right (for
      // operations of at least 1% of the predicted time).
      QColor c = pal.cost;
      p->setPen(Qt::NoPen);
      p->setBrush(c);
      p->drawRect(QRectF(r.left() + 4, r.bottom() - 3, (r.width() - 8) * std::min(1.0, share), 2));
      QFont sf = labelFont();
      sf.setBold(true);
      p->setFont(sf);
      p->setPen(pal.dark ? c : c.darker(130));
      p->drawText(QRectF(r.right() - 44, r.top() + 3, 36, 14), Qt::AlignRight | Qt::AlignVCenter,
                  QStringLiteral("%1%").arg(int(std::lround(share * 100))));
    }
  }
  int index() const { return m_index; }
  const views::GraphNode& node() const { return m_node; }

protected:
  void mousePressEvent(QGraphicsSceneMouseEvent* e) override {
    if (e->button() == Qt::LeftButton) {
      m_owner->selectNode(m_index);
      e->accept();
      return;
    }
    QGraphicsItem::mousePressEvent(e);
  }
  void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* e) override {
    if (!m_node.collapsedCluster.isEmpty())
      m_owner->toggleCluster(m_node.collapsedCluster);
    e->accept();
  }

private:
  GraphView* m_owner;
  int m_index;
  views::GraphNode m_node;
  QSizeF m_size;
  bool m_selected = false, m_match = false, m_currentMatch = false;
};

class EdgeItem : public QGraphicsItem {
public:
  EdgeItem(const views::GraphEdge& edge, const views::EdgeGeometry& geo, QColor diffColor = {})
      : m_edge(edge), m_geo(geo), m_diffColor(diffColor) {
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
      QFontMetricsF fm(labelFont());
      QSizeF s(fm.horizontalAdvance(edge.label) + 8, fm.height() + 2);
      m_labelRect = QRectF(geo.labelPos - QPointF(s.width() / 2, s.height() / 2), s);
    }
    m_bounds = m_path.boundingRect().united(m_arrow.boundingRect()).adjusted(-4, -4, 4, 4);
  }
  QRectF boundingRect() const override { return m_labelVisible ? m_bounds.united(m_labelRect) : m_bounds; }
  QPainterPath shape() const override {
    QPainterPathStroker s;
    s.setWidth(7);
    QPainterPath p = s.createStroke(m_path);
    if (m_labelVisible)
      p.addRect(m_labelRect);
    return p;
  }
  void setHighlighted(bool h) {
    if (h != m_highlighted) {
      m_highlighted = h;
      update();
    }
  }
  /// Label placement pass: the label is drawn only where it overlaps nothing already placed.
  QRectF labelRect() const { return m_labelRect; }
  void setLabelRect(const QRectF& r) {
    prepareGeometryChange();
    m_labelRect = r;
  }
  void setLabelVisible(bool v) {
    prepareGeometryChange();
    m_labelVisible = v && !m_labelRect.isNull();
  }
  bool hasLabel() const { return !m_labelRect.isNull(); }
  const views::GraphEdge& edge() const { return m_edge; }
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) override {
    double detail = lod(option, p);
    p->setRenderHint(QPainter::Antialiasing, detail > 0.3);
    const views::ViewPalette& pal = paletteOf(this);
    QPen pen = edgePen(m_edge, m_highlighted, pal);
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
      p->setPen(QPen(pal.dark ? pen.color().darker(150) : pen.color().lighter(150), 0.8));
      p->setBrush(pal.plate);
      p->drawRoundedRect(m_labelRect, 3, 3);
      p->setPen(pal.dark ? pen.color().lighter(125) : pen.color().darker(125));
      QFont f = labelFont();
      f.setBold(m_highlighted);
      p->setFont(f);
      p->drawText(m_labelRect, Qt::AlignCenter, m_edge.label);
    }
  }

  bool diffMarked() const { return m_diffColor.isValid(); }

private:
  views::GraphEdge m_edge;
  views::EdgeGeometry m_geo;
  QColor m_diffColor;
  QPainterPath m_path;
  QPolygonF m_arrow;
  QRectF m_bounds, m_labelRect;
  bool m_highlighted = false;
  bool m_labelVisible = false;
};

class ClusterItem : public QGraphicsItem {
public:
  ClusterItem(GraphView* owner, const views::GraphCluster& cluster, const QRectF& box, int depth)
      : m_owner(owner), m_cluster(cluster), m_box(box), m_depth(depth) {
    setZValue(0.1 * depth);
    setToolTip(QStringLiteral("%1\nclick − to collapse").arg(cluster.label));
  }
  QRectF boundingRect() const override { return m_box.adjusted(-2, -2, 2, 2); }
  QRectF toggleRect() const { return QRectF(m_box.right() - 20, m_box.top() + 5, 14, 14); }
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) override {
    double detail = lod(option, p);
    p->setRenderHint(QPainter::Antialiasing, detail > 0.3);
    bool role = m_cluster.kind == views::ClusterKind::Role;
    const views::ViewPalette& pal = paletteOf(this);
    QColor base = pal.role(m_cluster.role);
    if (role) {
      p->setPen(QPen(pal.dark ? base.lighter(160) : base.darker(135), 1.4));
      p->setBrush(pal.dark ? base.darker(125) : base.lighter(112));
    } else {
      QPen pen(pal.nestedBorder, 1.1, Qt::DashLine);
      p->setPen(pen);
      p->setBrush(pal.nested[m_depth % 2]);
    }
    p->drawRoundedRect(m_box, role ? 10 : 7, role ? 10 : 7);
    if (detail < 0.4)
      return;
    QFont f = clusterFont(role);
    p->setFont(f);
    p->setPen(role ? pal.roleText(m_cluster.role) : pal.nestedText);
    QFontMetrics fm(f);
    QRectF text(m_box.left() + 9, m_box.top() + 4, m_box.width() - 34, 16);
    p->drawText(text, Qt::AlignLeft | Qt::AlignVCenter,
                fm.elidedText(m_cluster.label, Qt::ElideRight, int(text.width())));
    QRectF t = toggleRect();
    p->setPen(QPen(pal.border, 1));
    p->setBrush(pal.canvas);
    p->drawRoundedRect(t, 2, 2);
    p->drawLine(QPointF(t.left() + 3.5, t.center().y()), QPointF(t.right() - 3.5, t.center().y()));
  }

protected:
  void mousePressEvent(QGraphicsSceneMouseEvent* e) override {
    if (e->button() == Qt::LeftButton && toggleRect().adjusted(-3, -3, 3, 3).contains(e->pos())) {
      e->accept();
      QString id = m_cluster.id;
      GraphView* owner = m_owner;
      // Rebuilding the scene deletes this item: toggle after the event returns.
      QMetaObject::invokeMethod(owner, [owner, id] { owner->toggleCluster(id); }, Qt::QueuedConnection);
      return;
    }
    e->ignore();
  }

private:
  GraphView* m_owner;
  views::GraphCluster m_cluster;
  QRectF m_box;
  int m_depth;
};

// ------------------------------------------------------------------------------------ canvas

class GraphCanvas : public QGraphicsView {
public:
  GraphCanvas(GraphView* owner, QGraphicsScene* scene) : QGraphicsView(scene, owner), m_owner(owner) {
    setObjectName(QStringLiteral("graphCanvas"));
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setResizeAnchor(QGraphicsView::AnchorViewCenter);
    setViewportUpdateMode(QGraphicsView::BoundingRectViewportUpdate);
    setBackgroundBrush(views::ViewPalette::forPalette(palette()).canvas);
    setFocusPolicy(Qt::StrongFocus);
    setFrameShape(QFrame::NoFrame);
  }
  void zoomBy(double factor) {
    double current = transform().m11();
    double target = std::clamp(current * factor, 0.02, 4.0);
    scale(target / current, target / current);
    m_owner->userMovedView();
  }

protected:
  void wheelEvent(QWheelEvent* e) override {
    double steps = e->angleDelta().y() / 120.0;
    if (steps == 0)
      return;
    zoomBy(std::pow(1.15, steps));
    e->accept();
  }
  void mousePressEvent(QMouseEvent* e) override {
    m_pressed = e->position();
    QGraphicsView::mousePressEvent(e);
  }
  void mouseReleaseEvent(QMouseEvent* e) override {
    if ((e->position() - m_pressed).manhattanLength() > 4)
      m_owner->userMovedView();
    QGraphicsView::mouseReleaseEvent(e);
  }
  void keyPressEvent(QKeyEvent* e) override {
    switch (e->key()) {
    case Qt::Key_Up:
      m_owner->navigate(views::NavDirection::Up);
      return;
    case Qt::Key_Down:
      m_owner->navigate(views::NavDirection::Down);
      return;
    case Qt::Key_Left:
      m_owner->navigate(views::NavDirection::Left);
      return;
    case Qt::Key_Right:
      m_owner->navigate(views::NavDirection::Right);
      return;
    case Qt::Key_F:
      m_owner->fitToView();
      return;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
      zoomBy(1.25);
      return;
    case Qt::Key_Minus:
      zoomBy(0.8);
      return;
    case Qt::Key_Return:
    case Qt::Key_Enter:
    case Qt::Key_C: {
      // Enter expands a collapsed node; C collapses the innermost loop around the current node.
      const views::GraphDescription* g = m_owner->graph();
      int n = m_owner->currentNode();
      if (g && n >= 0) {
        const views::GraphNode& node = g->nodes[n];
        if (!node.collapsedCluster.isEmpty())
          m_owner->toggleCluster(node.collapsedCluster);
        else if (e->key() == Qt::Key_C && !node.cluster.isEmpty() &&
                 g->clusters.value(g->clusterOf(node.cluster)).kind == views::ClusterKind::Loop)
          m_owner->toggleCluster(node.cluster);
      }
      return;
    }
    case Qt::Key_N:
    case Qt::Key_F3:
      m_owner->findNext(e->modifiers() & Qt::ShiftModifier);
      return;
    default:
      break;
    }
    QGraphicsView::keyPressEvent(e);
  }
  void resizeEvent(QResizeEvent* e) override {
    QGraphicsView::resizeEvent(e);
    m_owner->placeOverlays();
    // Pitfall 11: a fit computed before the widget had its size is wrong; refit on resize.
    if (m_owner->fitted())
      m_owner->fitToView();
  }
  void scrollContentsBy(int dx, int dy) override {
    QGraphicsView::scrollContentsBy(dx, dy);
    if (minimap)
      minimap->update();
  }

public:
  QWidget* minimap = nullptr;

private:
  GraphView* m_owner;
  QPointF m_pressed;
};

/// Overview of the whole graph with the visible part framed; click or drag to move there.
class GraphMinimap : public QWidget {
public:
  GraphMinimap(GraphCanvas* canvas, QWidget* parent) : QWidget(parent), m_canvas(canvas) {
    setObjectName(QStringLiteral("graphMinimap"));
    setCursor(Qt::PointingHandCursor);
    setToolTip(QStringLiteral("minimap: click or drag to move"));
  }
  void setImage(const QImage& image, const QRectF& sceneRect) {
    m_image = image;
    m_sceneRect = sceneRect;
    setFixedSize(image.isNull() ? QSize(0, 0) : image.size() + QSize(4, 4));
    setVisible(!image.isNull());
    update();
  }

protected:
  QRectF toMap(const QRectF& scene) const {
    double sx = (width() - 4) / m_sceneRect.width(), sy = (height() - 4) / m_sceneRect.height();
    return {2 + (scene.left() - m_sceneRect.left()) * sx, 2 + (scene.top() - m_sceneRect.top()) * sy,
            scene.width() * sx, scene.height() * sy};
  }
  QPointF toScene(QPointF p) const {
    double sx = (width() - 4) / m_sceneRect.width(), sy = (height() - 4) / m_sceneRect.height();
    return {m_sceneRect.left() + (p.x() - 2) / sx, m_sceneRect.top() + (p.y() - 2) / sy};
  }
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    const views::ViewPalette& pal = views::ViewPalette::forPalette(palette());
    p.fillRect(rect(), pal.plate);
    p.setPen(pal.headerEdge);
    p.drawRect(rect().adjusted(0, 0, -1, -1));
    p.drawImage(QPointF(2, 2), m_image);
    QRectF visible = m_canvas->mapToScene(m_canvas->viewport()->rect()).boundingRect();
    QRectF frame = toMap(visible).intersected(QRectF(rect()).adjusted(1, 1, -1, -1));
    QColor sel = pal.selection;
    p.setPen(QPen(sel, 1.5));
    sel.setAlpha(30);
    p.setBrush(sel);
    p.drawRect(frame);
  }
  void mousePressEvent(QMouseEvent* e) override { m_canvas->centerOn(toScene(e->position())); }
  void mouseMoveEvent(QMouseEvent* e) override {
    if (e->buttons() & Qt::LeftButton)
      m_canvas->centerOn(toScene(e->position()));
  }

private:
  GraphCanvas* m_canvas;
  QImage m_image;
  QRectF m_sceneRect;
};

/// What the line styles mean.
class GraphLegend : public QWidget {
public:
  explicit GraphLegend(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("graphLegend"));
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setFixedSize(176, 16 * 8 + 10);
  }

protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const views::ViewPalette& pal = views::ViewPalette::forPalette(palette());
    p.setPen(pal.headerEdge);
    p.setBrush(pal.plate);
    p.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 5, 5);
    QFont f = labelFont();
    p.setFont(f);
    struct Row {
      views::EdgeKind kind;
      views::SyncMechanism mech;
      const char* text;
    };
    const Row rows[] = {{views::EdgeKind::Order, views::SyncMechanism::None, "program order"},
                        {views::EdgeKind::Data, views::SyncMechanism::None, "data (buffer)"},
                        {views::EdgeKind::Sync, views::SyncMechanism::CompleteTx, "TMA complete_tx"},
                        {views::EdgeKind::Sync, views::SyncMechanism::Arrive, "arrive / expect_tx"},
                        {views::EdgeKind::Sync, views::SyncMechanism::Commit, "tcgen05.commit"},
                        {views::EdgeKind::Rendezvous, views::SyncMechanism::None, "CTA / named barrier"}};
    double y = 12;
    for (const Row& r : rows) {
      views::GraphEdge e;
      e.kind = r.kind;
      e.mechanism = r.mech;
      p.setPen(edgePen(e, false, pal));
      p.drawLine(QPointF(10, y), QPointF(42, y));
      p.setPen(pal.text);
      p.drawText(QRectF(50, y - 8, 124, 16), Qt::AlignLeft | Qt::AlignVCenter, QString::fromLatin1(r.text));
      y += 16;
    }
    for (int s = 0; s < 3; ++s) {
      p.setPen(QPen(pal.severity(s), 2));
      p.setBrush(pal.canvas);
      p.drawRoundedRect(QRectF(10 + s * 12, y - 5, 9, 10), 2, 2);
    }
    p.setPen(pal.text);
    p.drawText(QRectF(50, y - 8, 124, 16), Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("finding on op"));
    y += 16;
    p.setPen(QPen(pal.border, 1, Qt::DashLine));
    p.setBrush(QBrush(pal.hatch, Qt::BDiagPattern));
    p.drawRoundedRect(QRectF(10, y - 5, 32, 10), 2, 2);
    p.setPen(pal.text);
    p.drawText(QRectF(50, y - 8, 124, 16), Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("collapsed cluster"));
  }
};

// -------------------------------------------------------------------------------------- view

GraphView::GraphView(views::SelectionModel* selection, QWidget* parent)
    : QWidget(parent), m_selection(selection), m_scene(new QGraphicsScene(this)) {
  setObjectName(QStringLiteral("graphView"));
  m_canvas = new GraphCanvas(this, m_scene);
  m_minimap = new GraphMinimap(m_canvas, m_canvas);
  m_canvas->minimap = m_minimap;
  m_legend = new GraphLegend(m_canvas);
  m_minimap->hide();
  m_scene->setPalette(palette());

  // A tool bar, not a row layout: in a narrow dock the buttons that do not fit go behind its
  // "»" extension instead of widening the view (B5/B6).
  auto* bar = new QToolBar(this);
  bar->setObjectName(QStringLiteral("graphToolBar"));
  bar->setIconSize(QSize(16, 16));
  bar->setContentsMargins(4, 0, 4, 0);
  auto button = [&](const QString& text, const QString& tip, auto&& fn) {
    auto* b = new QToolButton(bar);
    b->setText(text);
    b->setToolTip(tip);
    b->setAutoRaise(true);
    connect(b, &QToolButton::clicked, this, fn);
    bar->addWidget(b);
    return b;
  };
  button(tr("Fit"), tr("Fit the graph to the view (F)"), [this] { fitToView(); });
  button(tr("+"), tr("Zoom in (+, wheel)"), [this] { m_canvas->zoomBy(1.25); });
  button(tr("−"), tr("Zoom out (−, wheel)"), [this] { m_canvas->zoomBy(0.8); });
  button(tr("Collapse loops"), tr("Collapse every loop cluster"), [this] {
    if (!m_full)
      return;
    QSet<QString> loops;
    for (const views::GraphCluster& c : m_full->clusters)
      if (c.kind == views::ClusterKind::Loop)
        loops.insert(c.id);
    setCollapsed(loops);
  });
  button(tr("Expand all"), tr("Expand every collapsed cluster"), [this] { setCollapsed({}); });
  auto* exportButton = new QToolButton(bar);
  exportButton->setText(tr("Export"));
  exportButton->setAutoRaise(true);
  exportButton->setPopupMode(QToolButton::InstantPopup);
  auto* menu = new QMenu(exportButton);
  auto exportTo = [this](const QString& filter, const QString& suffix, auto fn) {
    QString path = QFileDialog::getSaveFileName(this, tr("Export graph"), QStringLiteral("graph.") + suffix, filter);
    QString error;
    if (!path.isEmpty() && !(this->*fn)(path, &error))
      m_status->setText(error);
  };
  menu->addAction(tr("SVG…"), this, [=] { exportTo(tr("SVG (*.svg)"), QStringLiteral("svg"), &GraphView::exportSvg); });
  menu->addAction(tr("PNG…"), this, [=] { exportTo(tr("PNG (*.png)"), QStringLiteral("png"), &GraphView::exportPng); });
  menu->addAction(tr("DOT…"), this, [=] { exportTo(tr("Graphviz DOT (*.dot)"), QStringLiteral("dot"), &GraphView::exportDot); });
  exportButton->setMenu(menu);
  bar->addWidget(exportButton);
  button(tr("Legend"), tr("Show or hide the legend"), [this] {
    m_showLegend = !m_showLegend;
    placeOverlays();
  });
  m_costButton = button(tr("Cost"), tr("Show each operation's share of the predicted time (cost model)"),
                        [this](bool on) { setCostOverlay(on); });
  m_costButton->setObjectName(QStringLiteral("graphCostOverlay"));
  m_costButton->setCheckable(true);
  m_costButton->setChecked(m_costOverlay);
  m_costButton->setEnabled(false);
  bar->addSeparator();
  m_searchField = new QLineEdit(bar);
  m_searchField->setObjectName(QStringLiteral("graphSearch"));
  m_searchField->setPlaceholderText(tr("Find op (Ctrl+F)"));
  m_searchField->setClearButtonEnabled(true);
  m_searchField->setMaximumWidth(220);
  m_searchField->setMinimumWidth(90);
  bar->addWidget(m_searchField);
  m_searchCount = new QLabel(bar);
  bar->addWidget(m_searchCount);
  m_status = new ElidedLabel(bar);
  m_status->setObjectName(QStringLiteral("graphStatus"));
  m_status->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
  m_status->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
  bar->addWidget(m_status);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(bar);
  layout->addWidget(m_canvas, 1);

  connect(m_searchField, &QLineEdit::textChanged, this, [this](const QString& t) { setSearchText(t); });
  connect(m_searchField, &QLineEdit::returnPressed, this, [this] {
    findNext(QApplication::keyboardModifiers() & Qt::ShiftModifier);
  });
  // Ctrl+F inside the graph searches the graph. A QShortcut here would clash with the main
  // window's Edit > Find ("Ambiguous shortcut overload", nothing happens): the key is claimed
  // through ShortcutOverride on the focusable children instead, which wins over any window
  // shortcut while the focus is in the graph and leaves it alone elsewhere.
  m_canvas->installEventFilter(this);
  m_searchField->installEventFilter(this);
  auto* escape = new QShortcut(QKeySequence(Qt::Key_Escape), m_searchField);
  escape->setContext(Qt::WidgetShortcut);
  connect(escape, &QShortcut::activated, this, [this] {
    m_searchField->clear();
    m_canvas->setFocus();
  });

  connect(&m_worker, &views::GraphLayoutWorker::layoutFinished, this, &GraphView::onLayoutFinished);
  if (m_selection)
    connect(m_selection, &views::SelectionModel::selectionChanged, this, &GraphView::onSelectionChanged);
  updateStatus();
}

GraphView::~GraphView() {
  // The scene goes first while the canvas and its overlays are still whole.
  m_canvas->minimap = nullptr;
  m_canvas->setScene(nullptr);
}

QGraphicsView* GraphView::canvas() const { return m_canvas; }

void GraphView::setLayoutOptions(const views::LayoutOptions& options) {
  m_options = options;
  if (m_full)
    requestLayout();
}

bool GraphView::layoutPending() const {
  return m_snapshot && m_requestedSnapshot != m_shownSnapshot;
}

void GraphView::setSnapshot(const views::CheckSnapshotPtr& snapshot) {
  bool sameFile = m_snapshot && snapshot && m_snapshot->path == snapshot->path;
  m_snapshot = snapshot;
  if (!snapshot || !snapshot->views) {
    m_full.reset();
    return;
  }
  // Aliasing pointer: the graph lives inside the snapshot's view data.
  m_full = std::shared_ptr<const views::GraphDescription>(snapshot->views, &snapshot->views->graph);
  QSet<QString> keep;
  for (const QString& c : std::as_const(m_collapsed))
    if (m_full->clusterOf(c) >= 0)
      keep.insert(c);
  m_collapsed = keep;
  m_autoCollapse = !sameFile;
  requestLayout();
}

void GraphView::requestLayout() {
  if (!m_full)
    return;
  m_requestedSnapshot = m_snapshot ? m_snapshot->jobId : 0;
  m_worker.request(m_full, m_options, m_collapsed, m_autoCollapse ? m_collapseThreshold : 0);
  m_autoCollapse = false;
  updateStatus();
}

void GraphView::setCollapsed(const QSet<QString>& clusters) {
  m_collapsed = clusters;
  m_autoCollapse = false;
  requestLayout();
}

void GraphView::toggleCluster(const QString& cluster) {
  if (m_collapsed.contains(cluster)) {
    m_collapsed.remove(cluster);
    // Also unfold what was folded around it so that the cluster becomes visible.
    if (m_full)
      for (auto it = m_collapsed.begin(); it != m_collapsed.end();)
        it = m_full->within(cluster, *it) ? m_collapsed.erase(it) : std::next(it);
  } else {
    m_collapsed.insert(cluster);
  }
  // Keep the node of the toggled cluster in place.
  m_currentId = QStringLiteral("cluster:%1").arg(cluster);
  requestLayout();
}

void GraphView::onLayoutFinished(quint64, views::GraphPtr graph, views::GraphLayoutPtr layout) {
  // Remember where the anchor node sits on screen so the new layout does not jump.
  QPointF anchorView;
  bool anchored = false;
  QString anchorId = m_currentId;
  if (m_graph && m_layout && !m_fitted) {
    int old = anchorId.isEmpty() ? -1 : m_graph->indexOf(anchorId);
    if (old < 0) {
      // No current node: the node nearest to the viewport centre.
      QPointF c = m_canvas->mapToScene(m_canvas->viewport()->rect().center());
      double best = 1e300;
      for (int i = 0; i < m_layout->nodes.size(); ++i) {
        double d = QLineF(m_layout->nodes[i].center, c).length();
        if (d < best) {
          best = d;
          old = i;
        }
      }
      if (old >= 0)
        anchorId = m_graph->nodes[old].id;
    }
    if (old >= 0 && old < m_layout->nodes.size()) {
      anchorView = m_canvas->mapFromScene(m_layout->nodes[old].center);
      anchored = true;
    }
  }
  bool first = !m_graph;
  m_graph = std::move(graph);
  m_layout = std::move(layout);
  m_collapsed = m_graph->collapsed;
  m_shownSnapshot = m_requestedSnapshot;
  buildScene();
  int anchorNow = anchorId.isEmpty() ? -1 : m_graph->indexOf(anchorId);
  if (anchorId.startsWith(QLatin1String("cluster:")) && anchorNow < 0) {
    // An expanded cluster: anchor on its first node.
    QString cluster = anchorId.mid(8);
    for (int i = 0; i < m_graph->nodes.size() && anchorNow < 0; ++i)
      if (m_graph->within(m_graph->nodes[i].cluster, cluster))
        anchorNow = i;
  }
  if (first || m_fitted || !anchored || anchorNow < 0) {
    fitToView();
  } else {
    QPointF delta = anchorView - QPointF(m_canvas->viewport()->rect().center());
    double s = m_canvas->transform().m11();
    m_canvas->centerOn(m_layout->nodes[anchorNow].center - delta / s);
  }
  if (m_selection)
    onSelectionChanged(m_selection->current(), views::SelectionOrigin::Program);
  updateStatus();
  Q_EMIT layoutShown(m_shownSnapshot);
}

void GraphView::buildScene() {
  m_scene->clear();
  m_nodeItems.clear();
  m_edgeItems.clear();
  m_clusterItems.clear();
  if (!m_graph || !m_layout)
    return;
  const views::GraphDescription& g = *m_graph;
  const views::GraphLayout& l = *m_layout;
  for (int c = 0; c < g.clusters.size() && c < l.clusters.size(); ++c) {
    if (l.clusters[c].box.isNull())
      continue;
    int depth = 0;
    for (QString p = g.clusters[c].parent; !p.isEmpty() && depth < 32; ++depth)
      p = g.clusters.value(g.clusterOf(p)).parent;
    auto* item = new ClusterItem(this, g.clusters[c], l.clusters[c].box, depth);
    m_scene->addItem(item);
    m_clusterItems << item;
  }
  for (int e = 0; e < g.edges.size() && e < l.edges.size(); ++e) {
    QColor diff;
    if (!m_diffEdges.isEmpty() && m_diffEdges.contains(views::edgeDiffKey(g, g.edges[e])))
      diff = diffColor(m_edgeMark, views::ViewPalette::forPalette(palette()));
    auto* item = new EdgeItem(g.edges[e], l.edges[e], diff);
    m_scene->addItem(item);
    m_edgeItems << item;
  }
  for (int n = 0; n < g.nodes.size() && n < l.nodes.size(); ++n) {
    auto* item = new NodeItem(this, n, g.nodes[n], l.nodes[n]);
    m_scene->addItem(item);
    m_nodeItems << item;
  }
  // Labels: barrier labels first, then buffers; a label that would cover a node or another
  // label moves along its edge's normal a little, else it is left out (the tooltip has it).
  // A coarse grid over the placed rectangles keeps this linear in the number of labels.
  constexpr double kCell = 128;
  QVector<QRectF> placed;
  placed.reserve(l.nodes.size() + l.edges.size());
  QHash<quint64, QVector<int>> grid;
  auto cells = [&](const QRectF& r, auto&& fn) {
    int x0 = int(std::floor(r.left() / kCell)), x1 = int(std::floor(r.right() / kCell));
    int y0 = int(std::floor(r.top() / kCell)), y1 = int(std::floor(r.bottom() / kCell));
    for (int x = x0; x <= x1; ++x)
      for (int y = y0; y <= y1; ++y)
        if (!fn((quint64(quint32(x)) << 32) | quint32(y)))
          return false;
    return true;
  };
  auto place = [&](const QRectF& r) {
    int i = int(placed.size());
    placed << r;
    cells(r, [&](quint64 key) {
      grid[key] << i;
      return true;
    });
  };
  for (const views::NodeGeometry& n : l.nodes)
    place(n.rect().adjusted(-2, -2, 2, 2));
  auto free = [&](const QRectF& r) {
    return cells(r, [&](quint64 key) {
      auto it = grid.constFind(key);
      if (it == grid.constEnd())
        return true;
      for (int i : *it)
        if (placed[i].intersects(r))
          return false;
      return true;
    });
  };
  for (int pass = 0; pass < 3; ++pass)
    for (EdgeItem* item : std::as_const(m_edgeItems)) {
      views::EdgeKind k = item->edge().kind;
      int wanted = k == views::EdgeKind::Sync ? 0 : k == views::EdgeKind::Data ? 1 : 2;
      if (wanted != pass || !item->hasLabel())
        continue;
      QRectF r = item->labelRect();
      bool ok = false;
      for (double dy : {0.0, -13.0, 13.0, -26.0, 26.0}) {
        for (double dx : {0.0, 30.0, -30.0}) {
          QRectF moved = r.translated(dx, dy);
          if (free(moved)) {
            item->setLabelRect(moved);
            ok = true;
            break;
          }
        }
        if (ok)
          break;
      }
      item->setLabelVisible(ok);
      if (ok)
        place(item->labelRect().adjusted(-1, -1, 1, 1));
    }
  QRectF bounds = l.bounds.united(m_scene->itemsBoundingRect()); // unsorted, unlike items()
  m_scene->setSceneRect(bounds.adjusted(-30, -30, 30, 30));

  // Minimap: a small picture of the whole scene, rendered once per layout.
  QRectF sr = m_scene->sceneRect();
  double s = std::min(190.0 / sr.width(), 150.0 / sr.height());
  QSizeF size(sr.width() * s, sr.height() * s);
  if (size.width() < 36)
    size.setWidth(36); // very tall graphs: stretch sideways to stay usable
  if (size.height() < 24)
    size.setHeight(24);
  QImage image(size.toSize().expandedTo(QSize(8, 8)), QImage::Format_ARGB32_Premultiplied);
  const views::ViewPalette& pal = views::ViewPalette::forPalette(palette());
  image.fill(pal.canvas);
  {
    // Drawn from the layout's geometry (boxes and edge polylines, no text): a scene render of
    // thousands of items would hold the GUI thread for tens of milliseconds.
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
      p.setPen(QPen(edgeColor(g.edges[e], pal), 0));
      p.drawLine(q.first(), q.last());
    }
    p.setPen(QPen(pal.border, 0));
    for (int n = 0; n < g.nodes.size() && n < l.nodes.size(); ++n) {
      p.setBrush(pal.role(g.nodes[n].role));
      p.drawRect(l.nodes[n].rect());
    }
  }
  m_minimap->setImage(g.nodes.size() > 1 ? image : QImage(), sr);
  m_current = m_currentId.isEmpty() ? -1 : g.indexOf(m_currentId);
  if (!m_search.isEmpty())
    setSearchText(m_search);
  placeOverlays();
  updateHighlights();
}

void GraphView::setCostShares(quint64 checkJob, const QHash<int, double>& shares) {
  m_costCheck = checkJob;
  m_costShares = shares;
  m_costButton->setEnabled(!shares.isEmpty());
  m_scene->update();
}

double GraphView::costShare(int op) const {
  if (!m_costOverlay || op < 0 || m_costCheck == 0 || m_costCheck != m_shownSnapshot)
    return -1;
  return m_costShares.value(op, 0.0);
}

void GraphView::setDiffMarks(const views::GraphMarks& marks) {
  m_diffOps = marks.ops;
  m_diffEdges = marks.edges;
  m_edgeMark = marks.edgeMark;
  if (m_layout)
    buildScene();
}

bool GraphView::centerOnFirstMark() {
  const NodeItem* first = nullptr;
  for (const NodeItem* n : std::as_const(m_nodeItems))
    if (diffMark(n->node().op) != 0 && (!first || n->node().op < first->node().op))
      first = n;
  if (!first)
    return false;
  m_canvas->centerOn(first->sceneBoundingRect().center());
  // As if the user had scrolled there: a later resize keeps the place instead of refitting.
  m_fitted = false;
  m_minimap->update();
  return true;
}

int GraphView::markedEdges() const {
  int n = 0;
  for (const EdgeItem* e : m_edgeItems)
    n += e->diffMarked();
  return n;
}

void GraphView::setCostOverlay(bool on) {
  m_costOverlay = on;
  if (m_costButton->isChecked() != on)
    m_costButton->setChecked(on);
  m_scene->update();
}

void GraphView::placeOverlays() {
  QRect vp = m_canvas->viewport()->geometry();
  // Bottom left, and only where it leaves room for the graph (the Legend button toggles it).
  m_legend->move(vp.left() + 8, vp.bottom() - m_legend->height() - 8);
  m_legend->setVisible(m_showLegend && vp.width() >= 760 && vp.height() >= 360);
  m_minimap->move(vp.right() - m_minimap->width() - 8, vp.bottom() - m_minimap->height() - 8);
  m_legend->raise();
  m_minimap->raise();
}

QColor GraphView::canvasColor() const {
  return m_canvas->backgroundBrush().color();
}

void GraphView::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange) {
    // The items paint with the scene's palette; the minimap picture is re-rendered with the
    // next layout, the legend and canvas at once.
    m_scene->setPalette(palette());
    m_canvas->setBackgroundBrush(views::ViewPalette::forPalette(palette()).canvas);
    m_scene->update();
  }
  QWidget::changeEvent(event);
}

void GraphView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  placeOverlays();
}

void GraphView::fitToView() {
  m_fitted = true;
  if (!m_layout || m_scene->items().isEmpty())
    return;
  QRectF r = m_scene->sceneRect();
  m_canvas->fitInView(r, Qt::KeepAspectRatio);
  // Small graphs stay at a readable size; a graph too tall to read whole starts at its top,
  // as wide as the view allows (the minimap shows the rest).
  double s = m_canvas->transform().m11();
  double target = std::min(s, 1.4);
  bool tall = s < 0.55 && r.height() > r.width() * 1.5;
  if (tall)
    target = std::clamp(m_canvas->viewport()->width() / r.width(), s, 0.9);
  if (target != s) {
    m_canvas->resetTransform();
    m_canvas->scale(target, target);
    if (tall)
      m_canvas->centerOn(r.center().x(), r.top() + m_canvas->viewport()->height() / (2 * target));
    else
      m_canvas->centerOn(r.center());
  }
  m_minimap->update();
}

void GraphView::userMovedView() {
  m_fitted = false;
  m_minimap->update();
}

int GraphView::nodeForOp(int op, int role) const {
  if (!m_graph || op < 0 || !m_snapshot || !m_snapshot->views)
    return -1;
  const views::ViewData& d = *m_snapshot->views;
  if (role >= 0 && role < d.roles.size()) {
    int i = m_graph->indexOf(QStringLiteral("%1:%2").arg(d.roles[role]).arg(op));
    if (i >= 0)
      return i;
  }
  for (int i = 0; i < m_graph->nodes.size(); ++i)
    if (m_graph->nodes[i].op == op && (role < 0 || m_graph->nodes[i].role == role))
      return i;
  // Folded away: the summary node of the outermost collapsed cluster around it.
  if (!m_full)
    return -1;
  for (const views::GraphNode& n : m_full->nodes) {
    if (n.op != op || (role >= 0 && n.role != role))
      continue;
    for (int i = 0; i < m_graph->nodes.size(); ++i)
      if (!m_graph->nodes[i].collapsedCluster.isEmpty() &&
          m_full->within(n.cluster, m_graph->nodes[i].collapsedCluster))
        return i;
  }
  return -1;
}

void GraphView::onSelectionChanged(const views::Selection& selection, views::SelectionOrigin origin) {
  if (origin == views::SelectionOrigin::Graph)
    return;
  int node = nodeForOp(selection.op, selection.role);
  setCurrent(node, node >= 0 && origin != views::SelectionOrigin::Program);
}

void GraphView::setCurrent(int node, bool center) {
  m_current = node;
  m_currentId = m_graph && node >= 0 ? m_graph->nodes[node].id : QString();
  updateHighlights();
  if (center && node >= 0 && m_layout) {
    QRectF r = m_layout->nodes[node].rect();
    QRectF visible = m_canvas->mapToScene(m_canvas->viewport()->rect()).boundingRect();
    if (!visible.adjusted(20, 20, -20, -20).contains(r))
      m_canvas->centerOn(r.center());
  }
}

void GraphView::selectNode(int node) {
  if (!m_graph || node < 0 || node >= m_graph->nodes.size())
    return;
  setCurrent(node, true);
  m_canvas->setFocus();
  const views::GraphNode& n = m_graph->nodes[node];
  if (m_selection && n.op >= 0)
    m_selection->selectOp(n.op, n.role, views::SelectionOrigin::Graph);
}

void GraphView::navigate(views::NavDirection direction) {
  if (!m_layout || m_layout->nodes.isEmpty())
    return;
  int next = m_current < 0 ? 0 : views::neighbourInDirection(*m_layout, m_current, direction);
  if (next >= 0)
    selectNode(next);
}

int GraphView::setSearchText(const QString& text) {
  m_search = text.trimmed();
  m_matches.clear();
  m_matchIndex = -1;
  if (m_graph && !m_search.isEmpty())
    for (int i = 0; i < m_graph->nodes.size(); ++i) {
      const views::GraphNode& n = m_graph->nodes[i];
      if (n.title.contains(m_search, Qt::CaseInsensitive) || n.detail.contains(m_search, Qt::CaseInsensitive) ||
          n.id.contains(m_search, Qt::CaseInsensitive))
        m_matches << i;
    }
  if (m_searchField->text().trimmed() != m_search)
    m_searchField->setText(text);
  m_searchCount->setText(m_search.isEmpty() ? QString()
                         : m_matches.isEmpty() ? tr("no match")
                                               : tr("%1 matches").arg(m_matches.size()));
  updateHighlights();
  return int(m_matches.size());
}

void GraphView::focusSearch() {
  m_searchField->setFocus(Qt::ShortcutFocusReason);
  m_searchField->selectAll();
}

bool GraphView::eventFilter(QObject* watched, QEvent* event) {
  if ((event->type() == QEvent::ShortcutOverride || event->type() == QEvent::KeyPress) &&
      static_cast<QKeyEvent*>(event)->matches(QKeySequence::Find)) {
    event->accept();
    if (event->type() == QEvent::KeyPress)
      focusSearch();
    return true;
  }
  return QWidget::eventFilter(watched, event);
}

void GraphView::findNext(bool backwards) {
  if (m_matches.isEmpty())
    return;
  int n = int(m_matches.size());
  m_matchIndex = m_matchIndex < 0 ? (backwards ? n - 1 : 0) : (m_matchIndex + (backwards ? n - 1 : 1)) % n;
  m_searchCount->setText(tr("%1/%2").arg(m_matchIndex + 1).arg(n));
  selectNode(m_matches[m_matchIndex]);
}

void GraphView::updateHighlights() {
  QSet<int> matches(m_matches.begin(), m_matches.end());
  int currentMatch = m_matchIndex >= 0 ? m_matches.value(m_matchIndex, -1) : -1;
  for (NodeItem* item : std::as_const(m_nodeItems))
    item->setState(item->index() == m_current, matches.contains(item->index()), item->index() == currentMatch);
  for (EdgeItem* item : std::as_const(m_edgeItems))
    item->setHighlighted(m_current >= 0 && (item->edge().from == m_current || item->edge().to == m_current));
}

void GraphView::updateStatus() {
  if (!m_snapshot) {
    m_status->setText(tr("no kernel"));
    return;
  }
  if (layoutPending()) {
    m_status->setText(tr("laying out…"));
    return;
  }
  if (!m_layout || !m_graph)
    return;
  int ops = 0;
  for (const views::GraphNode& n : m_graph->nodes)
    ops += n.collapsedOps > 0 ? n.collapsedOps : 1;
  QString text = tr("%1 nodes · %2 edges · %3 %4 ms")
                     .arg(m_graph->nodes.size())
                     .arg(m_graph->edges.size())
                     .arg(m_layout->engine)
                     .arg(m_layout->elapsedMs);
  if (!m_collapsed.isEmpty())
    text += tr(" · %1 collapsed").arg(m_collapsed.size());
  if (m_layout->fallback) {
    m_status->setStyleSheet(QStringLiteral("color: #b03020;"));
    m_status->setToolTip(m_layout->error);
    text = tr("fallback layout (Graphviz failed) · ") + text;
  } else {
    m_status->setStyleSheet(QString());
    m_status->setToolTip(QString());
  }
  m_status->setText(text);
}

bool GraphView::exportSvg(const QString& path, QString* error) const {
  if (!m_layout) {
    if (error)
      *error = tr("nothing to export");
    return false;
  }
  QRectF r = m_scene->sceneRect();
  QSvgGenerator gen;
  gen.setFileName(path);
  gen.setSize(r.size().toSize());
  gen.setViewBox(QRectF(QPointF(0, 0), r.size()));
  gen.setTitle(QStringLiteral("Cake IR graph"));
  gen.setDescription(m_snapshot ? m_snapshot->path : QString());
  QPainter p;
  if (!p.begin(&gen)) {
    if (error)
      *error = tr("cannot write '%1'").arg(path);
    return false;
  }
  p.fillRect(QRectF(QPointF(0, 0), r.size()), canvasColor());
  m_scene->render(&p, QRectF(QPointF(0, 0), r.size()), r);
  p.end();
  return QFile::exists(path);
}

bool GraphView::exportPng(const QString& path, QString* error) const {
  if (!m_layout) {
    if (error)
      *error = tr("nothing to export");
    return false;
  }
  QRectF r = m_scene->sceneRect();
  // Twice the scene resolution, bounded so that huge graphs still fit in memory.
  double s = std::min(2.0, std::sqrt(120e6 / std::max(1.0, r.width() * r.height())));
  QImage image((r.size() * s).toSize().expandedTo(QSize(1, 1)), QImage::Format_ARGB32_Premultiplied);
  image.fill(canvasColor());
  {
    QPainter p(&image);
    p.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    m_scene->render(&p, QRectF(QPointF(0, 0), QSizeF(image.size())), r);
  }
  if (!image.save(path, "PNG")) {
    if (error)
      *error = tr("cannot write '%1'").arg(path);
    return false;
  }
  return true;
}

bool GraphView::exportDot(const QString& path, QString* error) const {
  if (!m_graph) {
    if (error)
      *error = tr("nothing to export");
    return false;
  }
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(views::toDot(*m_graph)) < 0) {
    if (error)
      *error = tr("cannot write '%1': %2").arg(path, f.errorString());
    return false;
  }
  return true;
}

} // namespace cake::widgets
