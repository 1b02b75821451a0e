// Timeline widget: paints lanes, blocks, marks, flows and findings with TimelineGeometry (its
// level of detail: merged arrows, labels that do not collide); Perfetto-style keys, wheel zoom
// around the cursor, drag to pan, drag on the axis to measure, click to select; the axis in
// predicted time or logical steps.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/TimelineView.h"

#include "cake/views/PerformanceData.h"
#include "cake/views/ViewPalette.h"

#include "TimelineBlockedPainter.h"
#include "TimelineLegend.h"
#include "TimelinePainters.h"
#include "cake/widgets/ElidedLabel.h"

#include "cake/Driver/TraceExport.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLabel>
#include <QPainter>
#include <QPainterPath>
#include <QScrollArea>
#include <QScrollBar>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace cake::widgets {

namespace {

constexpr double kHeader = 156;
constexpr double kAxis = 26;
constexpr double kOverview = 14;
constexpr qint64 kOpeningSteps = 44;

/// The shared view palette in the variant of a widget's palette (B11).
const views::ViewPalette& pal(const QWidget* w) {
  return views::ViewPalette::forPalette(w->palette());
}

QFont uiFont(int px, bool bold = false) {
  QFont f(QStringLiteral("DejaVu Sans"));
  f.setPixelSize(px);
  f.setBold(bold);
  return f;
}

/// A "nice" tick step (1, 2, 5 × 10^k) at least `minUnits` wide.
double tickStep(double minUnits) {
  double p = std::pow(10.0, std::floor(std::log10(std::max(minUnits, 1e-9))));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= minUnits)
      return std::max(1.0, m * p);
  return std::max(1.0, 10 * p);
}

} // namespace

class TimelineCanvas : public QWidget {
public:
  explicit TimelineCanvas(TimelineView* owner) : QWidget(owner), m_owner(owner) {
    setObjectName(QStringLiteral("timelineCanvas"));
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(false);
    setMinimumHeight(120);
    setAttribute(Qt::WA_OpaquePaintEvent);
  }

  views::TimelineGeometry geo;
  QVector<int> highlighted;
  int selectedBlock = -1;

  const views::TimelineData* data() const { return m_owner->data(); }
  /// The measured interval in axis units (NaN: none).
  double areaFrom = std::nan(""), areaTo = std::nan("");
  bool hasArea() const { return std::isfinite(areaFrom) && std::isfinite(areaTo) && areaTo != areaFrom; }

  void syncGeometry() {
    geo.left = kHeader;
    geo.width = std::max(40.0, width() - kHeader - 14);
    geo.top = kAxis + kOverview + 12;
    // Lanes share the visible height (bounded) so that two roles do not sit in a sliver;
    // more lanes than fit make the canvas taller and the scroll area scrolls (B2).
    geo.laneGap = 12;
    geo.fitLanes(m_owner->m_scroll->viewport()->height(), laneCount());
  }

  int laneCount() const {
    const views::TimelineData* d = data();
    return d ? std::max<int>(1, int(d->lanes.size())) : 1;
  }

  /// The canvas is as tall as its lanes need (at least the viewport: the scroll area
  /// stretches it).
  void updateContentHeight() {
    syncGeometry();
    int needed = std::max(120, int(std::ceil(geo.contentHeight(laneCount()))));
    if (minimumHeight() != needed)
      setMinimumHeight(needed);
  }

  /// The opening view: the whole trace when it is short, else its first steps (prologue and
  /// the first pipeline rounds), where the protocol can be read.
  void initialRange() {
    fitAll();
    const views::TimelineData* d = data();
    // A deadlock opens on the whole trace: the blocked waits at its end are the story. In
    // predicted time the whole CTA opens (arrows merge and labels thin out when zoomed out).
    if (d && !d->inTime() && d->endTime > kOpeningSteps && d->blocked.isEmpty()) {
      geo.setRange(-1, kOpeningSteps);
      update();
    }
  }

  void fitAll() {
    syncGeometry();
    const views::TimelineData* d = data();
    double end = d ? std::max<double>(total(*d), d->inTime() ? d->unitsPerUs * 1e-3 : 8) : 100;
    // Steps: at least 4 of them; predicted time: at least 1 ns.
    geo.minSpan = d && d->inTime() ? d->unitsPerUs * 1e-3 : 4;
    geo.maxSpan = end * 1.2 + geo.minSpan * 2;
    geo.setRange(-end * 0.01, end * 1.02);
    update();
  }

