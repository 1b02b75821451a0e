// The workbench's single façade to the compiler: loads the compiler data and runs checks, cost
// estimates, lowering and ptxas in background jobs with ids; superseded and cancelled results
// are dropped, snapshots are immutable.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Driver/Compiler.h"
#include "cake/views/ViewData.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <atomic>
#include <functional>
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

struct CostSnapshot;
struct LowerSnapshot;
struct PtxasSnapshot;
using CostSnapshotPtr = std::shared_ptr<const CostSnapshot>;
using LowerSnapshotPtr = std::shared_ptr<const LowerSnapshot>;
using PtxasSnapshotPtr = std::shared_ptr<const PtxasSnapshot>;
struct CompareSnapshot;
struct Baseline;
struct BaselineDelta;
using CompareSnapshotPtr = std::shared_ptr<const CompareSnapshot>;
using BaselinePtr = std::shared_ptr<const Baseline>;
using BaselineDeltaPtr = std::shared_ptr<const BaselineDelta>;

/// What lowering emits for the code view.
/// Sass: the cubin (ptxas on the PTX, or nvcc on the CUDA export for targets beyond the LLVM
/// path) disassembled by nvdisasm, in a JobKind::Sass job.
enum class LoweredEmit : quint8 { Ptx, LlvmIr, Cuda, Sass };

/// Evaluate, Review and Preview are the Proposals dock's jobs (runTask).
enum class JobKind : quint8 {
  Check,
  Cost,
  Lower,
  Ptxas,
  Compare,
  Baseline,
  Evaluate,
  Review,
  Preview,
  Import,
  Run,
  Sass
};
enum class JobState : quint8 { Queued, Running, Finished, Failed, Superseded, Cancelled };
QString jobKindName(JobKind kind);
QString jobStateName(JobState state);

/// A background job as the jobs panel lists it.
struct JobInfo {
  quint64 id = 0;
  JobKind kind = JobKind::Check;
  QString description;
};

/// What a task run through CompileSession::runTask produced.
struct TaskOutcome {
  bool failed = false;
  QString log; ///< one line for the jobs panel
  std::shared_ptr<const void> value;
};
/// The body of a task: runs on a worker thread with its inputs captured by value; it may poll
/// `cancel` and stop early (its result is dropped anyway).
using TaskWork = std::function<TaskOutcome(const std::atomic<bool>& cancel)>;
/// Reports a task's progress (fraction done, 0..1) from its worker thread; cheap to call often
/// (throttled to whole percents before anything crosses to the GUI thread).
using TaskProgress = std::function<void(double fraction)>;
/// The body of a task that reports progress.
using ProgressTaskWork =
    std::function<TaskOutcome(const std::atomic<bool>& cancel, const TaskProgress& progress)>;

class CompileSession : public QObject {
  Q_OBJECT
public:
  explicit CompileSession(QObject* parent = nullptr);
  ~CompileSession() override;

  /// Loads the compiler data in the background; compilerReady() or compilerFailed() follows.
  /// With a workspace directory, the built-in data is overlaid with the workspace head
  /// revision's files (docs/workspace.md), read in the same background job.
  void start(const driver::DataPaths& paths, const QString& workspace = {});
  /// Loads the compiler again with the same data paths and workspace (its head may have
  /// moved, e.g. after an approval); checks use the previous compiler until it is ready.
  void reload() { start(m_paths, m_workspace); }
  const driver::DataPaths& dataPaths() const { return m_paths; }
  /// The workspace directory the compiler overlays (empty: built-in data only).
  const QString& workspace() const { return m_workspace; }
  /// The workspace head revision of the current compiler (0 without a workspace).
  qint64 workspaceRevision() const { return m_workspaceRevision; }
  /// Uses an already loaded compiler (tests).
  void setCompiler(std::shared_ptr<const driver::Compiler> compiler);
  std::shared_ptr<const driver::Compiler> compiler() const { return m_compiler; }

