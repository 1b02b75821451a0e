// Background compile façade: compiler loading, check and cost jobs on one ordered worker,
// lowering and ptxas on a second one; every job has an id, a cancel flag and a state.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/CompileSession.h"

#include "cake/views/CompareData.h"
#include "cake/views/LoweredCode.h"
#include "cake/views/PerformanceData.h"
#include "cake/Workspace/Workspace.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QPointer>
#include <QtConcurrent>

#include <algorithm>
#include <exception>
#include <memory>

namespace cake::views {

QString jobKindName(JobKind kind) {
  switch (kind) {
  case JobKind::Check:
    return QStringLiteral("check");
  case JobKind::Cost:
    return QStringLiteral("cost");
  case JobKind::Lower:
    return QStringLiteral("lower");
  case JobKind::Ptxas:
    return QStringLiteral("ptxas");
  case JobKind::Compare:
    return QStringLiteral("compare");
  case JobKind::Baseline:
    return QStringLiteral("baseline");
  case JobKind::Evaluate:
    return QStringLiteral("evaluate");
  case JobKind::Review:
    return QStringLiteral("review");
  case JobKind::Preview:
    return QStringLiteral("preview");
  case JobKind::Import:
    return QStringLiteral("import");
  case JobKind::Run:
    return QStringLiteral("run");
  case JobKind::Sass:
    return QStringLiteral("sass");
  }
  return {};
}

QString jobStateName(JobState state) {
  switch (state) {
  case JobState::Queued:
    return QStringLiteral("queued");
  case JobState::Running:
    return QStringLiteral("running");
  case JobState::Finished:
    return QStringLiteral("finished");
  case JobState::Failed:
    return QStringLiteral("failed");
  case JobState::Superseded:
    return QStringLiteral("superseded");
  case JobState::Cancelled:
    return QStringLiteral("cancelled");
  }
  return {};
}

CompileSession::CompileSession(QObject* parent) : QObject(parent) {
  qRegisterMetaType<CheckSnapshotPtr>();
  qRegisterMetaType<CostSnapshotPtr>();
  qRegisterMetaType<LowerSnapshotPtr>();
  qRegisterMetaType<PtxasSnapshotPtr>();
  qRegisterMetaType<JobInfo>();
  qRegisterMetaType<JobState>();
  qRegisterMetaType<CompareSnapshotPtr>();
  qRegisterMetaType<BaselinePtr>();
  qRegisterMetaType<BaselineDeltaPtr>();
  // One worker keeps checks and their cost estimates in order and leaves the other core to the
  // GUI; lowering and ptxas (seconds, an external process) get their own so a check never
  // waits behind them.
  m_pool.setMaxThreadCount(1);
  m_toolPool.setMaxThreadCount(1);
  m_comparePool.setMaxThreadCount(1);
  // An evaluation runs the whole corpus gate twice (minutes); a second thread keeps review
  // acts and previews from waiting behind it.
  m_taskPool.setMaxThreadCount(2);
}

CompileSession::~CompileSession() {
  // Kill external tools rather than wait for their timeout; jobs posted results to this object
  // only while it exists: both pools are drained here, before any member goes away.
  for (const Active& a : std::as_const(m_active))
    a.cancel->store(true);
  m_comparePool.waitForDone();
  m_taskPool.waitForDone();
  m_toolPool.waitForDone();
  m_pool.waitForDone();
}

void CompileSession::setCompiler(std::shared_ptr<const driver::Compiler> compiler) {
  m_compiler = std::move(compiler);
  Q_EMIT compilerReady(QString::fromStdString(m_compiler->revision()));
  if (m_pending) {
    auto p = std::move(m_pending);
    runCheck(p->id, p->path, p->text);
  }
}

void CompileSession::start(const driver::DataPaths& paths, const QString& workspace) {
  m_paths = paths;
  m_workspace = workspace;
  struct Loaded {
    std::shared_ptr<const driver::Compiler> compiler;
    qint64 revision = 0;
    QString failure;
  };
  auto* watcher = new QFutureWatcher<Loaded>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
    Loaded loaded = watcher->result();
    watcher->deleteLater();
    const std::shared_ptr<const driver::Compiler>& c = loaded.compiler;
    if (!c) {
      Q_EMIT compilerFailed(QStringLiteral("cannot load the compiler data: %1").arg(loaded.failure));
      return;
    }
    if (!c->ok()) {
      QString message = QStringLiteral("the compiler data in '%1' is invalid:")
                            .arg(QString::fromStdString(c->paths().primitives));
      for (const Diagnostic& d : c->loadDiagnostics())
        message += "\n" + QString::fromStdString(d.message);
      Q_EMIT compilerFailed(message);
      return;
    }
    m_workspaceRevision = loaded.revision;
    setCompiler(c);
  });
  watcher->setFuture(QtConcurrent::run(&m_pool, [paths, workspace]() -> Loaded {
    // Loading reports bad data as findings; an exception escaping it anyway (a file system
    // error the loader did not foresee, memory) would otherwise be rethrown by result() on the
    // GUI thread and abort the workbench.
    Loaded out;
    try {
      DataOverlay overlay;
      if (!workspace.isEmpty()) {
        auto w = ws::Workspace::open(workspace.toStdString(), ws::OpenMode::CreateIfMissing);
        auto head = w ? w->head() : ws::Expected<std::int64_t>(w.error());
        auto o = head ? w->dataOverlay(*head) : ws::Expected<DataOverlay>(head.error());
        if (!o) {
          out.failure = QStringLiteral("workspace '%1': %2")
                            .arg(workspace, QString::fromStdString(o.error().text()));
          return out;
        }
        out.revision = *head;
        overlay = std::move(*o);
      }
      out.compiler = driver::Compiler::load(paths, std::move(overlay));
    } catch (const std::exception& e) {
      out.failure = QString::fromUtf8(e.what());
      out.compiler.reset();
    }
    return out;
  }));
}