  void clampView() {
    if (const views::TimelineData* d = data())
      geo.clampTo(total(*d));
  }

  /// The time the view spans when fitted: on a deadlock, room after the last event for the
  /// blocked waits' bars and their text (45% of the width).
  static double total(const views::TimelineData& d) {
    return d.blocked.isEmpty() ? double(d.endTime) : double(d.endTime) / 0.55;
  }

  QSize sizeHint() const override {
    const views::TimelineData* d = data();
    int lanes = d ? int(d->lanes.size()) : 2;
    return {800, int(kAxis + kOverview + 12 + lanes * 46 + 30)};
  }

protected:
  void resizeEvent(QResizeEvent*) override { syncGeometry(); }

  void paintEvent(QPaintEvent*) override {
    syncGeometry();
    QPainter p(this);
    const views::ViewPalette& vp = pal(this);
    p.fillRect(rect(), vp.canvas);
    const views::TimelineData* d = data();
    if (!d || d->lanes.isEmpty()) {
      p.setPen(vp.mutedText);
      p.setFont(uiFont(12));
      p.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap,
                 d && !d->note.isEmpty() ? d->note : tr("no kernel"));
      return;
    }
    int lanes = int(d->lanes.size());
    p.setRenderHint(QPainter::Antialiasing, true);
    // Lane backgrounds.
    for (int l = 0; l < lanes; ++l) {
      QRectF band(0, geo.laneTop(l) - geo.laneGap / 2, width(), geo.laneHeight + geo.laneGap);
      p.fillRect(band, vp.band[l % 2]);
    }
    QRectF timeArea(geo.left, 0, geo.width + 14, height());
    p.save();
    p.setClipRect(timeArea);
    paintAxis(p);
    // Blocks.
    QFont blockFont = uiFont(10);
    p.setFont(blockFont);
    QFontMetrics fm(blockFont);
    QSet<int> hl(highlighted.begin(), highlighted.end());
    for (int l = 0; l < lanes; ++l) {
      QVector<int> visible = d->blocksInRange(l, qint64(std::floor(geo.viewStart)) - 1,
                                              qint64(std::ceil(geo.viewEnd)) + 1);
      double lastX = -1e9;
      for (int b : visible) {
        const views::TimelineBlock& blk = d->blocks[b];
        QRectF r = geo.blockRect(blk.start, blk.end, l);
        bool isOp = blk.kind == views::TimelineBlock::Kind::Op;
        r = isOp ? r.adjusted(0, 4, 0, -4) : r.adjusted(0, 11, 0, -11);
        if (r.width() < 1.5 && !hl.contains(b)) {
          // Dense zoom: one line per pixel column.
          if (r.left() - lastX < 1.0)
            continue;
          lastX = r.left();
          p.setPen(QPen(isOp ? vp.opFamily(blk.label).darker(130) : vp.border, 1));
          p.drawLine(QPointF(r.left(), r.top()), QPointF(r.left(), r.bottom()));
          continue;
        }
        if (isOp) {
          QColor fill = vp.opFamily(blk.label);
          p.setPen(QPen(vp.dark ? fill.lighter(170) : fill.darker(140), 0.8));
          p.setBrush(fill);
          p.drawRoundedRect(r, 2.5, 2.5);
        } else {
          p.setPen(Qt::NoPen);
          p.setBrush(vp.header);
          p.drawRect(r);
          p.setBrush(QBrush(vp.border, Qt::BDiagPattern));
          p.drawRect(r);
        }
        if (hl.contains(b)) {
          p.setBrush(Qt::NoBrush);
          p.setPen(QPen(vp.selection, b == selectedBlock ? 3 : 2));
          p.drawRoundedRect(r.adjusted(-1.5, -1.5, 1.5, 1.5), 3, 3);
        }
        if (r.width() > 24) {
          // The amber colour already says "mbarrier".
          QString name = blk.label.startsWith(QLatin1String("mbarrier.")) ? blk.label.mid(9) : blk.label;
          // Too narrow for "wgmma.commit": "commit" (the colour tells the family).
          if (isOp && fm.horizontalAdvance(name) > r.width() - 6 && name.contains(QLatin1Char('.')))
            name = name.section(QLatin1Char('.'), 1);
          QString text = fm.elidedText(name, Qt::ElideRight, int(r.width() - 6));
          if (text.size() > 1) {
            p.setPen(isOp ? vp.text : vp.mutedText);
            p.drawText(r.adjusted(3, 0, -3, 0), Qt::AlignCenter, text);
          }
        }
      }
    }
    paintMarks(p, geo, *d, pal(this));
    paintFlows(p, geo, *d, highlighted, uiFont(9), pal(this));
    paintBlockedWaits(p, geo, *d, uiFont(10, true), uiFont(10), vp);
    paintFindings(p, *d);
    paintArea(p);
    p.restore();
    paintOverview(p, geo, *d, QRectF(geo.left, kAxis + 3, geo.width, kOverview), pal(this));
    paintHeaders(p, *d);
  }

  /// The whole trace in one strip under the axis, with the visible window framed.
  double unitsPerUs() const {
    const views::TimelineData* d = data();
    return d ? d->unitsPerUs : 0;
  }

  /// The measured interval: a band over the lanes with its duration on a plate under the axis.
  void paintArea(QPainter& p) {
    if (hasArea())
      paintMeasuredArea(p, geo, std::min(areaFrom, areaTo), std::max(areaFrom, areaTo),
                        m_owner->areaReadout(), QRectF(0, kAxis, width(), height() - kAxis),
                        kAxis + kOverview + 8, uiFont(11, true), pal(this));
  }

  void paintAxis(QPainter& p) {
    p.setFont(uiFont(10));
    double step = tickStep(80 / geo.pixelsPerUnit());
    const views::ViewPalette& vp = pal(this);
    p.setPen(vp.headerEdge);
    double first = std::ceil(geo.viewStart / step) * step;
    for (double t = first; t <= geo.viewEnd; t += step) {
      double x = geo.xOf(t);
      p.drawLine(QPointF(x, kAxis + kOverview + 6), QPointF(x, height()));
    }
    p.fillRect(QRectF(geo.left, 0, width(), kAxis), vp.header);
    p.setPen(vp.mutedText);
    for (double t = first; t <= geo.viewEnd; t += step) {
      double x = geo.xOf(t);
      p.drawLine(QPointF(x, kAxis - 6), QPointF(x, kAxis));
      p.drawText(QRectF(x + 3, 2, 80, kAxis - 6), Qt::AlignLeft | Qt::AlignVCenter,
                 views::formatTimelineTime(t, unitsPerUs(), step));
    }
  }

  void paintFindings(QPainter& p, const views::TimelineData& d) {
    QFont f = uiFont(10, true);
    p.setFont(f);
    QFontMetrics fm(f);
    QSet<int> blockedLanes;
    for (const views::TimelineBlocked& b : d.blocked)
      blockedLanes.insert(b.lane);
    for (const views::TimelineFinding& fi : d.findings) {
      double x = geo.xOf(double(fi.time));
      double top = geo.laneTop(fi.lane);
      QColor c = pal(this).severity(fi.severity);
      // A lane with a blocked wait shows it (paintBlocked) instead of a bare "blocked here".
      if (fi.blocked && !blockedLanes.contains(fi.lane)) {
        QRectF bar(x, top + 2, std::max(30.0, geo.width + geo.left - x), geo.laneHeight - 4);
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(c.red(), c.green(), c.blue(), 40));
        p.drawRect(bar);
        p.setBrush(QBrush(QColor(c.red(), c.green(), c.blue(), 110), Qt::FDiagPattern));
        p.drawRect(bar);
        p.setPen(c.darker(120));
        QString code = fi.text.section(QLatin1Char(']'), 0, 0).mid(1);
        p.drawText(bar.adjusted(8, 0, -4, 0), Qt::AlignLeft | Qt::AlignVCenter,
                   fm.elidedText(tr("blocked here: %1").arg(code), Qt::ElideRight, int(bar.width() - 12)));
      }
      if (x < geo.left - 10 || x > geo.left + geo.width + 10)
        continue;
      QPolygonF tri;
      tri << QPointF(x, top + 9) << QPointF(x - 6, top - 3) << QPointF(x + 6, top - 3);
      p.setPen(QPen(pal(this).canvas, 1));
      p.setBrush(c);
      p.drawPolygon(tri);
    }
  }

  void paintHeaders(QPainter& p, const views::TimelineData& d) {
    const views::ViewPalette& vp = pal(this);
    p.fillRect(QRectF(0, 0, kHeader - 4, height()), vp.band[1]);
    p.fillRect(QRectF(0, 0, kHeader - 4, kAxis), vp.header);
    p.setPen(vp.headerEdge);
    p.drawLine(QPointF(kHeader - 4, 0), QPointF(kHeader - 4, height()));
    p.setPen(vp.mutedText);
    p.setFont(uiFont(10));
    p.drawText(QRectF(8, 0, kHeader - 16, kAxis), Qt::AlignLeft | Qt::AlignVCenter,
               d.inTime() ? tr("role / predicted time") : tr("role / logical step"));
    p.drawText(QRectF(8, kAxis + 1, kHeader - 16, kOverview + 4), Qt::AlignLeft | Qt::AlignVCenter, tr("whole trace"));
    for (int l = 0; l < d.lanes.size(); ++l) {
      QRectF r(10, geo.laneTop(l), kHeader - 18, geo.laneHeight);
      p.setPen(vp.text);
      p.setFont(uiFont(12, true));
      p.drawText(r.adjusted(0, 1, 0, -r.height() / 2), Qt::AlignLeft | Qt::AlignBottom, d.lanes[l]);
      p.setPen(vp.mutedText);
      p.setFont(uiFont(10));
      p.drawText(r.adjusted(0, r.height() / 2 + 1, 0, 0), Qt::AlignLeft | Qt::AlignTop, d.laneDetail.value(l));
    }
    // Key help and the summary at the bottom.
    double y = geo.laneTop(int(d.lanes.size())) + 2;
    if (y + 16 < height()) {
      p.setPen(vp.mutedText);
      p.setFont(uiFont(10));
      QString help = tr("W/S zoom · A/D pan · F focus · 0 fit · wheel zoom · drag pan · drag the "
                        "axis (or Shift+drag) to measure · Esc clears · click selects");
      if (d.inTime())
        help = tr("predicted time of one CTA (busiest SM, analysed tiles) · ") + help;
      if (d.deadlock)
        help = tr("DEADLOCK: the simulation stopped with roles blocked · ") + help;
      else if (d.boundReached)
        help = tr("analysis bound reached: the trace is truncated · ") + help;
      p.drawText(QRectF(kHeader, y, width() - kHeader - 8, 16), Qt::AlignLeft | Qt::AlignVCenter, help);
    }
  }

  void keyPressEvent(QKeyEvent* e) override {
    QPointF cursor = mapFromGlobal(QCursor::pos());
    double x = rect().contains(cursor.toPoint()) && cursor.x() > geo.left ? cursor.x() : geo.left + geo.width / 2;
    switch (e->key()) {
    case Qt::Key_W:
      geo.zoomAround(x, 0.8);
      break;
    case Qt::Key_S:
      geo.zoomAround(x, 1.25);
      break;
    case Qt::Key_A:
      geo.panPixels(-geo.width * 0.15);
      break;
    case Qt::Key_D:
      geo.panPixels(geo.width * 0.15);
      break;
    case Qt::Key_F:
      m_owner->focusSelection();
      return;
    case Qt::Key_0:
    case Qt::Key_Home:
      fitAll();
      return;
    case Qt::Key_Escape:
      if (!hasArea()) {
        QWidget::keyPressEvent(e);
        return;
      }
      m_owner->setArea(0, 0);
      return;
    default:
      QWidget::keyPressEvent(e);
      return;
    }
    clampView();
    update();
  }

  void wheelEvent(QWheelEvent* e) override {
    double steps = e->angleDelta().y() / 120.0;
    if (e->modifiers() & Qt::ShiftModifier)
      geo.panPixels(-steps * geo.width * 0.1);
    else
      geo.zoomAround(e->position().x(), std::pow(0.85, steps));
    clampView();
    update();
    e->accept();
  }

  void mousePressEvent(QMouseEvent* e) override {
    setFocus();
    m_press = m_last = e->position();
    m_dragging = false;
    // Drag on the axis ruler, or Shift+drag anywhere on the lanes, measures an interval.
    m_measuring = e->button() == Qt::LeftButton && e->position().x() >= geo.left &&
                  (e->position().y() < kAxis || (e->modifiers() & Qt::ShiftModifier));
    if (m_measuring) {
      areaFrom = areaTo = geo.timeAt(e->position().x());
      update();
      return;
    }
    m_inOverview = e->position().y() >= kAxis && e->position().y() <= kAxis + kOverview + 6 &&
                   e->position().x() >= geo.left;
    if (m_inOverview)
      centerOverview(e->position().x());
  }
  /// Moves the visible window so that it is centred where the overview was clicked.
  void centerOverview(double x) {
    const views::TimelineData* d = data();
    if (!d)
      return;
    double t = (x - geo.left) / geo.width * double(std::max<qint64>(d->endTime, 1));
    double span = geo.span();
    geo.setRange(t - span / 2, t + span / 2);
    clampView();
    update();
  }
  void mouseMoveEvent(QMouseEvent* e) override {
    if (!(e->buttons() & Qt::LeftButton))
      return;
    if (m_measuring) {
      areaTo = geo.timeAt(std::clamp(e->position().x(), geo.left, geo.left + geo.width));
      m_owner->updateStatus();
      update();
      return;
    }
    if (m_inOverview) {
      centerOverview(e->position().x());
      return;
    }
    if ((e->position() - m_press).manhattanLength() > 3)
      m_dragging = true;
    if (m_dragging) {
      geo.panPixels(m_last.x() - e->position().x());
      m_last = e->position();
      clampView();
      update();
    }
  }
  void mouseReleaseEvent(QMouseEvent* e) override {
    if (m_measuring) {
      m_measuring = false;
      // A click on the axis (no drag) clears the interval.
      if (std::abs(geo.xOf(areaTo) - geo.xOf(areaFrom)) < 3)
        areaFrom = areaTo = std::nan("");
      m_owner->updateStatus();
      update();
      return;
    }
    if (m_dragging || m_inOverview || e->button() != Qt::LeftButton)
      return;
    const views::TimelineData* d = data();
    if (!d || !m_owner->m_selection)
      return;
    views::TimelineHit hit = views::hitTest(*d, geo, e->position());
    if (hit.finding >= 0)
      m_owner->m_selection->selectFinding(d->findings[hit.finding].finding, views::SelectionOrigin::Timeline);
    else if (hit.blocked >= 0 && d->blocked[hit.blocked].finding >= 0)
      m_owner->m_selection->selectFinding(d->blocked[hit.blocked].finding,
                                          views::SelectionOrigin::Timeline);
    else if (hit.block >= 0)
      m_owner->m_selection->selectEvent(d->blocks[hit.block].event, views::SelectionOrigin::Timeline);
    else if (hit.mark >= 0)
      m_owner->m_selection->selectEvent(d->marks[hit.mark].event, views::SelectionOrigin::Timeline);
  }

  bool event(QEvent* e) override {
    if (e->type() == QEvent::ToolTip) {
      auto* help = static_cast<QHelpEvent*>(e);
      const views::TimelineData* d = data();
      QString text;
      if (d) {
        views::TimelineHit hit = views::hitTest(*d, geo, help->pos());
        if (hit.finding >= 0)
          text = d->findings[hit.finding].text;
        else if (hit.blocked >= 0) {
          const views::TimelineBlocked& b = d->blocked[hit.blocked];
          text = QStringLiteral("%1\n%2 · line %3").arg(b.label, b.context).arg(b.line);
        } else if (hit.block >= 0) {
          const views::TimelineBlock& b = d->blocks[hit.block];
          text = QStringLiteral("%1\n%2 · %3 → %4 (%5)")
                     .arg(b.label, b.context,
                          views::formatTimelineTime(double(b.start), d->unitsPerUs, double(b.end - b.start)),
                          views::formatTimelineTime(double(b.end), d->unitsPerUs, double(b.end - b.start)),
                          views::formatTimelineDuration(double(b.end - b.start), d->unitsPerUs));
          if (b.op >= 0 && m_owner->m_snapshot)
            text += QStringLiteral("\nline %1: %2 %3")
                        .arg(m_owner->m_snapshot->views->ops[b.op].span.line)
                        .arg(m_owner->m_snapshot->views->ops[b.op].name, m_owner->m_snapshot->views->ops[b.op].operands);
        } else if (hit.mark >= 0) {
          text = d->marks[hit.mark].label + QStringLiteral(" · %1").arg(views::formatTimelineTime(
                                                  double(d->marks[hit.mark].time), d->unitsPerUs, geo.span() / 100));
        }
      }
      if (text.isEmpty())
        QToolTip::hideText();
      else
        QToolTip::showText(help->globalPos(), text, this);
      return true;
    }
    return QWidget::event(e);
  }

