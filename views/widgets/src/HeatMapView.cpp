// Heat map widget: an output picker, an element toggle, a summary line and a canvas that
// paints the cells, the legend and the wrong tiles' outlines with views::HeatMapGeometry.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/HeatMapView.h"

#include "cake/views/SelectionModel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace cake::widgets {

namespace {
constexpr double kMargin = 8.0;
constexpr double kLegend = 28.0; ///< legend strip under the cells
} // namespace

class HeatMapCanvas : public QWidget {
public:
  explicit HeatMapCanvas(HeatMapView* owner) : QWidget(owner), m_owner(owner) {
    setObjectName(QStringLiteral("heatMapCanvas"));
    setMouseTracking(true);
    setMinimumSize(160, 120);
    setCursor(Qt::PointingHandCursor);
  }

  const interp::OutputVerdict* output() const {
    const views::RunSnapshotPtr& run = m_owner->run();
    if (!run || !run->result || m_owner->output() < 0 ||
        std::size_t(m_owner->output()) >= run->result->outputs.size())
      return nullptr;
    return &run->result->outputs[std::size_t(m_owner->output())];
  }

  views::HeatMapGeometry geometry() const {
    const interp::OutputVerdict* o = output();
    if (!o)
      return {};
    QRectF bounds(kMargin, kMargin, width() - 2 * kMargin, height() - 2 * kMargin - kLegend);
    return views::HeatMapGeometry::fit(o->map, m_elements, bounds);
  }

  bool m_elements = false;

protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const interp::OutputVerdict* o = output();
    if (!o) {
      p.setPen(palette().color(QPalette::PlaceholderText));
      p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                 tr("Run > Run on CPU (Ctrl+R) shows here which tiles of each output are wrong"));
      return;
    }
    views::HeatMapGeometry g = geometry();
    views::HeatScale scale = views::HeatScale::of(o->map);
    const QColor neutral = palette().color(QPalette::Midlight);
    const interp::ErrorMap& m = o->map;
    if (g.elements) {
      for (std::int64_t r = 0; r < m.rows; ++r)
        for (std::int64_t c = 0; c < m.cols; ++c)
          p.fillRect(g.cellRect(r, c), scale.colour(m.elements[std::size_t(r * m.cols + c)],
                                                    m.wrong[std::size_t(r * m.cols + c)], neutral));
    } else {
      for (std::size_t t = 0; t < m.tiles.size(); ++t)
        p.fillRect(g.tileRect(int(t)),
                   scale.colour(m.tiles[t].maxAbsError, m.tiles[t].mismatches > 0, neutral));
    }
    // Tile boundaries where they are wide enough to see, then the wrong tiles outlined.
    QColor grid = palette().color(QPalette::Base);
    if (g.tileRect(0).width() >= 4 && g.tileRect(0).height() >= 4) {
      p.setPen(QPen(grid, 1));
      for (std::size_t t = 0; t < m.tiles.size(); ++t)
        p.drawRect(g.tileRect(int(t)));
    }
    p.setPen(QPen(palette().color(QPalette::Text), 2));
    p.setBrush(Qt::NoBrush);
    for (std::size_t t = 0; t < m.tiles.size(); ++t)
      if (m.tiles[t].mismatches)
        p.drawRect(g.tileRect(int(t)).adjusted(1, 1, -1, -1));
    // Legend: exact, then the within-tolerance half of the ramp and, when something is wrong,
    // the wrong half, each from the smallest to the largest error.
    QRectF legend(kMargin, height() - kMargin - kLegend + 8, width() - 2 * kMargin, 12);
    QFontMetricsF fm(font());
    p.setPen(palette().color(QPalette::Text));
    double x = legend.left();
    auto label = [&](const QString& text) {
      p.drawText(QPointF(x, legend.bottom() - 1), text);
      x += fm.horizontalAdvance(text) + 6;
    };
    p.fillRect(QRectF(x, legend.top(), 12, 12), neutral);
    x += 16;
    label(tr("exact"));
    QString lo = QStringLiteral("%1").arg(std::pow(10.0, scale.logLo), 0, 'g', 1);
    QString hi = QStringLiteral("%1").arg(std::pow(10.0, scale.logHi), 0, 'g', 2);
    bool anyWrong = o->mismatches > 0;
    auto overhead = [&](const QString& name) {
      return fm.horizontalAdvance(name) + fm.horizontalAdvance(lo) + fm.horizontalAdvance(hi) + 34;
    };
    double free = legend.right() - x - overhead(tr("within tolerance")) -
                  (anyWrong ? overhead(tr("wrong")) : 0.0);
    double segment = std::max(30.0, free / (anyWrong ? 2.0 : 1.0));
    auto ramp = [&](const QString& name, double from) {
      label(name);
      label(lo);
      for (double u = 0; u < segment; u += 2)
        p.fillRect(QRectF(x + u, legend.top(), 2, 12),
                   views::HeatScale::ramp(from + 0.5 * u / segment));
      x += segment + 4;
      label(hi);
      x += 6;
    };
    ramp(tr("within tolerance"), 0.0);
    if (anyWrong)
      ramp(tr("wrong"), 0.5);
  }

  bool event(QEvent* e) override {
    if (e->type() == QEvent::ToolTip) {
      auto* help = static_cast<QHelpEvent*>(e);
      QString text = m_owner->toolTipAt(help->pos());
      if (text.isEmpty())
        QToolTip::hideText();
      else
        QToolTip::showText(help->globalPos(), text, this);
      return true;
    }
    return QWidget::event(e);
  }

  void mousePressEvent(QMouseEvent* e) override {
    if (e->button() == Qt::LeftButton)
      m_owner->activate(e->position());
  }

