// What the Proposals dock shows, built off the GUI thread: the review queue (proposal folders and
// the workspace's records, with state and whose turn it is), one proposal's detail (its
// definition rendered readably, evidence, examples, gate deltas, votes), the lowering preview
// and a changed gate case's findings before / after. Plain immutable structs.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Driver/Compiler.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <memory>
#include <optional>

namespace cake::views {

/// Whose move it is on a proposal.
enum class ProposalTurn : quint8 {
  NeedsEvaluation, ///< never evaluated (or not registered) in this workspace
  Reviewer,        ///< evaluated at the head: a reviewer decides
  AuthorChanges,   ///< a reviewer requested changes
  Done,            ///< approved or rejected
  Stale,           ///< superseded content, or the head moved since the evaluation
  Invalid,         ///< the folder does not load (its findings say why)
};
/// "needs evaluation", "reviewer", "author: changes requested", "done", "stale", "invalid".
QString proposalTurnName(ProposalTurn turn);
/// Whose turn it is from the workspace state ("new", "evaluated", ...; empty: not registered),
/// whether an evaluation of the exact content exists, and the approval refusal's code.
ProposalTurn proposalTurn(const QString& state, bool evaluated, const QString& blockedCode);

/// One row of the review queue.
struct ProposalEntry {
  QString dir;  ///< the folder (as registered, or as found)
  QString hash; ///< of the folder's current content (empty when it does not load)
  QString kind; ///< "primitive", "rule", "calibration", "target"
  QString title;
  QString author; ///< author name (and kind)
  QString state;  ///< workspace state, or "unregistered" / "invalid"
  ProposalTurn turn = ProposalTurn::NeedsEvaluation;
  QString blocked; ///< why approval is not possible now (empty when it is, or no workspace)
};

struct ProposalQueue {
  QList<ProposalEntry> entries; ///< sorted by folder
  QString workspace;
  qint64 head = 0;
  QString error; ///< the workspace could not be read (the folders are still listed)
};

/// Lists the proposal folders below each of `roots` (a folder holding proposal.json counts as
/// itself), the folders in `extra`, and the folders of every proposal registered in the
/// workspace `workspace` (none when empty), each with its current content's status.
ProposalQueue scanProposals(const QStringList& roots, const QStringList& extra,
                            const QString& workspace);

struct ProposalEvidence {
  QString text;   ///< the entry as one readable line
  QString target; ///< absolute path of a kernel it names (empty when none)
};

struct ProposalExampleRow {
  QString path, expected, observed, observedWithout, codes, problem;
  bool ok = false;
  bool lowered = false;
};

struct ProposalDeltaRow {
  QString group; ///< "newly_accepted", "newly_rejected", "changed_findings", ...
  QString caseId;
  QString path; ///< the case's kernel (absolute; empty when the manifest has no such case)
};

struct ProposalVoteRow {
  QString reviewer, decision, comment, time;
};

/// One proposal as the detail pane shows it.
struct ProposalDetail {
  ProposalEntry entry;
  QString loadFindings; ///< the folder does not load: its located findings
  QString motivation;
  QString definitionHtml;   ///< every definition file rendered readably
  QString loweringTemplate; ///< a primitive's lowering strategy and template (else empty)
  QString previewExample;   ///< absolute path of the first positive example (else empty)
  QList<ProposalEvidence> evidence;
  // The latest evaluation of this content in the workspace.
  bool evaluated = false;
  qint64 evaluationRevision = 0;
  qint64 head = 0;
  QString verdict;
  QList<ProposalExampleRow> examples;
  bool gateRan = false;
  QList<ProposalDeltaRow> deltas;
  int mismatchedBefore = 0, mismatchedAfter = 0;
  /// Per proposed primitive, whether the CPU interpreter runs it and from where
  /// ("frag.exp2: semantic form: dst = exp2(src) (f32)"; the report's cpu_semantics).
  QStringList cpuSemantics;
  QStringList changedCases;
  QList<ProposalVoteRow> votes;
  bool canApprove = false;
  QString blockedCode, blockedMessage;
  QString authorName;
};
using ProposalDetailPtr = std::shared_ptr<const ProposalDetail>;

/// Reads the folder `dir` and its record in `workspace` (may be empty); `manifest` maps gate
/// case ids to kernel paths.
ProposalDetail buildProposalDetail(const QString& dir, const QString& workspace,
                                   const QString& manifest);

/// Renders one definition file (JSON) of `kind` readably as HTML: a primitive's operands,
/// constraints, effects, cost and lowering; a rule's pattern, family, severity and message; a
/// calibration's or target's key values. Text that is not JSON is shown verbatim.
QString renderDefinitionHtml(const QString& kind, const QString& name, const QString& content);
/// A primitive's lowering section as text (strategy, per, template lines); empty otherwise.
QString loweringTemplateText(const QString& content);

/// The positive example lowered to PTX with the proposal's overlay.
struct ProposalPreview {
  QString dir, example;
  bool ok = false;
  QString ptx;
  QString message; ///< why there is no PTX (refused, lowering findings, target)
};
using ProposalPreviewPtr = std::shared_ptr<const ProposalPreview>;
ProposalPreview buildProposalPreview(const QString& dir, const QString& workspace,
                                     const driver::DataPaths& paths);

/// A gate case checked without (workspace head) and with the proposal.
struct CaseComparison {
  QString dir, caseId, path;
  bool acceptedBefore = false, acceptedAfter = false;
  QStringList before, after; ///< one line per finding: "code line:col message"
  QString error;
};
using CaseComparisonPtr = std::shared_ptr<const CaseComparison>;
CaseComparison compareCase(const QString& dir, const QString& caseId, const QString& path,
                           const QString& workspace, const driver::DataPaths& paths);

} // namespace cake::views
