// Performance view: roofline, time breakdown and hints of one cost snapshot.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/PerformanceView.h"

#include "cake/views/ViewPalette.h"
#include "cake/widgets/Plot.h"

#include <QEvent>
#include <QFileInfo>
#include <QLabel>
#include <QSplitter>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <cmath>

namespace cake::widgets {

namespace {
// Mid-saturation colours: readable on white and on dark bases.
const QColor kTensor(0xe6, 0x7e, 0x22);
const QColor kFp32(0x9b, 0x72, 0xcf);
const QColor kHbm(0x2e, 0x86, 0xc1);
const QColor kL2(0x27, 0xae, 0x60);
const QColor kPredicted(0xe7, 0x4c, 0x3c);
const QColor kMeasured(0xf1, 0xc4, 0x0f);
const QColor kBusy(0x34, 0x98, 0xdb);
const QColor kWait(0xe6, 0x7e, 0x22);

QString esc(const QString& s) {
  return s.toHtmlEscaped();
}

/// Breaks a note into lines of about `width` characters (chart notes do not wrap).
QString wrapped(const QString& text, int width = 80) {
  QStringList lines;
  for (const QString& paragraph : text.split('\n')) {
    QString line;
    for (const QString& word : paragraph.split(' ')) {
      if (!line.isEmpty() && line.size() + 1 + word.size() > width) {
        lines << line;
        line.clear();
      }
      line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + word;
    }
    lines << line;
  }
  return lines.join('\n');
}
} // namespace

PerformanceView::PerformanceView(views::SelectionModel* selection, QWidget* parent)
    : QWidget(parent), m_selection(selection), m_header(new QLabel(this)),
      m_baseline(new QLabel(this)), m_roofline(new Plot(this)), m_ops(new Plot(this)),
      m_roles(new Plot(this)), m_hints(new QTextBrowser(this)) {
  setObjectName(QStringLiteral("performanceView"));
  m_roofline->setObjectName(QStringLiteral("rooflinePlot"));
  m_ops->setObjectName(QStringLiteral("opTimePlot"));
  m_roles->setObjectName(QStringLiteral("roleTimePlot"));
  m_header->setObjectName(QStringLiteral("performanceHeader"));
  m_header->setWordWrap(true);
  m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_hints->setObjectName(QStringLiteral("performanceHints"));
  m_hints->setReadOnly(true);
  m_hints->setOpenLinks(false);
  connect(m_hints, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
    if (url.scheme() == QLatin1String("try") && m_cost && m_cost->estimate)
      Q_EMIT tryHint(m_cost, url.path().toInt());
    if (url.scheme() == QLatin1String("apply") && m_cost && m_cost->estimate)
      Q_EMIT applyHint(m_cost, url.path().toInt());
  });
  m_hints->setMinimumHeight(70);
  auto* right = m_right = new QSplitter(Qt::Vertical, this);
  right->addWidget(m_ops);
  right->addWidget(m_roles);
  right->addWidget(m_hints);
  right->setStretchFactor(0, 5);
  right->setStretchFactor(1, 3);
  right->setStretchFactor(2, 2);
  auto* split = m_split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(m_roofline);
  split->addWidget(right);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(m_header);
  m_baseline->setObjectName(QStringLiteral("performanceBaseline"));
  m_baseline->setTextFormat(Qt::RichText);
  m_baseline->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_baseline->hide();
  layout->addWidget(m_baseline);
  layout->addWidget(split, 1);
  m_waiting = tr("no kernel checked yet");
  // An operation's bar selects it (editor, graph, timeline, lowered code follow).
  connect(m_ops, &Plot::categoryClicked, this, [this](int i) {
    if (m_cost && m_cost->data.ok && i >= 0 && i < m_cost->data.ops.size())
      m_selection->selectOp(m_cost->data.ops[i].op, -1, views::SelectionOrigin::Performance);
  });
  // The selected operation, wherever it was picked, is marked on the per-operation chart (B7).
  connect(m_selection, &views::SelectionModel::selectionChanged, this,
          [this] { highlightSelectedOp(); });
  render();
}

