// The workspace's audit log: appending hash-chained entries and verifying the chain.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Workspace/Workspace.h"

#include "WorkspaceInternal.h"

#include "cake/Support/Sha256.h"

#include <map>

namespace cake::ws {

using detail::Statement;

namespace {

const std::string kGenesis(64, '0');

/// Length-prefixed, so no field's content can imitate a field boundary.
void field(Sha256& h, std::string_view text) {
  h.update(std::to_string(text.size()));
  h.update(":");
  h.update(text);
  h.update("\n");
}

AuditEntry readEntry(const Statement& s) {
  AuditEntry e;
  e.seq = s.integer(0);
  e.time = s.text(1);
  e.actor = s.text(2);
  e.act = s.text(3);
  e.subject = s.text(4);
  e.payload = s.text(5);
  e.createdRevision = s.optionalInteger(6);
  e.prevHash = s.text(7);
  e.hash = s.text(8);
  return e;
}

constexpr std::string_view kAuditColumns =
    "SELECT seq, time, actor, act, subject, payload, created_revision, prev_hash, hash FROM audit";

} // namespace

std::string auditEntryHash(const AuditEntry& e) {
  Sha256 h;
  h.update("cake-audit/1\n");
  field(h, e.prevHash);
  field(h, std::to_string(e.seq));
  field(h, e.time);
  field(h, e.actor);
  field(h, e.act);
  field(h, e.subject);
  field(h, e.payload);
  field(h, e.createdRevision ? std::to_string(*e.createdRevision) : std::string());
  return h.hexDigest();
}

Expected<std::int64_t> Workspace::appendAudit(const std::string& actor, const std::string& act,
                                              const std::string& subject,
                                              const std::string& payload,
                                              std::optional<std::int64_t> createdRevision) {
  if (Status s = detail::checkName(actor, "the actor"); !s)
    return s.error();
  if (Status s = detail::checkName(act, "the audit act"); !s)
    return s.error();
  if (subject.size() > 1000)
    return Error{ErrorCode::InvalidArgument, "the audit subject is longer than 1000 characters"};
  if (Status s = detail::checkJson(payload, "the audit payload"); !s)
    return s.error();
  auto began = beginAct();
  if (!began)
    return began.error();
  auto body = [&]() -> Expected<std::int64_t> {
    AuditEntry e;
    e.seq = 1;
    e.prevHash = kGenesis;
    {
      auto last = m_db->prepare("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1");
      if (!last)
        return last.error();
      auto row = last->step();
      if (!row)
        return row.error();
      if (*row) {
        e.seq = last->integer(0) + 1;
        e.prevHash = last->text(1);
      }
    }
    e.time = utcNow();
    e.actor = actor;
    e.act = act;
    e.subject = subject;
    e.payload = payload;
    e.createdRevision = createdRevision;
    e.hash = auditEntryHash(e);
    auto ins = m_db->prepare("INSERT INTO audit(seq, time, actor, act, subject, payload, "
                             "created_revision, prev_hash, hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
                             "?7, ?8, ?9)");
    if (!ins)
      return ins.error();
    ins->bind(1, e.seq).bind(2, e.time).bind(3, e.actor).bind(4, e.act).bind(5, e.subject);
    ins->bind(6, e.payload).bind(7, e.createdRevision).bind(8, e.prevHash).bind(9, e.hash);
    if (Status s = ins->run(); !s)
      return s.error();
    // The chain's head, kept apart from the log: removing the last entries shows as a mismatch.
    auto meta = m_db->prepare("INSERT INTO meta(key, value) VALUES ('audit_head', ?1) "
                              "ON CONFLICT(key) DO UPDATE SET value = excluded.value");
    if (!meta)
      return meta.error();
    meta->bind(1, std::to_string(e.seq) + ":" + e.hash);
    if (Status s = meta->run(); !s)
      return s.error();
    return e.seq;
  };
  return endAct(*began, body());
}

Expected<std::vector<AuditEntry>> Workspace::auditLog() {
  auto stmt = m_db->prepare(std::string(kAuditColumns) + " ORDER BY seq");
  return detail::readAll<AuditEntry>(stmt, readEntry);
}

Expected<AuditReport> Workspace::verifyAudit() {
  // One read transaction: the log, the head record and the revisions are one snapshot.
  // (Inside a running act the act's transaction is that snapshot already.)
  const bool ownRead = m_actDepth == 0;
  if (ownRead)
    if (Status s = m_db->exec("BEGIN"); !s)
      return s.error();
  struct EndRead {
    detail::Database& db;
    bool own;
    ~EndRead() {
      if (own)
        (void)db.exec("COMMIT");
    }
  } endRead{*m_db, ownRead};

  AuditReport report;
  auto log = auditLog();
  if (!log)
    return log.error();
  report.entries = static_cast<std::int64_t>(log->size());
  auto fail = [&](std::int64_t seq, std::string message) -> Expected<AuditReport> {
    report.ok = false;
    report.firstBadSeq = seq;
    report.message = std::move(message);
    return report;
  };
  std::string prev = kGenesis;
  std::int64_t expected = 1;
  std::map<std::int64_t, std::int64_t> creators; // revision -> seq
  for (const AuditEntry& e : *log) {
    if (e.seq != expected)
      return fail(expected, "entry " + std::to_string(expected) + " is missing (the log jumps to " +
                                std::to_string(e.seq) + ")");
    if (e.prevHash != prev)
      return fail(e.seq,
                  "entry " + std::to_string(e.seq) + " does not link to the previous entry's hash");
    if (auditEntryHash(e) != e.hash)
      return fail(e.seq, "entry " + std::to_string(e.seq) +
                             " does not match its hash (a field was changed)");
    if (e.createdRevision)
      creators[*e.createdRevision] = e.seq;
    prev = e.hash;
    ++expected;
  }
  const std::int64_t after = expected;
  auto headRecord = m_db->prepare("SELECT value FROM meta WHERE key = 'audit_head'");
  if (!headRecord)
    return headRecord.error();
  auto row = headRecord->step();
  if (!row)
    return row.error();
  std::string recorded = *row ? headRecord->text(0) : std::string();
  std::string actual =
      log->empty() ? std::string() : std::to_string(log->back().seq) + ":" + log->back().hash;
  if (recorded != actual)
    return fail(after, "the log ends at '" + actual + "' but the last act recorded '" + recorded +
                           "' (entries were removed from the end)");

  auto revs = revisions();
  if (!revs)
    return revs.error();
  for (const Revision& r : *revs) {
    auto it = creators.find(r.id);
    if (it == creators.end())
      return fail(after, "revision " + std::to_string(r.id) + " has no audit entry");
    auto files = overlayFiles(r.id);
    if (!files)
      return fail(it->second, "revision " + std::to_string(r.id) + ": " + files.error().message);
    for (const WorkspaceFile& f : *files)
      if (sha256Hex(f.content) != f.sha256)
        return fail(it->second, "revision " + std::to_string(r.id) + ": file '" + f.path +
                                    "' does not match its sha256");
    if (detail::overlayHash(*files) != r.contentHash)
      return fail(it->second,
                  "revision " + std::to_string(r.id) + ": its files do not match its content hash");
  }
  if (creators.size() != revs->size())
    return fail(after, "an audit entry names a revision that does not exist");
  report.ok = true;
  report.message = "audit log verified: " + std::to_string(report.entries) + " entries, " +
                   std::to_string(revs->size()) + " revisions";
  return report;
}

} // namespace cake::ws
