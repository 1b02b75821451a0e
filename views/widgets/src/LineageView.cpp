// The Lineage dock's widget: filter bar, legend with counts, the laid-out candidate DAG in a
// QGraphicsView (pan, zoom, fit), and the last import's result with its located errors.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/LineageView.h"

#include "cake/views/ViewPalette.h"

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPainterPathStroker>
#include <QPlainTextEdit>
#include <QPointer>
#include <QStyleOptionGraphicsItem>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <cmath>
#include <utility>

namespace cake::widgets {

namespace {

constexpr int kKindRole = 0;  ///< QGraphicsItem::data key: 1 node, 2 edge
constexpr int kIndexRole = 1; ///< index into the drawn graph's nodes / edges

/// The colours of the palette a widget paints with (light or dark, ViewPalette).
const views::ViewPalette& paletteOf(const QWidget* widget) {
  return widget ? views::ViewPalette::forPalette(widget->palette()) : views::ViewPalette::light();
}

/// A candidate: rounded box filled by outcome, id and speedup line; the best path outlined.
/// Colours are picked at paint time from the viewport's palette (a palette change repaints).
class CandidateItem : public QGraphicsItem {
public:
  explicit CandidateItem(const views::LineageSceneNode& node)
      : m_rect(node.rect.translated(-node.rect.center())), m_title(node.title),
        m_detail(node.detail), m_outcome(node.outcome), m_best(node.best) {
    setPos(node.rect.center());
    setFlag(ItemIsSelectable);
    setAcceptHoverEvents(true);
    setOpacity(node.dimmed ? 0.45 : 1.0);
    setZValue(1);
    setToolTip(node.tooltip);
  }
  QRectF boundingRect() const override { return m_rect.adjusted(-3, -3, 3, 3); }
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget* widget) override {
    const views::ViewPalette& vp = paletteOf(widget);
    p->setBrush(views::outcomeFill(m_outcome, vp.dark));
    QPen pen(m_best ? views::bestPathColor(vp.dark) : views::outcomeBorder(m_outcome, vp.dark),
             m_best ? 3.0 : 1.2);
    p->setPen(pen);
    p->drawRoundedRect(m_rect, 5, 5);
    if (isSelected()) {
      p->setBrush(Qt::NoBrush);
      p->setPen(QPen(vp.text, 1.5, Qt::DashLine));
      p->drawRoundedRect(m_rect.adjusted(-2.5, -2.5, 2.5, 2.5), 6, 6);
    }
    // Text is unreadable below this scale: skip it on a zoomed-out large campaign.
    if (option->levelOfDetailFromTransform(p->worldTransform()) < 0.35)
      return;
    static const QFont bold = [] {
      QFont f(QStringLiteral("DejaVu Sans Mono"), 8);
      f.setBold(true);
      return f;
    }();
    static const QFont plain(QStringLiteral("DejaVu Sans Mono"), 8);
    p->setPen(vp.text);
    p->setFont(bold);
    QRectF top = m_rect.adjusted(6, 3, -6, -m_rect.height() / 2);
    p->drawText(top, Qt::AlignCenter,
                QFontMetricsF(bold).elidedText(m_title, Qt::ElideMiddle, top.width()));
    p->setFont(plain);
    QRectF bottom = m_rect.adjusted(6, m_rect.height() / 2, -6, -3);
    p->drawText(bottom, Qt::AlignCenter,
                QFontMetricsF(plain).elidedText(m_detail, Qt::ElideRight, bottom.width()));
  }

private:
  QRectF m_rect;
  QString m_title, m_detail;
  views::CandidateOutcome m_outcome;
  bool m_best;
};

/// A parent → child edge: clickable along a widened stroke, arrow at the child; solid
/// derived-from, dashed inspiration, dotted through hidden candidates, the best path wide.
class LinkItem : public QGraphicsPathItem {
public:
  explicit LinkItem(const views::LineageSceneEdge& edge)
      : QGraphicsPathItem(edge.path), m_arrow(edge.arrow), m_kind(edge.kind), m_best(edge.best),
        // QGraphicsPathItem's own rect strokes the path through shape(): on 2,000 edges that
        // was the scene index's (first paint's) longest stall. The control points bound a
        // Bézier; the margin covers the widest pen (best path, selected) and the arrow.
        m_bounds(edge.path.controlPointRect().united(edge.arrow.boundingRect()).adjusted(-4, -4,
                                                                                         4, 4)) {
    setFlag(ItemIsSelectable);
    setToolTip(edge.tooltip);
    setZValue(m_best ? 0.5 : 0);
  }
  QPainterPath shape() const override {
    QPainterPathStroker s;
    s.setWidth(8);
    QPainterPath out = s.createStroke(path());
    out.addPolygon(m_arrow);
    return out;
  }
  QRectF boundingRect() const override { return m_bounds; }
  void paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget* widget) override {
    const views::ViewPalette& vp = paletteOf(widget);
    QPen pen(vp.border, 1.2);
    if (m_kind == views::EdgeKind::Sync) {
      pen.setStyle(Qt::DashLine);
    } else if (m_kind == views::EdgeKind::Order) {
      pen.setStyle(Qt::DotLine);
      pen.setColor(vp.edgeOrder);
    }
    if (m_best) {
      pen.setColor(views::bestPathColor(vp.dark));
      pen.setWidthF(3.0);
    }
    if (isSelected())
      pen.setWidthF(pen.widthF() + 2);
    p->setPen(pen);
    p->setBrush(Qt::NoBrush);
    p->drawPath(path());
    if (!m_arrow.isEmpty()) {
      p->setPen(Qt::NoPen);
      p->setBrush(pen.color());
      p->drawPolygon(m_arrow);
    }
  }

private:
  QPolygonF m_arrow;
  views::EdgeKind m_kind;
  bool m_best;
  QRectF m_bounds;
};

