// Progress view: best-so-far curves per arm and the predicted-vs-measured scatter of the
// chosen campaigns.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/ProgressView.h"

#include "cake/widgets/Plot.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace cake::widgets {

namespace {
// Mid-saturation colours, readable on light and dark bases; one per curve, in order.
const QColor kCurves[] = {QColor(0x2e, 0x86, 0xc1), QColor(0xe6, 0x7e, 0x22),
                          QColor(0x27, 0xae, 0x60), QColor(0x9b, 0x72, 0xcf),
                          QColor(0xe7, 0x4c, 0x3c), QColor(0x16, 0xa0, 0x85)};
const QColor kMeasured(0xe7, 0x4c, 0x3c);

QString number(double v) {
  return QString::number(v, 'g', 3);
}
} // namespace

ProgressView::ProgressView(QWidget* parent)
    : QWidget(parent), m_campaigns(new QToolButton(this)), m_axis(new QComboBox(this)),
      m_basis(new QComboBox(this)), m_reload(new QToolButton(this)), m_summary(new QLabel(this)),
      m_progress(new Plot(this)), m_scatterPlot(new Plot(this)) {
  setObjectName(QStringLiteral("progressView"));
  m_progress->setObjectName(QStringLiteral("progressPlot"));
  m_scatterPlot->setObjectName(QStringLiteral("predictedMeasuredPlot"));
  m_campaigns->setObjectName(QStringLiteral("progressCampaigns"));
  m_campaigns->setPopupMode(QToolButton::InstantPopup);
  m_campaigns->setMenu(new QMenu(m_campaigns));
  m_campaigns->setToolTip(tr("Campaigns to overlay"));
  m_axis->setObjectName(QStringLiteral("progressAxis"));
  m_axis->addItem(tr("vs candidates"), int(views::ProgressAxis::Candidates));
  m_axis->addItem(tr("vs tokens"), int(views::ProgressAxis::Tokens));
  m_axis->addItem(tr("vs wall time"), int(views::ProgressAxis::WallTime));
  m_basis->setObjectName(QStringLiteral("progressBasis"));
  m_basis->addItem(tr("predicted speedup"), int(views::ProgressBasis::Predicted));
  m_basis->addItem(tr("measured speedup"), int(views::ProgressBasis::Measured));
  m_reload->setObjectName(QStringLiteral("progressReload"));
  m_reload->setText(tr("Reload"));
  m_reload->setToolTip(tr("Read the workspace's campaigns again"));
  connect(m_reload, &QToolButton::clicked, this, &ProgressView::reloadRequested);
  m_summary->setObjectName(QStringLiteral("progressSummary"));
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* bar = new QHBoxLayout;
  bar->addWidget(m_campaigns);
  bar->addWidget(m_axis);
  bar->addWidget(m_basis);
  bar->addStretch(1);
  bar->addWidget(m_reload);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(m_progress);
  split->addWidget(m_scatterPlot);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(bar);
  layout->addWidget(m_summary);
  layout->addWidget(split, 1);

  connect(m_axis, &QComboBox::currentIndexChanged, this, [this] { rebuild(); });
  connect(m_basis, &QComboBox::currentIndexChanged, this, [this] { rebuild(); });
  connect(m_progress, &Plot::pointClicked, this, [this](int handle, int index) {
    int curve = handle >= 0 && handle < m_curveOfHandle.size() ? m_curveOfHandle[handle] : -1;
    if (curve >= 0)
      activatePoint(curve, index);
  });
  connect(m_scatterPlot, &Plot::pointClicked, this,
          [this](int, int index) { activatePoint(-1, index); });
  rebuild();
}

void ProgressView::setStore(const views::ProgressStorePtr& store) {
  m_store = store;
  QStringList names;
  if (store)
    for (const views::ProgressCampaign& c : store->campaigns)
      names << c.name;
  QStringList kept;
  for (const QString& n : m_selected)
    if (names.contains(n))
      kept << n;
  m_selected = kept.isEmpty() ? names : kept;
  rebuildCampaignMenu();
  rebuild();
}

