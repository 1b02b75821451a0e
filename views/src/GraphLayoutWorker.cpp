// Serialized graph layout jobs with ids: a one-thread pool shared by all workers, inputs taken
// by value, superseded jobs skipped before they start and dropped when they finish.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/GraphLayoutWorker.h"

#include <QFutureWatcher>
#include <QThreadPool>
#include <QtConcurrent>

namespace cake::views {

namespace {
/// The one thread that runs Graphviz, for every worker of the process.
QThreadPool* layoutPool() {
  static QThreadPool* pool = [] {
    auto* p = new QThreadPool;
    p->setMaxThreadCount(1);
    p->setExpiryTimeout(-1);
    return p;
  }();
  return pool;
}
} // namespace

GraphLayoutWorker::GraphLayoutWorker(QObject* parent)
    : QObject(parent), m_latest(std::make_shared<std::atomic<quint64>>(0)) {
  qRegisterMetaType<GraphPtr>();
  qRegisterMetaType<GraphLayoutPtr>();
}

GraphLayoutWorker::~GraphLayoutWorker() {
  // Jobs in flight own their inputs; tell them they are stale so they skip the work.
  m_latest->store(~quint64(0));
}

void GraphLayoutWorker::waitForIdle() { layoutPool()->waitForDone(); }

quint64 GraphLayoutWorker::request(GraphPtr graph, const LayoutOptions& options,
                                   const QSet<QString>& collapsed, int autoCollapseAbove) {
  quint64 id = ++m_next;
  m_latest->store(id);
  ++m_running;
  using Result = std::pair<GraphPtr, GraphLayoutPtr>;
  auto* watcher = new QFutureWatcher<Result>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, id] {
    Result result = watcher->result();
    watcher->deleteLater();
    --m_running;
    if (!result.second || id != m_latest->load()) {
      Q_EMIT layoutDropped(id);
      return;
    }
    Q_EMIT layoutFinished(id, result.first, result.second);
  });
  std::shared_ptr<std::atomic<quint64>> latest = m_latest;
  watcher->setFuture(QtConcurrent::run(
      layoutPool(), [graph, options, collapsed, autoCollapseAbove, latest, id]() -> Result {
        if (latest->load() != id)
          return {}; // superseded while queued: skip the work
        QSet<QString> fold = collapsed;
        if (autoCollapseAbove > 0)
          fold.unite(defaultCollapsed(*graph, autoCollapseAbove));
        GraphPtr shown = fold.isEmpty() ? graph
                                        : std::make_shared<const GraphDescription>(collapseClusters(*graph, fold));
        return {shown, std::make_shared<const GraphLayout>(layoutGraph(*shown, options))};
      }));
  return id;
}

} // namespace cake::views
