// Reviewing a proposal: its status read back from the workspace, the checks an approval must
// pass, and the reviewer's acts, each one transaction (approval installs a new revision).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Proposal/Review.h"

#include "cake/Support/Json.h"
#include "cake/Support/SourceManager.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <set>

namespace cake::proposal {

namespace {

ReviewRefusal refuse(std::string code, std::string message, std::vector<std::string> cases = {}) {
  return ReviewRefusal{std::move(code), std::move(message), std::move(cases)};
}

ws::FileKind fileKind(Kind kind) {
  switch (kind) {
  case Kind::Primitive:
    return ws::FileKind::Primitive;
  case Kind::Rule:
    return ws::FileKind::Rule;
  case Kind::Calibration:
    return ws::FileKind::Calibration;
  case Kind::Target:
    return ws::FileKind::Target;
  }
  return ws::FileKind::Primitive;
}

std::optional<json::Value> parseJson(const std::string& text) {
  SourceManager sources;
  FileId file = sources.addBuffer("<store>", text);
  DiagnosticEngine diags(1);
  return json::parse(sources.text(file), file, diags);
}

/// What a stored evaluation report says: its verdict and every gate case it changed.
struct ReportSummary {
  std::string verdict;
  bool gateRan = false;
  std::vector<std::string> changed; ///< sorted, unique
};

ReportSummary readReport(const std::string& report) {
  ReportSummary out;
  auto v = parseJson(report);
  if (!v || !v->isObject())
    return out;
  if (const json::Value* verdict = v->get("verdict"); verdict && verdict->isString())
    out.verdict = verdict->string;
  std::set<std::string> cases;
  if (const json::Value* gate = v->get("gate"); gate && gate->isObject()) {
    out.gateRan = true;
    for (const char* group : {"newly_accepted", "newly_rejected", "changed_findings",
                              "changed_predictions", "changed_code"})
      if (const json::Value* ids = gate->get(group); ids && ids->isArray())
        for (const json::Value& id : ids->elements)
          if (id.isString())
            cases.insert(id.string);
  }
  out.changed.assign(cases.begin(), cases.end());
  return out;
}

std::string authorName(const std::string& authorJson) {
  auto v = parseJson(authorJson);
  if (!v)
    return {};
  const json::Value* name = v->get("name");
  return name && name->isString() ? name->string : std::string();
}

/// Names compared as people write them: surrounding blanks and letter case do not make another
/// reviewer (an author cannot approve as " Alice").
std::string normalName(std::string_view name) {
  std::size_t b = 0, e = name.size();
  while (b < e && std::isspace(static_cast<unsigned char>(name[b])))
    ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(name[e - 1])))
    --e;
  std::string out(name.substr(b, e - b));
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// Text from proposals and reviewers as a terminal shows it safely: control characters (an escape
/// sequence in an untrusted title, a newline in a comment) become "\xNN".
std::string printable(std::string_view text) {
  std::string out;
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

bool blank(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
}

std::string shortHash(const std::string& hash) {
  return hash.substr(0, 12);
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items)
    out += (out.empty() ? "" : ", ") + s;
  return out;
}

/// The revision an approval of `hash` installed: the audit entry that created it names the
/// proposal in its details.
ws::Expected<std::optional<std::int64_t>> findInstalledRevision(ws::Workspace& workspace,
                                                                const std::string& hash) {
  auto log = workspace.auditLog();
  if (!log)
    return log.error();
  for (auto it = log->rbegin(); it != log->rend(); ++it) {
    if (it->act != "proposal.approve" || !it->createdRevision)
      continue;
    auto payload = parseJson(it->payload);
    const json::Value* details = payload ? payload->get("details") : nullptr;
    const json::Value* p = details ? details->get("proposal") : nullptr;
    if (p && p->isString() && p->string == hash)
      return std::optional<std::int64_t>(*it->createdRevision);
  }
  return std::optional<std::int64_t>();
}

/// The newest other content registered from the same folder (what superseded a stale one).
ws::Expected<std::optional<std::string>>
newestAtPath(ws::Workspace& workspace, const std::string& path, const std::string& except) {
  auto all = workspace.proposals(path);
  if (!all)
    return all.error();
  for (auto it = all->rbegin(); it != all->rend(); ++it)
    if (it->hash != except)
      return std::optional<std::string>(it->hash);
  return std::optional<std::string>();
}

/// Why `status` cannot be approved now by `reviewer` (any reviewer but the author when none is
/// given) with `accept` listed as accepted changes; nullopt when it can.
std::optional<ReviewRefusal> approvalRefusal(const ReviewStatus& s,
                                             const std::optional<std::string>& reviewer,
                                             const std::vector<std::string>& accept) {
  const ws::ProposalRecord& r = s.record;
  if (!s.registered) {
    if (s.registeredAtPath)
      return refuse("prop-stale-content",
                    "the folder's content (" + shortHash(r.hash) + ") is not the registered one (" +
                        shortHash(*s.registeredAtPath) +
                        "): its evaluations and votes are of the old content; evaluate it again");
    return refuse("prop-not-registered", "proposal " + shortHash(r.hash) +
                                             " is not registered in this workspace; evaluate "
                                             "it with `cake proposal evaluate P --workspace WS`");
  }
  if (r.state == ws::ProposalState::Approved || r.state == ws::ProposalState::Rejected)
    return refuse("prop-already-decided", "proposal " + shortHash(r.hash) + " is already " +
                                              std::string(ws::toString(r.state)));
  if (r.state == ws::ProposalState::Stale)
    return refuse("prop-stale-content",
                  "proposal " + shortHash(r.hash) + " is stale: newer content at '" +
                      printable(r.path) + "'" +
                      (s.supersededBy ? " (" + shortHash(*s.supersededBy) + ")" : "") +
                      " superseded it; review that one");
  if (reviewer && normalName(*reviewer) == normalName(authorName(r.author)))
    return refuse("prop-self-approval",
                  "'" + *reviewer + "' is the proposal's author; another reviewer must approve it");
  if (!s.latestEvaluation)
    return refuse("prop-not-evaluated",
                  "proposal " + shortHash(r.hash) +
                      " has no evaluation; run `cake proposal evaluate P --workspace WS`");
  if (s.latestEvaluation->revision != s.head)
    return refuse("prop-stale-evaluation", "the latest evaluation ran on revision " +
                                               std::to_string(s.latestEvaluation->revision) +
                                               ", the head is revision " + std::to_string(s.head) +
                                               "; evaluate it again");
  // "regressions" is approvable only through explicitly accepted changed cases; a regression
  // the report does not tie to a case (more manifest mismatches alone) is not.
  bool clean = s.verdict == "clean" || (s.verdict == "regressions" && !s.changedCases.empty());
  if (!clean)
    return refuse("prop-evaluation-not-clean",
                  "the latest evaluation's verdict is '" +
                      (s.verdict.empty() ? std::string("unreadable") : s.verdict) +
                      "'; only a valid proposal whose examples pass can be approved");
  // Without the corpus gate nobody saw what the proposal changes in accepted kernels.
  if (!s.gateRan)
    return refuse("prop-evaluation-not-clean",
                  "the latest evaluation ran without the corpus gate (--no-gate); evaluate it "
                  "with the gate");
  std::vector<std::string> unknown, unaccepted;
  for (const std::string& c : accept)
    if (!std::binary_search(s.changedCases.begin(), s.changedCases.end(), c))
      unknown.push_back(c);
  std::set<std::string> accepted(accept.begin(), accept.end());
  for (const std::string& c : s.changedCases)
    if (!accepted.count(c))
      unaccepted.push_back(c);
  if (!unknown.empty())
    return refuse("prop-unknown-accept",
                  "accepted case(s) the evaluation did not change: " + joined(unknown), unknown);
  if (!unaccepted.empty())
    return refuse("prop-unaccepted-change",
                  "the gate shows changed case(s) not accepted with --accept-change: " +
                      joined(unaccepted),
                  unaccepted);
  return std::nullopt;
}

/// The status of a registered record (the store's reads; no checks of a reviewer).
ws::Expected<ReviewStatus> statusOf(ws::Workspace& workspace, ws::ProposalRecord record) {
  ReviewStatus s;
  s.record = std::move(record);
  auto head = workspace.head();
  if (!head)
    return head.error();
  s.head = *head;
  auto evaluations = workspace.evaluations(s.record.hash);
  if (!evaluations)
    return evaluations.error();
  if (!evaluations->empty()) {
    s.latestEvaluation = evaluations->back();
    ReportSummary summary = readReport(s.latestEvaluation->report);
    s.verdict = summary.verdict;
    s.gateRan = summary.gateRan;
    s.changedCases = std::move(summary.changed);
  }
  auto votes = workspace.votes(s.record.hash);
  if (!votes)
    return votes.error();
  s.votes = std::move(*votes);
  if (s.record.state == ws::ProposalState::Stale) {
    auto newer = newestAtPath(workspace, s.record.path, s.record.hash);
    if (!newer)
      return newer.error();
    s.supersededBy = *newer;
  }
  if (s.record.state == ws::ProposalState::Approved) {
    auto installed = findInstalledRevision(workspace, s.record.hash);
    if (!installed)
      return installed.error();
    s.installedRevision = *installed;
  }
  s.approvalBlocked = approvalRefusal(s, std::nullopt, {});
  return s;
}

/// {code, message, cases}.
void writeRefusal(json::Writer& w, const ReviewRefusal& r) {
  w.beginObject();
  w.key("code").value(r.code);
  w.key("message").value(r.message);
  w.key("cases").beginArray();
  for (const std::string& c : r.cases)
    w.value(c);
  w.endArray();
  w.endObject();
}

/// A refusal inside the act's transaction: rolls it back (nothing was written), and the caller
/// reports the refusal rather than this error.
ws::Error refusedSentinel() {
  return ws::Error{ws::ErrorCode::NoChange, "refused"};
}

} // namespace