void ProgressView::setSelectedCampaigns(const QStringList& names) {
  QStringList chosen;
  if (m_store)
    for (const views::ProgressCampaign& c : m_store->campaigns)
      if (names.contains(c.name))
        chosen << c.name;
  m_selected = chosen;
  rebuildCampaignMenu();
  rebuild();
}

void ProgressView::setAxis(views::ProgressAxis axis) {
  m_axis->setCurrentIndex(m_axis->findData(int(axis)));
}

views::ProgressAxis ProgressView::axis() const {
  return views::ProgressAxis(m_axis->currentData().toInt());
}

void ProgressView::setBasis(views::ProgressBasis basis) {
  m_basis->setCurrentIndex(m_basis->findData(int(basis)));
}

void ProgressView::rebuildCampaignMenu() {
  QMenu* menu = m_campaigns->menu();
  menu->clear();
  if (m_store)
    for (const views::ProgressCampaign& c : m_store->campaigns) {
      QAction* a = menu->addAction(c.name);
      a->setCheckable(true);
      a->setChecked(m_selected.contains(c.name));
      connect(a, &QAction::toggled, this, [this, name = c.name](bool on) {
        if (on && !m_selected.contains(name))
          m_selected << name;
        if (!on)
          m_selected.removeAll(name);
        rebuild();
      });
    }
  int total = m_store ? int(m_store->campaigns.size()) : 0;
  m_campaigns->setText(total == 0 ? tr("no campaigns")
                       : m_selected.size() == 1
                           ? m_selected.first()
                           : tr("%1 of %2 campaigns").arg(m_selected.size()).arg(total));
  m_campaigns->setEnabled(total > 0);
}

std::vector<views::ProgressCampaign> ProgressView::chosen() const {
  std::vector<views::ProgressCampaign> out;
  if (m_store)
    for (const views::ProgressCampaign& c : m_store->campaigns)
      if (m_selected.contains(c.name))
        out.push_back(c);
  return out;
}

QString ProgressView::summaryText() const {
  return m_summary->text();
}