void PerformanceView::setCheck(const views::CheckSnapshotPtr& snapshot) {
  m_check = snapshot ? snapshot->jobId : 0;
  if (!snapshot) {
    m_pending = false;
    m_waiting = tr("no kernel checked yet");
  } else if (!snapshot->result.accepted) {
    // No cost job runs for a refused kernel: say why right away.
    m_pending = false;
    int blocking = 0;
    for (const Diagnostic& d : snapshot->result.diagnostics)
      blocking += d.severity == Severity::Blocking;
    m_waiting =
        tr("No cost estimate: the kernel is refused (%1 blocking finding(s)). Fix them in the "
           "editor; costing an illegal kernel is meaningless.")
            .arg(blocking);
    m_cost.reset();
  } else {
    m_pending = !m_cost || m_cost->checkJob != m_check;
    m_waiting = tr("estimating…");
  }
  render();
}

void PerformanceView::setCost(const views::CostSnapshotPtr& cost) {
  if (!cost || (m_check != 0 && cost->checkJob != m_check))
    return; // an estimate of another check
  m_cost = cost;
  m_pending = false;
  render();
}

void PerformanceView::setBaselineDelta(const views::BaselineDeltaPtr& delta) {
  m_delta = delta;
  if (!delta || !delta->diff) {
    m_baseline->clear();
    m_baseline->hide();
    return;
  }
  const diff::KernelDiff& d = *delta->diff;
  auto num = [](const std::optional<double>& v, int digits) {
    return v ? QString::number(*v, 'f', digits) : QStringLiteral("–");
  };
  auto row = [&](const QString& metric, const diff::Quantity& q, int digits) {
    QString delta = QStringLiteral("–");
    QString colour = QStringLiteral("inherit");
    if (q.before && q.after) {
      double x = *q.after - *q.before;
      delta = (x > 0 ? QStringLiteral("+") : QString()) + QString::number(x, 'f', digits);
      if (*q.before != 0)
        delta +=
            QStringLiteral(" (%1%2%)").arg(x > 0 ? "+" : "").arg(100.0 * x / *q.before, 0, 'f', 1);
      // Lower is better for every metric shown here (time, memory, registers).
      const views::ViewPalette& pal = views::ViewPalette::forPalette(palette());
      colour = !q.differs() ? QStringLiteral("inherit")
               : x < 0      ? pal.added.name()
                            : pal.removed.name();
    }
    return QStringLiteral("<tr><td>%1</td><td align=right>%2</td><td align=right>%3</td>"
                          "<td align=right style='color:%4'><b>%5</b></td></tr>")
        .arg(esc(metric), num(q.before, digits), num(q.after, digits), colour, delta);
  };
  QString html = QStringLiteral("<table cellspacing=0 cellpadding=2><tr><th align=left>%1</th>"
                                "<th align=right>%2</th><th align=right>%3</th>"
                                "<th align=right>%4</th></tr>")
                     .arg(tr("vs baseline %1").arg(esc(QFileInfo(delta->baselinePath).fileName())),
                          tr("baseline"), tr("current"), tr("Δ"));
  html += row(tr("predicted µs"), d.predictedUs, 2);
  html +=
      QStringLiteral("<tr><td>%1</td><td align=right>%2</td><td align=right>%3</td><td></td></tr>")
          .arg(tr("bottleneck"), esc(QString::fromStdString(d.bottleneckBefore)),
               esc(QString::fromStdString(d.bottleneckAfter)));
  html +=
      QStringLiteral("<tr><td>%1</td><td></td><td></td><td align=right><b>+%2 −%3</b></td></tr>")
          .arg(tr("findings"))
          .arg(delta->findingsAppeared)
          .arg(delta->findingsDisappeared);
  html += row(tr("shared memory B"), d.smemBytes, 0);
  for (const auto& [role, q] : d.registers)
    html += row(tr("registers %1").arg(QString::fromStdString(role)), q, 0);
  for (const auto& [pipe, q] : d.stages)
    html += row(tr("stages %1").arg(QString::fromStdString(pipe)), q, 0);
  html += QStringLiteral("</table>");
  m_baseline->setText(html);
  m_baseline->show();
}

QString PerformanceView::baselineText() const {
  return m_baseline->isVisible() || m_delta ? m_baseline->text() : QString();
}

void PerformanceView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  // Initial proportions (3:2 across, 5:3:2 down); the user's splitter moves are kept after.
  if (!m_sized && m_split->width() > 100 && m_right->height() > 100) {
    int w = m_split->width(), h = m_right->height();
    m_split->setSizes({w * 3 / 5, w - w * 3 / 5});
    m_right->setSizes({h / 2, h * 3 / 10, h - h / 2 - h * 3 / 10});
    m_sized = true;
  }
}

QString PerformanceView::statusText() const {
  return m_header->text();
}

void PerformanceView::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange)
    render();
  QWidget::changeEvent(event);
}