std::string proposalPath(const Proposal& proposal) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::path(proposal.dir), ec);
  if (ec)
    p = fs::absolute(fs::path(proposal.dir), ec).lexically_normal();
  std::string out = p.string();
  while (out.size() > 1 && out.back() == '/')
    out.pop_back();
  return out.empty() ? proposal.dir : out;
}

ws::ProposalRecord proposalRecord(const Proposal& proposal) {
  ws::ProposalRecord rec;
  rec.hash = proposal.hash.empty() ? proposalHash(proposal) : proposal.hash;
  rec.path = proposalPath(proposal);
  rec.kind = fileKind(proposal.kind);
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

ws::Expected<ReviewStatus> reviewStatus(ws::Workspace& workspace, const std::string& hash) {
  auto record = workspace.proposal(hash);
  if (!record)
    return record.error();
  if (!*record)
    return ws::Error{ws::ErrorCode::UnknownProposal, "no proposal " + hash};
  return statusOf(workspace, std::move(**record));
}

ws::Expected<ReviewStatus> reviewStatus(ws::Workspace& workspace, const Proposal& proposal) {
  ws::ProposalRecord rec = proposalRecord(proposal);
  auto record = workspace.proposal(rec.hash);
  if (!record)
    return record.error();
  if (*record)
    return statusOf(workspace, std::move(**record));
  // Content the store does not know: stale when the folder was registered with other content.
  ReviewStatus s;
  s.registered = false;
  s.record = std::move(rec);
  auto head = workspace.head();
  if (!head)
    return head.error();
  s.head = *head;
  auto earlier = newestAtPath(workspace, s.record.path, s.record.hash);
  if (!earlier)
    return earlier.error();
  s.registeredAtPath = *earlier;
  s.record.state = earlier->has_value() ? ws::ProposalState::Stale : ws::ProposalState::New;
  s.approvalBlocked = approvalRefusal(s, std::nullopt, {});
  return s;
}

std::string toJson(const ReviewStatus& s) {
  json::Writer w;
  w.beginObject();
  w.key("proposal_hash").value(s.record.hash);
  w.key("path").value(s.record.path);
  w.key("kind").value(ws::toString(s.record.kind));
  w.key("title").value(s.record.title);
  w.key("author");
  if (auto author = parseJson(s.record.author))
    w.value(*author);
  else
    w.null();
  w.key("registered").value(s.registered);
  w.key("state").value(ws::toString(s.record.state));
  w.key("superseded_by");
  s.supersededBy ? w.value(*s.supersededBy) : w.null();
  w.key("registered_at_path");
  s.registeredAtPath ? w.value(*s.registeredAtPath) : w.null();
  w.key("head").value(s.head);
  w.key("evaluation");
  if (s.latestEvaluation) {
    w.beginObject();
    w.key("id").value(s.latestEvaluation->id);
    w.key("revision").value(s.latestEvaluation->revision);
    w.key("verdict").value(s.verdict);
    w.key("created_at").value(s.latestEvaluation->createdAt);
    w.endObject();
  } else {
    w.null();
  }
  w.key("changed_cases").beginArray();
  for (const std::string& c : s.changedCases)
    w.value(c);
  w.endArray();
  w.key("votes").beginArray();
  for (const ws::Vote& v : s.votes) {
    w.beginObject();
    w.key("reviewer").value(v.reviewer);
    w.key("decision").value(ws::toString(v.decision));
    w.key("comment").value(v.comment);
    w.key("created_at").value(v.createdAt);
    w.endObject();
  }
  w.endArray();
  w.key("can_approve").value(!s.approvalBlocked.has_value());
  w.key("blocked");
  if (s.approvalBlocked)
    writeRefusal(w, *s.approvalBlocked);
  else
    w.null();
  w.key("installed_revision");
  s.installedRevision ? w.value(*s.installedRevision) : w.null();
  w.endObject();
  std::string out = w.take();
  out += '\n';
  return out;
}

std::string toText(const ReviewStatus& s) {
  std::string out = "proposal " + s.record.hash + ": " + std::string(ws::toString(s.record.state));
  if (!s.registered)
    out += " (not registered)";
  out += "\n  " + std::string(ws::toString(s.record.kind)) + " \"" + printable(s.record.title) +
         "\" by " + printable(authorName(s.record.author)) + ", from " + printable(s.record.path) +
         "\n";
  if (s.supersededBy)
    out += "  superseded by " + *s.supersededBy + "\n";
  if (s.registeredAtPath)
    out += "  registered content at this path: " + *s.registeredAtPath + "\n";
  out += "  head: revision " + std::to_string(s.head) + "\n";
  if (s.latestEvaluation)
    out += "  evaluation " + std::to_string(s.latestEvaluation->id) + " on revision " +
           std::to_string(s.latestEvaluation->revision) + ": " + s.verdict + " (" +
           s.latestEvaluation->createdAt + ")\n";
  else
    out += "  evaluation: none\n";
  out += "  changed cases:" + (s.changedCases.empty() ? std::string(" none") : "");
  for (const std::string& c : s.changedCases)
    out += " " + c;
  out += "\n";
  for (const ws::Vote& v : s.votes)
    out += "  " + v.createdAt + " " + v.reviewer + " " + std::string(ws::toString(v.decision)) +
           ": " + printable(v.comment) + "\n";
  if (s.approvalBlocked)
    out += "  approval blocked: [" + s.approvalBlocked->code + "] " + s.approvalBlocked->message +
           "\n";
  else if (s.record.state != ws::ProposalState::Approved)
    out += "  approval possible\n";
  if (s.installedRevision)
    out += "  installed as revision " + std::to_string(*s.installedRevision) + "\n";
  return out;
}

std::string toJson(const ReviewRefusal& refusal) {
  json::Writer w;
  w.beginObject().key("refused");
  writeRefusal(w, refusal);
  w.endObject();
  std::string out = w.take();
  out += '\n';
  return out;
}

std::vector<ws::WorkspaceFile> approvedOverlay(const std::vector<ws::WorkspaceFile>& head,
                                               const Proposal& proposal) {
  namespace fs = std::filesystem;
  std::vector<ws::WorkspaceFile> out = head;
  // As the evaluation laid the proposal over the head (applyOverlay): a file with the same file
  // name of the same kind is the same definition and is replaced, wherever it lies.
  for (const DefinitionFile& f : proposal.files) {
    ws::FileKind kind = fileKind(f.kind);
    std::string name = fs::path(f.name).filename().string();
    std::erase_if(out, [&](const ws::WorkspaceFile& h) {
      return h.kind == kind && fs::path(h.path).filename().string() == name;
    });
    out.push_back({kind, f.name, f.content, {}});
  }
  std::sort(out.begin(), out.end(), [](const ws::WorkspaceFile& a, const ws::WorkspaceFile& b) {
    return std::pair(ws::toString(a.kind), a.path) < std::pair(ws::toString(b.kind), b.path);
  });
  return out;
}

ReviewResult review(ws::Workspace& workspace, const Proposal& proposal,
                    const ReviewRequest& request) {
  ReviewResult result;
  if (blank(request.reviewer)) {
    result.refusal = refuse("prop-empty-reviewer", "a review needs the reviewer's name");
    return result;
  }
  if (blank(request.comment)) {
    result.refusal = refuse("prop-empty-comment", "a review needs a comment");
    return result;
  }
  auto step = [&](std::string_view name) {
    if (request.afterStep)
      request.afterStep(name);
  };
  ReviewOutcome outcome;
  std::optional<ReviewRefusal> refusal;
  // One act: the checks read what the writes build on, under the write lock (BEGIN IMMEDIATE),
  // so two reviewers cannot both decide the same proposal.
  ws::Status st = workspace.atomically([&]() -> ws::Status {
    auto status = reviewStatus(workspace, proposal);
    if (!status)
      return status.error();
    const std::string& hash = status->record.hash;
    ws::ProposalState state = status->record.state;
    if (!status->registered) {
      refusal = approvalRefusal(*status, std::nullopt, {});
      return refusedSentinel();
    }
    switch (request.decision) {
    case ws::Decision::Approve: {
      refusal = approvalRefusal(*status, request.reviewer, request.acceptChanges);
      if (refusal)
        return refusedSentinel();
      auto headFiles = workspace.overlayFiles(status->head);
      if (!headFiles)
        return headFiles.error();
      json::Writer details(false);
      details.beginObject().key("proposal").value(hash).key("title").value(status->record.title);
      details.key("reviewer").value(request.reviewer).key("comment").value(request.comment);
      details.key("evaluation").value(status->latestEvaluation->id);
      details.key("accepted_changes").beginArray();
      for (const std::string& c : status->changedCases)
        details.value(c);
      details.endArray().endObject();
      auto rev = workspace.installRevision(approvedOverlay(*headFiles, proposal), request.reviewer,
                                           "approve proposal " + shortHash(hash) + ": " +
                                               printable(status->record.title),
                                           "proposal.approve", details.str());
      if (!rev)
        return rev.error();
      outcome.installedRevision = *rev;
      step("revision");
      auto vote = workspace.addVote(hash, request.reviewer, request.decision, request.comment);
      if (!vote)
        return vote.error();
      outcome.voteId = *vote;
      step("vote");
      for (const std::string& c : status->changedCases) {
        auto acc = workspace.acceptGateCase(c, *rev, request.reviewer, request.comment, hash);
        if (!acc)
          return acc.error();
        step("accept");
      }
      state = ws::ProposalState::Approved;
      break;
    }
    case ws::Decision::Reject:
    case ws::Decision::RequestChanges:
    case ws::Decision::Comment: {
      if (request.decision != ws::Decision::Comment &&
          (state == ws::ProposalState::Approved || state == ws::ProposalState::Rejected)) {
        refusal = refuse("prop-already-decided", "proposal " + shortHash(hash) + " is already " +
                                                     std::string(ws::toString(state)));
        return refusedSentinel();
      }
      if (state == ws::ProposalState::Stale) {
        refusal = approvalRefusal(*status, std::nullopt, {});
        return refusedSentinel();
      }
      auto vote = workspace.addVote(hash, request.reviewer, request.decision, request.comment);
      if (!vote)
        return vote.error();
      outcome.voteId = *vote;
      step("vote");
      if (request.decision == ws::Decision::Reject)
        state = ws::ProposalState::Rejected;
      else if (request.decision == ws::Decision::RequestChanges)
        state = ws::ProposalState::ChangesRequested;
      break;
    }
    }
    if (state != status->record.state) {
      if (ws::Status s = workspace.setProposalState(hash, state, request.reviewer, request.comment);
          !s)
        return s;
      step("state");
    }
    outcome.state = state;
    return ws::Status::success();
  });
  if (refusal)
    result.refusal = std::move(refusal);
  else if (!st)
    result.error = st.error();
  else
    result.outcome = outcome;
  return result;
}

} // namespace cake::proposal