void ProgressView::rebuild() {
  m_shown = chosen();
  auto basis = views::ProgressBasis(m_basis->currentData().toInt());
  m_chart = views::progressChart(m_shown, axis(), basis);
  m_scatter = views::progressScatter(m_shown);
  m_curveOfHandle.clear();

  // Best-so-far: a step line per curve, its candidates as small points, improvements larger.
  m_progress->clear();
  m_progress->setTitle(tr("Best-so-far %1 over the root")
                           .arg(basis == views::ProgressBasis::Measured ? tr("measured speedup")
                                                                        : tr("predicted speedup")));
  double yHi = std::max(1.0, m_chart.yMax);
  double yLo = std::min(1.0, m_chart.yMin);
  double pad = (yHi - yLo) * 0.08 + 0.05;
  m_progress->setAxes(views::progressAxisLabel(axis()), 0, std::max(1.0, m_chart.xMax) * 1.03,
                      false, tr("speedup (x)"), std::max(0.0, yLo - pad), yHi + pad, false);
  for (std::size_t i = 0; i < m_chart.curves.size(); ++i) {
    const views::ProgressCurve& c = m_chart.curves[i];
    QColor colour = kCurves[i % std::size(kCurves)];
    // Arms share a colour family by order; the campaign shows in the line style (overlaid
    // campaigns often reach the same speedups).
    int campaign = c.refs.isEmpty() ? 0 : c.refs.first().campaign;
    m_progress->addLine(c.staircase, colour, tr("%1 (best %2x)").arg(c.label, number(c.best)),
                        campaign % 2 ? Qt::DashLine : Qt::SolidLine);
    QColor faint = colour;
    faint.setAlpha(110);
    int handle = m_progress->addPoints(c.points, faint, QString(), Plot::Marker::Circle, 6);
    m_curveOfHandle.resize(handle + 1, -1);
    m_curveOfHandle[handle] = int(i);
  }
  QStringList notes = m_chart.notes;
  if (!m_store)
    notes << tr("reading the workspace…");
  else if (!m_store->error.isEmpty())
    notes << m_store->error;
  else if (m_store->campaigns.empty())
    notes << tr("no campaigns in this workspace (cake campaign import DIR --workspace WS)");
  else if (m_shown.empty())
    notes << tr("no campaign chosen");
  if (!notes.isEmpty())
    m_progress->addNote(notes.join('\n'));
  m_progress->setLegendVisible(!m_chart.curves.empty(), m_chart.curves.size() > 2 ? 2 : 0);
  m_progress->replot();

  // Predicted vs measured, log-log, with the y = x diagonal.
  m_scatterPlot->clear();
  m_scatterPlot->setTitle(tr("Predicted vs measured"));
  if (m_scatter.points.isEmpty()) {
    m_scatterPlot->setAxes(tr("predicted (µs)"), 0, 1, false, tr("measured (µs)"), 0, 1, false);
  } else {
    double lo = m_scatter.points.first().x(), hi = lo;
    for (const QPointF& p : m_scatter.points) {
      lo = std::min({lo, p.x(), p.y()});
      hi = std::max({hi, p.x(), p.y()});
    }
    lo /= 1.5;
    hi *= 1.5;
    m_scatterPlot->setAxes(tr("predicted (µs)"), lo, hi, true, tr("measured (µs)"), lo, hi, true);
    m_scatterPlot->addLine({QPointF(lo, lo), QPointF(hi, hi)}, palette().color(QPalette::Mid),
                           tr("measured = predicted"), Qt::DashLine, 1);
    m_scatterPlot->addPoints(m_scatter.points, kMeasured, tr("candidates"), Plot::Marker::Disc, 7);
  }
  QStringList scatterNotes;
  if (m_scatter.rho)
    scatterNotes << tr("Spearman's rho %1 over %2 candidates")
                        .arg(number(*m_scatter.rho))
                        .arg(m_scatter.points.size());
  if (m_scatter.regret)
    scatterNotes << tr("top-1 regret %1 %").arg(number(*m_scatter.regret * 100));
  if (!m_scatter.note.isEmpty())
    scatterNotes << m_scatter.note;
  // The scatter pane is narrow: break the note into short lines (chart notes do not wrap).
  QStringList lines;
  for (const QString& note : scatterNotes) {
    QString line;
    for (const QString& word : note.split(' ')) {
      if (!line.isEmpty() && line.size() + 1 + word.size() > 38) {
        lines << line;
        line.clear();
      }
      line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + word;
    }
    lines << line;
  }
  if (!lines.isEmpty())
    m_scatterPlot->addNote(lines.join('\n'));
  m_scatterPlot->setLegendVisible(!m_scatter.points.isEmpty());
  m_scatterPlot->replot();

  QStringList summary;
  int candidates = 0;
  for (const views::ProgressCampaign& c : m_shown)
    candidates += int(c.candidates.size());
  summary << tr("%1 candidates").arg(candidates);
  for (const views::ProgressCurve& c : m_chart.curves)
    summary << tr("%1: best %2x").arg(c.label, number(c.best));
  if (m_scatter.rho)
    summary << tr("rho %1").arg(number(*m_scatter.rho));
  if (m_scatter.regret)
    summary << tr("regret %1 %").arg(number(*m_scatter.regret * 100));
  if (m_scatter.points.isEmpty())
    summary << tr("no measurements");
  m_summary->setText(summary.join(QStringLiteral(" · ")));
}

void ProgressView::activatePoint(int curve, int index) {
  if (curve < 0) {
    if (index >= 0 && index < m_scatter.refs.size())
      activate(m_scatter.refs[index]);
    return;
  }
  if (std::size_t(curve) < m_chart.curves.size() && index >= 0 &&
      index < m_chart.curves[std::size_t(curve)].refs.size())
    activate(m_chart.curves[std::size_t(curve)].refs[index]);
}

void ProgressView::activate(const views::CandidateRef& ref) {
  if (ref.campaign < 0 || std::size_t(ref.campaign) >= m_shown.size())
    return;
  const views::ProgressCampaign& c = m_shown[std::size_t(ref.campaign)];
  if (ref.candidate < 0 || ref.candidate >= c.candidates.size())
    return;
  const views::ProgressCandidate& k = c.candidates[ref.candidate];
  Q_EMIT candidateActivated(c.name, k.id, c.folder, k.kernel);
}

} // namespace cake::widgets
