// The Lineage dock's widget: filter bar, legend with counts, the laid-out candidate DAG in a
// QGraphicsView (pan, zoom, fit), and the last import's result with its located errors.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/LineageView.h"

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
#include <QStyleOptionGraphicsItem>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <cmath>

namespace cake::widgets {

namespace {

constexpr int kKindRole = 0;  ///< QGraphicsItem::data key: 1 node, 2 edge
constexpr int kIndexRole = 1; ///< index into the drawn graph's nodes / edges

/// A candidate: rounded box filled by outcome, id and speedup line; the best path outlined.
class CandidateItem : public QGraphicsItem {
public:
  CandidateItem(const views::LineageNode& node, const views::GraphNode& g, const QRectF& rect,
                bool best, bool dimmed)
      : m_rect(rect.translated(-rect.center())), m_title(g.title), m_detail(g.detail),
        m_fill(views::outcomeFill(node.outcome)), m_border(views::outcomeBorder(node.outcome)),
        m_best(best) {
    setPos(rect.center());
    setFlag(ItemIsSelectable);
    setAcceptHoverEvents(true);
    setOpacity(dimmed ? 0.45 : 1.0);
    setZValue(1);
    QString tip =
        QStringLiteral("%1 — %2\n%3").arg(g.title, views::outcomeName(node.outcome), node.author);
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
    setToolTip(tip);
  }
  QRectF boundingRect() const override { return m_rect.adjusted(-3, -3, 3, 3); }
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) override {
    p->setBrush(m_fill);
    QPen pen(m_best ? views::bestPathColor() : m_border, m_best ? 3.0 : 1.2);
    p->setPen(pen);
    p->drawRoundedRect(m_rect, 5, 5);
    if (isSelected()) {
      p->setBrush(Qt::NoBrush);
      p->setPen(QPen(QColor(0x21, 0x21, 0x21), 1.5, Qt::DashLine));
      p->drawRoundedRect(m_rect.adjusted(-2.5, -2.5, 2.5, 2.5), 6, 6);
    }
    // Text is unreadable below this scale: skip it on a zoomed-out large campaign.
    if (option->levelOfDetailFromTransform(p->worldTransform()) < 0.35)
      return;
    p->setPen(QColor(0x1a, 0x1a, 0x1a));
    QFont f(QStringLiteral("DejaVu Sans Mono"), 8);
    f.setBold(true);
    p->setFont(f);
    QRectF top = m_rect.adjusted(6, 3, -6, -m_rect.height() / 2);
    p->drawText(top, Qt::AlignCenter,
                QFontMetricsF(f).elidedText(m_title, Qt::ElideMiddle, top.width()));
    f.setBold(false);
    p->setFont(f);
    QRectF bottom = m_rect.adjusted(6, m_rect.height() / 2, -6, -3);
    p->drawText(bottom, Qt::AlignCenter,
                QFontMetricsF(f).elidedText(m_detail, Qt::ElideRight, bottom.width()));
  }

private:
  QRectF m_rect;
  QString m_title, m_detail;
  QColor m_fill, m_border;
  bool m_best;
};

/// A parent → child edge: clickable along a widened stroke, arrow at the child.
class LinkItem : public QGraphicsPathItem {
public:
  LinkItem(const QPainterPath& path, const QPolygonF& arrow, const QPen& pen)
      : QGraphicsPathItem(path), m_arrow(arrow) {
    setPen(pen);
    setFlag(ItemIsSelectable);
  }
  QPainterPath shape() const override {
    QPainterPathStroker s;
    s.setWidth(8);
    QPainterPath out = s.createStroke(path());
    out.addPolygon(m_arrow);
    return out;
  }
  QRectF boundingRect() const override {
    return QGraphicsPathItem::boundingRect().united(m_arrow.boundingRect()).adjusted(-4, -4, 4, 4);
  }
  void paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget*) override {
    QPen pen = this->pen();
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

QPolygonF arrowHead(QPointF base, QPointF tip) {
  QLineF l(tip, base);
  if (l.length() < 0.5)
    return {};
  QLineF side = l.normalVector();
  side.setLength(3.5);
  QPointF n = side.p2() - side.p1();
  return QPolygonF({tip, base + n, base - n});
}

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
  canvas->setBackgroundBrush(QColor(0xfb, 0xfc, 0xfe));
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
}

LineageView::~LineageView() = default;

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
  QString best = l.bestPath.isEmpty() ? tr("no accepted candidate with a time")
                                      : (l.bestPath.size() == 2 ? tr("best %1 (1 step from %2)")
                                                                : tr("best %1 (%3 steps from %2)"))
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
  QStringList chips;
  for (int i = 0; i < views::kCandidateOutcomes; ++i) {
    auto o = views::CandidateOutcome(i);
    chips << QStringLiteral(
                 "<span style=\"background:%1;color:%2\">&nbsp;■&nbsp;</span>&nbsp;%3 %4")
                 .arg(views::outcomeFill(o).name(), views::outcomeBorder(o).name(),
                      views::outcomeName(o))
                 .arg(l.count(o));
  }
  chips << QStringLiteral("<span style=\"color:%1\"><b>━━</b></span>&nbsp;best path")
               .arg(views::bestPathColor().name());
  chips << tr("solid: derived from · dashed: inspiration · dotted: through hidden");
  m_legend->setText(chips.join(QStringLiteral("&nbsp;&nbsp; ")));
}