private:
  HeatMapView* m_owner;
};

HeatMapView::HeatMapView(views::SelectionModel* selection, QWidget* parent)
    : QWidget(parent), m_selection(selection), m_outputs(new QComboBox(this)),
      m_elementBox(new QCheckBox(tr("Elements"), this)), m_summary(new QLabel(this)),
      m_canvas(new HeatMapCanvas(this)) {
  setObjectName(QStringLiteral("heatMapView"));
  m_outputs->setObjectName(QStringLiteral("heatMapOutput"));
  m_outputs->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_elementBox->setObjectName(QStringLiteral("heatMapElements"));
  m_elementBox->setToolTip(tr("One cell per element (outputs of at most %1 elements)")
                               .arg(interp::ErrorMap::kMaxElements));
  m_summary->setObjectName(QStringLiteral("heatMapSummary"));
  m_summary->setWordWrap(true);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Output:"), this));
  bar->addWidget(m_outputs);
  bar->addWidget(m_elementBox);
  bar->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(bar);
  layout->addWidget(m_summary);
  layout->addWidget(m_canvas, 1);
  connect(m_outputs, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (i >= 0)
      setOutput(i);
  });
  connect(m_elementBox, &QCheckBox::toggled, this, &HeatMapView::setElements);
  setRun(nullptr);
}

void HeatMapView::setRun(const views::RunSnapshotPtr& run) {
  m_run = run;
  m_output = 0;
  QSignalBlocker block(m_outputs);
  m_outputs->clear();
  if (run && run->result)
    for (const interp::OutputVerdict& o : run->result->outputs)
      m_outputs->addItem(QString::fromStdString(o.name) +
                         (o.mismatches ? tr(" (%1 wrong)").arg(o.mismatches) : QString()));
  // Open on the first wrong output.
  if (run && run->result)
    for (std::size_t i = 0; i < run->result->outputs.size(); ++i)
      if (run->result->outputs[i].mismatches) {
        m_output = int(i);
        break;
      }
  m_outputs->setCurrentIndex(m_output);
  updateHeader();
}

void HeatMapView::setOutput(int index) {
  m_output = index;
  updateHeader();
}

void HeatMapView::setElements(bool on) {
  m_canvas->m_elements = on;
  QSignalBlocker block(m_elementBox);
  m_elementBox->setChecked(on);
  m_canvas->update();
}

bool HeatMapView::elements() const {
  return geometry().elements;
}

views::HeatMapGeometry HeatMapView::geometry() const {
  return m_canvas->geometry();
}

QWidget* HeatMapView::canvas() const {
  return m_canvas;
}

void HeatMapView::updateHeader() {
  const interp::OutputVerdict* o = m_canvas->output();
  m_elementBox->setEnabled(o && !o->map.elements.empty());
  if (!m_run) {
    m_summary->setText(tr("No CPU run yet."));
  } else if (!o) {
    m_summary->setText(views::runStatusText(*m_run));
  } else {
    const interp::ErrorMap& m = o->map;
    m_summary->setText(tr("%1: %2 × %3 in tiles of %4 × %5 (%6 × %7); %8 wrong, max abs error "
                          "%9. Click a tile to select the line that wrote it.")
                           .arg(QString::fromStdString(o->name))
                           .arg(m.rows)
                           .arg(m.cols)
                           .arg(m.tileRows)
                           .arg(m.tileCols)
                           .arg(m.gridRows)
                           .arg(m.gridCols)
                           .arg(o->mismatches)
                           .arg(o->maxAbsError, 0, 'g', 3));
  }
  m_canvas->update();
}

bool HeatMapView::activate(const QPointF& point) {
  const interp::OutputVerdict* o = m_canvas->output();
  views::HeatMapGeometry g = geometry();
  views::HeatHit h = g.hit(point);
  if (!o || !h.valid())
    return false;
  const interp::TileError& t = o->map.tiles[std::size_t(h.tile)];
  if (!t.writtenBy.known || t.writtenBy.line == 0)
    return false;
  if (m_selection)
    m_selection->selectLine(int(t.writtenBy.line), views::SelectionOrigin::Run);
  return true;
}

QString HeatMapView::toolTipAt(const QPointF& point) const {
  const interp::OutputVerdict* o = m_canvas->output();
  if (!o)
    return {};
  views::HeatMapGeometry g = geometry();
  return views::heatToolTip(*o, g, g.hit(point));
}

} // namespace cake::widgets
