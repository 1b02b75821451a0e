// The Lineage dock's data: a campaign's candidates as a DAG (outcome, speedup over the root of
// each lineage, the best-so-far path), the filters by author, outcome and finding code, and the
// graph description the serialized Graphviz worker lays out. Pure data, built off the GUI
// thread; the widget only paints it.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Workspace/Workspace.h"
#include "cake/views/GraphDescription.h"

#include <QColor>
#include <QHash>
#include <QString>
#include <QStringList>
#include <QVector>
#include <memory>
#include <optional>
#include <vector>

namespace cake::views {

/// What became of a candidate, worst first: refused by the verifier, accepted but lowering
/// failed, lowered but measured incorrect (a measurement record with `correct: false`), or
/// correct / accepted (no measurement says otherwise).
enum class CandidateOutcome : quint8 { Refused, LoweringFailed, Incorrect, Correct };
inline constexpr int kCandidateOutcomes = 4;

/// "refused", "lowering-failed", "incorrect", "correct".
QString outcomeName(CandidateOutcome outcome);
/// The outcome named by outcomeName(), or nullopt.
std::optional<CandidateOutcome> outcomeFromName(const QString& name);
/// Node fill and border colours of an outcome: light fills under dark text, or (`dark`, the
/// ViewPalette's dark variant) deep fills under light text.
QColor outcomeFill(CandidateOutcome outcome, bool dark = false);
QColor outcomeBorder(CandidateOutcome outcome, bool dark = false);
/// The outline and edge colour of the best-so-far path.
QColor bestPathColor(bool dark = false);

CandidateOutcome outcomeOf(const ws::CandidateRecord& candidate);
/// "name (kind)", with the run when given: "cake evolve (search, islands/islands/seed=1)";
/// "?" for an author object that does not parse.
QString authorLabel(const std::string& authorJson);

/// One candidate as the dock shows it.
struct LineageNode {
  ws::CandidateRecord record;
  CandidateOutcome outcome = CandidateOutcome::Correct;
  QString author;
  /// The root its first parents lead to (itself for a root); its times are the reference.
  QString root;
  /// root time / own time, when both are known (> 1: faster than the root).
  std::optional<double> predictedSpeedup, measuredSpeedup;
  bool onBestPath = false;
  /// The first finding code its root does not have (else its first code; empty: none).
  QString newCode;
};

/// A campaign's lineage, candidates in import order (parents before children).
struct Lineage {
  QString campaign;
  QString folder;
  QVector<LineageNode> nodes;
  QHash<QString, int> index; ///< id → nodes index
  QStringList bestPath;      ///< campaign::bestPath: root first
  int indexOf(const QString& id) const { return index.value(id, -1); }
  /// The candidate whose kernel file (`folder`/kernel) is `path` (symlinks resolved for both
  /// folders), or -1: the editor's file as a node of the shown campaign.
  int indexOfKernel(const QString& path) const;
  /// The distinct author labels and finding codes, sorted (the filter choices).
  QStringList authors() const;
  QStringList codes() const;
  /// Number of candidates per outcome.
  int count(CandidateOutcome outcome) const;
};
using LineagePtr = std::shared_ptr<const Lineage>;

Lineage buildLineage(const ws::CampaignRecord& campaign,
                     const std::vector<ws::CandidateRecord>& candidates);

/// The detail line of a node: speedups ("×1.34 pred · ×1.29 meas"), the root's own time, or
/// why it failed ("refused: CODE", LineageNode::newCode).
QString nodeDetail(const LineageNode& node);
/// "×1.34" (two decimals), "–" without a value.
QString formatSpeedup(std::optional<double> speedup);

/// Which candidates to show; an empty field matches everything.
struct LineageFilter {
  QString author; ///< an authorLabel
  std::optional<CandidateOutcome> outcome;
  QString code; ///< a finding code the candidate has
  bool matches(const LineageNode& node) const;
  bool isEmpty() const { return author.isEmpty() && !outcome && code.isEmpty(); }
};

/// What the layout worker lays out and the view draws. Shown: the candidates that match the
/// filter, and the best path always (dimmed when it does not match), so the way to the best
/// stays visible. A shown candidate whose first parent is hidden is linked to its nearest shown
/// ancestor along first parents (a contracted edge); an inspiration (a later parent) is drawn
/// only when both ends are shown.
struct LineageGraph {
  GraphDescription graph;     ///< node ids are candidate ids; no clusters
  QVector<int> nodeCandidate; ///< graph node → Lineage::nodes index
  QVector<bool> nodeDimmed;   ///< shown for the best path only (does not match)
  QVector<bool> nodeBest;     ///< on the best path
  /// Per edge: the child's parent index it follows (0: derived-from, > 0: inspiration), or -1
  /// for a contracted edge through hidden candidates.
  QVector<int> edgeParent;
  QVector<bool> edgeBest; ///< consecutive best-path candidates
  int hidden = 0;         ///< candidates left out by the filter
};
using LineageGraphPtr = std::shared_ptr<const LineageGraph>;

/// Edge kinds in the graph: derived-from Data (solid), inspiration Sync (dashed), contracted
/// Order (thin).
LineageGraph buildLineageGraph(const Lineage& lineage, const LineageFilter& filter = {});

/// The graph description inside a lineage graph, sharing its ownership (for the layout worker).
inline std::shared_ptr<const GraphDescription> graphOf(const LineageGraphPtr& g) {
  return g ? std::shared_ptr<const GraphDescription>(g, &g->graph) : nullptr;
}

} // namespace cake::views