void LineageView::rebuild() {
  if (!m_lineage) {
    m_requested.reset();
    m_scene->clear();
    return;
  }
  m_requested =
      std::make_shared<const views::LineageGraph>(views::buildLineageGraph(*m_lineage, m_filter));
  m_worker.request(views::graphOf(m_requested), m_options);
}

bool LineageView::layoutPending() const {
  return m_requested && m_shown != m_requested;
}

void LineageView::onLayoutFinished(quint64, views::GraphPtr graph, views::GraphLayoutPtr layout) {
  if (!m_requested || graph.get() != &m_requested->graph)
    return; // a layout of a graph since replaced
  m_shown = m_requested;
  m_layout = layout;
  buildScene();
  Q_EMIT layoutShown();
}

void LineageView::buildScene() {
  QElapsedTimer timer;
  timer.start();
  m_quiet = true;
  m_scene->clear();
  const views::LineageGraph& g = *m_shown;
  const views::GraphLayout& l = *m_layout;
  for (int i = 0; i < g.graph.nodes.size() && i < l.nodes.size(); ++i) {
    auto* item = new CandidateItem(m_lineage->nodes[g.nodeCandidate[i]], g.graph.nodes[i],
                                   l.nodes[i].rect(), g.nodeBest[i], g.nodeDimmed[i]);
    item->setData(kKindRole, 1);
    item->setData(kIndexRole, i);
    m_scene->addItem(item);
    if (g.graph.nodes[i].id == m_current)
      item->setSelected(true);
  }
  for (int k = 0; k < g.graph.edges.size() && k < l.edges.size(); ++k) {
    const views::EdgeGeometry& geo = l.edges[k];
    if (geo.points.size() < 2)
      continue;
    QPainterPath path(geo.points[0]);
    for (int p = 1; p + 2 < geo.points.size(); p += 3)
      path.cubicTo(geo.points[p], geo.points[p + 1], geo.points[p + 2]);
    if (geo.points.size() % 3 != 1)
      path.lineTo(geo.points.last());
    QPen pen(QColor(0x78, 0x86, 0x94), 1.2);
    switch (g.graph.edges[k].kind) {
    case views::EdgeKind::Sync:
      pen.setStyle(Qt::DashLine);
      break;
    case views::EdgeKind::Order:
      pen.setStyle(Qt::DotLine);
      pen.setColor(QColor(0xa0, 0xa8, 0xb0));
      break;
    default:
      break;
    }
    if (g.edgeBest[k]) {
      pen.setColor(views::bestPathColor());
      pen.setWidthF(3.0);
    }
    auto* item = new LinkItem(
        path, geo.hasArrow ? arrowHead(geo.points.last(), geo.arrowTip) : QPolygonF(), pen);
    item->setData(kKindRole, 2);
    item->setData(kIndexRole, k);
    item->setToolTip(g.graph.edges[k].tooltip + tr("\nclick: compare parent and child"));
    item->setZValue(g.edgeBest[k] ? 0.5 : 0);
    m_scene->addItem(item);
  }
  m_scene->setSceneRect(l.bounds.adjusted(-20, -20, 20, 20));
  m_quiet = false;
  if (!m_fitted)
    showOverview();
  m_sceneMs = timer.elapsed();
}

void LineageView::fitToView() {
  if (m_scene->items().isEmpty())
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
  for (const QString& id : m_lineage ? m_lineage->bestPath : QStringList())
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
  m_quiet = true;
  bool found = false;
  for (QGraphicsItem* item : m_scene->items()) {
    bool match = item->data(kKindRole).toInt() == 1 && m_shown &&
                 m_shown->graph.nodes[item->data(kIndexRole).toInt()].id == id;
    item->setSelected(match);
    if (match) {
      m_canvas->centerOn(item);
      found = true;
    }
  }
  if (found)
    m_current = id;
  m_quiet = false;
  return found;
}

bool LineageView::activateCandidate(const QString& id) {
  if (!m_shown || m_shown->graph.indexOf(id) < 0)
    return false;
  m_scene->clearSelection();
  for (QGraphicsItem* item : m_scene->items())
    if (item->data(kKindRole).toInt() == 1 &&
        m_shown->graph.nodes[item->data(kIndexRole).toInt()].id == id) {
      item->setSelected(true);
      return true;
    }
  return false;
}

bool LineageView::activateEdge(const QString& parent, const QString& child) {
  if (!m_shown)
    return false;
  int from = m_shown->graph.indexOf(parent), to = m_shown->graph.indexOf(child);
  m_scene->clearSelection();
  for (QGraphicsItem* item : m_scene->items()) {
    if (item->data(kKindRole).toInt() != 2)
      continue;
    const views::GraphEdge& e = m_shown->graph.edges[item->data(kIndexRole).toInt()];
    if (e.from == from && e.to == to) {
      item->setSelected(true);
      return true;
    }
  }
  return false;
}

} // namespace cake::widgets