std::shared_ptr<std::atomic<bool>> CompileSession::beginJob(quint64 id, JobKind kind,
                                                            const QString& what) {
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  m_active.insert(id, Active{kind, cancel});
  Q_EMIT jobQueued(JobInfo{id, kind, what});
  if (kind == JobKind::Check)
    Q_EMIT jobStarted(id, what);
  return cancel;
}

void CompileSession::markRunning(quint64 id) {
  // Called on a worker thread: the state change is delivered on the GUI thread. The session
  // outlives every job (its destructor drains both pools), and events posted to it are dropped
  // with it.
  QMetaObject::invokeMethod(
      this,
      [this, id] {
        if (m_active.contains(id))
          Q_EMIT jobStateChanged(id, JobState::Running, QString());
      },
      Qt::QueuedConnection);
}

bool CompileSession::endJob(quint64 id, bool current, bool failed, const QString& log) {
  Active a = m_active.take(id);
  bool cancelled = a.cancel && a.cancel->load();
  JobState state = cancelled  ? JobState::Cancelled
                   : !current ? JobState::Superseded
                   : failed   ? JobState::Failed
                              : JobState::Finished;
  Q_EMIT jobStateChanged(id, state, cancelled ? QStringLiteral("cancelled; result dropped") : log);
  return !cancelled && current;
}

bool CompileSession::cancelJob(quint64 id) {
  auto it = m_active.find(id);
  if (it == m_active.end() || it->cancel->load())
    return false;
  it->cancel->store(true);
  Q_EMIT jobStateChanged(id, JobState::Cancelled, QStringLiteral("cancel requested"));
  return true;
}

void CompileSession::cancelToolJobs() {
  for (auto it = m_active.begin(); it != m_active.end(); ++it)
    if (it->kind == JobKind::Lower || it->kind == JobKind::Ptxas || it->kind == JobKind::Sass)
      it->cancel->store(true);
}

quint64 CompileSession::requestCheck(const QString& path, const QString& text) {
  quint64 id = ++m_next;
  m_latest = id;
  if (!m_compiler) {
    if (m_pending)
      endJob(m_pending->id, false, false,
             QStringLiteral("superseded before the compiler was ready"));
    beginJob(id, JobKind::Check, QStringLiteral("check %1").arg(QFileInfo(path).fileName()));
    m_pending = std::make_unique<Pending>(Pending{id, path, text});
    return id;
  }
  beginJob(id, JobKind::Check, QStringLiteral("check %1").arg(QFileInfo(path).fileName()));
  runCheck(id, path, text);
  return id;
}