/// Deletes a replaced scene's items a time-boxed slice per event-loop turn: deleting thousands
/// of items at once is a stall of its own. Owns the scene (and dies with the view).
class SceneDisposer : public QObject {
public:
  SceneDisposer(QGraphicsScene* scene, QVector<QGraphicsItem*> items, QObject* parent)
      : QObject(parent), m_scene(scene), m_items(std::move(items)) {
    scene->setParent(this);
    QTimer::singleShot(0, this, &SceneDisposer::step);
  }

private:
  void step() {
    QElapsedTimer t;
    t.start();
    while (m_next < m_items.size() && (m_next % 32 != 0 || t.elapsed() < LineageView::kSliceMs)) {
      QGraphicsItem* item = m_items[m_next++];
      m_scene->removeItem(item);
      delete item;
    }
    if (m_next < m_items.size()) {
      QTimer::singleShot(0, this, &SceneDisposer::step);
      return;
    }
    deleteLater(); // the scene, empty now, with it
  }
  QGraphicsScene* m_scene;
  QVector<QGraphicsItem*> m_items; ///< every item of the scene (no children)
  qsizetype m_next = 0;
};

class LineageCanvas : public QGraphicsView {
public:
  using QGraphicsView::QGraphicsView;

protected:
  void wheelEvent(QWheelEvent* e) override {
    double steps = e->angleDelta().y() / 120.0;
    if (steps == 0)
      return;
    double current = transform().m11();
    double target = std::clamp(current * std::pow(1.15, steps), 0.02, 4.0);
    scale(target / current, target / current);
    e->accept();
  }
};

} // namespace

