// The QCustomPlot adapter: the one file that includes qcustomplot.h.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/Plot.h"

#include "cake/views/LabelPlacement.h"

#include <QEvent>
#include <QMouseEvent>
#include <QResizeEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace cake::widgets {

namespace {
QColor textColour(const QWidget* w) {
  return w->palette().color(QPalette::Text);
}
QColor gridColour(const QWidget* w) {
  QColor c = w->palette().color(QPalette::Text);
  c.setAlpha(45);
  return c;
}
} // namespace

Plot::Plot(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this)) {
  m_plot->setObjectName(QStringLiteral("plotCanvas"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_plot);
  m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  m_plot->legend->setVisible(false);
  m_plot->setNoAntialiasingOnDrag(true);
  applyPalette();
  connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this] { resetView(); });
  connect(m_plot, &QCustomPlot::plottableClick, this,
          [this](QCPAbstractPlottable* p, int dataIndex, QMouseEvent*) {
            // (Bars are hit-tested as whole rows on mouse release, below.) Point sets keep their order (setData without sorting would reorder by key), so
            // the data index maps back through the stored permutation.
            auto* g = qobject_cast<QCPGraph*>(p);
            int handle = g ? m_pointSets.indexOf(g) : -1;
            if (handle >= 0 && dataIndex >= 0 && dataIndex < m_pointOrder[handle].size())
              Q_EMIT pointClicked(handle, m_pointOrder[handle][dataIndex]);
          });
  // Point labels are placed once the axis rect's size is known, before drawing.
  connect(m_plot, &QCustomPlot::afterLayout, this, [this] { placeLabels(); });
  // B7: QCustomPlot's own hit test found only the bottom series of a stacked bar; the row is
  // hit-tested here as a whole (every segment, and the value label after it).
  connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
    m_pressedCategory = e->button() == Qt::LeftButton ? categoryAt(e->position()) : -1;
  });
  connect(m_plot, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* e) {
    int category = categoryAt(e->position());
    if (e->button() == Qt::LeftButton && category >= 0 && category == m_pressedCategory)
      Q_EMIT categoryClicked(category);
    m_pressedCategory = -1;
  });
  m_plot->setMouseTracking(true);
  connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
    if (m_toolTips.isEmpty())
      return;
    double key = m_plot->yAxis->pixelToCoord(e->position().y());
    int i = m_categories - int(std::lround(key));
    double value = m_plot->xAxis->pixelToCoord(e->position().x());
    if (i >= 0 && i < m_toolTips.size() && std::abs(key - std::round(key)) < 0.35 && value >= 0)
      QToolTip::showText(e->globalPosition().toPoint(), m_toolTips[i], m_plot);
    else
      QToolTip::hideText();
  });
}

void Plot::resetView() {
  m_plot->xAxis->setRange(m_range[0], m_range[1]);
  m_plot->yAxis->setRange(m_range[2], m_range[3]);
  m_plot->replot();
}

void Plot::clear() {
  m_plot->clearPlottables();
  m_plot->clearItems();
  m_plot->clearGraphs();
  m_categories = 0;
  m_toolTips.clear();
  m_pointSets.clear();
  m_pointOrder.clear();
  m_labels.clear(); // clearItems() deleted them
  m_categoryNames.clear();
  m_series.clear();
  m_highlight = nullptr; // deleted with the items
  m_highlighted = -1;
  m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  m_plot->xAxis->setScaleType(QCPAxis::stLinear);
  m_plot->yAxis->setScaleType(QCPAxis::stLinear);
}

void Plot::setAxes(const QString& xLabel, double xMin, double xMax, bool xLog,
                   const QString& yLabel, double yMin, double yMax, bool yLog) {
  auto setup = [](QCPAxis* axis, const QString& label, double lo, double hi, bool log) {
    axis->setLabel(label);
    axis->setScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (log) {
      auto ticker = QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog);
      ticker->setLogBase(10);
      ticker->setSubTickCount(8);
      axis->setTicker(ticker);
      axis->setNumberFormat(QStringLiteral("gb"));
      axis->setNumberPrecision(0);
    } else {
      axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
      axis->setNumberFormat(QStringLiteral("g"));
      axis->setNumberPrecision(4);
    }
    axis->setRange(lo, hi);
  };
  setup(m_plot->xAxis, xLabel, xMin, xMax, xLog);
  setup(m_plot->yAxis, yLabel, yMin, yMax, yLog);
  m_range[0] = xMin;
  m_range[1] = xMax;
  m_range[2] = yMin;
  m_range[3] = yMax;
}