void CompileSession::runCheck(quint64 id, QString path, QString text) {
  std::shared_ptr<const driver::Compiler> compiler = m_compiler;
  std::shared_ptr<std::atomic<bool>> cancel = m_active.value(id).cancel;
  auto* watcher = new QFutureWatcher<CheckSnapshotPtr>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, id] {
    CheckSnapshotPtr snapshot = watcher->result();
    watcher->deleteLater();
    bool superseded = id != m_latest;
    QString log;
    if (snapshot)
      log = QStringLiteral("%1, %2 finding(s) in %3 ms")
                .arg(snapshot->result.accepted ? QStringLiteral("accepted")
                                               : QStringLiteral("refused"))
                .arg(snapshot->result.diagnostics.size())
                .arg(snapshot->elapsedMs);
    bool deliver = endJob(id, !superseded, false, log) && snapshot;
    Q_EMIT jobFinished(id, snapshot ? snapshot->elapsedMs : 0, !deliver);
    if (!deliver)
      return;
    m_lastCheck = snapshot;
    Q_EMIT checkFinished(snapshot);
    if (snapshot->result.accepted)
      requestCost(snapshot);
    if (m_baseline)
      requestBaselineDelta(snapshot);
  });
  // Inputs are captured by value; the job never touches this object but for markRunning.
  watcher->setFuture(
      QtConcurrent::run(&m_pool, [this, compiler, cancel, id, path, text]() -> CheckSnapshotPtr {
        if (cancel && cancel->load())
          return nullptr;
        markRunning(id);
        QElapsedTimer timer;
        timer.start();
        auto snapshot = std::make_shared<CheckSnapshot>();
        snapshot->jobId = id;
        snapshot->path = path;
        snapshot->text = text;
        snapshot->result = compiler->check(path.toStdString(), text.toStdString());
        snapshot->checkMs = timer.elapsed();
        snapshot->views = buildViewData(snapshot->result);
        snapshot->elapsedMs = timer.elapsed();
        return CheckSnapshotPtr(std::move(snapshot));
      }));
}

quint64 CompileSession::requestCost(const CheckSnapshotPtr& snapshot) {
  if (!m_compiler || !snapshot)
    return 0;
  quint64 id = ++m_next;
  m_latestCost = id;
  quint64 checkJob = snapshot->jobId;
  std::shared_ptr<std::atomic<bool>> cancel = beginJob(
      id, JobKind::Cost, QStringLiteral("cost %1").arg(QFileInfo(snapshot->path).fileName()));
  std::shared_ptr<const driver::Compiler> compiler = m_compiler;
  QString workspace = m_workspace;
  auto* watcher = new QFutureWatcher<CostSnapshotPtr>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, id, checkJob] {
    CostSnapshotPtr result = watcher->result();
    watcher->deleteLater();
    // Stale when a newer cost job exists or its check is no longer the newest one.
    bool current = id == m_latestCost && checkJob == m_latest;
    QString log;
    if (result)
      log = result->data.ok ? QStringLiteral("predicted %1 us, %2")
                                  .arg(result->data.predictedUs, 0, 'f', 1)
                                  .arg(result->data.bottleneck)
                            : result->data.unavailable;
    if (endJob(id, current, result && !result->data.ok, log) && result)
      Q_EMIT costFinished(result);
  });
  watcher->setFuture(QtConcurrent::run(
      &m_pool, [this, compiler, cancel, snapshot, id, workspace]() -> CostSnapshotPtr {
        if (cancel->load())
          return nullptr;
        markRunning(id);
        return buildCostSnapshot(*compiler, snapshot, id, workspace);
      }));
  return id;
}

quint64 CompileSession::requestLower(const CheckSnapshotPtr& snapshot, LoweredEmit kind) {
  if (!m_compiler || !snapshot)
    return 0;
  cancelToolJobs();
  quint64 id = ++m_next;
  m_latestLower = id;
  m_latestPtxas = 0;
  quint64 checkJob = snapshot->jobId;
  // SASS is a job of its own kind: it runs ptxas or nvcc and nvdisasm (seconds).
  std::shared_ptr<std::atomic<bool>> cancel =
      beginJob(id, kind == LoweredEmit::Sass ? JobKind::Sass : JobKind::Lower,
               QStringLiteral("lower %1 to %2")
                   .arg(QFileInfo(snapshot->path).fileName(), loweredEmitName(kind)));
  std::shared_ptr<const driver::Compiler> compiler = m_compiler;
  double timeout = m_toolTimeout;
  auto* watcher = new QFutureWatcher<LowerSnapshotPtr>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, id, checkJob] {
    LowerSnapshotPtr result = watcher->result();
    watcher->deleteLater();
    bool current = id == m_latestLower && checkJob == m_latest;
    QString log;
    if (result)
      log = result->ok ? QStringLiteral("%1 lines, %2 mapped to the source in %3 ms")
                             .arg(result->text.count('\n'))
                             .arg(result->lines.mappedLines())
                             .arg(result->elapsedMs)
                       : result->unavailable.section('\n', 0, 0);
    if (!endJob(id, current, result && !result->ok, log) || !result)
      return;
    Q_EMIT lowerFinished(result);
    if (result->ok && result->kind == LoweredEmit::Ptx)
      requestPtxas(result);
  });
  watcher->setFuture(QtConcurrent::run(
      &m_toolPool, [this, compiler, cancel, snapshot, kind, id, timeout]() -> LowerSnapshotPtr {
        if (cancel->load())
          return nullptr;
        markRunning(id);
        return buildLowerSnapshot(*compiler, snapshot, kind, id, cancel.get(), timeout);
      }));
  return id;
}

