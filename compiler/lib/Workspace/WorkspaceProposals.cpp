// The workspace's review records: proposals (by content hash), evaluations, votes and gate
// acceptances; each write is one act with its audit entry.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Workspace/Workspace.h"

#include "WorkspaceInternal.h"

#include "cake/Support/Json.h"
#include "cake/Support/Sha256.h"

namespace cake::ws {

using detail::Statement;

namespace {

Error invalid(std::string message) {
  return Error{ErrorCode::InvalidArgument, std::move(message)};
}

/// A content hash: 64 lower-case hex digits.
Status checkHash(const std::string& hash) {
  bool ok = hash.size() == 64;
  for (char c : hash)
    ok = ok && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
  return ok ? Status::success()
            : Status(invalid("a proposal hash is 64 lower-case hex digits, not '" +
                             hash.substr(0, 80) + "'"));
}

ProposalRecord readProposal(const Statement& s) {
  ProposalRecord p;
  p.hash = s.text(0);
  p.path = s.text(1);
  p.kind = fileKindFromString(s.text(2)).value_or(FileKind::Primitive);
  p.title = s.text(3);
  p.author = s.text(4);
  p.state = proposalStateFromString(s.text(5)).value_or(ProposalState::New);
  p.createdAt = s.text(6);
  p.updatedAt = s.text(7);
  return p;
}

constexpr std::string_view kProposalColumns =
    "SELECT hash, path, kind, title, author, state, created_at, updated_at FROM proposals";

} // namespace

std::string_view toString(ProposalState state) {
  switch (state) {
  case ProposalState::New:
    return "new";
  case ProposalState::Evaluated:
    return "evaluated";
  case ProposalState::ChangesRequested:
    return "changes-requested";
  case ProposalState::Approved:
    return "approved";
  case ProposalState::Rejected:
    return "rejected";
  case ProposalState::Stale:
    return "stale";
  }
  return "new";
}

std::optional<ProposalState> proposalStateFromString(std::string_view text) {
  for (ProposalState s :
       {ProposalState::New, ProposalState::Evaluated, ProposalState::ChangesRequested,
        ProposalState::Approved, ProposalState::Rejected, ProposalState::Stale})
    if (toString(s) == text)
      return s;
  return std::nullopt;
}

std::string_view toString(Decision decision) {
  switch (decision) {
  case Decision::Approve:
    return "approve";
  case Decision::Reject:
    return "reject";
  case Decision::RequestChanges:
    return "request-changes";
  case Decision::Comment:
    return "comment";
  }
  return "comment";
}

std::optional<Decision> decisionFromString(std::string_view text) {
  for (Decision d :
       {Decision::Approve, Decision::Reject, Decision::RequestChanges, Decision::Comment})
    if (toString(d) == text)
      return d;
  return std::nullopt;
}

Status Workspace::requireProposal(const std::string& hash) {
  auto known = proposal(hash);
  if (!known)
    return known.error();
  if (!*known)
    return Error{ErrorCode::UnknownProposal, "no proposal " + hash};
  return Status::success();
}

Expected<std::int64_t>
Workspace::insertAndAudit(std::string_view sql, const std::function<void(Statement&)>& bind,
                          const std::string& actor, const std::string& act,
                          const std::string& subject,
                          const std::function<std::string(std::int64_t)>& payload) {
  auto ins = m_db->prepare(std::string(sql));
  if (!ins)
    return ins.error();
  bind(*ins);
  if (Status s = ins->run(); !s)
    return s.error();
  auto id = m_db->queryInteger("SELECT last_insert_rowid()");
  if (!id)
    return id.error();
  if (auto seq = appendAudit(actor, act, subject, payload(*id)); !seq)
    return seq.error();
  return *id;
}

Expected<ProposalRecord> Workspace::registerProposal(const ProposalRecord& p,
                                                     const std::string& actor) {
  if (Status s = checkHash(p.hash); !s)
    return s.error();
  if (Status s = detail::checkName(actor, "the actor"); !s)
    return s.error();
  if (p.path.empty() || p.path.size() > 4096)
    return invalid("a proposal path has 1 to 4096 characters");
  if (p.title.size() > 1000)
    return invalid("a proposal title has at most 1000 characters");
  if (Status s = detail::checkJson(p.author, "the proposal author", 64u << 10); !s)
    return s.error();
  auto began = beginAct();
  if (!began)
    return began.error();
  auto body = [&]() -> Expected<ProposalRecord> {
    auto known = proposal(p.hash);
    if (!known)
      return known.error();
    if (*known)
      return **known;
    std::string now = utcNow();
    // Earlier contents at this path lose their evaluations' and votes' force.
    auto stale = m_db->prepare("UPDATE proposals SET state = 'stale', updated_at = ?2 "
                               "WHERE path = ?1 AND state NOT IN ('approved', 'rejected')");
    if (!stale)
      return stale.error();
    stale->bind(1, p.path).bind(2, now);
    if (Status s = stale->run(); !s)
      return s.error();
    auto ins = m_db->prepare("INSERT INTO proposals(hash, path, kind, title, author, state, "
                             "created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, 'new', ?6, ?6)");
    if (!ins)
      return ins.error();
    ins->bind(1, p.hash).bind(2, p.path).bind(3, toString(p.kind)).bind(4, p.title);
    ins->bind(5, p.author).bind(6, now);
    if (Status s = ins->run(); !s)
      return s.error();
    json::Writer payload(false);
    payload.beginObject().key("path").value(p.path).key("kind").value(toString(p.kind));
    payload.key("title").value(p.title).key("author").raw(p.author).endObject();
    if (auto seq = appendAudit(actor, "proposal.submit", p.hash, payload.str()); !seq)
      return seq.error();
    auto stored = proposal(p.hash);
    if (!stored)
      return stored.error();
    return **stored;
  };
  return endAct(*began, body());
}

Expected<std::optional<ProposalRecord>> Workspace::proposal(const std::string& hash) {
  auto stmt = m_db->prepare(std::string(kProposalColumns) + " WHERE hash = ?1");
  if (!stmt)
    return stmt.error();
  stmt->bind(1, hash);
  auto row = stmt->step();
  if (!row)
    return row.error();
  if (!*row)
    return std::optional<ProposalRecord>();
  return std::optional<ProposalRecord>(readProposal(*stmt));
}

Expected<std::vector<ProposalRecord>> Workspace::proposals(const std::string& path) {
  auto stmt = m_db->prepare(std::string(kProposalColumns) +
                            (path.empty() ? " ORDER BY rowid" : " WHERE path = ?1 ORDER BY rowid"));
  if (stmt && !path.empty())
    stmt->bind(1, path);
  return detail::readAll<ProposalRecord>(stmt, readProposal);
}

Status Workspace::setProposalState(const std::string& hash, ProposalState state,
                                   const std::string& actor, const std::string& comment) {
  if (Status s = detail::checkName(actor, "the actor"); !s)
    return s;
  return atomically([&]() -> Status {
    auto known = proposal(hash);
    if (!known)
      return known.error();
    if (!*known)
      return Error{ErrorCode::UnknownProposal, "no proposal " + hash};
    auto upd = m_db->prepare("UPDATE proposals SET state = ?2, updated_at = ?3 WHERE hash = ?1");
    if (!upd)
      return upd.error();
    upd->bind(1, hash).bind(2, toString(state)).bind(3, utcNow());
    if (Status s = upd->run(); !s)
      return s;
    json::Writer payload(false);
    payload.beginObject().key("from").value(toString((*known)->state));
    payload.key("to").value(toString(state)).key("comment").value(comment).endObject();
    if (auto seq = appendAudit(actor, "proposal.state", hash, payload.str()); !seq)
      return seq.error();
    return Status::success();
  });
}

Expected<std::int64_t> Workspace::addEvaluation(const std::string& hash, std::int64_t revision,
                                                const std::string& report,
                                                const std::string& actor) {
  if (Status s = detail::checkName(actor, "the actor"); !s)
    return s.error();
  if (Status s = detail::checkJson(report, "the evaluation report"); !s)
    return s.error();
  auto began = beginAct();
  if (!began)
    return began.error();
  auto body = [&]() -> Expected<std::int64_t> {
    if (Status s = requireProposal(hash); !s)
      return s.error();
    if (auto r = this->revision(revision); !r)
      return r.error();
    std::string now = utcNow();
    // An evaluation of new content makes it "evaluated"; a decided or stale one keeps its state,
    // and a request for changes stands (the content it was about is the same).
    auto upd = m_db->prepare("UPDATE proposals SET state = 'evaluated', updated_at = ?2 "
                             "WHERE hash = ?1 AND state = 'new'");
    if (!upd)
      return upd.error();
    upd->bind(1, hash).bind(2, now);
    if (Status s = upd->run(); !s)
      return s.error();
    return insertAndAudit(
        "INSERT INTO evaluations(proposal, revision, report, created_at) VALUES (?1, ?2, ?3, ?4)",
        [&](Statement& ins) { ins.bind(1, hash).bind(2, revision).bind(3, report).bind(4, now); },
        actor, "proposal.evaluate", hash,
        [&](std::int64_t id) {
          json::Writer payload(false);
          payload.beginObject().key("evaluation").value(id).key("revision").value(revision);
          payload.key("report_sha256").value(sha256Hex(report)).endObject();
          return payload.take();
        });
  };
  return endAct(*began, body());
}

Expected<std::vector<Evaluation>> Workspace::evaluations(const std::string& hash) {
  auto stmt = m_db->prepare("SELECT id, proposal, revision, report, created_at FROM evaluations "
                            "WHERE proposal = ?1 ORDER BY id");
  if (stmt)
    stmt->bind(1, hash);
  return detail::readAll<Evaluation>(stmt, [](const Statement& s) {
    return Evaluation{s.integer(0), s.text(1), s.integer(2), s.text(3), s.text(4)};
  });
}

Expected<std::int64_t> Workspace::addVote(const std::string& hash, const std::string& reviewer,
                                          Decision decision, const std::string& comment) {
  if (Status s = detail::checkName(reviewer, "the reviewer"); !s)
    return s.error();
  if (comment.size() > 100000)
    return invalid("a comment has at most 100000 characters");
  auto began = beginAct();
  if (!began)
    return began.error();
  auto body = [&]() -> Expected<std::int64_t> {
    if (Status s = requireProposal(hash); !s)
      return s.error();
    return insertAndAudit(
        "INSERT INTO votes(proposal, reviewer, decision, comment, created_at) "
        "VALUES (?1, ?2, ?3, ?4, ?5)",
        [&](Statement& ins) {
          ins.bind(1, hash).bind(2, reviewer).bind(3, toString(decision)).bind(4, comment);
          ins.bind(5, utcNow());
        },
        reviewer, "proposal." + std::string(toString(decision)), hash,
        [&](std::int64_t id) {
          json::Writer payload(false);
          payload.beginObject().key("vote").value(id).key("comment").value(comment).endObject();
          return payload.take();
        });
  };
  return endAct(*began, body());
}

Expected<std::vector<Vote>> Workspace::votes(const std::string& hash) {
  auto stmt = m_db->prepare("SELECT id, proposal, reviewer, decision, comment, created_at "
                            "FROM votes WHERE proposal = ?1 ORDER BY id");
  if (stmt)
    stmt->bind(1, hash);
  return detail::readAll<Vote>(stmt, [](const Statement& s) {
    return Vote{s.integer(0), s.text(1),
                s.text(2),    decisionFromString(s.text(3)).value_or(Decision::Comment),
                s.text(4),    s.text(5)};
  });
}

Expected<std::int64_t> Workspace::acceptGateCase(const std::string& caseId, std::int64_t revision,
                                                 const std::string& actor,
                                                 const std::string& comment,
                                                 const std::optional<std::string>& proposal) {
  if (Status s = detail::checkName(actor, "the actor"); !s)
    return s.error();
  if (Status s = detail::checkName(caseId, "the case id"); !s)
    return s.error();
  auto began = beginAct();
  if (!began)
    return began.error();
  auto body = [&]() -> Expected<std::int64_t> {
    if (auto r = this->revision(revision); !r)
      return r.error();
    if (proposal)
      if (Status s = requireProposal(*proposal); !s)
        return s.error();
    return insertAndAudit(
        "INSERT INTO gate_acceptances(case_id, revision, actor, comment, proposal, created_at) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        [&](Statement& ins) {
          ins.bind(1, caseId).bind(2, revision).bind(3, actor).bind(4, comment).bind(5, proposal);
          ins.bind(6, utcNow());
        },
        actor, "gate.accept", caseId,
        [&](std::int64_t id) {
          json::Writer payload(false);
          payload.beginObject().key("acceptance").value(id).key("revision").value(revision);
          payload.key("comment").value(comment).key("proposal");
          if (proposal)
            payload.value(*proposal);
          else
            payload.null();
          payload.endObject();
          return payload.take();
        });
  };
  return endAct(*began, body());
}

Expected<std::vector<GateAcceptance>>
Workspace::gateAcceptances(std::optional<std::int64_t> revision) {
  auto stmt = m_db->prepare("SELECT id, case_id, revision, actor, comment, proposal, created_at "
                            "FROM gate_acceptances" +
                            std::string(revision ? " WHERE revision = ?1" : "") + " ORDER BY id");
  if (stmt && revision)
    stmt->bind(1, *revision);
  return detail::readAll<GateAcceptance>(stmt, [](const Statement& s) {
    return GateAcceptance{
        s.integer(0), s.text(1), s.integer(2),
        s.text(3),    s.text(4), s.isNull(5) ? std::nullopt : std::optional<std::string>(s.text(5)),
        s.text(6)};
  });
}

} // namespace cake::ws
