// The graph layout job queue: one serialized background worker (Graphviz is not thread-safe)
// shared by every instance, job ids, superseded layouts dropped before they start or when they
// finish; results delivered on the owner's thread.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/GraphLayout.h"

#include <QObject>
#include <QSet>
#include <atomic>
#include <memory>

namespace cake::views {

using GraphPtr = std::shared_ptr<const GraphDescription>;
using GraphLayoutPtr = std::shared_ptr<const GraphLayout>;

class GraphLayoutWorker : public QObject {
  Q_OBJECT
public:
  explicit GraphLayoutWorker(QObject* parent = nullptr);
  ~GraphLayoutWorker() override;

  /// Queues a layout of `graph` with `collapsed` clusters folded (plus, when the graph has more
  /// than `autoCollapseAbove` nodes, the loops defaultCollapsed() picks); returns its job id.
  /// A newer request supersedes older ones. The folding runs in the job too.
  quint64 request(GraphPtr graph, const LayoutOptions& options = {},
                  const QSet<QString>& collapsed = {}, int autoCollapseAbove = 0);
  quint64 latestJob() const { return m_latest->load(); }
  bool busy() const { return m_running > 0; }
  /// Blocks until every queued layout of every worker is done (tests, shutdown).
  static void waitForIdle();

Q_SIGNALS:
  /// The newest job's layout (never a superseded one) and the graph it lays out (collapsed
  /// clusters folded; GraphDescription::collapsed says which).
  void layoutFinished(quint64 jobId, cake::views::GraphPtr graph, cake::views::GraphLayoutPtr layout);
  /// A job that finished or was skipped after a newer request.
  void layoutDropped(quint64 jobId);

private:
  std::shared_ptr<std::atomic<quint64>> m_latest;
  quint64 m_next = 0;
  int m_running = 0;
};

} // namespace cake::views

Q_DECLARE_METATYPE(cake::views::GraphPtr)
Q_DECLARE_METATYPE(cake::views::GraphLayoutPtr)