quint64 CompileSession::requestPtxas(const LowerSnapshotPtr& lowered) {
  if (!lowered || !lowered->ok || lowered->kind != LoweredEmit::Ptx)
    return 0;
  quint64 id = ++m_next;
  m_latestPtxas = id;
  quint64 checkJob = lowered->checkJob;
  std::shared_ptr<std::atomic<bool>> cancel =
      beginJob(id, JobKind::Ptxas,
               QStringLiteral("ptxas -arch=%1 %2")
                   .arg(lowered->target, QFileInfo(lowered->check->path).fileName()));
  double timeout = m_toolTimeout;
  auto* watcher = new QFutureWatcher<PtxasSnapshotPtr>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, id, checkJob] {
    PtxasSnapshotPtr result = watcher->result();
    watcher->deleteLater();
    bool current = id == m_latestPtxas && checkJob == m_latest;
    QString log = result ? result->message : QString();
    if (endJob(id, current, result && !result->ok, log) && result)
      Q_EMIT ptxasFinished(result);
  });
  watcher->setFuture(
      QtConcurrent::run(&m_toolPool, [this, cancel, lowered, id, timeout]() -> PtxasSnapshotPtr {
        if (cancel->load())
          return nullptr;
        markRunning(id);
        return buildPtxasSnapshot(lowered, id, timeout, *cancel);
      }));
  return id;
}

quint64 CompileSession::requestCompare(const QString& pathBefore, const QString& textBefore,
                                       const QString& pathAfter, const QString& textAfter) {
  if (!m_compiler)
    return 0;
  quint64 id = ++m_next;
  m_latestCompare = id;
  std::shared_ptr<std::atomic<bool>> cancel =
      beginJob(id, JobKind::Compare,
               QStringLiteral("compare %1 with %2")
                   .arg(QFileInfo(pathBefore).fileName(), QFileInfo(pathAfter).fileName()));
  std::shared_ptr<const driver::Compiler> compiler = m_compiler;
  auto* watcher = new QFutureWatcher<CompareSnapshotPtr>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, id] {
    CompareSnapshotPtr result = watcher->result();
    watcher->deleteLater();
    QString log;
    if (result)
      log = QStringLiteral("%1 declaration(s), %2 operation(s), %3 finding(s) changed in %4 ms")
                .arg(result->diff->decls.size())
                .arg(result->diff->ops.size())
                .arg(result->diff->findings.size())
                .arg(result->elapsedMs);
    if (endJob(id, id == m_latestCompare, false, log) && result)
      Q_EMIT compareFinished(result);
  });
  watcher->setFuture(QtConcurrent::run(
      &m_comparePool,
      [this, compiler, cancel, id, pathBefore, textBefore, pathAfter,
       textAfter]() -> CompareSnapshotPtr {
        if (cancel->load())
          return nullptr;
        markRunning(id);
        return buildCompareSnapshot(*compiler, pathBefore, textBefore, pathAfter, textAfter, id);
      }));
  return id;
}

quint64 CompileSession::pinBaseline(const QString& path, const QString& text) {
  if (!m_compiler)
    return 0;
  quint64 id = ++m_next;
  m_latestBaseline = id;
  std::shared_ptr<std::atomic<bool>> cancel = beginJob(
      id, JobKind::Baseline, QStringLiteral("baseline %1").arg(QFileInfo(path).fileName()));
  std::shared_ptr<const driver::Compiler> compiler = m_compiler;
  auto* watcher = new QFutureWatcher<BaselinePtr>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, id] {
    BaselinePtr result = watcher->result();
    watcher->deleteLater();
    QString log =
        result ? QStringLiteral("pinned %1").arg(QFileInfo(result->path).fileName()) : QString();
    if (!endJob(id, id == m_latestBaseline, false, log) || !result)
      return;
    m_baseline = result;
    Q_EMIT baselineReady(result);
    if (m_lastCheck)
      requestBaselineDelta(m_lastCheck);
  });
  watcher->setFuture(
      QtConcurrent::run(&m_pool, [this, compiler, cancel, id, path, text]() -> BaselinePtr {
        if (cancel->load())
          return nullptr;
        markRunning(id);
        return buildBaseline(*compiler, path, text);
      }));
  return id;
}

