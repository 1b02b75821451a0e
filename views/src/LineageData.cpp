// The Lineage dock's data: outcomes, speedups over each lineage's root, the best path, filters
// and the graph description (contracted edges through filtered-out candidates).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/LineageData.h"

#include "cake/Campaign/Campaign.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <algorithm>

namespace cake::views {

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

/// Measurement records that say the run was wrong (`correct: false`; docs/runs.md).
bool measuredIncorrect(const std::string& measurements) {
  QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(measurements));
  for (const QJsonValue& m : doc.array())
    if (m.toObject().value(QStringLiteral("correct")) == QJsonValue(false))
      return true;
  return false;
}

} // namespace

QString outcomeName(CandidateOutcome outcome) {
  switch (outcome) {
  case CandidateOutcome::Refused:
    return QStringLiteral("refused");
  case CandidateOutcome::LoweringFailed:
    return QStringLiteral("lowering-failed");
  case CandidateOutcome::Incorrect:
    return QStringLiteral("incorrect");
  case CandidateOutcome::Correct:
    break;
  }
  return QStringLiteral("correct");
}

std::optional<CandidateOutcome> outcomeFromName(const QString& name) {
  for (int i = 0; i < kCandidateOutcomes; ++i)
    if (outcomeName(CandidateOutcome(i)) == name)
      return CandidateOutcome(i);
  return std::nullopt;
}

QColor outcomeFill(CandidateOutcome outcome, bool dark) {
  // Dark: the same hues, deep enough for light text on the dark canvas.
  switch (outcome) {
  case CandidateOutcome::Refused:
    return dark ? QColor(0x5a, 0x26, 0x24) : QColor(0xf8, 0xd0, 0xcc);
  case CandidateOutcome::LoweringFailed:
    return dark ? QColor(0x5c, 0x40, 0x16) : QColor(0xfd, 0xe2, 0xb8);
  case CandidateOutcome::Incorrect:
    return dark ? QColor(0x45, 0x2a, 0x5a) : QColor(0xe4, 0xd2, 0xf0);
  case CandidateOutcome::Correct:
    break;
  }
  return dark ? QColor(0x1f, 0x4a, 0x2a) : QColor(0xcf, 0xeb, 0xd2);
}

QColor outcomeBorder(CandidateOutcome outcome, bool dark) {
  switch (outcome) {
  case CandidateOutcome::Refused:
    return dark ? QColor(0xf2, 0x6b, 0x67) : QColor(0xc6, 0x28, 0x28);
  case CandidateOutcome::LoweringFailed:
    return dark ? QColor(0xf5, 0xa6, 0x3c) : QColor(0xe6, 0x7e, 0x00);
  case CandidateOutcome::Incorrect:
    return dark ? QColor(0xc0, 0x84, 0xe8) : QColor(0x7b, 0x1f, 0xa2);
  case CandidateOutcome::Correct:
    break;
  }
  return dark ? QColor(0x5c, 0xc7, 0x6c) : QColor(0x2e, 0x7d, 0x32);
}

QColor bestPathColor(bool dark) {
  return dark ? QColor(0x5c, 0xa8, 0xff) : QColor(0x15, 0x65, 0xc0);
}

CandidateOutcome outcomeOf(const ws::CandidateRecord& c) {
  if (!c.accepted)
    return CandidateOutcome::Refused;
  if (!c.loweredOk)
    return CandidateOutcome::LoweringFailed;
  if (measuredIncorrect(c.measurements))
    return CandidateOutcome::Incorrect;
  return CandidateOutcome::Correct;
}

QString authorLabel(const std::string& authorJson) {
  QJsonObject a = QJsonDocument::fromJson(QByteArray::fromStdString(authorJson)).object();
  QString name = a.value(QStringLiteral("name")).toString();
  QString kind = a.value(QStringLiteral("kind")).toString();
  if (name.isEmpty() && kind.isEmpty())
    return QStringLiteral("?");
  QString inner = kind;
  if (QString run = a.value(QStringLiteral("run")).toString(); !run.isEmpty())
    inner += (inner.isEmpty() ? QString() : QStringLiteral(", ")) + run;
  return inner.isEmpty() ? name : name + QStringLiteral(" (") + inner + QLatin1Char(')');
}

