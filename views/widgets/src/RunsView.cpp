// The Runs dock widget: controls, results table, predicted-vs-measured scatter, log.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/RunsView.h"

#include "cake/widgets/Plot.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QToolBar>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace cake::widgets {

namespace {

/// Word-wraps a note for the plot's corner (the plot does not wrap text itself).
QString wrapped(const QString& text, int width) {
  QStringList lines;
  QString line;
  for (const QString& word : text.split(' ', Qt::SkipEmptyParts)) {
    if (!line.isEmpty() && line.size() + 1 + word.size() > width) {
      lines << line;
      line.clear();
    }
    line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + word;
  }
  lines << line;
  return lines.join('\n');
}

} // namespace

RunsView::RunsView(views::RunController* controller, QWidget* parent)
    : QWidget(parent), m_controller(controller) {
  setObjectName(QStringLiteral("runsView"));
  m_device = new QComboBox(this);
  m_device->setObjectName(QStringLiteral("runDevice"));
  m_device->addItem(tr("CPU (interpreter)"), QStringLiteral("cpu"));
  m_device->addItem(tr("GPU"), QStringLiteral("gpu"));
  m_device->setToolTip(tr("CPU: the interpreter checks correctness (no timing). GPU: cake-run "
                          "times the kernel by the protocol of docs/runs.md."));
  m_executor = new QComboBox(this);
  m_executor->setObjectName(QStringLiteral("runExecutor"));
  m_executor->setEditable(true);
  m_executor->addItems({QStringLiteral("local"), QStringLiteral("ssh://HOST"),
                        QStringLiteral("slurm"), QStringLiteral("slurm:PARTITION")});
  m_executor->setToolTip(tr("local, ssh://[USER@]HOST[:PORT], slurm or slurm:PARTITION"));
  m_executor->setMinimumContentsLength(14);
  m_shapes = new QComboBox(this);
  m_shapes->setObjectName(QStringLiteral("runShapes"));
  m_shapes->addItem(tr("small shapes"), QStringLiteral("small"));
  m_shapes->addItem(tr("full shapes"), QStringLiteral("full"));
  m_timeout = new QDoubleSpinBox(this);
  m_timeout->setObjectName(QStringLiteral("runTimeout"));
  m_timeout->setRange(1, 7 * 86400);
  m_timeout->setDecimals(0);
  m_timeout->setValue(600);
  m_timeout->setSuffix(tr(" s timeout"));
  m_run = new QPushButton(tr("Run"), this);
  m_run->setObjectName(QStringLiteral("runButton"));
  m_cancel = new QPushButton(tr("Cancel"), this);
  m_cancel->setObjectName(QStringLiteral("runCancel"));
  m_refresh = new QPushButton(tr("Refresh"), this);
  m_refresh->setObjectName(QStringLiteral("runRefresh"));
  m_calibrate = new QPushButton(tr("Calibrate from these runs"), this);
  m_calibrate->setObjectName(QStringLiteral("runCalibrate"));
  m_calibrate->setToolTip(tr("Fit the cost model to the selected timed GPU runs and submit the "
                             "calibration as a proposal for review"));
  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("runStatus"));
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_status->setMinimumWidth(0);
  m_status->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);

  m_table = new QTableView(this);
  m_table->setObjectName(QStringLiteral("runsTable"));
  m_proxy = new QSortFilterProxyModel(this);
  m_proxy->setSourceModel(controller->model());
  m_proxy->setSortRole(views::RunsModel::SortRole);
  m_table->setModel(m_proxy);
  m_table->setSortingEnabled(true);
  m_table->sortByColumn(views::RunsModel::When, Qt::DescendingOrder);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_table->verticalHeader()->hide();
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->setWordWrap(false);

  m_plot = new Plot(this);
  m_plot->setObjectName(QStringLiteral("runsScatter"));
  m_plot->setMinimumSize(160, 90); // small enough for a 640 px high window (B5/B6)
  m_quality = new QLabel(this);
  m_quality->setObjectName(QStringLiteral("runsQuality"));
  // Two explicit lines: a word-wrapped label in this layout gets one line's height and clips.
  m_quality->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Minimum);
  m_log = new QPlainTextEdit(this);
  m_log->setObjectName(QStringLiteral("runsLog"));
  m_log->setReadOnly(true);
  m_log->setMaximumBlockCount(5000);
  m_log->setPlaceholderText(tr("The executor's log appears here."));

  // A tool bar, not a row layout: in a narrow dock the controls that do not fit go behind its
  // "»" extension instead of widening the dock (and with it the window's minimum width, B5/B6).
  auto* controls = new QToolBar(this);
  controls->setObjectName(QStringLiteral("runsToolBar"));
  for (QWidget* w : std::initializer_list<QWidget*>{m_device, m_executor, m_shapes, m_timeout,
                                                    m_run, m_cancel, m_refresh})
    controls->addWidget(w);
  auto* right = new QWidget(this);
  auto* rightLayout = new QVBoxLayout(right);
  rightLayout->setContentsMargins(0, 0, 0, 0);
  rightLayout->addWidget(m_plot, 1);
  rightLayout->addWidget(m_quality);
  rightLayout->addWidget(m_calibrate);
  auto* top = new QSplitter(Qt::Horizontal, this);
  top->addWidget(m_table);
  top->addWidget(right);
  top->setStretchFactor(0, 5);
  top->setStretchFactor(1, 3);
  auto* vertical = new QSplitter(Qt::Vertical, this);
  vertical->addWidget(top);
  vertical->addWidget(m_log);
  vertical->setStretchFactor(0, 4);
  vertical->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(controls);
  layout->addWidget(m_status);
  layout->addWidget(vertical, 1);

  connect(m_device, &QComboBox::currentIndexChanged, this, [this] {
    bool gpu = m_device->currentData().toString() == QLatin1String("gpu");
    // A GPU run always runs the kernel's own shapes.
    if (gpu)
      m_shapes->setCurrentIndex(m_shapes->findData(QStringLiteral("full")));
    m_shapes->setEnabled(!gpu);
  });
  connect(m_run, &QPushButton::clicked, this, [this] { Q_EMIT runRequested(request()); });
  connect(m_cancel, &QPushButton::clicked, this, [this] {
    for (quint64 id : m_controller->activeRuns())
      m_controller->cancel(id);
  });
  connect(m_refresh, &QPushButton::clicked, m_controller, &views::RunController::refresh);
  connect(m_calibrate, &QPushButton::clicked, this,
          [this] { Q_EMIT calibrateRequested(selectedRuns()); });
  connect(controller, &views::RunController::runsChanged, this, [this] {
    updateScatter();
    updateButtons();
    m_table->resizeColumnsToContents();
  });
  connect(controller, &views::RunController::runStarted, this,
          [this](quint64 job, const QString& command) {
            appendLog(tr("[job %1] $ %2").arg(job).arg(command));
            updateButtons();
          });
  connect(controller, &views::RunController::runFinished, this, [this](const views::RunOutcome& o) {
    if (!o.log.trimmed().isEmpty())
      appendLog(o.log.trimmed());
    if (!o.output.trimmed().isEmpty())
      appendLog(o.output.trimmed());
    m_lastOutcome = o.cancelled ? tr("job %1 cancelled after %2 s (executor stopped)")
                                      .arg(o.job)
                                      .arg(o.seconds, 0, 'f', 1)
                                : tr("job %1: cake run exit %2 after %3 s")
                                      .arg(o.job)
                                      .arg(o.exitCode)
                                      .arg(o.seconds, 0, 'f', 1);
    appendLog(tr("[job %1] %2").arg(o.job).arg(m_lastOutcome));
    updateButtons();
  });
  auto* clock = new QTimer(this);
  clock->setInterval(1000);
  connect(clock, &QTimer::timeout, this, &RunsView::tick);
  clock->start();
  updateScatter();
  updateButtons();
}

