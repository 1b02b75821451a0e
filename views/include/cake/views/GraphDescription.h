// The IR graph as plain data: one node per (warp role, operation), data-dependency, barrier and
// program-order edges, clusters per warp role and per loop. Built off the GUI thread from a
// check result; the layout engines and the graph view consume it.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QHash>
#include <QSet>
#include <QSizeF>
#include <QString>
#include <QVector>

namespace cake::driver {
struct CheckResult;
}

namespace cake::views {

struct ViewData;

enum class EdgeKind : quint8 {
  Order,      ///< program order inside one role (thin, grey)
  Data,       ///< buffer written by the source, read by the target (solid)
  Sync,       ///< mbarrier signal (arrive / expect_tx / complete_tx / commit) → wait (dashed)
  Rendezvous, ///< CTA or named barrier joining roles (dotted, no direction)
};

enum class SyncMechanism : quint8 { None, Arrive, ExpectTx, CompleteTx, Commit };

enum class ClusterKind : quint8 { Role, Loop };

/// One node: an operation as executed by one role. Sizes are points at 72 dpi (= scene pixels).
struct GraphNode {
  QString id;      ///< stable: "<role>:<op index>", or "cluster:<id>" for a collapsed cluster
  int op = -1;     ///< index into KernelModel::ops (-1 for a collapsed cluster)
  int role = -1;   ///< index into KernelModel::roles
  QString title;   ///< primitive name, or the cluster label
  QString detail;  ///< operands as written (elided), or "N operations"
  QString cluster; ///< innermost enclosing cluster id, empty at top level
  QSizeF size;
  int severity = -1;   ///< worst finding on the operation: int(Severity), -1 when none
  int findings = 0;    ///< number of findings located on the operation
  int line = 0;        ///< source line (0: unknown)
  int collapsedOps = 0; ///< > 0: the node stands for a collapsed cluster of that many nodes
  QString collapsedCluster;
};

struct GraphEdge {
  int from = -1, to = -1; ///< node indices
  EdgeKind kind = EdgeKind::Order;
  SyncMechanism mechanism = SyncMechanism::None;
  QString label;   ///< drawn next to the edge (sync: barrier, slots and parity)
  QString tooltip; ///< details on hover
  /// Points against program order (or joins roles): laid out with constraint=false.
  bool back = false;
};

struct GraphCluster {
  QString id;     ///< "role:<r>" or "loop:<r>:<loop index>"
  QString label;  ///< "producer (warps 0..4)", "for k in 0..64 pipeline=ring"
  QString parent; ///< enclosing cluster id, empty for roles
  ClusterKind kind = ClusterKind::Role;
  int role = -1;
  int loop = -1;
};

struct GraphDescription {
  QVector<GraphNode> nodes;
  QVector<GraphEdge> edges;
  QVector<GraphCluster> clusters;
  /// Clusters of the full graph folded into summary nodes here (collapseClusters()).
  QSet<QString> collapsed;
  /// Ranks left to right (a wide, shallow DAG such as a campaign lineage); default top down.
  bool leftToRight = false;
  /// Node ids to indices (filled by the builders).
  QHash<QString, int> nodeIndex;
  QHash<QString, int> clusterIndex;

  int indexOf(const QString& id) const { return nodeIndex.value(id, -1); }
  int clusterOf(const QString& id) const { return clusterIndex.value(id, -1); }
  /// Rebuilds nodeIndex and clusterIndex.
  void reindex();
  /// Whether `cluster` is `ancestor` or nested in it.
  bool within(const QString& cluster, const QString& ancestor) const;
  /// Number of nodes (transitively) inside a cluster.
  int nodesIn(const QString& cluster) const;
};

/// Text metrics the builder uses for fixed node sizes (monospace estimate; the view elides).
inline constexpr double kNodeCharWidth = 6.6;
inline constexpr double kNodeHeight = 36.0;
inline constexpr double kNodeMinWidth = 110.0;
inline constexpr double kNodeMaxWidth = 300.0;

/// Builds the graph of a checked kernel. Sync and rendezvous edges come from the verifier's
/// trace (the phases that really released each wait); without a trace (a kernel that did not
/// type-check) they are paired statically by barrier and order of appearance.
GraphDescription buildGraphDescription(const driver::CheckResult& result, const ViewData& data);

/// Replaces every node inside a collapsed cluster (and its nested clusters) by one summary node
/// in the cluster's parent; edges are redirected and merged, edges inside a summary dropped.
GraphDescription collapseClusters(const GraphDescription& graph, const QSet<QString>& collapsed);

/// The loop clusters to collapse by default so that a very large graph opens quickly: the
/// innermost loop clusters while the graph has more than `maxNodes` nodes (none when smaller).
QSet<QString> defaultCollapsed(const GraphDescription& graph, int maxNodes);

/// Node size for a title and detail line (fixed at layout time).
QSizeF nodeSizeFor(const QString& title, const QString& detail);

} // namespace cake::views