int Lineage::indexOfKernel(const QString& path) const {
  if (path.isEmpty() || folder.isEmpty())
    return -1;
  // Canonical forms of the two folders only (one lookup each), not of 2,000 kernels: a
  // symlinked campaign or editor path still matches, and a miss stays cheap.
  auto canonical = [](const QString& p) {
    QFileInfo info(p);
    QString c = info.canonicalFilePath();
    return QDir::cleanPath(c.isEmpty() ? info.absoluteFilePath() : c);
  };
  const QString file = canonical(path);
  const QDir dir(canonical(folder));
  for (int i = 0; i < nodes.size(); ++i)
    if (!nodes[i].record.kernel.empty() &&
        QDir::cleanPath(dir.filePath(QString::fromStdString(nodes[i].record.kernel))) == file)
      return i;
  return -1;
}

QStringList Lineage::authors() const {
  QSet<QString> set;
  for (const LineageNode& n : nodes)
    set.insert(n.author);
  QStringList out(set.begin(), set.end());
  out.sort();
  return out;
}

QStringList Lineage::codes() const {
  QSet<QString> set;
  for (const LineageNode& n : nodes)
    for (const std::string& c : n.record.codes)
      set.insert(qs(c));
  QStringList out(set.begin(), set.end());
  out.sort();
  return out;
}

int Lineage::count(CandidateOutcome outcome) const {
  return int(std::count_if(nodes.begin(), nodes.end(),
                           [&](const LineageNode& n) { return n.outcome == outcome; }));
}

Lineage buildLineage(const ws::CampaignRecord& campaign,
                     const std::vector<ws::CandidateRecord>& candidates) {
  Lineage out;
  out.campaign = qs(campaign.name);
  out.folder = qs(campaign.folder);
  out.nodes.reserve(qsizetype(candidates.size()));
  for (const ws::CandidateRecord& c : candidates) {
    LineageNode n;
    n.record = c;
    n.record.kernelText.clear(); // the view reads kernels from the folder or the store
    n.outcome = outcomeOf(c);
    n.author = authorLabel(c.author);
    out.index.insert(qs(c.id), int(out.nodes.size()));
    out.nodes.push_back(std::move(n));
  }
  // Roots through first parents. Import order puts parents first; a parent stored later (a
  // foreign database) is resolved by the bounded walk below instead.
  for (LineageNode& n : out.nodes) {
    const LineageNode* r = &n;
    for (int guard = 0; guard <= out.nodes.size() && !r->record.parents.empty(); ++guard) {
      int p = out.indexOf(qs(r->record.parents.front()));
      if (p < 0)
        break;
      r = &out.nodes[p];
    }
    n.root = qs(r->record.id);
    // The record does not say which codes block; the one the edit brought (absent from the
    // root) is what a reviewer wants to see first.
    for (const std::string& c : n.record.codes)
      if (std::find(r->record.codes.begin(), r->record.codes.end(), c) == r->record.codes.end()) {
        n.newCode = qs(c);
        break;
      }
    if (n.newCode.isEmpty() && !n.record.codes.empty())
      n.newCode = qs(n.record.codes.front());
    if (r->record.predictedUs && n.record.predictedUs && *n.record.predictedUs > 0)
      n.predictedSpeedup = *r->record.predictedUs / *n.record.predictedUs;
    if (r->record.measuredUs && n.record.measuredUs && *n.record.measuredUs > 0)
      n.measuredSpeedup = *r->record.measuredUs / *n.record.measuredUs;
  }
  for (const std::string& id : campaign::bestPath(candidates)) {
    out.bestPath << qs(id);
    if (int i = out.indexOf(qs(id)); i >= 0)
      out.nodes[i].onBestPath = true;
  }
  return out;
}

QString formatSpeedup(std::optional<double> speedup) {
  return speedup ? QStringLiteral("×%1").arg(*speedup, 0, 'f', 2) : QStringLiteral("–");
}