views::RunRequest RunsView::request() const {
  views::RunRequest r;
  r.device = m_device->currentData().toString();
  r.executor = m_executor->currentText().trimmed();
  r.shapes = m_shapes->currentData().toString();
  r.timeoutSeconds = m_timeout->value();
  return r;
}

void RunsView::setRequest(const views::RunRequest& r) {
  m_device->setCurrentIndex(std::max(0, m_device->findData(r.device)));
  m_executor->setCurrentText(r.executor);
  m_shapes->setCurrentIndex(std::max(0, m_shapes->findData(r.shapes)));
  m_timeout->setValue(r.timeoutSeconds);
}

QVector<views::RunEntry> RunsView::selectedRuns() const {
  QVector<views::RunEntry> out;
  const QModelIndexList rows = m_table->selectionModel()->selectedRows();
  for (const QModelIndex& i : rows)
    if (const views::RunEntry* e = m_controller->model()->entry(m_proxy->mapToSource(i).row()))
      out << *e;
  return out.isEmpty() ? m_controller->model()->runs() : out;
}

void RunsView::selectRuns(const QList<qint64>& ids) {
  QItemSelection selection;
  for (qint64 id : ids) {
    int row = m_controller->model()->rowOf(id);
    if (row < 0)
      continue;
    QModelIndex i = m_proxy->mapFromSource(m_controller->model()->index(row, 0));
    selection.select(i, i);
  }
  m_table->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect |
                                                   QItemSelectionModel::Rows);
}