void Plot::addLine(const QVector<QPointF>& points, const QColor& color, const QString& legend,
                   Qt::PenStyle style, qreal width) {
  QCPGraph* g = m_plot->addGraph();
  QVector<double> x, y;
  for (const QPointF& p : points) {
    x << p.x();
    y << p.y();
  }
  g->setData(x, y, true);
  g->setPen(QPen(color, width, style));
  g->setName(legend);
  if (legend.isEmpty())
    g->removeFromLegend();
}

int Plot::addPoints(const QVector<QPointF>& points, const QColor& color, const QString& legend,
                    Marker marker, qreal size) {
  QCPGraph* g = m_plot->addGraph();
  // QCustomPlot keeps graph data sorted by key: sort here and remember where each point went.
  QVector<int> order(points.size());
  for (int i = 0; i < points.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return points[a].x() < points[b].x(); });
  QVector<double> x, y;
  for (int i : order) {
    x << points[i].x();
    y << points[i].y();
  }
  g->setData(x, y, true);
  g->setLineStyle(QCPGraph::lsNone);
  QCPScatterStyle::ScatterShape shape = marker == Marker::Disc      ? QCPScatterStyle::ssDisc
                                        : marker == Marker::Circle  ? QCPScatterStyle::ssCircle
                                        : marker == Marker::Diamond ? QCPScatterStyle::ssDiamond
                                                                    : QCPScatterStyle::ssCross;
  QCPScatterStyle style(shape, QPen(color, 2),
                        marker == Marker::Circle ? QBrush(Qt::NoBrush) : QBrush(color), size);
  g->setScatterStyle(style);
  g->setPen(QPen(color, 2));
  g->setName(legend);
  if (legend.isEmpty())
    g->removeFromLegend();
  m_pointSets << g;
  m_pointOrder << order;
  return int(m_pointSets.size()) - 1;
}

void Plot::addErrorBar(double x, double yLo, double yHi, const QColor& color) {
  auto* line = new QCPItemLine(m_plot);
  line->start->setCoords(x, yLo);
  line->end->setCoords(x, yHi);
  line->setPen(QPen(color, 1.5));
  line->setHead(QCPLineEnding(QCPLineEnding::esBar, 10));
  line->setTail(QCPLineEnding(QCPLineEnding::esBar, 10));
}

void Plot::addText(const QPointF& at, const QString& text, const QColor& color, Qt::Alignment align,
                   bool bold) {
  auto* t = new QCPItemText(m_plot);
  t->position->setCoords(at.x(), at.y());
  t->setPositionAlignment(align);
  t->setText(text);
  t->setColor(color.isValid() ? color : textColour(this));
  QFont f = font();
  f.setBold(bold);
  t->setFont(f);
  t->setPadding(QMargins(4, 2, 4, 2));
  // A translucent plate keeps labels readable where they cross lines.
  QColor plate = palette().color(QPalette::Base);
  plate.setAlpha(190);
  t->setBrush(plate);
  // Placed in pixels after each layout (placeLabels); the leader shows only when it moved.
  t->position->setType(QCPItemPosition::ptAbsolute);
  t->setPositionAlignment(Qt::AlignCenter);
  t->setClipToAxisRect(false);
  auto* leader = new QCPItemLine(m_plot);
  leader->setPen(QPen(t->color(), 1));
  leader->setClipToAxisRect(false);
  leader->setVisible(false);
  m_labels.append({t, leader, at, align, text});
}

