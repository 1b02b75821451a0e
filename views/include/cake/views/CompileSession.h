// The workbench's single façade to the compiler: loads the compiler data and runs checks in
// background jobs with ids; superseded results are dropped, snapshots are immutable.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Driver/Compiler.h"
#include "cake/views/ViewData.h"

#include <QObject>
#include <QString>
#include <QThreadPool>
#include <memory>

namespace cake::views {

/// The result of one check job, shared read-only with every view.
struct CheckSnapshot {
  quint64 jobId = 0;
  QString path;
  QString text;
  driver::CheckResult result;
  /// What the views show, derived in the same background job (never on the GUI thread).
  ViewDataPtr views;
  qint64 elapsedMs = 0; ///< check + view data
  qint64 checkMs = 0;   ///< parse, type check and verification alone
};
using CheckSnapshotPtr = std::shared_ptr<const CheckSnapshot>;

class CompileSession : public QObject {
  Q_OBJECT
public:
  explicit CompileSession(QObject* parent = nullptr);
  ~CompileSession() override;

  /// Loads the compiler data in the background; compilerReady() or compilerFailed() follows.
  void start(const driver::DataPaths& paths);
  /// Uses an already loaded compiler (tests).
  void setCompiler(std::shared_ptr<const driver::Compiler> compiler);
  std::shared_ptr<const driver::Compiler> compiler() const { return m_compiler; }

  /// Queues a check of `text`; returns its job id. A later request supersedes an earlier one:
  /// only the newest job's result is delivered.
  quint64 requestCheck(const QString& path, const QString& text);
  quint64 latestJob() const { return m_latest; }
  /// Waits for running jobs (shutdown and tests).
  void waitForIdle();

Q_SIGNALS:
  void compilerReady(QString revision);
  void compilerFailed(QString message);
  void jobStarted(quint64 jobId, QString description);
  /// Emitted for every finished job, including dropped ones.
  void jobFinished(quint64 jobId, qint64 elapsedMs, bool superseded);
  /// The newest check result.
  void checkFinished(cake::views::CheckSnapshotPtr snapshot);

private:
  void runCheck(quint64 id, QString path, QString text);

  QThreadPool m_pool;
  std::shared_ptr<const driver::Compiler> m_compiler;
  quint64 m_next = 0;
  quint64 m_latest = 0;
  struct Pending {
    quint64 id;
    QString path;
    QString text;
  };
  std::unique_ptr<Pending> m_pending; ///< request made before the compiler was ready
};

} // namespace cake::views

Q_DECLARE_METATYPE(cake::views::CheckSnapshotPtr)
