// Builds the IR graph of a checked kernel: nodes per (role, operation), clusters per role and
// loop, program-order edges, data dependencies from the primitives' read/write effects, barrier
// edges from the verifier's trace (or paired statically when there is none); collapsing.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/GraphDescription.h"

#include "cake/Driver/Compiler.h"
#include "cake/views/ViewData.h"

#include <QMap>
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace cake::views {

void GraphDescription::reindex() {
  nodeIndex.clear();
  clusterIndex.clear();
  nodeIndex.reserve(nodes.size());
  for (int i = 0; i < nodes.size(); ++i)
    nodeIndex.insert(nodes[i].id, i);
  for (int i = 0; i < clusters.size(); ++i)
    clusterIndex.insert(clusters[i].id, i);
}

bool GraphDescription::within(const QString& cluster, const QString& ancestor) const {
  QString c = cluster;
  for (int guard = 0; !c.isEmpty() && guard < 64; ++guard) {
    if (c == ancestor)
      return true;
    int i = clusterOf(c);
    if (i < 0)
      return false;
    c = clusters[i].parent;
  }
  return false;
}

int GraphDescription::nodesIn(const QString& cluster) const {
  int n = 0;
  for (const GraphNode& node : nodes)
    n += within(node.cluster, cluster) ? 1 : 0;
  return n;
}

QSizeF nodeSizeFor(const QString& title, const QString& detail) {
  qsizetype chars = std::max(title.size() + 3, detail.size());
  double w = 18 + kNodeCharWidth * double(chars);
  return {std::clamp(w, kNodeMinWidth, kNodeMaxWidth), kNodeHeight};
}

namespace {

constexpr int kMaxDetailChars = 40;

QString elide(const QString& s, int max) {
  return s.size() <= max ? s : s.left(max - 1) + QChar(0x2026);
}

/// "0-3", "0, 2", "1".
QString compactSet(const std::set<std::int64_t>& values) {
  if (values.empty())
    return {};
  auto lo = *values.begin(), hi = *values.rbegin();
  if (values.size() > 2 && hi - lo + 1 == std::int64_t(values.size()))
    return QStringLiteral("%1-%2").arg(lo).arg(hi);
  QStringList parts;
  for (auto v : values)
    parts << QString::number(v);
  return parts.join(QLatin1Char(','));
}

QString mechanismName(SyncMechanism m) {
  switch (m) {
  case SyncMechanism::Arrive:
    return QStringLiteral("arrive");
  case SyncMechanism::ExpectTx:
    return QStringLiteral("expect_tx");
  case SyncMechanism::CompleteTx:
    return QStringLiteral("complete_tx (TMA)");
  case SyncMechanism::Commit:
    return QStringLiteral("tcgen05.commit");
  case SyncMechanism::None:
    break;
  }
  return QStringLiteral("signal");
}

/// Which mechanism styles an edge that carries several: the asynchronous one wins.
int mechanismRank(SyncMechanism m) {
  switch (m) {
  case SyncMechanism::CompleteTx:
    return 4;
  case SyncMechanism::Commit:
    return 3;
  case SyncMechanism::Arrive:
    return 2;
  case SyncMechanism::ExpectTx:
    return 1;
  case SyncMechanism::None:
    break;
  }
  return 0;
}

/// Pairs the k-th producer with the k-th consumer when the counts agree (a loop per K chunk on
/// both sides), every pair when there are few, else proportionally by position.
std::vector<std::pair<int, int>> pairByOrdinal(const std::vector<int>& from, const std::vector<int>& to) {
  std::vector<std::pair<int, int>> out;
  if (from.empty() || to.empty())
    return out;
  if (from.size() == to.size()) {
    for (std::size_t i = 0; i < from.size(); ++i)
      out.emplace_back(from[i], to[i]);
  } else if (from.size() * to.size() <= 16) {
    for (int f : from)
      for (int t : to)
        out.emplace_back(f, t);
  } else {
    for (std::size_t k = 0; k < to.size(); ++k)
      out.emplace_back(from[k * from.size() / to.size()], to[k]);
  }
  return out;
}

class Builder {
public:
  Builder(const driver::CheckResult& r, const ViewData& data) : r(r), m(r.model), data(data) {}

  GraphDescription build() {
    nodes();
    orderEdges();
    dataEdges();
    if (r.verification.ran && !r.verification.trace.empty()) {
      // Barriers no completed phase released in the simulation (a deadlock stops it early)
      // still show their declared protocol, paired statically.
      std::set<std::string> covered = traceSyncEdges();
      staticSyncEdges(covered, false);
    } else {
      staticSyncEdges({}, true);
    }
    g.reindex();
    return std::move(g);
  }

private:
  int nodeOf(std::size_t role, std::size_t op) const {
    auto it = m_node.find({role, op});
    return it == m_node.end() ? -1 : it->second;
  }

  QString roleName(std::size_t role) const { return QString::fromStdString(m.roles[role].name); }

  void nodes() {
    for (std::size_t r = 0; r < m.roles.size(); ++r) {
      GraphCluster rc;
      rc.id = QStringLiteral("role:%1").arg(roleName(r));
      rc.label = QStringLiteral("%1 · %2").arg(roleName(r), data.roleDetail.value(int(r)));
      rc.kind = ClusterKind::Role;
      rc.role = int(r);
      g.clusters << rc;
      std::vector<int> order;
      for (std::size_t i = 0; i < m.ops.size(); ++i) {
        const OpView& v = data.ops[int(i)];
        if (!v.roles.contains(int(r)))
          continue;
        QString cluster = rc.id;
        for (int loop : v.loops) {
          QString id = QStringLiteral("loop:%1:%2").arg(roleName(r)).arg(loop);
          if (!m_clusters.count(id)) {
            GraphCluster lc;
            lc.id = id;
            lc.label = data.loopLabels.value(loop);
            lc.parent = cluster;
            lc.kind = ClusterKind::Loop;
            lc.role = int(r);
            lc.loop = loop;
            g.clusters << lc;
            m_clusters.insert(id);
          }
          cluster = id;
        }
        GraphNode n;
        n.id = QStringLiteral("%1:%2").arg(roleName(r)).arg(i);
        n.op = int(i);
        n.role = int(r);
        n.title = v.name;
        n.detail = elide(v.operands, kMaxDetailChars);
        n.cluster = cluster;
        n.size = nodeSizeFor(n.title, n.detail);
        n.severity = v.severity;
        n.findings = int(v.findings.size());
        n.line = v.span.line;
        m_node[{r, i}] = int(g.nodes.size());
        order.push_back(int(g.nodes.size()));
        g.nodes << n;
      }
      m_roleOrder.push_back(std::move(order));
    }
  }

  void orderEdges() {
    for (const std::vector<int>& order : m_roleOrder)
      for (std::size_t k = 1; k < order.size(); ++k) {
        GraphEdge e;
        e.from = order[k - 1];
        e.to = order[k];
        e.kind = EdgeKind::Order;
        g.edges << e;
      }
  }

  QString where(int node) const {
    const GraphNode& n = g.nodes[node];
    return QStringLiteral("%1 (%2, line %3)").arg(n.title, roleName(std::size_t(n.role))).arg(n.line);
  }

  void addData(int from, int to, std::size_t buffer, bool crossRole) {
    if (from < 0 || to < 0 || from == to)
      return;
    auto key = std::make_tuple(from, to, buffer);
    if (!m_dataSeen.insert(key).second)
      return;
    GraphEdge e;
    e.from = from;
    e.to = to;
    e.kind = EdgeKind::Data;
    QString name = QString::fromStdString(m.buffers[buffer].name);
    e.label = crossRole ? name : QString();
    e.tooltip = QStringLiteral("%1: written by %2, read by %3").arg(name, where(from), where(to));
    e.back = g.nodes[to].op <= g.nodes[from].op;
    g.edges << e;
  }

  void dataEdges() {
    // writers / readers of each buffer per role, in program order (node indices).
    std::map<std::size_t, std::vector<std::vector<int>>> writers, readers;
    for (std::size_t i = 0; i < m.ops.size(); ++i) {
      const sema::OpInfo& op = m.ops[i];
      if (!op.primitive)
        continue;
      for (const reg::EffectDef& e : op.primitive->effects) {
        if ((e.kind != reg::EffectKind::Read && e.kind != reg::EffectKind::Write) || !e.operandIndex ||
            *e.operandIndex >= op.operands.size())
          continue;
        const sema::OperandInfo& o = op.operands[*e.operandIndex];
        if (!o.facts.present || o.entity != sema::EntityKind::Buffer || o.entityIndex >= m.buffers.size())
          continue;
        auto& table = e.kind == reg::EffectKind::Write ? writers : readers;
        auto& perRole = table[o.entityIndex];
        perRole.resize(m.roles.size());
        for (int role : data.ops[int(i)].roles) {
          int node = nodeOf(std::size_t(role), i);
          auto& list = perRole[std::size_t(role)];
          if (node >= 0 && (list.empty() || list.back() != node))
            list.push_back(node);
        }
      }
    }
    for (const auto& [buffer, readerRoles] : readers) {
      auto wit = writers.find(buffer);
      if (wit == writers.end())
        continue;
      const auto& writerRoles = wit->second;
      for (std::size_t rr = 0; rr < readerRoles.size(); ++rr) {
        for (int reader : readerRoles[rr]) {
          // Same role: the nearest preceding writer, else the last writer of an enclosing loop
          // (the value carried into the next iteration).
          if (rr < writerRoles.size()) {
            int before = -1, carried = -1;
            const OpView& rv = data.ops[g.nodes[reader].op];
            for (int w : writerRoles[rr]) {
              if (w == reader)
                continue;
              if (g.nodes[w].op < g.nodes[reader].op) {
                before = w;
              } else {
                const OpView& wv = data.ops[g.nodes[w].op];
                bool shared = std::any_of(wv.loops.begin(), wv.loops.end(),
                                          [&](int l) { return rv.loops.contains(l); });
                if (shared)
                  carried = w;
              }
            }
            addData(before >= 0 ? before : carried, reader, buffer, false);
          }
        }
        // Other roles: pair writers and readers by their order of appearance. Registers are
        // per thread: two roles naming the same register buffer (the two consumer warpgroups
        // of a ping-pong kernel) each have their own copy, so no data crosses between them.
        if (m.buffers[buffer].space == ir::Space::Reg)
          continue;
        for (std::size_t wr = 0; wr < writerRoles.size(); ++wr) {
          if (wr == rr)
            continue;
          for (auto [w, rd] : pairByOrdinal(writerRoles[wr], readerRoles[rr]))
            addData(w, rd, buffer, true);
        }
      }
    }
  }

  struct SyncAgg {
    std::set<std::int64_t> elements, phases, parities;
    std::set<int> mechanisms;
    int sizeOfBarrier = 1;
  };

  void emitSync(std::map<std::tuple<int, int, std::string>, SyncAgg>& agg, bool statically) {
    for (auto& [key, a] : agg) {
      auto& [from, to, barrier] = key;
      GraphEdge e;
      e.from = from;
      e.to = to;
      e.kind = EdgeKind::Sync;
      SyncMechanism best = SyncMechanism::None;
      QStringList mechs;
      for (int mi : a.mechanisms) {
        auto mech = SyncMechanism(mi);
        mechs << mechanismName(mech);
        if (mechanismRank(mech) > mechanismRank(best))
          best = mech;
      }
      e.mechanism = best;
      QString name = QString::fromStdString(barrier);
      QString slotText = a.sizeOfBarrier > 1 && !a.elements.empty()
                          ? QStringLiteral("[%1]").arg(compactSet(a.elements))
                          : QString();
      QString parity = a.parities.empty() ? QString() : QStringLiteral(" p%1").arg(compactSet(a.parities));
      e.label = name + slotText + parity;
      e.tooltip = QStringLiteral("mbarrier %1%2: %3 by %4 releases the wait of %5")
                      .arg(name, slotText, mechs.join(QStringLiteral(" + ")), where(from), where(to));
      if (statically)
        e.tooltip += QStringLiteral("\n(paired by declaration order: the simulation completed no phase of it)");
      if (!a.phases.empty())
        e.tooltip += QStringLiteral("\nphases %1, parity %2")
                         .arg(compactSet(a.phases), a.parities.empty() ? QStringLiteral("?")
                                                                         : compactSet(a.parities));
      e.back = g.nodes[to].op <= g.nodes[from].op;
      g.edges << e;
    }
  }

  static SyncMechanism mechanismOf(verify::TraceEvent::Kind k) {
    switch (k) {
    case verify::TraceEvent::Kind::Arrive:
      return SyncMechanism::Arrive;
    case verify::TraceEvent::Kind::ExpectTx:
      return SyncMechanism::ExpectTx;
    case verify::TraceEvent::Kind::CompleteTx:
      return SyncMechanism::CompleteTx;
    case verify::TraceEvent::Kind::Commit:
      return SyncMechanism::Commit;
    default:
      return SyncMechanism::None;
    }
  }

  void addRendezvous(const std::vector<int>& group, const QString& barrier) {
    for (std::size_t k = 1; k < group.size(); ++k) {
      auto key = std::make_pair(group[k - 1], group[k]);
      if (!m_rendezvousSeen.insert(key).second)
        continue;
      GraphEdge e;
      e.from = group[k - 1];
      e.to = group[k];
      e.kind = EdgeKind::Rendezvous;
      e.label = barrier;
      e.tooltip = QStringLiteral("%1 joins %2 and %3").arg(barrier, where(e.from), where(e.to));
      e.back = true;
      g.edges << e;
    }
  }

  /// Returns the barriers that got an edge.
  std::set<std::string> traceSyncEdges() {
    const auto& trace = r.verification.trace;
    using Key = std::tuple<std::string, std::int64_t, std::int64_t>;
    std::map<Key, std::vector<std::pair<int, SyncMechanism>>> signallers;
    std::map<std::tuple<int, int, std::string>, SyncAgg> agg;
    std::map<std::pair<std::string, std::uint64_t>, std::vector<int>> rendezvous;
    for (const verify::TraceEvent& ev : trace) {
      int node = nodeOf(ev.role, ev.op);
      if (node < 0)
        continue;
      const std::string barrier(trace.barrier(ev));
      switch (ev.kind) {
      case verify::TraceEvent::Kind::Arrive:
      case verify::TraceEvent::Kind::ExpectTx:
      case verify::TraceEvent::Kind::CompleteTx:
      case verify::TraceEvent::Kind::Commit: {
        auto& list = signallers[{barrier, ev.element, ev.phase}];
        auto item = std::make_pair(node, mechanismOf(ev.kind));
        if (std::find(list.begin(), list.end(), item) == list.end())
          list.push_back(item);
        break;
      }
      case verify::TraceEvent::Kind::Wait: {
        if (ev.phase < 0)
          break; // a fresh barrier's first pass: nobody released it
        auto it = signallers.find({barrier, ev.element, ev.phase});
        if (it == signallers.end())
          break;
        const sema::BarrierInfo* b = m.barrier(barrier);
        for (auto [from, mech] : it->second) {
          SyncAgg& a = agg[{from, node, barrier}];
          if (ev.element >= 0)
            a.elements.insert(ev.element);
          a.phases.insert(ev.phase);
          if (ev.parity >= 0)
            a.parities.insert(ev.parity);
          a.mechanisms.insert(int(mech));
          a.sizeOfBarrier = b ? int(b->size) : 1;
        }
        break;
      }
      case verify::TraceEvent::Kind::Sync: {
        auto& group = rendezvous[{barrier, ev.start}];
        if (std::find(group.begin(), group.end(), node) == group.end())
          group.push_back(node);
        break;
      }
      default:
        break;
      }
    }
    std::set<std::string> covered;
    for (const auto& [key, a] : agg)
      covered.insert(std::get<2>(key));
    emitSync(agg, false);
    for (auto& [key, group] : rendezvous) {
      std::sort(group.begin(), group.end(), [&](int a, int b) { return g.nodes[a].role < g.nodes[b].role; });
      addRendezvous(group, key.first == "cta" ? QStringLiteral("cta.sync")
                                              : QString::fromStdString(key.first));
    }
    return covered;
  }

  /// Without a trace: every signaller of a barrier paired with its waiters by order of
  /// appearance per role; rendezvous by the k-th sync of each role. Barriers in `skip` (and,
  /// unless `rendezvous`, CTA/named barriers) are left to the trace.
  void staticSyncEdges(const std::set<std::string>& skip, bool rendezvous) {
    std::map<std::size_t, std::vector<std::vector<int>>> signal, wait;
    std::map<std::pair<std::size_t, int>, SyncMechanism> mechOf;
    std::map<std::string, std::vector<std::vector<int>>> syncs;
    for (std::size_t i = 0; i < m.ops.size(); ++i) {
      const sema::OpInfo& op = m.ops[i];
      if (!op.primitive)
        continue;
      for (const reg::EffectDef& e : op.primitive->effects) {
        const sema::OperandInfo* o = e.operandIndex && *e.operandIndex < op.operands.size()
                                         ? &op.operands[*e.operandIndex]
                                         : nullptr;
        bool present = o && o->facts.present;
        SyncMechanism mech = e.kind == reg::EffectKind::Arrive       ? SyncMechanism::Arrive
                             : e.kind == reg::EffectKind::ExpectTx   ? SyncMechanism::ExpectTx
                             : e.kind == reg::EffectKind::CompleteTx ? SyncMechanism::CompleteTx
                             : e.kind == reg::EffectKind::Commit     ? SyncMechanism::Commit
                                                                     : SyncMechanism::None;
        for (int role : data.ops[int(i)].roles) {
          int node = nodeOf(std::size_t(role), i);
          if (node < 0)
            continue;
          if (mech != SyncMechanism::None && present && o->entity == sema::EntityKind::MBarrier) {
            auto& list = signal[o->entityIndex];
            list.resize(m.roles.size());
            if (list[std::size_t(role)].empty() || list[std::size_t(role)].back() != node)
              list[std::size_t(role)].push_back(node);
            auto& best = mechOf[{o->entityIndex, node}];
            if (mechanismRank(mech) > mechanismRank(best))
              best = mech;
          } else if (e.kind == reg::EffectKind::Wait && present &&
                     o->entity == sema::EntityKind::MBarrier) {
            auto& list = wait[o->entityIndex];
            list.resize(m.roles.size());
            list[std::size_t(role)].push_back(node);
          } else if (e.kind == reg::EffectKind::Sync && (e.syncScope != "role" || present)) {
            std::string key = present && o->entity == sema::EntityKind::NBarrier
                                  ? m.barriers[o->entityIndex].name
                                  : std::string("cta");
            auto& list = syncs[key];
            list.resize(m.roles.size());
            list[std::size_t(role)].push_back(node);
          }
        }
      }
    }
    std::map<std::tuple<int, int, std::string>, SyncAgg> agg;
    for (const auto& [barrier, signalRoles] : signal) {
      auto wit = wait.find(barrier);
      if (wit == wait.end())
        continue;
      const sema::BarrierInfo& b = m.barriers[barrier];
      if (skip.count(b.name))
        continue;
      for (std::size_t sr = 0; sr < signalRoles.size(); ++sr)
        for (std::size_t wr = 0; wr < wit->second.size(); ++wr)
          for (auto [from, to] : pairByOrdinal(signalRoles[sr], wit->second[wr])) {
            SyncAgg& a = agg[{from, to, b.name}];
            a.mechanisms.insert(int(mechOf[{barrier, from}]));
            a.sizeOfBarrier = int(b.size);
          }
    }
    emitSync(agg, true);
    if (!rendezvous)
      return;
    for (const auto& [name, perRole] : syncs) {
      std::size_t most = 0;
      for (const auto& list : perRole)
        most = std::max(most, list.size());
      for (std::size_t k = 0; k < most; ++k) {
        std::vector<int> group;
        for (const auto& list : perRole)
          if (k < list.size())
            group.push_back(list[k]);
        addRendezvous(group, name == "cta" ? QStringLiteral("cta.sync") : QString::fromStdString(name));
      }
    }
  }

  const driver::CheckResult& r;
  const sema::KernelModel& m;
  const ViewData& data;
  GraphDescription g;
  std::map<std::pair<std::size_t, std::size_t>, int> m_node;
  std::set<QString> m_clusters;
  std::vector<std::vector<int>> m_roleOrder;
  std::set<std::tuple<int, int, std::size_t>> m_dataSeen;
  std::set<std::pair<int, int>> m_rendezvousSeen;
};

} // namespace

GraphDescription buildGraphDescription(const driver::CheckResult& result, const ViewData& data) {
  return Builder(result, data).build();
}

GraphDescription collapseClusters(const GraphDescription& graph, const QSet<QString>& collapsed) {
  if (collapsed.isEmpty())
    return graph;
  // The outermost collapsed cluster containing each cluster.
  QHash<QString, QString> summaryOf;
  for (const GraphCluster& c : graph.clusters) {
    QString top;
    for (QString p = c.id; !p.isEmpty();) {
      if (collapsed.contains(p))
        top = p;
      int i = graph.clusterOf(p);
      p = i >= 0 ? graph.clusters[i].parent : QString();
    }
    if (!top.isEmpty())
      summaryOf.insert(c.id, top);
  }
  GraphDescription out;
  out.collapsed = graph.collapsed;
  for (const GraphCluster& c : graph.clusters) {
    if (!summaryOf.contains(c.id))
      out.clusters << c;
    else if (collapsed.contains(c.id))
      out.collapsed.insert(c.id);
  }
  QVector<int> remap(graph.nodes.size(), -1);
  QHash<QString, int> summaryNode;
  for (int i = 0; i < graph.nodes.size(); ++i) {
    const GraphNode& n = graph.nodes[i];
    auto it = summaryOf.constFind(n.cluster);
    if (it == summaryOf.constEnd()) {
      remap[i] = int(out.nodes.size());
      out.nodes << n;
      continue;
    }
    const QString& top = *it;
    auto s = summaryNode.constFind(top);
    if (s == summaryNode.constEnd()) {
      const GraphCluster& c = graph.clusters[graph.clusterOf(top)];
      GraphNode summary;
      summary.id = QStringLiteral("cluster:%1").arg(top);
      summary.role = c.role;
      summary.op = -1;
      summary.title = c.label;
      summary.cluster = c.parent;
      summary.collapsedCluster = top;
      summary.line = n.line;
      s = summaryNode.insert(top, int(out.nodes.size()));
      out.nodes << summary;
    }
    GraphNode& summary = out.nodes[*s];
    summary.collapsedOps += 1;
    summary.findings += n.findings;
    if (n.severity >= 0 && (summary.severity < 0 || n.severity < summary.severity))
      summary.severity = n.severity;
    remap[i] = *s;
  }
  for (GraphNode& n : out.nodes)
    if (n.collapsedOps > 0) {
      n.detail = QStringLiteral("%1 operation%2 (collapsed)").arg(n.collapsedOps).arg(n.collapsedOps == 1 ? "" : "s");
      n.size = nodeSizeFor(n.title, n.detail);
    }
  QSet<QString> seen;
  for (const GraphEdge& e : graph.edges) {
    int from = remap[e.from], to = remap[e.to];
    if (from < 0 || to < 0 || from == to)
      continue;
    QString key = QStringLiteral("%1>%2>%3>%4").arg(from).arg(to).arg(int(e.kind)).arg(e.label);
    if (seen.contains(key))
      continue;
    seen.insert(key);
    GraphEdge c = e;
    c.from = from;
    c.to = to;
    out.edges << c;
  }
  out.reindex();
  return out;
}

QSet<QString> defaultCollapsed(const GraphDescription& graph, int maxNodes) {
  QSet<QString> collapsed;
  if (graph.nodes.size() <= maxNodes)
    return collapsed;
  // Loop depth of each cluster (roles are depth 0).
  QHash<QString, int> depth;
  int deepest = 0;
  for (const GraphCluster& c : graph.clusters) {
    int d = 0;
    for (QString p = c.parent; !p.isEmpty(); ++d) {
      int i = graph.clusterOf(p);
      p = i >= 0 ? graph.clusters[i].parent : QString();
    }
    depth.insert(c.id, d);
    deepest = std::max(deepest, d);
  }
  for (int d = deepest; d >= 1; --d) {
    QSet<QString> attempt;
    for (const GraphCluster& c : graph.clusters)
      if (c.kind == ClusterKind::Loop && depth.value(c.id) >= d)
        attempt.insert(c.id);
    collapsed = attempt;
    if (collapseClusters(graph, collapsed).nodes.size() <= maxNodes)
      break;
  }
  return collapsed;
}

} // namespace cake::views
