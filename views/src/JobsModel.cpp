// Jobs table: rows appended as jobs are queued, updated as their state changes.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/JobsModel.h"

#include <QColor>

#include <algorithm>

namespace cake::views {

JobsModel::JobsModel(QObject* parent) : QAbstractTableModel(parent) {
  m_tick.setInterval(250);
  connect(&m_tick, &QTimer::timeout, this, &JobsModel::tick);
}

void JobsModel::setSession(CompileSession* session) {
  connect(session, &CompileSession::jobQueued, this, &JobsModel::addJob);
  connect(session, &CompileSession::jobStateChanged, this, &JobsModel::setState);
  connect(session, &CompileSession::jobProgress, this, &JobsModel::setProgress);
}

void JobsModel::setProgress(quint64 id, int percent) {
  int row = rowOf(id);
  if (row < 0 || m_rows[row].state != JobState::Running)
    return;
  m_rows[row].percent = std::clamp(percent, 0, 100);
  Q_EMIT dataChanged(index(row, ProgressColumn), index(row, ProgressColumn));
}

void JobsModel::setMaxRows(int rows) {
  m_maxRows = std::max(1, rows);
}

void JobsModel::addJob(const JobInfo& job) {
  if (m_rows.size() >= m_maxRows) {
    // Drop the oldest finished row; active ones stay (they can still be cancelled).
    for (int i = 0; i < m_rows.size(); ++i)
      if (!active(m_rows[i].state)) {
        beginRemoveRows({}, i, i);
        m_rows.remove(i);
        endRemoveRows();
        break;
      }
  }
  beginInsertRows({}, int(m_rows.size()), int(m_rows.size()));
  Row r;
  r.job = job;
  r.log = job.description;
  r.clock.start(); // elapsed counts from the request: queueing is part of what the user waits
  m_rows.append(r);
  endInsertRows();
}

void JobsModel::setState(quint64 id, JobState state, const QString& log) {
  int row = rowOf(id);
  if (row < 0)
    return;
  Row& r = m_rows[row];
  // A cancel request is final for the panel even if the worker reports later.
  if (!active(r.state) && r.state != JobState::Cancelled)
    return;
  if (r.state == JobState::Cancelled && state != JobState::Cancelled)
    return;
  if (!active(state) && r.elapsedMs < 0)
    r.elapsedMs = r.clock.isValid() ? r.clock.elapsed() : 0;
  r.state = state;
  if (!log.isEmpty())
    r.log = log;
  Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
  if (state == JobState::Running && !m_tick.isActive())
    m_tick.start();
}

void JobsModel::tick() {
  bool any = false;
  for (int i = 0; i < m_rows.size(); ++i)
    if (m_rows[i].state == JobState::Running) {
      any = true;
      Q_EMIT dataChanged(index(i, ElapsedColumn), index(i, ElapsedColumn));
    }
  if (!any)
    m_tick.stop();
}

int JobsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(m_rows.size());
}
int JobsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

int JobsModel::rowOf(quint64 id) const {
  for (int i = int(m_rows.size()) - 1; i >= 0; --i)
    if (m_rows[i].job.id == id)
      return i;
  return -1;
}

quint64 JobsModel::jobId(int row) const {
  return row >= 0 && row < m_rows.size() ? m_rows[row].job.id : 0;
}
JobState JobsModel::state(int row) const {
  return row >= 0 && row < m_rows.size() ? m_rows[row].state : JobState::Finished;
}

int JobsModel::activeCount() const {
  return int(
      std::count_if(m_rows.begin(), m_rows.end(), [](const Row& r) { return active(r.state); }));
}

QVariant JobsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const Row& r = m_rows[index.row()];
  // Only a finished job is complete: a cancelled, failed or superseded one never got there
  // (B13: a cancelled job used to show 100 %).
  int progress = r.state == JobState::Queued     ? 0
                 : r.state == JobState::Running  ? r.percent
                 : r.state == JobState::Finished ? 100
                                                 : -2;
  switch (role) {
  case JobIdRole:
    return QVariant::fromValue(r.job.id);
  case StateRole:
    return int(r.state);
  case ProgressRole:
    return progress;
  case ActiveRole:
    return active(r.state);
  case Qt::ToolTipRole:
    return r.job.description + QLatin1Char('\n') + r.log;
  case Qt::ForegroundRole:
    if (index.column() == StateColumn &&
        (r.state == JobState::Failed || r.state == JobState::Cancelled))
      return QColor(0xd0, 0x40, 0x40);
    if (index.column() == StateColumn && r.state == JobState::Superseded)
      return QColor(0x88, 0x88, 0x88); // grey: readable on light and dark bases
    return {};
  case Qt::TextAlignmentRole:
    if (index.column() == IdColumn || index.column() == ElapsedColumn)
      return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
  case Qt::DisplayRole:
    switch (index.column()) {
    case IdColumn:
      return QString::number(r.job.id);
    case KindColumn:
      return jobKindName(r.job.kind);
    case StateColumn:
      return jobStateName(r.state);
    case ProgressColumn:
      return progress == -1   ? QStringLiteral("…")
             : progress == -2 ? QStringLiteral("—")
                              : QStringLiteral("%1%").arg(progress);
    case ElapsedColumn: {
      qint64 ms = r.elapsedMs >= 0 ? r.elapsedMs : r.clock.isValid() ? r.clock.elapsed() : 0;
      return ms < 10000 ? QStringLiteral("%1 ms").arg(ms)
                        : QStringLiteral("%1 s").arg(double(ms) / 1000, 0, 'f', 1);
    }
    case LogColumn:
      return r.log;
    }
  }
  return {};
}

QVariant JobsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return {};
  switch (section) {
  case IdColumn:
    return tr("Job");
  case KindColumn:
    return tr("Kind");
  case StateColumn:
    return tr("State");
  case ProgressColumn:
    return tr("Progress");
  case ElapsedColumn:
    return tr("Elapsed");
  case LogColumn:
    return tr("Log");
  }
  return {};
}

} // namespace cake::views