LineageView::LineageView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("lineageView"));
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(4, 4, 4, 4);
  v->setSpacing(3);
  m_title = new QLabel(tr("No campaign: File > Import Campaign…"), this);
  m_title->setObjectName(QStringLiteral("lineageTitle"));
  m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_title->setWordWrap(true);
  v->addWidget(m_title);

  auto* bar = new QHBoxLayout;
  bar->setSpacing(4);
  auto combo = [&](const QString& name, const QString& label) {
    auto* c = new QComboBox(this);
    c->setObjectName(name);
    c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    c->setMinimumContentsLength(6); // three filters fit a half-screen window (B5/B6)
    c->setToolTip(label);
    bar->addWidget(c);
    return c;
  };
  m_author = combo(QStringLiteral("lineageAuthor"), tr("Show only this author's candidates"));
  m_outcome = combo(QStringLiteral("lineageOutcome"), tr("Show only candidates with this outcome"));
  m_code = combo(QStringLiteral("lineageCode"), tr("Show only candidates with this finding code"));
  auto* fit = new QToolButton(this);
  fit->setText(tr("Fit"));
  fit->setToolTip(tr("Fit the whole lineage in the view"));
  connect(fit, &QToolButton::clicked, this, &LineageView::fitToView);
  bar->addWidget(fit);
  bar->addStretch(1);
  v->addLayout(bar);

  m_legend = new QLabel(this);
  m_legend->setObjectName(QStringLiteral("lineageLegend"));
  m_legend->setWordWrap(true); // a narrow dock wraps the legend rather than widening
  v->addWidget(m_legend);

  m_scene = new QGraphicsScene(this);
  auto* canvas = new LineageCanvas(m_scene, this);
  canvas->setObjectName(QStringLiteral("lineageCanvas"));
  canvas->setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  canvas->setDragMode(QGraphicsView::ScrollHandDrag);
  canvas->setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  canvas->setViewportUpdateMode(QGraphicsView::BoundingRectViewportUpdate);
  canvas->setFrameShape(QFrame::NoFrame);
  m_canvas = canvas;
  v->addWidget(m_canvas, 1);

  m_importLine = new QLabel(this);
  m_importLine->setObjectName(QStringLiteral("lineageImport"));
  m_importLine->setWordWrap(true);
  v->addWidget(m_importLine);
  m_errors = new QPlainTextEdit(this);
  m_errors->setObjectName(QStringLiteral("lineageErrors"));
  m_errors->setReadOnly(true);
  m_errors->setMaximumHeight(90);
  m_errors->setFont(QFont(QStringLiteral("DejaVu Sans Mono"), 8));
  m_errors->hide();
  v->addWidget(m_errors);

  fillCombos();
  auto changed = [this] {
    if (m_quiet)
      return;
    views::LineageFilter f;
    f.author = m_author->currentData().toString();
    f.outcome = views::outcomeFromName(m_outcome->currentData().toString());
    f.code = m_code->currentData().toString();
    m_filter = f;
    rebuild();
  };
  for (QComboBox* c : {m_author, m_outcome, m_code})
    connect(c, &QComboBox::currentIndexChanged, this, changed);
  connect(m_scene, &QGraphicsScene::selectionChanged, this, &LineageView::onSceneSelection);
  connect(&m_worker, &views::GraphLayoutWorker::layoutFinished, this,
          &LineageView::onLayoutFinished);
  m_pool.setMaxThreadCount(1);
  m_pool.setExpiryTimeout(-1);
  applyPalette();
}

void LineageView::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange)
    applyPalette();
}

void LineageView::applyPalette() {
  m_canvas->setBackgroundBrush(views::ViewPalette::forPalette(palette()).canvas);
  updateTitle(); // the legend's colour chips
  m_canvas->viewport()->update();
}

LineageView::~LineageView() {
  ++m_generation; // results still in flight are dropped
  m_pool.waitForDone();
}

void LineageView::setLineage(const views::LineagePtr& lineage) {
  bool other = !m_lineage || !lineage || m_lineage->campaign != lineage->campaign;
  m_lineage = lineage;
  if (other) {
    m_fitted = false;
    m_current.clear();
  }
  fillCombos();
  updateTitle();
  rebuild();
}

void LineageView::setImportSummary(const views::ImportSummaryPtr& s) {
  if (!s)
    return;
  m_importLine->setText(tr("Last import of %1: %2").arg(s->folder, s->text()));
  m_errors->setPlainText(s->errors.join(QLatin1Char('\n')));
  m_errors->setVisible(!s->errors.isEmpty());
}

void LineageView::setMessage(const QString& message) {
  m_importLine->setText(message);
}

void LineageView::setFilter(const views::LineageFilter& filter) {
  m_filter = filter;
  fillCombos();
  rebuild();
}

void LineageView::fillCombos() {
  m_quiet = true;
  auto fill = [](QComboBox* c, const QString& all, const QStringList& items, const QString& current,
                 const QStringList& labels = {}) {
    c->clear();
    c->addItem(all, QString());
    for (int i = 0; i < items.size(); ++i)
      c->addItem(labels.value(i, items[i]), items[i]);
    int at = c->findData(current);
    c->setCurrentIndex(at < 0 ? 0 : at);
  };
  QStringList outcomes, outcomeLabels;
  for (int i = 0; i < views::kCandidateOutcomes; ++i) {
    auto o = views::CandidateOutcome(i);
    outcomes << views::outcomeName(o);
    outcomeLabels << views::outcomeName(o) +
                         (m_lineage ? QStringLiteral(" (%1)").arg(m_lineage->count(o)) : QString());
  }
  fill(m_author, tr("All authors"), m_lineage ? m_lineage->authors() : QStringList(),
       m_filter.author);
  fill(m_outcome, tr("All outcomes"), outcomes,
       m_filter.outcome ? views::outcomeName(*m_filter.outcome) : QString(), outcomeLabels);
  fill(m_code, tr("All finding codes"), m_lineage ? m_lineage->codes() : QStringList(),
       m_filter.code);
  m_quiet = false;
}

