// The Runs dock's controller: `cake run` jobs (start, cancel, outcome) and the store read back.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/RunController.h"

#include "cake/Run/Executor.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QtConcurrent>
#include <mutex>

namespace cake::views {

/// A run job's state, shared with its worker (the controller may go first).
struct RunController::Active {
  RunRequest request;
  QElapsedTimer clock;
  std::mutex lock;
  bool done = false;
  RunOutcome outcome;
};

RunController::RunController(CompileSession* session, QObject* parent)
    : QObject(parent), m_session(session), m_model(new RunsModel(this)) {
  qRegisterMetaType<RunOutcome>();
  m_cli = QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("cake"));
  // A cancelled job's result is dropped by the session, yet `cake run` is still stopping its
  // executor and storing the "cancelled" record: its end is observed here instead.
  m_poll.setInterval(100);
  connect(&m_poll, &QTimer::timeout, this, &RunController::poll);
}

RunController::~RunController() = default;

void RunController::setWorkspace(const QString& dir) {
  if (dir == m_workspace && m_refreshGeneration > 0)
    return; // read already (the first call reads even "no workspace": the dock says so)
  m_workspace = dir;
  refresh();
}

QStringList RunController::arguments(const RunRequest& r) const {
  QStringList args{QStringLiteral("run"),         r.kernelPath,
                   QStringLiteral("--device"),    r.device,
                   QStringLiteral("--executor"),  r.executor,
                   QStringLiteral("--timeout"),   QString::number(r.timeoutSeconds),
                   QStringLiteral("--workspace"), m_workspace};
  if (r.device == QLatin1String("cpu"))
    args << QStringLiteral("--shapes") << r.shapes;
  if (!r.workload.isEmpty())
    args << QStringLiteral("--workload") << r.workload;
  if (!m_runner.isEmpty())
    args << QStringLiteral("--runner") << m_runner;
  return args;
}

quint64 RunController::start(const RunRequest& request, QString* error) {
  auto refuse = [error](const QString& why) {
    if (error)
      *error = why;
    return quint64(0);
  };
  if (m_workspace.isEmpty())
    return refuse(tr("no workspace: runs are stored in one (File > Open Workspace)"));
  if (request.kernelPath.isEmpty() || !QFileInfo(request.kernelPath).isFile())
    return refuse(tr("no kernel file to run (save the kernel first)"));
  if (request.device != QLatin1String("cpu") && request.device != QLatin1String("gpu"))
    return refuse(tr("unknown device '%1' (cpu or gpu)").arg(request.device));
  if (request.device == QLatin1String("gpu") && request.shapes != QLatin1String("full"))
    return refuse(tr("a GPU run uses the kernel's own (full) shapes"));
  std::string specError;
  if (!run::makeExecutor(request.executor.toStdString(), {}, specError))
    return refuse(QString::fromStdString(specError));
  if (request.timeoutSeconds < 0.1)
    return refuse(tr("the timeout must be at least 0.1 s"));

  RunRequest r = request;
  r.kernelPath = QFileInfo(request.kernelPath).absoluteFilePath();
  std::vector<std::string> argv;
  if (!m_environment.isEmpty()) {
    argv.push_back("env");
    for (const QString& e : m_environment)
      argv.push_back(e.toStdString());
  }
  argv.push_back(m_cli.toStdString());
  const QStringList args = arguments(r);
  for (const QString& a : args)
    argv.push_back(a.toStdString());
  auto active = std::make_shared<Active>();
  active->request = r;
  active->clock.start();
  // `cake run` enforces the timeout itself (and stores a "timeout" record); the margin only
  // catches a `cake run` that does not end. Cancel: SIGTERM to `cake run`, which cancels its
  // executor (kill, scancel, remote kill) and stores the record; SIGKILL only after 30 s.
  double limit = r.timeoutSeconds + 60;
  TaskWork work = [argv, limit, active](const std::atomic<bool>& cancel) {
    run::ProcessResult p = run::runProcess(argv, limit, &cancel, 30);
    RunOutcome o;
    o.request = active->request;
    o.exitCode = p.exitCode;
    o.cancelled = p.cancelled;
    o.timedOut = p.timedOut;
    o.output = QString::fromStdString(p.out);
    o.log = QString::fromStdString(p.err);
    if (!p.spawnError.empty())
      o.log += QString::fromStdString(p.spawnError);
    o.seconds = double(active->clock.elapsed()) / 1000.0;
    TaskOutcome t;
    t.failed = !p.ok();
    t.log = p.cancelled ? QStringLiteral("cancelled after %1 s").arg(o.seconds, 0, 'f', 1)
                        : QStringLiteral("cake run exit %1 after %2 s")
                              .arg(p.exitCode)
                              .arg(o.seconds, 0, 'f', 1);
    std::lock_guard<std::mutex> g(active->lock);
    active->outcome = o;
    active->done = true;
    return t;
  };
  QString what = QStringLiteral("run %1 on %2 via %3")
                     .arg(QFileInfo(r.kernelPath).fileName(), r.device, r.executor);
  quint64 id = m_session->runTask(JobKind::Run, what, std::move(work), this, nullptr);
  m_active.insert(id, active);
  m_poll.start();
  Q_EMIT runStarted(id, QStringLiteral("%1 %2").arg(QFileInfo(m_cli).fileName(), args.join(' ')));
  return id;
}

bool RunController::cancel(quint64 job) {
  if (!m_active.contains(job))
    return false;
  return m_session->cancelJob(job);
}

double RunController::elapsedSeconds(quint64 job) const {
  auto it = m_active.find(job);
  return it == m_active.end() ? -1.0 : double((*it)->clock.elapsed()) / 1000.0;
}

void RunController::poll() {
  QList<RunOutcome> ended;
  for (auto it = m_active.begin(); it != m_active.end();) {
    Active& a = **it;
    std::unique_lock<std::mutex> g(a.lock);
    if (!a.done) {
      ++it;
      continue;
    }
    RunOutcome o = a.outcome;
    g.unlock();
    o.job = it.key();
    ended << o;
    it = m_active.erase(it);
  }
  if (m_active.isEmpty())
    m_poll.stop();
  for (const RunOutcome& o : ended)
    Q_EMIT runFinished(o);
  if (!ended.isEmpty())
    refresh();
}

void RunController::refresh() {
  quint64 generation = ++m_refreshGeneration;
  if (m_workspace.isEmpty()) {
    m_model->setRuns({});
    m_storeError.clear();
    m_delivered = generation;
    ++m_reads;
    Q_EMIT runsChanged();
    return;
  }
  struct Read {
    QVector<RunEntry> runs;
    QString error;
  };
  auto* watcher = new QFutureWatcher<Read>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
    Read r = watcher->result();
    watcher->deleteLater();
    if (generation != m_refreshGeneration)
      return; // a newer read (or another workspace) supersedes it
    m_delivered = generation;
    ++m_reads;
    m_storeError = r.error;
    m_model->setRuns(std::move(r.runs));
    Q_EMIT runsChanged();
  });
  watcher->setFuture(QtConcurrent::run([dir = m_workspace] {
    Read r;
    r.runs = loadRuns(dir, &r.error);
    return r;
  }));
}

} // namespace cake::views