private:
  TimelineView* m_owner;
  QPointF m_press, m_last;
  bool m_dragging = false;
  bool m_inOverview = false;
  bool m_measuring = false;
};

TimelineView::TimelineView(views::SelectionModel* selection, QWidget* parent)
    : QWidget(parent), m_selection(selection), m_axisBox(new QComboBox(this)),
      m_legendBox(new QCheckBox(tr("Legend"), this)), m_legend(new TimelineLegend(this)),
      m_scroll(new QScrollArea(this)), m_canvas(new TimelineCanvas(this)) {
  setObjectName(QStringLiteral("timelineView"));
  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(6, 3, 6, 3);
  auto button = [&](const QString& text, const QString& tip, auto&& fn) {
    auto* b = new QToolButton(this);
    b->setText(text);
    b->setToolTip(tip);
    b->setAutoRaise(true);
    connect(b, &QToolButton::clicked, this, fn);
    bar->addWidget(b);
  };
  button(tr("Fit"), tr("Show the whole trace (0)"), [this] { fitAll(); });
  button(tr("Focus"), tr("Show the selected operation's events (F)"), [this] { focusSelection(); });
  m_axisBox->setObjectName(QStringLiteral("timelineAxis"));
  // Narrow: the dock sits beside the findings and the window stays under 960 px wide.
  m_axisBox->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_axisBox->setMinimumContentsLength(8);
  m_axisBox->addItem(tr("predicted µs"), int(Axis::Time));
  m_axisBox->addItem(tr("logical steps"), int(Axis::Steps));
  m_axisBox->addItem(tr("cluster (all CTAs)"), int(Axis::Cluster));
  m_axisBox->setToolTip(
      tr("x axis: the cost model's predicted time of one CTA (busiest SM), "
         "the verifier's logical steps, or the rounds of the cluster-wide "
         "simulation (lanes per CTA x role, multicast and remote-arrive arrows)"));
  connect(m_axisBox, &QComboBox::activated, this,
          [this](int index) { setAxis(Axis(m_axisBox->itemData(index).toInt())); });
  bar->addWidget(m_axisBox);
  m_legendBox->setObjectName(QStringLiteral("timelineLegendToggle"));
  m_legendBox->setChecked(true);
  connect(m_legendBox, &QCheckBox::toggled, m_legend, &QWidget::setVisible);
  bar->addWidget(m_legendBox);
  button(tr("Export…"), tr("Export the trace as Chrome / Perfetto trace JSON"), [this] {
    QString path = QFileDialog::getSaveFileName(this, tr("Export trace"), QStringLiteral("trace.json"),
                                                tr("Chrome trace JSON (*.json)"));
    QString error;
    if (!path.isEmpty() && !exportTrace(path, &error))
      m_status->setText(error);
  });
  bar->addStretch(1);
  m_status = new ElidedLabel(this);
  m_status->setObjectName(QStringLiteral("timelineStatus"));
  m_status->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
  bar->addWidget(m_status);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addLayout(bar);
  // Time scrolls by zoom and pan; lanes that do not fit scroll vertically.
  m_scroll->setObjectName(QStringLiteral("timelineScroll"));
  m_scroll->setFrameShape(QFrame::NoFrame);
  m_scroll->setWidgetResizable(true);
  m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_scroll->setWidget(m_canvas);
  m_scroll->viewport()->installEventFilter(this);
  layout->addWidget(m_scroll, 1);
  layout->addWidget(m_legend);
  if (m_selection)
    connect(m_selection, &views::SelectionModel::selectionChanged, this, &TimelineView::onSelectionChanged);
}