void RunsView::appendLog(const QString& text) {
  m_log->appendPlainText(text);
}

QString RunsView::statusText() const {
  return m_status->text();
}

void RunsView::tick() {
  if (!m_controller->activeRuns().isEmpty())
    updateButtons();
}

void RunsView::updateButtons() {
  const QList<quint64> active = m_controller->activeRuns();
  bool workspace = !m_controller->workspace().isEmpty();
  m_run->setEnabled(workspace);
  m_cancel->setEnabled(!active.isEmpty());
  m_calibrate->setEnabled(workspace && m_controller->model()->rowCount() > 0);
  QString text;
  if (!workspace) {
    text = tr("No workspace: runs are stored in a workspace (--workspace or File > Open "
              "Workspace).");
  } else if (!active.isEmpty()) {
    QStringList parts;
    for (quint64 id : active)
      parts << tr("job %1 running %2 s").arg(id).arg(int(m_controller->elapsedSeconds(id)));
    text = parts.join(QStringLiteral(" · "));
  } else if (!m_controller->storeError().isEmpty()) {
    text = tr("Cannot read the runs: %1").arg(m_controller->storeError());
  } else {
    text = tr("%n run(s) in %1", nullptr, m_controller->model()->rowCount())
               .arg(m_controller->workspace());
    if (!m_lastOutcome.isEmpty())
      text += QStringLiteral(" · ") + m_lastOutcome;
  }
  m_status->setText(text);
  m_status->setToolTip(text);
}

void RunsView::updateScatter() {
  m_scatter = views::scatterData(m_controller->model()->runs());
  m_plot->clear();
  m_plot->setTitle(tr("predicted vs measured (timed GPU runs)"));
  if (m_scatter.points.isEmpty()) {
    m_plot->setAxes(tr("predicted µs"), 1, 1000, true, tr("measured µs"), 1, 1000, true);
    m_plot->addNote(wrapped(m_scatter.note, 36));
    m_quality->setText(tr("Spearman's ρ and top-1 regret\nneed timed GPU runs."));
    m_plot->replot();
    return;
  }
  double lo = 1e300, hi = 0;
  for (const QPointF& p : m_scatter.points) {
    lo = std::min({lo, p.x(), p.y()});
    hi = std::max({hi, p.x(), p.y()});
  }
  lo = std::pow(10.0, std::floor(std::log10(lo)));
  hi = std::pow(10.0, std::ceil(std::log10(hi * 1.0001)));
  m_plot->setAxes(tr("predicted µs"), lo, hi, true, tr("measured µs"), lo, hi, true);
  m_plot->addLine({QPointF(lo, lo), QPointF(hi, hi)}, palette().color(QPalette::Mid),
                  tr("measured = predicted"), Qt::DashLine, 1);
  m_plot->addPoints(m_scatter.points, QColor(0x15, 0x65, 0xc0), tr("kernel (newest run)"));
  for (int i = 0; i < m_scatter.points.size(); ++i)
    m_plot->addText(m_scatter.points[i], m_scatter.labels[i], palette().color(QPalette::Text));
  if (!m_scatter.note.isEmpty())
    m_plot->addNote(wrapped(m_scatter.note, 36));
  QString rho =
      m_scatter.spearman ? QString::number(*m_scatter.spearman, 'f', 3) : QStringLiteral("—");
  QString regret = m_scatter.regret ? QStringLiteral("%1 % over %2 workload(s)")
                                          .arg(*m_scatter.regret * 100, 0, 'f', 1)
                                          .arg(m_scatter.regretGroups)
                                    : QStringLiteral("—");
  m_quality->setText(tr("%1 kernel(s) · Spearman's ρ %2\ntop-1 regret %3")
                         .arg(m_scatter.points.size())
                         .arg(rho, regret));
  m_plot->replot();
}

} // namespace cake::widgets
