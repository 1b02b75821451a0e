// Recording a proposal's evaluation in a workspace (registration and report in one act).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Proposal/Record.h"

#include "cake/Proposal/Review.h"

namespace cake::proposal {

ws::Expected<std::int64_t> recordEvaluation(ws::Workspace& workspace, const Proposal& proposal,
                                            std::int64_t head, const std::string& reportJson,
                                            const std::string& actor) {
  ws::ProposalRecord rec = proposalRecord(proposal);
  std::int64_t id = 0;
  ws::Status st = workspace.atomically([&]() -> ws::Status {
    auto r = workspace.registerProposal(rec, actor);
    if (!r)
      return r.error();
    auto e = workspace.addEvaluation(proposal.hash, head, reportJson, actor);
    if (!e)
      return e.error();
    id = *e;
    return {};
  });
  if (!st)
    return st.error();
  return id;
}

} // namespace cake::proposal