const views::TimelineData* TimelineView::data() const {
  if (m_axis == Axis::Time && m_timeData)
    return m_timeData.get();
  if (m_axis == Axis::Cluster && m_snapshot && m_snapshot->views &&
      !m_snapshot->views->clusterTimeline.lanes.isEmpty())
    return &m_snapshot->views->clusterTimeline;
  return m_snapshot && m_snapshot->views ? &m_snapshot->views->timeline : nullptr;
}

QWidget* TimelineView::legend() const { return m_legend; }
QStringList TimelineView::legendEntries() const { return m_legend->entries(); }

QPair<double, double> TimelineView::area() const {
  if (!m_canvas->hasArea())
    return {};
  return {std::min(m_canvas->areaFrom, m_canvas->areaTo),
          std::max(m_canvas->areaFrom, m_canvas->areaTo)};
}

void TimelineView::setArea(double from, double to) {
  m_canvas->areaFrom = from;
  m_canvas->areaTo = to;
  updateStatus();
  m_canvas->update();
}

QString TimelineView::areaReadout() const {
  const views::TimelineData* d = data();
  if (!d || !m_canvas->hasArea())
    return {};
  auto [a, b] = area();
  double upu = d->unitsPerUs;
  return tr("Δ %1 (%2 → %3)")
      .arg(views::formatTimelineDuration(b - a, upu), views::formatTimelineTime(a, upu, b - a),
           views::formatTimelineTime(b, upu, b - a));
}

