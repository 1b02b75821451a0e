// The Runs dock's results table model.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/RunsModel.h"

#include <QBrush>
#include <QColor>
#include <cmath>

namespace cake::views {

namespace {

QString us(double v) {
  return QString::number(v, v >= 100 ? 'f' : 'g', v >= 100 ? 1 : 4);
}

} // namespace

RunsModel::RunsModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunsModel::setRuns(QVector<RunEntry> runs) {
  beginResetModel();
  m_runs = std::move(runs);
  endResetModel();
}

const RunEntry* RunsModel::entry(int row) const {
  return row >= 0 && row < m_runs.size() ? &m_runs[row] : nullptr;
}

int RunsModel::rowOf(qint64 id) const {
  for (int i = 0; i < m_runs.size(); ++i)
    if (m_runs[i].id == id)
      return i;
  return -1;
}

int RunsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(m_runs.size());
}

int RunsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QString RunsModel::medianText(const RunEntry& e) {
  if (!e.timed)
    return QStringLiteral("—");
  return QStringLiteral("%1 (%2–%3)").arg(us(e.medianUs), us(e.q1Us), us(e.q3Us));
}

QString RunsModel::deltaText(const RunEntry& e) {
  std::optional<double> d = e.deltaVsBaseline();
  if (!d)
    return {};
  double pct = *d * 100;
  return QStringLiteral("%1%2 %")
      .arg(pct >= 0 ? QStringLiteral("+") : QStringLiteral("−"))
      .arg(std::abs(pct), 0, 'f', 1);
}

QVariant RunsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const RunEntry& e = m_runs[index.row()];
  if (role == IdRole)
    return e.id;
  if (role == Qt::ToolTipRole) {
    QString tip = QStringLiteral("run %1 · %2 · %3").arg(e.id).arg(e.sourcePath, e.createdAt);
    if (!e.details.isEmpty())
      tip += '\n' + e.details;
    if (index.column() == Median && !e.timed)
      tip += tr("\nno kernel timing: %1")
                 .arg(e.deviceKind == QLatin1String("cpu") ? tr("a CPU run proves correctness only")
                                                           : tr("the run produced no GPU samples"));
    if (index.column() == DeltaBaseline && e.baselineUs)
      tip += tr("\nbaseline %1: %2 us").arg(e.baselineName, us(*e.baselineUs));
    return tip;
  }
  if (role == Qt::ForegroundRole && index.column() == Correct) {
    if (e.status == QLatin1String("correct"))
      return QBrush(QColor(0x2e, 0x7d, 0x32));
    if (e.status != QLatin1String("unchecked"))
      return QBrush(QColor(0xc6, 0x28, 0x28));
    return {};
  }
  if (role == Qt::TextAlignmentRole &&
      (index.column() == Median || index.column() == Predicted || index.column() == DeltaBaseline))
    return int(Qt::AlignRight | Qt::AlignVCenter);
  if (role == SortRole) {
    switch (index.column()) {
    case Median:
      return e.timed ? e.medianUs : -1.0;
    case Predicted:
      return e.predictedUs.value_or(-1.0);
    case DeltaBaseline:
      return e.deltaVsBaseline().value_or(-1e300);
    case When:
      return e.id;
    default:
      break;
    }
    role = Qt::DisplayRole;
  }
  if (role != Qt::DisplayRole)
    return {};
  switch (index.column()) {
  case Kernel:
    return e.kernel;
  case Device: {
    // "none": the run never reached a device (no driver, refused target, executor failure).
    QString name = e.deviceName == QLatin1String("none") ? tr("no device") : e.deviceName;
    return e.deviceKind.isEmpty() ? name : QStringLiteral("%1 · %2").arg(e.deviceKind, name);
  }
  case Executor:
    return e.executor;
  case Correct:
    return e.status;
  case Median:
    return medianText(e);
  case Predicted:
    return e.predictedUs ? us(*e.predictedUs) : QString();
  case DeltaBaseline:
    return deltaText(e);
  case When:
    return QString(e.createdAt.left(19)).replace('T', ' ') + QStringLiteral(" UTC");
  default:
    return {};
  }
}

QVariant RunsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return QAbstractTableModel::headerData(section, orientation, role);
  switch (section) {
  case Kernel:
    return tr("Kernel");
  case Device:
    return tr("Device");
  case Executor:
    return tr("Executor");
  case Correct:
    return tr("Correct");
  case Median:
    return tr("Median µs (q1–q3)");
  case Predicted:
    return tr("Predicted µs");
  case DeltaBaseline:
    return tr("Δ baseline");
  case When:
    return tr("When");
  default:
    return {};
  }
}

} // namespace cake::views
