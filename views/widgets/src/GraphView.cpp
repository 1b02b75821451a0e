// IR graph view: the canvas (pan/zoom, keys), search, collapse/expand, selection linking,
// overlay placement and export; the scene comes from GraphItems.cpp (items, builder, minimap
// picture) and the overlays from GraphOverlays.cpp.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/GraphView.h"

#include "GraphItems.h"
#include "GraphOverlays.h"

#include "cake/widgets/ElidedLabel.h"
#include "cake/views/ViewPalette.h"

#include <QApplication>
#include <QFile>
#include <QFileDialog>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPainter>
#include <QScrollBar>
#include <QShortcut>
#include <QSvgGenerator>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <cmath>

namespace cake::widgets {

QColor GraphView::roleColor(int role) {
  return views::ViewPalette::forPalette(QGuiApplication::palette()).role(role);
}

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
  m_nodeItems.clear();
  m_edgeItems.clear();
  m_clusterItems.clear();
  if (!m_graph || !m_layout) {
    m_scene->clear();
    return;
  }
  const views::ViewPalette& pal = views::ViewPalette::forPalette(palette());
  GraphSceneItems items =
      buildGraphScene(*m_scene, this, *m_graph, *m_layout, m_diffEdges, m_edgeMark, pal);
  m_nodeItems = std::move(items.nodes);
  m_edgeItems = std::move(items.edges);
  m_clusterItems = std::move(items.clusters);
  m_minimap->setImage(m_graph->nodes.size() > 1
                          ? renderGraphMinimap(*m_graph, *m_layout, m_scene->sceneRect(), pal)
                          : QImage(),
                      m_scene->sceneRect());
  m_current = m_currentId.isEmpty() ? -1 : m_graph->indexOf(m_currentId);
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

QVector<QRectF> GraphView::shownEdgeLabels() const {
  QVector<QRectF> out;
  for (const EdgeItem* e : m_edgeItems)
    if (e->labelVisible())
      out << e->labelRect();
  return out;
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
  // At most a quarter of the canvas' width and a third of its height.
  m_minimap->fitInto(QSize(std::min(194, vp.width() / 4), std::min(154, vp.height() / 3)));
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
    m_status->setStyleSheet(QStringLiteral("color: %1;")
                                .arg(views::ViewPalette::forPalette(palette()).severity(0).name()));
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
