// Reviewing a proposal in a workspace: its status (state, votes, the latest evaluation of its
// exact content, whether approval is possible and why not) and the reviewer's acts (approve,
// reject, request changes, comment). Approval installs the proposal's definition files into the
// workspace overlay as a new revision, in one transaction with its vote and audit entries.
// Shared by `cake proposal approve|reject|request-changes|status` and the workbench's Proposals
// dock. See docs/proposals.md, "Review".
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Proposal/Proposal.h"
#include "cake/Workspace/Workspace.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cake::proposal {

/// Why an act was refused: a stable code and a sentence for the reviewer.
struct ReviewRefusal {
  /// "prop-not-registered", "prop-not-evaluated", "prop-stale-evaluation" (the head revision
  /// moved since the latest evaluation), "prop-stale-content" (the folder's content is not the
  /// registered one, or a newer content at the path superseded it), "prop-self-approval",
  /// "prop-evaluation-not-clean" (invalid or failing examples), "prop-unaccepted-change" (a gate
  /// case changed and was not accepted with --accept-change), "prop-unknown-accept" (an
  /// accepted case that did not change), "prop-already-decided" (approved or rejected),
  /// "prop-empty-reviewer", "prop-empty-comment".
  std::string code;
  std::string message;
  /// The cases behind prop-unaccepted-change / prop-unknown-accept.
  std::vector<std::string> cases;
};

/// What the reviewer reads back (and an agent through `cake proposal status`).
struct ReviewStatus {
  ws::ProposalRecord record;
  std::int64_t head = 0;
  /// The latest evaluation of the exact content, if any, and the revision it ran on.
  std::optional<ws::Evaluation> latestEvaluation;
  std::string verdict; ///< of the latest evaluation ("clean", "regressions", ...), or empty
  /// Whether the latest evaluation ran the corpus gate (approval needs it).
  bool gateRan = false;
  /// Gate cases whose verdict, findings, prediction or code changed in the latest evaluation.
  std::vector<std::string> changedCases;
  std::vector<ws::Vote> votes;
  /// Set when approval is not possible now (with an empty accept list), with the reason.
  std::optional<ReviewRefusal> approvalBlocked;
  /// The revision the approval installed, when approved.
  std::optional<std::int64_t> installedRevision;
  /// False for a folder whose exact content the store does not know (status of a folder):
  /// `record` then describes the folder, with state stale when the same folder was registered
  /// with other content (`registeredAtPath`), new otherwise.
  bool registered = true;
  /// The newest content registered from the same folder, for an unregistered folder.
  std::optional<std::string> registeredAtPath;
  /// For a stale record: the newer content registered from the same folder.
  std::optional<std::string> supersededBy;
};

/// The path a proposal is registered under: its folder made absolute and normal, so the same
/// folder named two ways is one path (a later content there supersedes the earlier).
std::string proposalPath(const Proposal& proposal);
/// The store's record of the proposal's exact content (hash, path, kind, title, author JSON).
ws::ProposalRecord proposalRecord(const Proposal& proposal);
/// The status of the folder's exact content: as reviewStatus(hash) when registered, otherwise
/// an unregistered status (see ReviewStatus::registered).
ws::Expected<ReviewStatus> reviewStatus(ws::Workspace& workspace, const Proposal& proposal);

/// The status of the proposal registered with `hash`; ws-unknown-proposal when unknown.
ws::Expected<ReviewStatus> reviewStatus(ws::Workspace& workspace, const std::string& hash);
/// {proposal_hash, path, kind, title, author, state, head, evaluation:{id, revision, verdict,
/// created_at}|null, changed_cases, votes:[{reviewer, decision, comment, created_at}],
/// can_approve, blocked:{code, message, cases}|null, installed_revision|null}.
std::string toJson(const ReviewStatus& status);
std::string toText(const ReviewStatus& status);
/// {"refused": {code, message, cases}}.
std::string toJson(const ReviewRefusal& refusal);

struct ReviewRequest {
  ws::Decision decision = ws::Decision::Comment;
  std::string reviewer;
  std::string comment;
  /// Approve only: gate cases whose change the reviewer accepts explicitly (recorded as gate
  /// acceptances tied to the proposal).
  std::vector<std::string> acceptChanges;
  /// Test seam: called inside the act's transaction after each write ("revision", "vote",
  /// "accept", "state"), before the commit. The CLI's CAKE_TEST_SLOW_ACT_MS hook sleeps here so
  /// the kill test can land inside the act.
  std::function<void(std::string_view step)> afterStep;
};

struct ReviewOutcome {
  ws::ProposalState state = ws::ProposalState::New;
  std::int64_t voteId = 0;
  std::optional<std::int64_t> installedRevision; ///< approve: the new revision
};

/// Records the reviewer's act on `proposal` (read from its folder now, so its hash is the
/// exact content being judged). Refusals come back as a ReviewRefusal and write nothing.
/// Approval: a registered, clean latest evaluation of this exact content at the current head,
/// a reviewer other than the author's name, every changed gate case listed in acceptChanges;
/// then vote, acceptances, state and the new revision (head overlay + the proposal's files)
/// are one transaction: a process killed at any point leaves the old or the new revision.
struct ReviewResult {
  std::optional<ReviewOutcome> outcome;
  std::optional<ReviewRefusal> refusal;
  std::optional<ws::Error> error; ///< the store failed (not a refusal)
};
ReviewResult review(ws::Workspace& workspace, const Proposal& proposal,
                    const ReviewRequest& request);

/// The files an approval installs: the head overlay with the proposal's definition files added
/// or replaced (kind directory + name).
std::vector<ws::WorkspaceFile> approvedOverlay(const std::vector<ws::WorkspaceFile>& head,
                                               const Proposal& proposal);

} // namespace cake::proposal