void TimelineView::setCost(const views::CostSnapshotPtr& cost) {
  if (!cost || cost->check != m_snapshot)
    return;
  bool had = data() && data()->inTime();
  m_timeData = cost->timeline && cost->timeline->inTime() ? cost->timeline : nullptr;
  bool has = data() && data()->inTime();
  if (had != has) {
    // The axis changed under the view: its range and the interval meant other units.
    m_canvas->areaFrom = m_canvas->areaTo = std::nan("");
    m_canvas->highlighted.clear();
    m_canvas->fitAll();
    if (has && m_keptTimeRange.second > m_keptTimeRange.first) {
      m_canvas->geo.setRange(m_keptTimeRange.first, m_keptTimeRange.second);
      m_canvas->clampView();
    }
    m_keptTimeRange = {};
    if (m_selection)
      onSelectionChanged(m_selection->current(), views::SelectionOrigin::Program);
  }
  updateStatus();
  m_canvas->update();
}

void TimelineView::setAxis(Axis axis) {
  if (axis == m_axis)
    return;
  const views::TimelineData* before = data();
  m_axis = axis;
  m_axisBox->setCurrentIndex(m_axisBox->findData(int(axis)));
  if (before != data()) {
    m_canvas->areaFrom = m_canvas->areaTo = std::nan("");
    m_canvas->initialRange();
    if (m_selection)
      onSelectionChanged(m_selection->current(), views::SelectionOrigin::Program);
  }
  updateStatus();
  m_canvas->update();
}
views::TimelineGeometry& TimelineView::geometry() { return m_canvas->geo; }
QWidget* TimelineView::canvas() const { return m_canvas; }
QScrollArea* TimelineView::scrollArea() const {
  return m_scroll;
}

