// Recording a proposal's evaluation in a workspace: the proposal registered by the hash of its
// exact content and the report stored, in one act. Shared by `cake proposal evaluate
// --workspace` and the workbench's Proposals dock (docs/proposals.md).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Proposal/Proposal.h"
#include "cake/Workspace/Workspace.h"

#include <cstdint>
#include <string>

namespace cake::proposal {

/// Registers `proposal` as proposalRecord() (Review.h) describes it (idempotent per content; audit
/// act "proposal.submit") and stores `reportJson` as its evaluation at revision `head` (audit act
/// "proposal.evaluate"), both in one transaction by `actor`. Returns the evaluation's id.
ws::Expected<std::int64_t> recordEvaluation(ws::Workspace& workspace, const Proposal& proposal,
                                            std::int64_t head, const std::string& reportJson,
                                            const std::string& actor);

} // namespace cake::proposal