void LineageView::updateTitle() {
  if (!m_lineage) {
    m_title->setText(tr("No campaign: File > Import Campaign…"));
    m_legend->clear();
    return;
  }
  const views::Lineage& l = *m_lineage;
  // One format per count: an .arg() without its %N in the format warns at run time.
  QString best;
  if (l.bestPath.isEmpty())
    best = tr("no accepted candidate with a time");
  else if (l.bestPath.size() == 1)
    best = tr("best %1 (the root)").arg(l.bestPath.last());
  else if (l.bestPath.size() == 2)
    best = tr("best %1 (1 step from %2)").arg(l.bestPath.last(), l.bestPath.first());
  else
    best = tr("best %1 (%3 steps from %2)")
               .arg(l.bestPath.last(), l.bestPath.first())
               .arg(l.bestPath.size() - 1);
  if (int b = l.indexOf(l.bestPath.value(l.bestPath.size() - 1)); b >= 0) {
    const views::LineageNode& n = l.nodes[b];
    best += QStringLiteral(", ") +
            views::formatSpeedup(n.measuredSpeedup ? n.measuredSpeedup : n.predictedSpeedup) +
            (n.measuredSpeedup ? tr(" measured") : tr(" predicted"));
  }
  m_title->setText(tr("<b>%1</b> · %2 candidates · %3")
                       .arg(l.campaign.toHtmlEscaped())
                       .arg(l.nodes.size())
                       .arg(best.toHtmlEscaped()));
  const bool dark = views::ViewPalette::forPalette(palette()).dark;
  QStringList chips;
  for (int i = 0; i < views::kCandidateOutcomes; ++i) {
    auto o = views::CandidateOutcome(i);
    chips << QStringLiteral(
                 "<span style=\"background:%1;color:%2\">&nbsp;■&nbsp;</span>&nbsp;%3 %4")
                 .arg(views::outcomeFill(o, dark).name(), views::outcomeBorder(o, dark).name(),
                      views::outcomeName(o))
                 .arg(l.count(o));
  }
  chips << QStringLiteral("<span style=\"color:%1\"><b>━━</b></span>&nbsp;best path")
               .arg(views::bestPathColor(dark).name());
  chips << tr("solid: derived from · dashed: inspiration · dotted: through hidden");
  m_legend->setText(chips.join(QStringLiteral("&nbsp;&nbsp; ")));
}

/// A scene being filled in slices on the GUI thread; swapped in for the shown one when full.
struct LineageView::Build {
  quint64 generation = 0;
  views::LineagePtr lineage;
  views::LineageGraphPtr graph;
  views::GraphLayoutPtr layout;
  views::LineageScenePtr data;
  QGraphicsScene* scene = nullptr; ///< owned by the view until swapped in
  QVector<QGraphicsItem*> nodeItems, edgeItems;
  int nextNode = 0, nextEdge = 0;
};

void LineageView::rebuild() {
  const quint64 generation = ++m_generation;
  if (!m_lineage) {
    m_pending = false;
    m_requested.reset();
    m_requestedLineage.reset();
    m_shown.reset();
    m_shownLineage.reset();
    m_layout.reset();
    m_nodeItems.clear();
    m_edgeItems.clear();
    m_quiet = true;
    m_scene->clear();
    m_quiet = false;
    return;
  }
  m_pending = true;
  // The graph (filter, contracted edges, best path) on the view's worker thread: 2,000
  // candidates took tens of milliseconds on the GUI thread.
  views::LineagePtr lineage = m_lineage;
  views::LineageFilter filter = m_filter;
  QPointer<LineageView> self(this);
  m_pool.start([self, generation, lineage, filter] {
    QElapsedTimer t;
    t.start();
    auto graph = std::make_shared<const views::LineageGraph>(
        views::buildLineageGraph(*lineage, filter));
    qint64 ms = t.elapsed();
    QMetaObject::invokeMethod(
        qApp,
        [self, generation, lineage, graph, ms] {
          if (self)
            self->onGraphBuilt(generation, lineage, graph, ms);
        },
        Qt::QueuedConnection);
  });
}

void LineageView::onGraphBuilt(quint64 generation, views::LineagePtr lineage,
                               views::LineageGraphPtr graph, qint64 ms) {
  if (generation != m_generation)
    return; // a newer lineage or filter since
  m_timings = {};
  m_timings.graphMs = ms;
  m_requestedGeneration = generation;
  m_requestedLineage = std::move(lineage);
  m_requested = std::move(graph);
  m_worker.request(views::graphOf(m_requested), m_options);
}

