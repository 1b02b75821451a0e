// Compare and baseline data: side-by-side rows of dtl line diffs, graph diff marks through the
// semantic diff's operation pairs, and the baseline's deltas.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/CompareData.h"

#include "cake/views/ViewData.h"

#include <QElapsedTimer>

#include <algorithm>

namespace cake::views {

QVector<DiffRow> sideBySide(const diff::LineDiff& d) {
  QVector<DiffRow> rows;
  QVector<const diff::LineDiff::Line*> removed, added;
  auto flush = [&] {
    qsizetype n = std::max(removed.size(), added.size());
    for (qsizetype i = 0; i < n; ++i) {
      DiffRow r;
      if (i < removed.size()) {
        r.left = removed[i]->before;
        r.leftText = QString::fromStdString(removed[i]->text);
      }
      if (i < added.size()) {
        r.right = added[i]->after;
        r.rightText = QString::fromStdString(added[i]->text);
      }
      r.kind = r.left && r.right ? DiffRow::Kind::Changed
               : r.left          ? DiffRow::Kind::Removed
                                 : DiffRow::Kind::Added;
      rows.push_back(std::move(r));
    }
    removed.clear();
    added.clear();
  };
  for (const diff::LineDiff::Line& l : d.lines) {
    switch (l.op) {
    case diff::LineDiff::Op::Removed:
      removed.push_back(&l);
      break;
    case diff::LineDiff::Op::Added:
      added.push_back(&l);
      break;
    case diff::LineDiff::Op::Common: {
      flush();
      DiffRow r;
      r.left = l.before;
      r.right = l.after;
      r.leftText = r.rightText = QString::fromStdString(l.text);
      rows.push_back(std::move(r));
      break;
    }
    }
  }
  flush();
  return rows;
}

QString withEdits(const QString& text, const std::vector<cost::TextEdit>& edits) {
  std::string s = text.toStdString();
  std::vector<cost::TextEdit> sorted(edits);
  std::sort(sorted.begin(), sorted.end(), [](const cost::TextEdit& a, const cost::TextEdit& b) {
    return a.range.begin > b.range.begin;
  });
  std::uint32_t limit = std::uint32_t(s.size());
  for (const cost::TextEdit& e : sorted) {
    // Applied from the end so earlier offsets stay valid; overlapping edits are refused.
    if (e.range.begin > e.range.end || e.range.end > limit)
      return {};
    s.replace(e.range.begin, e.range.end - e.range.begin, e.replacement);
    limit = e.range.begin;
  }
  return QString::fromStdString(s);
}

QString edgeDiffKey(const GraphDescription& graph, const GraphEdge& edge) {
  if (edge.from < 0 || edge.to < 0 || edge.from >= graph.nodes.size() ||
      edge.to >= graph.nodes.size())
    return {};
  return graph.nodes[edge.from].id + QLatin1Char('>') + graph.nodes[edge.to].id + QLatin1Char('>') +
         QString::number(int(edge.kind));
}

namespace {

QHash<ir::NodeId, int> opsByNode(const driver::CheckResult& r) {
  QHash<ir::NodeId, int> out;
  for (std::size_t i = 0; i < r.model.ops.size(); ++i)
    if (r.model.ops[i].stmt)
      out.insert(r.model.ops[i].stmt->id, int(i));
  return out;
}

/// Edges of a graph as side-independent keys: each end is its role name and the operation's
/// node in the newer kernel (`translate` maps the older kernel's nodes; unmatched ones keep a
/// side-specific name so they never compare equal).
QHash<QString, QString> edgeKeys(const GraphDescription& g, const driver::CheckResult& r,
                                 const QHash<ir::NodeId, ir::NodeId>* translate) {
  auto nodeKey = [&](int n) -> QString {
    const GraphNode& node = g.nodes[n];
    if (node.op < 0 || std::size_t(node.op) >= r.model.ops.size() || !r.model.ops[node.op].stmt)
      return QStringLiteral("?") + node.id;
    ir::NodeId id = r.model.ops[node.op].stmt->id;
    QString role = node.role >= 0 && std::size_t(node.role) < r.model.roles.size()
                       ? QString::fromStdString(r.model.roles[node.role].name)
                       : QString();
    if (translate) {
      auto it = translate->find(id);
      if (it == translate->end())
        return QStringLiteral("old:") + QString::number(id);
      id = it.value();
    }
    return role + QLatin1Char(':') + QString::number(id);
  };
  QHash<QString, QString> out; // side-independent key → this graph's edgeDiffKey
  for (const GraphEdge& e : g.edges) {
    if (e.from < 0 || e.to < 0)
      continue;
    out.insert(nodeKey(e.from) + QLatin1Char('>') + nodeKey(e.to) + QLatin1Char('>') +
                   QString::number(int(e.kind)),
               edgeDiffKey(g, e));
  }
  return out;
}

std::shared_ptr<CheckSnapshot> snapshotOf(diff::Assessment& a, const QString& path,
                                          const QString& text, quint64 jobId) {
  auto s = std::make_shared<CheckSnapshot>();
  s->jobId = jobId;
  s->path = path;
  s->text = text;
  s->result = std::move(a.check);
  s->views = buildViewData(s->result);
  return s;
}

} // namespace

CompareSnapshotPtr buildCompareSnapshot(const driver::Compiler& compiler, const QString& pathBefore,
                                        const QString& textBefore, const QString& pathAfter,
                                        const QString& textAfter, quint64 jobId) {
  QElapsedTimer timer;
  timer.start();
  auto out = std::make_shared<CompareSnapshot>();
  out->jobId = jobId;
  diff::Assessment a = diff::assess(compiler, pathBefore.toStdString(), textBefore.toStdString());
  diff::Assessment b = diff::assess(compiler, pathAfter.toStdString(), textAfter.toStdString());
  auto d = std::make_shared<diff::KernelDiff>(diff::compare(a, b));
  out->irRows = sideBySide(d->ir);
  if (d->ptx)
    out->ptxRows = sideBySide(*d->ptx);
  out->before = snapshotOf(a, pathBefore, textBefore, jobId);
  out->after = snapshotOf(b, pathAfter, textAfter, jobId);

  out->marksBefore.edgeMark = DiffMark::Removed;
  out->marksAfter.edgeMark = DiffMark::Added;
  QHash<ir::NodeId, int> opsA = opsByNode(out->before->result);
  QHash<ir::NodeId, int> opsB = opsByNode(out->after->result);
  for (const diff::ItemChange& c : d->ops) {
    if (c.nodeBefore && opsA.contains(c.nodeBefore))
      out->marksBefore.ops.insert(opsA.value(c.nodeBefore), c.kind == diff::ChangeKind::Removed
                                                                ? DiffMark::Removed
                                                                : DiffMark::Changed);
    if (c.nodeAfter && opsB.contains(c.nodeAfter))
      out->marksAfter.ops.insert(opsB.value(c.nodeAfter), c.kind == diff::ChangeKind::Added
                                                              ? DiffMark::Added
                                                              : DiffMark::Changed);
  }
  QHash<ir::NodeId, ir::NodeId> translate;
  for (const auto& [x, y] : d->matchedOps)
    translate.insert(x, y);
  if (out->before->views && out->after->views) {
    QHash<QString, QString> ea =
        edgeKeys(out->before->views->graph, out->before->result, &translate);
    QHash<QString, QString> eb = edgeKeys(out->after->views->graph, out->after->result, nullptr);
    for (auto it = ea.cbegin(); it != ea.cend(); ++it)
      if (!eb.contains(it.key()))
        out->marksBefore.edges.insert(it.value());
    for (auto it = eb.cbegin(); it != eb.cend(); ++it)
      if (!ea.contains(it.key()))
        out->marksAfter.edges.insert(it.value());
  }
  out->diff = std::move(d);
  out->elapsedMs = timer.elapsed();
  return out;
}

BaselinePtr buildBaseline(const driver::Compiler& compiler, const QString& path,
                          const QString& text) {
  auto b = std::make_shared<Baseline>();
  b->path = path;
  b->text = text;
  diff::AssessOptions o;
  o.ptx = false;
  b->assessment = std::make_shared<diff::Assessment>(
      diff::assess(compiler, path.toStdString(), text.toStdString(), o));
  return b;
}

BaselineDeltaPtr buildBaselineDelta(const driver::Compiler& compiler, const BaselinePtr& baseline,
                                    const QString& path, const QString& text, quint64 checkJob) {
  if (!baseline || !baseline->assessment)
    return nullptr;
  diff::AssessOptions o;
  o.ptx = false;
  diff::Assessment now = diff::assess(compiler, path.toStdString(), text.toStdString(), o);
  auto out = std::make_shared<BaselineDelta>();
  out->checkJob = checkJob;
  out->baselinePath = baseline->path;
  auto d = std::make_shared<diff::KernelDiff>(diff::compare(*baseline->assessment, now));
  for (const diff::FindingChange& f : d->findings)
    (f.appeared ? out->findingsAppeared : out->findingsDisappeared)++;
  out->diff = std::move(d);
  return out;
}

QString BaselineDelta::summary() const {
  if (!diff)
    return {};
  QStringList parts;
  const diff::Quantity& t = diff->predictedUs;
  if (t.before && t.after) {
    double delta = *t.after - *t.before;
    QString s = QStringLiteral("Δ %1%2 µs").arg(delta >= 0 ? "+" : "").arg(delta, 0, 'f', 2);
    if (*t.before > 0)
      s += QStringLiteral(" (%1%2%)")
               .arg(delta >= 0 ? "+" : "")
               .arg(100.0 * delta / *t.before, 0, 'f', 1);
    parts << s;
  } else {
    parts << QStringLiteral("Δ time n/a");
  }
  parts << QStringLiteral("findings +%1 −%2").arg(findingsAppeared).arg(findingsDisappeared);
  const diff::Quantity& m = diff->smemBytes;
  if (m.before && m.after)
    parts << QStringLiteral("smem %1%2 B")
                 .arg(*m.after >= *m.before ? "+" : "")
                 .arg(qint64(*m.after - *m.before));
  QStringList regs;
  for (const auto& [role, q] : diff->registers)
    if (q.differs())
      regs << QStringLiteral("%1 %2→%3")
                  .arg(QString::fromStdString(role),
                       q.before ? QString::number(qint64(*q.before)) : QStringLiteral("-"),
                       q.after ? QString::number(qint64(*q.after)) : QStringLiteral("-"));
  parts << (regs.isEmpty() ? QStringLiteral("regs =") : QStringLiteral("regs ") + regs.join(", "));
  return parts.join(QStringLiteral(" · "));
}

} // namespace cake::views