void Plot::placeLabels() {
  if (m_labels.isEmpty())
    return;
  QVector<views::LabelRequest> requests;
  const QRectF bounds(m_plot->axisRect()->rect());
  for (const Label& l : std::as_const(m_labels)) {
    // A label wider than the plot is elided line by line: it stays inside, start first.
    QFontMetricsF lineMetrics(l.item->font());
    const QMargins margins = l.item->padding();
    const double room = bounds.width() - margins.left() - margins.right() - 2;
    QStringList lines = l.text.split(QLatin1Char('\n'));
    for (QString& line : lines)
      line = lineMetrics.elidedText(line, Qt::ElideRight, room);
    l.item->setText(lines.join(QLatin1Char('\n')));
    // Bars have their keys on y and values on x too: at is (value, key) there.
    QPointF px(m_plot->xAxis->coordToPixel(l.at.x()), m_plot->yAxis->coordToPixel(l.at.y()));
    QFontMetricsF fm(l.item->font());
    QMargins pad = l.item->padding();
    double widest = 0;
    for (const QString& line : lines)
      widest = std::max(widest, fm.horizontalAdvance(line));
    QSizeF size(widest + pad.left() + pad.right() + 2,
                fm.lineSpacing() * lines.size() + pad.top() + pad.bottom());
    requests.append({px, size, l.align});
  }
  const QVector<views::PlacedLabel> placed = views::placeLabels(requests, bounds);
  for (int i = 0; i < m_labels.size(); ++i) {
    const Label& l = m_labels[i];
    l.item->position->setPixelPosition(placed[i].rect.center());
    l.leader->setVisible(placed[i].leader);
    l.leader->start->setPixelPosition(requests[i].anchor);
    l.leader->end->setPixelPosition(placed[i].leaderEnd);
  }
}

void Plot::resizeEvent(QResizeEvent* event) {
  fitToWidth(event->size().width());
  QWidget::resizeEvent(event);
}

void Plot::fitToWidth(int width) {
  // About one value tick per 80 px: "0250500750" never happens.
  int ticks = std::clamp(width / 80, 2, 8);
  for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis})
    if (axis->scaleType() == QCPAxis::stLinear &&
        !qSharedPointerDynamicCast<QCPAxisTickerText>(axis->ticker()))
      axis->ticker()->setTickCount(ticks);
  QFontMetrics fm(font());
  if (!m_categoryNames.isEmpty())
    if (auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(m_plot->yAxis->ticker())) {
      // Category names take at most 45% of the width, elided in the middle (the line number
      // at the end stays readable).
      ticker->clear();
      int n = int(m_categoryNames.size());
      for (int i = 0; i < n; ++i)
        ticker->addTick(double(n - i),
                        fm.elidedText(m_categoryNames[i], Qt::ElideMiddle, width * 45 / 100));
    }
  if (!m_title.isEmpty() && m_plot->plotLayout()->rowCount() > 1)
    if (auto* t = qobject_cast<QCPTextElement*>(m_plot->plotLayout()->element(0, 0))) {
      QFontMetrics bold(t->font());
      t->setText(bold.elidedText(m_title, Qt::ElideRight, std::max(40, width - 12)));
      setToolTip(bold.horizontalAdvance(m_title) > width - 12 ? m_title : QString());
    }
}

void Plot::addNote(const QString& text, const QColor& color) {
  auto* t = new QCPItemText(m_plot);
  t->position->setType(QCPItemPosition::ptAxisRectRatio);
  t->position->setCoords(0.02, 0.03);
  t->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
  t->setTextAlignment(Qt::AlignLeft);
  t->setText(text);
  t->setColor(color.isValid() ? color : textColour(this));
  QColor bg = palette().color(QPalette::Base);
  bg.setAlpha(220);
  t->setBrush(bg);
  t->setPadding(QMargins(6, 4, 6, 4));
  t->setPen(QPen(gridColour(this)));
}

