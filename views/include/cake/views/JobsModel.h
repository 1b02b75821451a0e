// The jobs panel's model: every background job of the compile façade (check, cost, lower,
// ptxas) with its kind, state, progress, elapsed time and last log line.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/CompileSession.h"

#include <QAbstractTableModel>
#include <QElapsedTimer>
#include <QTimer>
#include <QVector>

namespace cake::views {

class JobsModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column {
    IdColumn,
    KindColumn,
    StateColumn,
    ProgressColumn,
    ElapsedColumn,
    LogColumn,
    ColumnCount
  };
  enum Roles {
    JobIdRole = Qt::UserRole + 1, ///< quint64
    StateRole,                    ///< int(JobState)
    ProgressRole, ///< 0 queued, -1 running (indeterminate; its percent once it reports
                  ///< progress), 100 finished, -2 ended without finishing (cancelled, failed,
                  ///< superseded)
    ActiveRole,   ///< bool: queued or running (can be cancelled)
  };

  explicit JobsModel(QObject* parent = nullptr);

  /// Follows a session's jobs (the model never calls into it).
  void setSession(CompileSession* session);
  /// Rows kept (oldest dropped first; default 200).
  void setMaxRows(int rows);

  void addJob(const JobInfo& job);
  void setState(quint64 id, JobState state, const QString& log);
  /// A running job's progress in percent (CompileSession::jobProgress).
  void setProgress(quint64 id, int percent);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

  int rowOf(quint64 id) const;
  quint64 jobId(int row) const;
  JobState state(int row) const;
  /// Jobs queued or running.
  int activeCount() const;

private:
  struct Row {
    JobInfo job;
    JobState state = JobState::Queued;
    QString log;
    QElapsedTimer clock;   ///< started when the job is queued
    qint64 elapsedMs = -1; ///< frozen at the end
    int percent = -1;      ///< reported progress (-1: none)
  };
  static bool active(JobState s) { return s == JobState::Queued || s == JobState::Running; }
  void tick();

  QVector<Row> m_rows;
  int m_maxRows = 200;
  QTimer m_tick; ///< refreshes the elapsed time of running jobs
};

} // namespace cake::views