void PerformanceView::highlightSelectedOp() {
  int row = -1;
  if (m_cost && m_cost->data.ok) {
    const int op = m_selection->current().op;
    for (int i = 0; op >= 0 && i < m_cost->data.ops.size(); ++i)
      if (m_cost->data.ops[i].op == op)
        row = i;
  }
  m_ops->setHighlightedCategory(row);
}

void PerformanceView::render() {
  m_roofline->clear();
  m_ops->clear();
  m_roles->clear();
  bool current = m_cost && m_cost->checkJob == m_check;
  if (!current || !m_cost->data.ok) {
    QString why = current ? m_cost->data.unavailable : m_waiting;
    m_header->setText(why);
    m_roofline->setAxes(tr("arithmetic intensity (FLOP/byte)"), 0.01, 1e4, true, tr("TFLOP/s"),
                        0.01, 1e4, true);
    m_roofline->addNote(wrapped(why));
    m_ops->addNote(tr("no predicted time"));
    m_roles->addNote(tr("no predicted time"));
    m_hints->clear();
    m_roofline->replot();
    m_ops->replot();
    m_roles->replot();
    return;
  }
  const views::PerformanceData& d = m_cost->data;
  m_header->setText(QStringLiteral("<b>%1</b><br>bottleneck: <b>%2</b> — %3")
                        .arg(esc(d.summary), esc(d.bottleneck), esc(d.bottleneckDetail)));
  m_header->setTextFormat(Qt::RichText);

  // Roofline.
  const views::RooflineGeometry& g = d.roofline;
  m_roofline->setTitle(tr("Roofline — %1").arg(d.gpu.isEmpty() ? d.target : d.gpu));
  m_roofline->setAxes(tr("arithmetic intensity (FLOP / HBM byte)"), g.xMin, g.xMax, true,
                      tr("TFLOP/s"), g.yMin, g.yMax, true);
  double topPeak = 0;
  for (const views::Ceiling& c : g.ceilings)
    if (!c.bandwidth)
      topPeak = std::max(topPeak, c.value);
  QColor fg = palette().color(QPalette::Text);
  for (const views::Ceiling& c : g.ceilings) {
    if (c.bandwidth) {
      // The slope up to where it meets the top peak.
      double ridge = views::RooflineGeometry::ridge(topPeak, c.value);
      bool hbm = c.label.startsWith(QLatin1String("HBM"));
      QColor col = hbm ? kHbm : kL2;
      m_roofline->addLine(
          {QPointF(g.xMin, views::RooflineGeometry::attainable(g.xMin, topPeak, c.value)),
           QPointF(ridge, topPeak)},
          col, c.label, hbm ? Qt::SolidLine : Qt::DashLine, hbm ? 2.5 : 1.8);
      // Label along the slope, a decade right of the left edge.
      double lx = g.xMin * 3;
      m_roofline->addText(QPointF(lx, views::RooflineGeometry::attainable(lx, topPeak, c.value)),
                          c.label, col, Qt::AlignLeft | Qt::AlignBottom, true);
    } else {
      bool tensor = c.value == topPeak && c.label.startsWith(QLatin1String("tensor"));
      QColor col = tensor ? kTensor : kFp32;
      double hbm = 0;
      for (const views::Ceiling& b : g.ceilings)
        if (b.bandwidth && (hbm == 0 || b.value < hbm))
          hbm = b.value;
      double from = hbm > 0 ? views::RooflineGeometry::ridge(c.value, hbm) : g.xMin;
      if (!tensor)
        from = g.xMin; // a lower peak is a ceiling across the chart
      m_roofline->addLine({QPointF(from, c.value), QPointF(g.xMax, c.value)}, col, c.label,
                          tensor ? Qt::SolidLine : Qt::DashDotLine, tensor ? 2.5 : 1.8);
      m_roofline->addText(QPointF(g.xMax, c.value), c.label, col, Qt::AlignRight | Qt::AlignBottom,
                          true);
      if (hbm > 0 && tensor)
        m_roofline->addText(
            QPointF(from, c.value),
            tr("ridge %1").arg(views::RooflineGeometry::ridge(c.value, hbm), 0, 'f', 0), fg,
            Qt::AlignHCenter | Qt::AlignTop);
    }
  }
  if (d.hasFlops) {
    const views::RooflinePoint& p = d.predicted;
    m_roofline->addErrorBar(p.intensity, p.loTflops, p.hiTflops, kPredicted);
    m_roofline->addPoints({QPointF(p.intensity, p.tflops)}, kPredicted, tr("predicted"),
                          Plot::Marker::Disc, 12);
    // Below the point on the side with room (toward the middle of the chart), clear of the
    // error bar and of the L2 point's label (above-left of its point).
    bool rightHalf = std::log10(p.intensity / g.xMin) > 0.5 * std::log10(g.xMax / g.xMin);
    m_roofline->addText(
        QPointF(rightHalf ? p.intensity / 1.25 : p.intensity * 1.25, p.tflops / 1.5),
        tr("%1\n%2 TFLOP/s (%3 – %4)")
            .arg(p.label)
            .arg(p.tflops, 0, 'f', 1)
            .arg(p.loTflops, 0, 'f', 1)
            .arg(p.hiTflops, 0, 'f', 1),
        kPredicted, (rightHalf ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop, true);
    if (d.predictedL2.intensity > 0) {
      m_roofline->addPoints({QPointF(d.predictedL2.intensity, d.predictedL2.tflops)}, kL2,
                            tr("at L2 intensity"), Plot::Marker::Circle, 10);
      m_roofline->addText(QPointF(d.predictedL2.intensity / 1.15, d.predictedL2.tflops * 1.15),
                          d.predictedL2.label, kL2, Qt::AlignRight | Qt::AlignBottom);
    }
    QVector<QPointF> measured;
    for (const views::RooflinePoint& m : d.measured)
      measured << QPointF(m.intensity, m.tflops);
    if (!measured.isEmpty())
      m_roofline->addPoints(measured, kMeasured, tr("measured"), Plot::Marker::Diamond, 12);
    m_roofline->addNote(d.measuredNote +
                        (d.calibrated
                             ? QString()
                             : tr("\nprediction not calibrated: datasheet peaks, bounds ±50%")));
  } else {
    m_roofline->addNote(tr("the kernel does no FLOPs: it has no place on the roofline\n") +
                        d.measuredNote);
  }
  m_roofline->replot();

  // Time per operation (top ops) and per role.
  QStringList cats, tips;
  QVector<double> busy, wait;
  for (const views::TimeBar& b : d.ops) {
    cats << b.label;
    tips << b.detail + tr("\nclick: select it in every view");
    busy << b.us;
    wait << b.waitUs;
  }
  m_ops->setTitle(tr("Time per operation: share of the predicted time, busiest SM (★ %1)")
                      .arg(d.bottleneck));
  if (cats.isEmpty())
    m_ops->addNote(tr("no operation takes predicted time"));
  else
    m_ops->setBars(
        cats,
        {{tr("pipe busy"), kBusy, busy}, {tr("critical-role waiting it causes"), kWait, wait}},
        tr("µs"), tips);
  m_ops->setLegendVisible(!cats.isEmpty());
  highlightSelectedOp();
  m_ops->replot();
  cats.clear();
  tips.clear();
  busy.clear();
  wait.clear();
  for (const views::TimeBar& b : d.roles) {
    cats << b.label;
    tips << b.detail;
    busy << b.us;
    wait << b.waitUs;
  }
  m_roles->setTitle(tr("Per role, one CTA"));
  if (!cats.isEmpty())
    m_roles->setBars(cats, {{tr("busy"), kBusy, busy}, {tr("waiting"), kWait, wait}},
                     tr("µs per CTA"), tips);
  m_roles->setLegendVisible(!cats.isEmpty());
  m_roles->replot();

  QString html = QStringLiteral("<b>%1</b> %2<br>")
                     .arg(tr("Time terms:"), esc(d.terms.join(QStringLiteral(", "))));
  if (d.hints.isEmpty())
    html += tr("<b>Hints:</b> none — no re-checked variant is predicted at least 2% faster");
  else {
    html += tr("<b>Hints</b> (re-checked by the verifier):<ul style='margin:0'>");
    for (int i = 0; i < d.hints.size(); ++i) {
      // A hint that carries its edit can be tried: a child kernel compared with this one.
      bool mechanical = m_cost->estimate && std::size_t(i) < m_cost->estimate->hints.size() &&
                        !m_cost->estimate->hints[std::size_t(i)].edits.empty();
      html +=
          QStringLiteral("<li>%1%2</li>")
              .arg(esc(d.hints[i]), mechanical ? QStringLiteral(" <a href=\"try:%1\">Try</a> · "
                                                                "<a href=\"apply:%1\">Apply</a>")
                                                     .arg(i)
                                               : QString());
    }
    html += QStringLiteral("</ul>");
  }
  m_hints->setHtml(html);
}

} // namespace cake::widgets