void Plot::setBars(const QStringList& categories, const QVector<BarSeries>& series,
                   const QString& valueLabel, const QStringList& toolTips) {
  m_categories = int(categories.size());
  m_categoryNames = categories;
  m_toolTips = toolTips;
  m_series.clear();
  for (const BarSeries& s : series)
    m_series << s.values.mid(0, categories.size());
  m_highlighted = -1;
  // Categories top to bottom: key i = n - i.
  int n = int(categories.size());
  auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
  QVector<double> keys;
  for (int i = 0; i < n; ++i) {
    keys << double(n - i);
    ticker->addTick(double(n - i), categories[i]);
  }
  m_plot->yAxis->setTicker(ticker);
  m_plot->yAxis->setScaleType(QCPAxis::stLinear);
  m_plot->yAxis->setLabel(QString());
  m_plot->yAxis->setRange(0.4, n + 0.6);
  m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  m_plot->xAxis->setScaleType(QCPAxis::stLinear);
  m_plot->xAxis->setNumberFormat(QStringLiteral("g"));
  m_plot->xAxis->setLabel(valueLabel);
  QCPBars* below = nullptr;
  double maxTotal = 0;
  QVector<double> totals(n, 0.0);
  for (const BarSeries& s : series) {
    auto* bars = new QCPBars(m_plot->yAxis, m_plot->xAxis);
    bars->setWidth(0.65);
    bars->setName(s.label);
    bars->setPen(QPen(s.color.darker(120)));
    bars->setBrush(s.color);
    bars->setData(keys, s.values.mid(0, n)); // keys descend: let QCustomPlot sort them
    if (below)
      bars->moveAbove(below);
    below = bars;
    for (int i = 0; i < n && i < s.values.size(); ++i)
      totals[i] += s.values[i];
  }
  for (double t : totals)
    maxTotal = std::max(maxTotal, t);
  m_plot->xAxis->setRange(0, maxTotal > 0 ? maxTotal * 1.25 : 1);
  m_range[0] = 0;
  m_range[1] = maxTotal > 0 ? maxTotal * 1.25 : 1;
  m_range[2] = 0.4;
  m_range[3] = n + 0.6;
  for (int i = 0; i < n; ++i)
    if (totals[i] > 0)
      addText(QPointF(totals[i], keys[i]),
              (totals[i] >= 100 ? QString::number(totals[i], 'f', 0)
                                : QString::number(totals[i], 'g', 3)),
              textColour(this), Qt::AlignLeft | Qt::AlignVCenter);
}

QWidget* Plot::canvas() const {
  return m_plot;
}

QRectF Plot::segmentRect(int category, int series) const {
  if (category < 0 || category >= m_categories || series < 0 || series >= m_series.size())
    return {};
  double base = 0;
  for (int s = 0; s < series; ++s)
    base += m_series[s].value(category);
  double v = m_series[series].value(category);
  if (v <= 0)
    return {};
  double key = double(m_categories - category);
  // Bars are horizontal: value on the x axis, key on the y axis (width 0.65 as drawn).
  QPointF a(m_plot->xAxis->coordToPixel(base), m_plot->yAxis->coordToPixel(key + 0.325));
  QPointF b(m_plot->xAxis->coordToPixel(base + v), m_plot->yAxis->coordToPixel(key - 0.325));
  return QRectF(a, b).normalized();
}

int Plot::categoryAt(QPointF pos) const {
  if (m_categories == 0 || !m_plot->axisRect()->rect().contains(pos.toPoint()))
    return -1;
  double key = m_plot->yAxis->pixelToCoord(pos.y());
  int i = m_categories - int(std::lround(key));
  if (i < 0 || i >= m_categories || std::abs(key - std::round(key)) > 0.4)
    return -1;
  double total = 0;
  for (const QVector<double>& s : m_series)
    total += std::max(0.0, s.value(i));
  if (total <= 0)
    return -1;
  // The bar and its value label (about 6 characters) to the right of it.
  double right = m_plot->xAxis->coordToPixel(total) +
                 fontMetrics().horizontalAdvance(QStringLiteral("000000"));
  double left = m_plot->xAxis->coordToPixel(0);
  return pos.x() >= left - 2 && pos.x() <= right ? i : -1;
}