bool TimelineView::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_scroll->viewport() && event->type() == QEvent::Resize)
    m_canvas->updateContentHeight();
  return QWidget::eventFilter(watched, event);
}
const QVector<int>& TimelineView::highlighted() const { return m_canvas->highlighted; }

void TimelineView::setSnapshot(const views::CheckSnapshotPtr& snapshot) {
  bool sameFile = m_snapshot && snapshot && m_snapshot->path == snapshot->path;
  bool wasTime = data() && data()->inTime();
  m_snapshot = snapshot;
  // The estimate of the previous check does not describe this trace; until this check's
  // arrives the view shows logical steps.
  m_timeData.reset();
  m_keptTimeRange = {};
  if (wasTime) {
    // An edit of the same file: its estimate restores the zoom the time axis had.
    if (sameFile)
      m_keptTimeRange = {m_canvas->geo.viewStart, m_canvas->geo.viewEnd};
    m_canvas->areaFrom = m_canvas->areaTo = std::nan("");
    sameFile = false;
  }
  m_canvas->highlighted.clear();
  m_canvas->selectedBlock = -1;
  m_canvas->updateContentHeight();
  const views::TimelineData* d = data();
  if (!sameFile || !d)
    m_canvas->initialRange();
  else
    m_canvas->clampView();
  updateStatus();
  if (m_selection)
    onSelectionChanged(m_selection->current(), views::SelectionOrigin::Program);
  m_canvas->update();
}