void LineageView::onLayoutFinished(quint64, views::GraphPtr graph, views::GraphLayoutPtr layout) {
  if (!m_requested || graph.get() != &m_requested->graph || m_requestedGeneration != m_generation)
    return; // a layout of a graph since replaced, or about to be
  auto build = std::make_shared<Build>();
  build->generation = m_generation;
  build->lineage = m_requestedLineage;
  build->graph = m_requested;
  build->layout = std::move(layout);
  // Paths, arrow heads, texts and tooltips on the worker too; only items are made here.
  QPointer<LineageView> self(this);
  m_pool.start([self, build] {
    QElapsedTimer t;
    t.start();
    build->data = std::make_shared<const views::LineageScene>(
        views::buildLineageScene(*build->lineage, *build->graph, *build->layout));
    qint64 ms = t.elapsed();
    QMetaObject::invokeMethod(
        qApp,
        [self, build, ms] {
          if (!self || build->generation != self->m_generation)
            return;
          self->m_timings.sceneDataMs = ms;
          self->startItems(build);
        },
        Qt::QueuedConnection);
  });
}

void LineageView::startItems(std::shared_ptr<Build> build) {
  // A new scene is filled while the shown one stays on screen (and interactive), then swapped.
  build->scene = new QGraphicsScene(this);
  build->scene->setSceneRect(build->data->sceneRect);
  build->nodeItems.resize(build->data->nodes.size());
  build->edgeItems.fill(nullptr, build->data->edges.size());
  fillSlice(std::move(build));
}

void LineageView::fillSlice(std::shared_ptr<Build> build) {
  if (build->generation != m_generation) {
    disposeScene(build->scene, build->nodeItems + build->edgeItems); // superseded while filled
    return;
  }
  QElapsedTimer t;
  t.start();
  const views::LineageScene& d = *build->data;
  // Check the clock every few items: one item costs microseconds, the box is kSliceMs.
  auto boxFull = [&](int made) { return made % 32 == 0 && t.elapsed() >= kSliceMs; };
  int made = 0;
  while (build->nextNode < d.nodes.size() && !boxFull(++made)) {
    int i = build->nextNode++;
    auto* item = new CandidateItem(d.nodes[i]);
    item->setData(kKindRole, 1);
    item->setData(kIndexRole, i);
    build->scene->addItem(item);
    build->nodeItems[i] = item;
  }
  while (build->nextNode >= d.nodes.size() && build->nextEdge < d.edges.size() &&
         !boxFull(++made)) {
    int k = build->nextEdge++;
    if (d.edges[k].path.isEmpty())
      continue;
    auto* item = new LinkItem(d.edges[k]);
    item->setData(kKindRole, 2);
    item->setData(kIndexRole, k);
    build->scene->addItem(item);
    build->edgeItems[k] = item;
  }
  qint64 ms = t.elapsed();
  m_timings.itemsMs += ms;
  m_timings.longestSliceMs = std::max(m_timings.longestSliceMs, ms);
  ++m_timings.slices;
  if (build->nextNode < d.nodes.size() || build->nextEdge < d.edges.size()) {
    // Let input and paints through between slices.
    QTimer::singleShot(0, this, [this, build] { fillSlice(build); });
    return;
  }
  finishBuild(build);
}

void LineageView::finishBuild(const std::shared_ptr<Build>& build) {
  QElapsedTimer t;
  t.start();
  m_quiet = true;
  QGraphicsScene* old = m_scene;
  m_scene = build->scene;
  build->scene = nullptr;
  m_canvas->setScene(m_scene);
  connect(m_scene, &QGraphicsScene::selectionChanged, this, &LineageView::onSceneSelection);
  QVector<QGraphicsItem*> oldItems = m_nodeItems + m_edgeItems;
  m_shownLineage = build->lineage;
  m_shown = build->graph;
  m_layout = build->layout;
  m_nodeItems = std::move(build->nodeItems);
  m_edgeItems = std::move(build->edgeItems);
  int current = m_current.isEmpty() ? -1 : m_shown->graph.indexOf(m_current);
  if (current >= 0 && current < m_nodeItems.size())
    m_nodeItems[current]->setSelected(true);
  m_quiet = false;
  disposeScene(old, std::move(oldItems));
  if (!m_fitted)
    showOverview();
  if (std::exchange(m_centreCurrent, false) && current >= 0 && current < m_nodeItems.size())
    m_canvas->centerOn(m_nodeItems[current]); // selected while this layout was on its way
  m_pending = false;
  m_timings.swapMs = t.elapsed();
  Q_EMIT layoutShown();
}