void Plot::setHighlightedCategory(int category) {
  if (category >= m_categories)
    category = -1;
  if (category == m_highlighted)
    return;
  m_highlighted = category;
  if (m_highlight) {
    m_plot->removeItem(m_highlight);
    m_highlight = nullptr;
  }
  // The tick label of the selected category in bold: the text ticker has no per-tick font, so
  // the label is marked with a leading ▶.
  if (auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(m_plot->yAxis->ticker())) {
    ticker->clear();
    for (int i = 0; i < m_categories; ++i)
      ticker->addTick(double(m_categories - i),
                      i == category ? QStringLiteral("▶ ") + m_categoryNames.value(i)
                                    : m_categoryNames.value(i));
  }
  if (category >= 0) {
    // A band behind the row, across the whole value range, under the bars.
    m_highlight = new QCPItemRect(m_plot);
    m_highlight->setLayer(QStringLiteral("background"));
    m_highlight->setClipToAxisRect(true);
    double key = double(m_categories - category);
    m_highlight->topLeft->setTypeX(QCPItemPosition::ptAxisRectRatio);
    m_highlight->topLeft->setTypeY(QCPItemPosition::ptPlotCoords);
    m_highlight->bottomRight->setTypeX(QCPItemPosition::ptAxisRectRatio);
    m_highlight->bottomRight->setTypeY(QCPItemPosition::ptPlotCoords);
    m_highlight->topLeft->setCoords(0, key + 0.48);
    m_highlight->bottomRight->setCoords(1, key - 0.48);
    QColor band = palette().color(QPalette::Highlight);
    m_highlight->setPen(QPen(band, 1.2));
    band.setAlpha(50);
    m_highlight->setBrush(band);
  }
  m_plot->replot();
}

void Plot::setLegendVisible(bool visible, int columns) {
  if (visible && !m_legendBelow) {
    // Below the axis rect, in one row: it never hides data or value labels.
    auto* row = new QCPLayoutGrid;
    m_plot->plotLayout()->addElement(m_plot->plotLayout()->rowCount(), 0, row);
    m_plot->axisRect()->insetLayout()->take(m_plot->legend);
    row->addElement(0, 0, m_plot->legend);
    m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    m_plot->plotLayout()->setRowStretchFactor(m_plot->plotLayout()->rowCount() - 1, 0.001);
    row->setMargins(QMargins(0, 0, 0, 4));
    m_legendBelow = true;
  }
  // Legend items exist already (one per graph): re-filling lays them out with the new wrap.
  m_plot->legend->setWrap(columns);
  m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst, true);
  m_plot->legend->setVisible(visible);
}

void Plot::setTitle(const QString& title) {
  m_title = title;
  if (m_plot->plotLayout()->rowCount() > 1 &&
      qobject_cast<QCPTextElement*>(m_plot->plotLayout()->element(0, 0))) {
    static_cast<QCPTextElement*>(m_plot->plotLayout()->element(0, 0))->setText(title);
    return;
  }
  m_plot->plotLayout()->insertRow(0);
  auto* t =
      new QCPTextElement(m_plot, title, QFont(font().family(), font().pointSize(), QFont::Bold));
  t->setTextColor(textColour(this));
  m_plot->plotLayout()->addElement(0, 0, t);
}

void Plot::replot() {
  fitToWidth(width());
  m_plot->replot();
}

QPoint Plot::toPixel(const QPointF& data) const {
  return QPointF(m_plot->xAxis->coordToPixel(data.x()), m_plot->yAxis->coordToPixel(data.y()))
      .toPoint();
}

int Plot::itemCount() const {
  return m_plot->plottableCount() + m_plot->itemCount();
}

void Plot::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange) {
    applyPalette();
    m_plot->replot();
  }
  QWidget::changeEvent(event);
}

void Plot::applyPalette() {
  QColor fg = textColour(this), grid = gridColour(this);
  m_plot->setBackground(palette().color(QPalette::Base));
  m_plot->axisRect()->setBackground(palette().color(QPalette::Base));
  for (QCPAxis* a : {m_plot->xAxis, m_plot->yAxis}) {
    a->setBasePen(QPen(fg));
    a->setTickPen(QPen(fg));
    a->setSubTickPen(QPen(grid));
    a->setTickLabelColor(fg);
    a->setLabelColor(fg);
    a->grid()->setPen(QPen(grid, 1, Qt::DotLine));
    a->grid()->setSubGridVisible(false);
  }
  m_plot->legend->setBrush(palette().color(QPalette::Base));
  m_plot->legend->setTextColor(fg);
  m_plot->legend->setBorderPen(QPen(grid));
  if (m_plot->plotLayout()->rowCount() > 1)
    if (auto* t = qobject_cast<QCPTextElement*>(m_plot->plotLayout()->element(0, 0)))
      t->setTextColor(fg);
}

} // namespace cake::widgets