void TimelineView::updateStatus() {
  const views::TimelineData* d = data();
  if (!d || !m_snapshot) {
    m_status->clear();
    return;
  }
  QString s = tr("%1 events · %2 · %3 tile(s) per role analysed")
                  .arg(m_snapshot->result.verification.trace.size())
                  .arg(d->inTime() ? tr("%1 predicted (one CTA)")
                                         .arg(views::formatTimelineDuration(double(d->endTime),
                                                                            d->unitsPerUs))
                                   : tr("%1 steps").arg(d->endTime))
                  .arg(d->tilesAnalysed);
  if (d->deadlock)
    s += tr(" · deadlock: %1 role(s) blocked").arg(d->blocked.size());
  if (!d->findings.isEmpty())
    s += tr(" · %1 finding mark(s)").arg(d->findings.size());
  if (m_axis == Axis::Time && !d->inTime())
    s = tr("no predicted time (no cost estimate): logical steps · ") + s;
  if (m_axis == Axis::Cluster) {
    if (d == &m_snapshot->views->clusterTimeline)
      s = tr("cluster: %1 lanes (CTA x role) · %2 rounds · %3 cross-CTA arrow(s) · %4")
              .arg(d->lanes.size())
              .arg(d->endTime)
              .arg(d->flows.size())
              .arg(d->note);
    else
      s = tr("no thread-block cluster: one CTA · ") + s;
  }
  if (m_canvas->hasArea())
    s = areaReadout() + QStringLiteral(" · ") + s;
  m_status->setText(s);
}

