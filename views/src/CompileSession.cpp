// Background compile façade: compiler loading, check jobs and view data off the GUI thread.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/CompileSession.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QPointer>
#include <QtConcurrent>

namespace cake::views {

CompileSession::CompileSession(QObject* parent) : QObject(parent) {
  qRegisterMetaType<CheckSnapshotPtr>();
  // One worker keeps jobs in order and leaves the other core to the GUI.
  m_pool.setMaxThreadCount(1);
}

CompileSession::~CompileSession() { m_pool.waitForDone(); }

void CompileSession::setCompiler(std::shared_ptr<const driver::Compiler> compiler) {
  m_compiler = std::move(compiler);
  Q_EMIT compilerReady(QString::fromStdString(m_compiler->revision()));
  if (m_pending) {
    auto p = std::move(m_pending);
    runCheck(p->id, p->path, p->text);
  }
}

void CompileSession::start(const driver::DataPaths& paths) {
  auto* watcher = new QFutureWatcher<std::shared_ptr<const driver::Compiler>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
    std::shared_ptr<const driver::Compiler> c = watcher->result();
    watcher->deleteLater();
    if (!c->ok()) {
      QString message = QStringLiteral("the compiler data in '%1' is invalid:")
                            .arg(QString::fromStdString(c->paths().primitives));
      for (const Diagnostic& d : c->loadDiagnostics())
        message += "\n" + QString::fromStdString(d.message);
      Q_EMIT compilerFailed(message);
      return;
    }
    setCompiler(std::move(c));
  });
  watcher->setFuture(QtConcurrent::run(&m_pool, [paths]() -> std::shared_ptr<const driver::Compiler> {
    return std::shared_ptr<const driver::Compiler>(driver::Compiler::load(paths));
  }));
}

quint64 CompileSession::requestCheck(const QString& path, const QString& text) {
  quint64 id = ++m_next;
  m_latest = id;
  if (!m_compiler) {
    m_pending = std::make_unique<Pending>(Pending{id, path, text});
    return id;
  }
  runCheck(id, path, text);
  return id;
}

void CompileSession::runCheck(quint64 id, QString path, QString text) {
  Q_EMIT jobStarted(id, QStringLiteral("check %1").arg(path));
  std::shared_ptr<const driver::Compiler> compiler = m_compiler;
  auto* watcher = new QFutureWatcher<CheckSnapshotPtr>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, id] {
    CheckSnapshotPtr snapshot = watcher->result();
    watcher->deleteLater();
    bool superseded = id != m_latest;
    Q_EMIT jobFinished(id, snapshot->elapsedMs, superseded);
    if (!superseded)
      Q_EMIT checkFinished(snapshot);
  });
  // Inputs are captured by value; the job never touches this object.
  watcher->setFuture(QtConcurrent::run(&m_pool, [compiler, id, path, text]() {
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

void CompileSession::waitForIdle() { m_pool.waitForDone(); }

} // namespace cake::views