void CompileSession::clearBaseline() {
  m_latestBaseline = ++m_next; // a pin still running is stale now
  m_latestDelta = 0;
  m_baseline.reset();
  Q_EMIT baselineReady(nullptr);
}

quint64 CompileSession::requestBaselineDelta(const CheckSnapshotPtr& snapshot) {
  if (!m_compiler || !m_baseline || !snapshot)
    return 0;
  quint64 id = ++m_next;
  m_latestDelta = id;
  quint64 checkJob = snapshot->jobId;
  std::shared_ptr<std::atomic<bool>> cancel = beginJob(
      id, JobKind::Baseline,
      QStringLiteral("delta %1 against %2")
          .arg(QFileInfo(snapshot->path).fileName(), QFileInfo(m_baseline->path).fileName()));
  std::shared_ptr<const driver::Compiler> compiler = m_compiler;
  BaselinePtr baseline = m_baseline;
  auto* watcher = new QFutureWatcher<BaselineDeltaPtr>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, id, checkJob] {
    BaselineDeltaPtr result = watcher->result();
    watcher->deleteLater();
    bool current = id == m_latestDelta && checkJob == m_latest && m_baseline;
    if (endJob(id, current, false, result ? result->summary() : QString()) && result)
      Q_EMIT baselineDeltaFinished(result);
  });
  QString path = snapshot->path, text = snapshot->text;
  watcher->setFuture(QtConcurrent::run(
      &m_pool, [this, compiler, cancel, baseline, id, path, text, checkJob]() -> BaselineDeltaPtr {
        if (cancel->load())
          return nullptr;
        markRunning(id);
        return buildBaselineDelta(*compiler, baseline, path, text, checkJob);
      }));
  return id;
}

quint64 CompileSession::runTask(JobKind kind, const QString& what, TaskWork work,
                                QObject* context,
                                std::function<void(quint64, const TaskOutcome&)> done) {
  return runTaskWithProgress(
      kind, what,
      [work = std::move(work)](const std::atomic<bool>& cancel, const TaskProgress&) {
        return work(cancel);
      },
      context, std::move(done));
}

quint64 CompileSession::runTaskWithProgress(JobKind kind, const QString& what,
                                            ProgressTaskWork work, QObject* context,
                                            std::function<void(quint64, const TaskOutcome&)> done) {
  quint64 id = ++m_next;
  std::shared_ptr<std::atomic<bool>> cancel = beginJob(id, kind, what);
  auto* watcher = new QFutureWatcher<TaskOutcome>(this);
  QPointer<QObject> guard(context);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, id, guard, done] {
    TaskOutcome outcome = watcher->result();
    watcher->deleteLater();
    if (endJob(id, true, outcome.failed, outcome.log) && guard && done)
      done(id, outcome);
  });
  watcher->setFuture(QtConcurrent::run(&m_taskPool, [this, cancel, id, work]() -> TaskOutcome {
    if (cancel->load())
      return {};
    markRunning(id);
    // Whole percents only cross to the GUI thread; the session outlives its workers
    // (waitForIdle in the destructor), and a job that has ended drops late reports.
    auto last = std::make_shared<std::atomic<int>>(-1);
    TaskProgress progress = [this, id, last](double fraction) {
      int percent = int(std::clamp(fraction, 0.0, 1.0) * 100.0);
      if (last->exchange(percent) == percent)
        return;
      QMetaObject::invokeMethod(
          this,
          [this, id, percent] {
            if (m_active.contains(id))
              Q_EMIT jobProgress(id, percent);
          },
          Qt::QueuedConnection);
    };
    // A task reports its problems in its outcome; anything escaping it still ends the job.
    try {
      return work(*cancel, progress);
    } catch (const std::exception& e) {
      return TaskOutcome{true, QString::fromUtf8(e.what()), nullptr};
    }
  }));
  return id;
}

void CompileSession::waitForIdle() {
  m_taskPool.waitForDone();
  m_pool.waitForDone();
  m_toolPool.waitForDone();
  m_comparePool.waitForDone();
}

} // namespace cake::views
