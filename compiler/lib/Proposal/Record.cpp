// Recording a proposal's evaluation in a workspace (registration and report in one act).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Proposal/Record.h"

#include "cake/Support/Json.h"

namespace cake::proposal {

ws::ProposalRecord proposalRecord(const Proposal& proposal) {
  ws::ProposalRecord rec;
  rec.hash = proposal.hash;
  rec.path = proposal.dir;
  // The two kind enums name the same four kinds (toString is the shared spelling).
  rec.kind = *ws::fileKindFromString(toString(proposal.kind));
  rec.title = proposal.title;
  json::Writer w(false);
  w.beginObject().key("kind").value(proposal.author.kind).key("name").value(proposal.author.name);
  if (!proposal.author.model.empty())
    w.key("model").value(proposal.author.model);
  if (!proposal.author.run.empty())
    w.key("run").value(proposal.author.run);
  w.endObject();
  rec.author = w.take();
  return rec;
}

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