QString nodeDetail(const LineageNode& n) {
  if (n.outcome == CandidateOutcome::Refused)
    return QStringLiteral("refused: ") + (n.newCode.isEmpty() ? QStringLiteral("?") : n.newCode);
  QString times;
  if (n.root == qs(n.record.id)) {
    if (n.record.predictedUs)
      times = QStringLiteral("root %1 µs").arg(*n.record.predictedUs, 0, 'f', 1);
    if (n.record.measuredUs)
      times += QStringLiteral(" · meas %1 µs").arg(*n.record.measuredUs, 0, 'f', 1);
    if (times.isEmpty())
      times = QStringLiteral("root");
  } else {
    times = formatSpeedup(n.predictedSpeedup) + QStringLiteral(" pred");
    if (n.measuredSpeedup)
      times += QStringLiteral(" · ") + formatSpeedup(n.measuredSpeedup) + QStringLiteral(" meas");
  }
  if (n.outcome == CandidateOutcome::LoweringFailed)
    return QStringLiteral("lowering failed · ") + times;
  if (n.outcome == CandidateOutcome::Incorrect)
    return QStringLiteral("incorrect · ") + times;
  return times;
}

bool LineageFilter::matches(const LineageNode& n) const {
  if (!author.isEmpty() && n.author != author)
    return false;
  if (outcome && n.outcome != *outcome)
    return false;
  if (!code.isEmpty()) {
    std::string c = code.toStdString();
    if (std::find(n.record.codes.begin(), n.record.codes.end(), c) == n.record.codes.end())
      return false;
  }
  return true;
}

LineageGraph buildLineageGraph(const Lineage& lineage, const LineageFilter& filter) {
  LineageGraph out;
  const int count = int(lineage.nodes.size());
  QVector<int> shownAs(count, -1); // lineage index → graph node
  for (int i = 0; i < count; ++i) {
    const LineageNode& n = lineage.nodes[i];
    bool match = filter.matches(n);
    if (!match && !n.onBestPath) {
      ++out.hidden;
      continue;
    }
    GraphNode g;
    g.id = qs(n.record.id);
    g.title = g.id;
    g.detail = nodeDetail(n);
    g.size = nodeSizeFor(g.title, g.detail);
    g.line = int(n.record.line);
    shownAs[i] = int(out.graph.nodes.size());
    out.graph.nodes << g;
    out.nodeCandidate << i;
    out.nodeDimmed << !match;
    out.nodeBest << n.onBestPath;
  }
  // The nearest shown ancestor of each hidden candidate along first parents (what it was
  // derived from). Parents come first in import order, so one pass suffices; a parent stored
  // later (a foreign database) is treated as unknown.
  QVector<int> nearest(count, -1);
  QSet<QString> bestEdges;
  for (int i = 1; i < lineage.bestPath.size(); ++i)
    bestEdges.insert(lineage.bestPath[i - 1] + QLatin1Char('>') + lineage.bestPath[i]);
  auto addEdge = [&](int from, int to, EdgeKind kind, int parent, const QString& tooltip,
                     bool best) {
    GraphEdge e;
    e.from = shownAs[from];
    e.to = shownAs[to];
    e.kind = kind;
    e.tooltip = tooltip;
    out.graph.edges << e;
    out.edgeParent << parent;
    out.edgeBest << best;
  };
  for (int i = 0; i < count; ++i) {
    const LineageNode& n = lineage.nodes[i];
    const QString id = qs(n.record.id);
    int from = -1; // the shown candidate the first-parent edge comes from
    for (std::size_t k = 0; k < n.record.parents.size(); ++k) {
      const QString parent = qs(n.record.parents[k]);
      int p = lineage.indexOf(parent);
      if (p < 0 || p >= i)
        continue;
      if (k == 0) {
        from = shownAs[p] >= 0 ? p : nearest[p];
        if (shownAs[i] < 0) {
          nearest[i] = from;
        } else if (from >= 0 && from == p) {
          addEdge(p, i, EdgeKind::Data, 0, parent + QStringLiteral(" → ") + id,
                  bestEdges.contains(parent + QLatin1Char('>') + id));
        } else if (from >= 0) {
          addEdge(from, i, EdgeKind::Order, -1,
                  qs(lineage.nodes[from].record.id) + QStringLiteral(" ⇢ ") + id +
                      QStringLiteral(" (through hidden candidates)"),
                  false);
        }
      } else if (shownAs[i] >= 0 && shownAs[p] >= 0 && p != from) {
        // An inspiration: drawn when both ends are shown.
        addEdge(p, i, EdgeKind::Sync, int(k),
                parent + QStringLiteral(" ⇢ ") + id + QStringLiteral(" (inspiration)"), false);
      }
    }
  }
  out.graph.leftToRight = true; // lineages are wide (many children per parent) and shallow
  out.graph.reindex();
  return out;
}

} // namespace cake::views
