// The Runs dock's controller: runs the current kernel with `cake run` (device, executor, shapes)
// as background jobs of the CompileSession (JobKind::Run), so a dock run is exactly a CLI run
// and is stored in the same workspace table; cancel stops the executor (the local runner killed,
// `scancel`, the remote process killed); the store is read back into the results model.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/CompileSession.h"
#include "cake/views/RunsModel.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QTimer>
#include <memory>

namespace cake::views {

/// What to run.
struct RunRequest {
  QString kernelPath;
  QString device = QStringLiteral("cpu");     ///< "cpu" or "gpu"
  QString executor = QStringLiteral("local"); ///< local, ssh://HOST, slurm[:PARTITION]
  QString shapes = QStringLiteral("small");   ///< CPU device: small or full (GPU: full)
  double timeoutSeconds = 600;
  QString workload; ///< a contract file (empty: the corpus case's)
};

/// How a run job ended.
struct RunOutcome {
  quint64 job = 0;
  RunRequest request;
  int exitCode = -1; ///< `cake run`'s exit code (docs/runs.md), -1 when it did not exit
  bool cancelled = false, timedOut = false;
  QString output; ///< the record as `cake run` printed it
  QString log;    ///< the executor's log and `cake run`'s messages (standard error)
  double seconds = 0;
};

class RunController : public QObject {
  Q_OBJECT
public:
  explicit RunController(CompileSession* session, QObject* parent = nullptr);
  ~RunController() override;

  /// The workspace runs are stored in and read from (empty: none; runs are refused).
  void setWorkspace(const QString& dir);
  const QString& workspace() const { return m_workspace; }
  /// The `cake` program that runs (default: `cake` next to this executable).
  void setCli(const QString& path) { m_cli = path; }
  const QString& cli() const { return m_cli; }
  /// The runner `cake run` hands to the executor (--runner; empty: its default).
  void setRunner(const QString& path) { m_runner = path; }
  /// Extra environment for `cake run` (CAKE_SSH_CONFIG, CAKE_SLURM_SHARED_DIR, CAKE_RUNNER).
  void setEnvironment(const QStringList& entries) { m_environment = entries; }

  RunsModel* model() const { return m_model; }
  /// The `cake` arguments of a request (exposed for tests and the log).
  QStringList arguments(const RunRequest& request) const;
  /// Starts a run job; 0 with `error` when it cannot (no workspace, no kernel file, bad device).
  quint64 start(const RunRequest& request, QString* error = nullptr);
  /// Cancels a run: `cake run` gets SIGTERM and stops its executor before it exits (its record
  /// says "cancelled" and is stored). False when the job is not a running run of this controller.
  bool cancel(quint64 job);
  /// Run jobs started and not yet ended.
  QList<quint64> activeRuns() const { return m_active.keys(); }
  /// Seconds a running job has run (-1 when unknown).
  double elapsedSeconds(quint64 job) const;
  /// Reads the workspace's runs in the background; runsChanged() follows.
  void refresh();
  /// True from refresh() until its read is delivered (false before the first refresh too).
  bool reading() const { return m_delivered != m_refreshGeneration; }
  /// Reads delivered so far.
  int reads() const { return m_reads; }
  /// The last error of reading the store ("" when it read).
  const QString& storeError() const { return m_storeError; }

Q_SIGNALS:
  void runStarted(quint64 job, QString commandLine);
  /// Every started run ends here once `cake run` has exited, cancelled ones included.
  void runFinished(cake::views::RunOutcome outcome);
  /// The store was read (model updated) or could not be (storeError()).
  void runsChanged();

private:
  struct Active;
  void poll();

  CompileSession* m_session;
  RunsModel* m_model;
  QString m_workspace, m_cli, m_runner, m_storeError;
  QStringList m_environment;
  QHash<quint64, std::shared_ptr<Active>> m_active;
  QTimer m_poll;
  quint64 m_refreshGeneration = 0, m_delivered = 0;
  int m_reads = 0;
};

} // namespace cake::views

Q_DECLARE_METATYPE(cake::views::RunOutcome)