  /// Queues a check of `text`; returns its job id. A later request supersedes an earlier one:
  /// only the newest job's result is delivered. An accepted result queues its cost job.
  quint64 requestCheck(const QString& path, const QString& text);
  quint64 latestJob() const { return m_latest; }
  /// Queues the cost estimate of a delivered check (done automatically for accepted checks).
  /// Delivered only while it is the newest cost job of the newest check.
  quint64 requestCost(const CheckSnapshotPtr& snapshot);
  /// Queues lowering of a check to `emit` on the toolchain worker; supersedes (and cancels) any
  /// earlier lowering and ptxas job. A PTX result queues its ptxas job.
  quint64 requestLower(const CheckSnapshotPtr& snapshot, LoweredEmit kind);
  /// Queues `ptxas -v` of lowered PTX (the external tool is killed on cancel or timeout).
  quint64 requestPtxas(const LowerSnapshotPtr& lowered);
  /// Queues the comparison of two kernels (check, cost and PTX of both, the semantic diff,
  /// graph marks) on its own worker; a later request supersedes an earlier one.
  quint64 requestCompare(const QString& pathBefore, const QString& textBefore,
                         const QString& pathAfter, const QString& textAfter);
  quint64 latestCompareJob() const { return m_latestCompare; }
  /// Pins a baseline: assessed in the background (baselineReady), then every delivered check
  /// is compared with it (baselineDeltaFinished). A later pin replaces it.
  quint64 pinBaseline(const QString& path, const QString& text);
  /// Unpins the baseline (deltas stop; baselineReady(nullptr)).
  void clearBaseline();
  const BaselinePtr& baseline() const { return m_baseline; }
  /// Queues the delta of a delivered check against the pinned baseline (done automatically).
  quint64 requestBaselineDelta(const CheckSnapshotPtr& snapshot);
  /// Cancels a queued or running job: its result is dropped, an external tool is killed.
  /// False when the job is unknown or already done.
  bool cancelJob(quint64 id);
  /// Timeout of external tools (seconds; default 60).
  void setToolTimeout(double seconds) { m_toolTimeout = seconds; }
  /// Ids of the newest cost / lowering / ptxas request (0 before the first).
  quint64 latestCostJob() const { return m_latestCost; }
  quint64 latestLowerJob() const { return m_latestLower; }
  quint64 latestPtxasJob() const { return m_latestPtxas; }
  /// Runs `work` on the task worker (two threads, apart from checks and lowering) as a job of
  /// `kind` listed in the jobs panel; `done` is called on the GUI thread with the outcome
  /// unless the job was cancelled or `context` is gone. Returns the job id.
  quint64 runTask(JobKind kind, const QString& what, TaskWork work, QObject* context,
                  std::function<void(quint64, const TaskOutcome&)> done);
  /// runTask for work that reports its progress (jobProgress, the jobs panel's bar).
  quint64 runTaskWithProgress(JobKind kind, const QString& what, ProgressTaskWork work,
                              QObject* context,
                              std::function<void(quint64, const TaskOutcome&)> done);
  /// Jobs queued or running.
  int activeJobs() const { return int(m_active.size()); }
  /// Waits for running jobs (shutdown and tests).
  void waitForIdle();

Q_SIGNALS:
  void compilerReady(QString revision);
  void compilerFailed(QString message);
  void jobStarted(quint64 jobId, QString description);
  /// Emitted for every finished check job, including dropped ones.
  void jobFinished(quint64 jobId, qint64 elapsedMs, bool superseded);
  /// The newest check result.
  void checkFinished(cake::views::CheckSnapshotPtr snapshot);
  /// Every job of every kind: queued, then its state changes with a one-line log.
  void jobQueued(cake::views::JobInfo job);
  void jobStateChanged(quint64 jobId, cake::views::JobState state, QString log);
  /// A running task's progress in percent (0..100), at most once per percent.
  void jobProgress(quint64 jobId, int percent);
  /// The newest cost estimate of the newest check (also when the kernel cannot be costed).
  void costFinished(cake::views::CostSnapshotPtr snapshot);
  /// The newest lowering (also when lowering is not available, with the reason).
  void lowerFinished(cake::views::LowerSnapshotPtr snapshot);
  /// The newest ptxas resource report.
  void ptxasFinished(cake::views::PtxasSnapshotPtr snapshot);
  /// The newest comparison.
  void compareFinished(cake::views::CompareSnapshotPtr snapshot);
  /// The pinned baseline is assessed (null: unpinned).
  void baselineReady(cake::views::BaselinePtr baseline);
  /// The newest check against the baseline.
  void baselineDeltaFinished(cake::views::BaselineDeltaPtr delta);

private:
  void runCheck(quint64 id, QString path, QString text);
  /// Registers a job: queued signal and its cancel flag.
  std::shared_ptr<std::atomic<bool>> beginJob(quint64 id, JobKind kind, const QString& what);
  /// Called from a worker thread when the job starts executing.
  void markRunning(quint64 id);
  /// Ends a job; true when its result is to be delivered (not cancelled, not superseded).
  bool endJob(quint64 id, bool current, bool failed, const QString& log);
  void cancelToolJobs();

  QThreadPool m_pool;        ///< check and cost jobs, in order
  QThreadPool m_toolPool;    ///< lowering and ptxas (slow, external processes)
  QThreadPool m_comparePool; ///< comparisons and baselines (two kernels lowered)
  QThreadPool m_taskPool;    ///< runTask: proposal evaluations, review acts, previews
  driver::DataPaths m_paths;
  QString m_workspace;
  qint64 m_workspaceRevision = 0;
  std::shared_ptr<const driver::Compiler> m_compiler;
  quint64 m_next = 0;
  quint64 m_latest = 0;
  quint64 m_latestCost = 0, m_latestLower = 0, m_latestPtxas = 0;
  quint64 m_latestCompare = 0, m_latestBaseline = 0, m_latestDelta = 0;
  BaselinePtr m_baseline;
  CheckSnapshotPtr m_lastCheck; ///< the newest delivered check (re-compared on a new pin)
  double m_toolTimeout = 60.0;
  struct Active {
    JobKind kind;
    std::shared_ptr<std::atomic<bool>> cancel;
  };
  QHash<quint64, Active> m_active;
  struct Pending {
    quint64 id;
    QString path;
    QString text;
  };
  std::unique_ptr<Pending> m_pending; ///< request made before the compiler was ready
};

} // namespace cake::views

Q_DECLARE_METATYPE(cake::views::CheckSnapshotPtr)
Q_DECLARE_METATYPE(cake::views::CostSnapshotPtr)
Q_DECLARE_METATYPE(cake::views::LowerSnapshotPtr)
Q_DECLARE_METATYPE(cake::views::PtxasSnapshotPtr)
Q_DECLARE_METATYPE(cake::views::JobInfo)
Q_DECLARE_METATYPE(cake::views::JobState)