void TimelineView::fitAll() { m_canvas->fitAll(); }

void TimelineView::onSelectionChanged(const views::Selection& s, views::SelectionOrigin origin) {
  const views::TimelineData* d = data();
  m_canvas->highlighted.clear();
  m_canvas->selectedBlock = -1;
  if (d && s.op >= 0)
    for (int b : d->blocksOfOp.value(s.op))
      if (s.role < 0 || d->blocks[b].lane == s.role) {
        m_canvas->highlighted << b;
        if (s.event >= 0 && d->blocks[b].event == s.event)
          m_canvas->selectedBlock = b;
      }
  // Bring an occurrence into view when none is visible (the zoom stays).
  if (origin != views::SelectionOrigin::Timeline && origin != views::SelectionOrigin::Program &&
      !m_canvas->highlighted.isEmpty()) {
    views::TimelineGeometry& g = m_canvas->geo;
    bool visible = false;
    for (int b : std::as_const(m_canvas->highlighted))
      visible = visible || g.visible(double(d->blocks[b].start), double(d->blocks[b].end));
    if (!visible) {
      const views::TimelineBlock& first = d->blocks[m_canvas->highlighted.first()];
      double span = g.span();
      g.setRange(double(first.start) - span / 2, double(first.start) + span / 2);
      m_canvas->clampView();
    }
  }
  m_canvas->update();
}

void TimelineView::focusSelection() {
  const views::TimelineData* d = data();
  if (!d)
    return;
  views::TimelineGeometry& g = m_canvas->geo;
  int b = m_canvas->selectedBlock >= 0 ? m_canvas->selectedBlock
                                       : m_canvas->highlighted.isEmpty() ? -1 : m_canvas->highlighted.first();
  if (b < 0) {
    fitAll();
    return;
  }
  // The block with its neighbourhood: a few dozen steps around it.
  const views::TimelineBlock& blk = d->blocks[b];
  // In predicted time: a few of the block's lengths (at least 20 ns) on each side.
  double pad = d->inTime() ? std::max(double(blk.end - blk.start) * 4, d->unitsPerUs * 0.02) : 20;
  g.focus(double(blk.start) - pad, double(blk.end) + pad, 0.05);
  m_canvas->clampView();
  m_canvas->update();
}

bool TimelineView::exportTrace(const QString& path, QString* error) const {
  if (!m_snapshot) {
    if (error)
      *error = tr("nothing to export");
    return false;
  }
  std::string json = driver::toChromeTrace(m_snapshot->result, std::size_t(-1));
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(json.data(), qint64(json.size())) < 0) {
    if (error)
      *error = tr("cannot write '%1': %2").arg(path, f.errorString());
    return false;
  }
  return true;
}

} // namespace cake::widgets