void LineageView::disposeScene(QGraphicsScene* scene, QVector<QGraphicsItem*> items) {
  if (!scene)
    return;
  scene->disconnect(this);
  items.removeAll(nullptr);
  if (items.size() <= 256)
    delete scene;
  else
    new SceneDisposer(scene, std::move(items), this);
}

void LineageView::fitToView() {
  if (m_nodeItems.isEmpty())
    return;
  m_canvas->fitInView(m_scene->sceneRect(), Qt::KeepAspectRatio);
  // Never magnify a small lineage beyond its natural size.
  if (m_canvas->transform().m11() > 1.0)
    m_canvas->setTransform(QTransform());
  m_fitted = true;
}

void LineageView::showOverview() {
  fitToView();
  if (!m_shown || m_canvas->transform().m11() >= kReadableScale)
    return;
  // Too large to read whole: readable, centred on the best path when it fits, else on the best
  // candidate (no best: the first root); Fit shows everything.
  m_canvas->setTransform(QTransform::fromScale(kReadableScale, kReadableScale));
  QRectF path;
  int best = -1;
  for (const QString& id : m_shownLineage ? m_shownLineage->bestPath : QStringList())
    if (int n = m_shown->graph.indexOf(id); n >= 0 && n < m_layout->nodes.size()) {
      path = path.isNull() ? m_layout->nodes[n].rect() : path.united(m_layout->nodes[n].rect());
      best = n;
    }
  if (best < 0 && !m_shown->graph.nodes.isEmpty() && !m_layout->nodes.isEmpty()) {
    best = 0;
    path = m_layout->nodes[0].rect();
  }
  if (best < 0)
    return;
  QSizeF view = QSizeF(m_canvas->viewport()->size()) / kReadableScale;
  bool fits = path.width() <= view.width() && path.height() <= view.height();
  m_canvas->centerOn(fits ? path.center() : m_layout->nodes[best].center);
}

void LineageView::onSceneSelection() {
  if (m_quiet || !m_shown)
    return;
  const QList<QGraphicsItem*> selected = m_scene->selectedItems();
  if (selected.isEmpty())
    return;
  QGraphicsItem* item = selected.first();
  int index = item->data(kIndexRole).toInt();
  if (item->data(kKindRole).toInt() == 1 && index < m_shown->graph.nodes.size()) {
    m_current = m_shown->graph.nodes[index].id;
    Q_EMIT candidateActivated(m_current);
  } else if (item->data(kKindRole).toInt() == 2 && index < m_shown->graph.edges.size()) {
    const views::GraphEdge& e = m_shown->graph.edges[index];
    Q_EMIT edgeActivated(m_shown->graph.nodes[e.from].id, m_shown->graph.nodes[e.to].id);
  }
}

bool LineageView::selectCandidate(const QString& id) {
  // Remembered for a layout still on its way (the editor opened a candidate of a new import).
  if (m_lineage && m_lineage->indexOf(id) >= 0) {
    m_current = id;
    m_centreCurrent = m_pending;
  }
  int i = m_shown ? m_shown->graph.indexOf(id) : -1;
  if (i < 0 || i >= m_nodeItems.size())
    return false;
  m_quiet = true;
  m_scene->clearSelection();
  m_nodeItems[i]->setSelected(true);
  m_canvas->centerOn(m_nodeItems[i]);
  m_current = id;
  m_quiet = false;
  return true;
}

bool LineageView::activateCandidate(const QString& id) {
  int i = m_shown ? m_shown->graph.indexOf(id) : -1;
  if (i < 0 || i >= m_nodeItems.size())
    return false;
  m_scene->clearSelection();
  m_nodeItems[i]->setSelected(true);
  return true;
}

bool LineageView::activateEdge(const QString& parent, const QString& child) {
  if (!m_shown)
    return false;
  int from = m_shown->graph.indexOf(parent), to = m_shown->graph.indexOf(child);
  for (int k = 0; k < m_shown->graph.edges.size() && k < m_edgeItems.size(); ++k) {
    const views::GraphEdge& e = m_shown->graph.edges[k];
    if (e.from == from && e.to == to && m_edgeItems[k]) {
      m_scene->clearSelection();
      m_edgeItems[k]->setSelected(true);
      return true;
    }
  }
  return false;
}

} // namespace cake::widgets
