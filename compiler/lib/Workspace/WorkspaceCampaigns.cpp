// The workspace's campaigns and candidates: registration, one act per imported batch (with its
// audit entry and the kernels in the content-addressed file store), and read-back.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Workspace/Workspace.h"

#include "WorkspaceInternal.h"

#include "cake/Support/Json.h"
#include "cake/Support/Sha256.h"
#include "cake/Support/SourceManager.h"

#include <set>

namespace cake::ws {

using detail::Statement;

namespace {

Error invalid(std::string message) {
  return Error{ErrorCode::InvalidArgument, std::move(message)};
}

std::string stringArray(const std::vector<std::string>& items) {
  json::Writer w(false);
  w.beginArray();
  for (const std::string& s : items)
    w.value(s);
  w.endArray();
  return w.take();
}

/// The strings of a JSON array written by stringArray (the store's own column: never foreign).
std::vector<std::string> readArray(const std::string& text) {
  SourceManager sources;
  FileId f = sources.addBuffer("column", text);
  DiagnosticEngine diags(1);
  std::vector<std::string> out;
  if (auto v = json::parse(sources.text(f), f, diags); v && v->isArray())
    for (const json::Value& e : v->elements)
      if (e.isString())
        out.push_back(e.string);
  return out;
}

constexpr std::string_view kCandidateColumns =
    "SELECT campaign, id, seq, line, entry_sha256, parents, kernel, kernel_sha256, author, arm, "
    "budget, timestamp, rationale, measurements, accepted, codes, predicted_us, bottleneck, "
    "lowering_digest, lowered_ok, measured_us, imported_at FROM candidates";

CandidateRecord readCandidate(const Statement& s) {
  CandidateRecord c;
  c.campaign = s.text(0);
  c.id = s.text(1);
  c.seq = s.integer(2);
  c.line = s.integer(3);
  c.entrySha256 = s.text(4);
  c.parents = readArray(s.text(5));
  c.kernel = s.text(6);
  c.kernelSha256 = s.text(7);
  c.author = s.text(8);
  c.arm = s.text(9);
  c.budget = s.text(10);
  c.timestamp = s.text(11);
  c.rationale = s.text(12);
  c.measurements = s.text(13);
  c.accepted = s.integer(14) != 0;
  c.codes = readArray(s.text(15));
  c.predictedUs = s.optionalReal(16);
  c.bottleneck = s.text(17);
  c.loweringDigest = s.text(18);
  c.loweredOk = s.integer(19) != 0;
  c.measuredUs = s.optionalReal(20);
  c.importedAt = s.text(21);
  return c;
}

CampaignRecord readCampaign(const Statement& s) {
  return {s.text(0), s.text(1), s.text(2), s.text(3), s.text(4)};
}

} // namespace

Status Workspace::registerCampaign(const CampaignRecord& c, const std::string& actor) {
  if (Status s = detail::checkName(c.name, "the campaign name"); !s)
    return s;
  if (Status s = detail::checkName(actor, "the actor"); !s)
    return s;
  if (c.folder.empty() || c.folder.size() > 4096)
    return invalid("a campaign folder has 1 to 4096 characters");
  if (Status s = detail::checkJson(c.spec, "campaign.json", 1u << 20); !s)
    return s;
  auto began = beginAct();
  if (!began)
    return began.error();
  auto body = [&]() -> Status {
    auto known = campaign(c.name);
    if (!known)
      return known.error();
    if (*known && (*known)->folder == c.folder && (*known)->spec == c.spec)
      return Status::success();
    std::string now = utcNow();
    auto stmt = m_db->prepare(
        "INSERT INTO campaigns(name, folder, spec, created_at, updated_at) "
        "VALUES (?1, ?2, ?3, ?4, ?4) ON CONFLICT(name) DO UPDATE SET folder = ?2, spec = ?3, "
        "updated_at = ?4");
    if (!stmt)
      return stmt.error();
    if (Status s = stmt->bind(1, c.name).bind(2, c.folder).bind(3, c.spec).bind(4, now).run(); !s)
      return s;
    json::Writer w(false);
    w.beginObject().key("folder").value(c.folder).key("spec_sha256").value(sha256Hex(c.spec));
    w.endObject();
    auto seq = appendAudit(actor, "campaign.register", c.name, w.take());
    return seq ? Status::success() : Status(seq.error());
  };
  return endAct(*began, body());
}

Expected<std::vector<CampaignRecord>> Workspace::campaigns() {
  auto stmt = m_db->prepare(
      "SELECT name, folder, spec, created_at, updated_at FROM campaigns ORDER BY name");
  return detail::readAll<CampaignRecord>(stmt, readCampaign);
}

Expected<std::optional<CampaignRecord>> Workspace::campaign(const std::string& name) {
  auto stmt = m_db->prepare(
      "SELECT name, folder, spec, created_at, updated_at FROM campaigns WHERE name = ?1");
  if (!stmt)
    return stmt.error();
  stmt->bind(1, name);
  auto row = stmt->step();
  if (!row)
    return row.error();
  if (!*row)
    return std::optional<CampaignRecord>();
  return std::optional<CampaignRecord>(readCampaign(*stmt));
}

Expected<std::int64_t> Workspace::addCandidates(const std::string& campaignName,
                                                const std::vector<CandidateRecord>& batch,
                                                const std::string& actor) {
  if (Status s = detail::checkName(actor, "the actor"); !s)
    return s.error();
  for (const CandidateRecord& c : batch) {
    if (Status s = detail::checkName(c.id, "a candidate id"); !s)
      return s.error();
    for (const std::string* j : {&c.author, &c.budget, &c.measurements})
      if (Status s = detail::checkJson(*j, "candidate '" + c.id + "' JSON field", 1u << 20); !s)
        return s.error();
  }
  auto began = beginAct();
  if (!began)
    return began.error();
  auto body = [&]() -> Expected<std::int64_t> {
    auto known = campaign(campaignName);
    if (!known)
      return known.error();
    if (!*known)
      return invalid("no campaign named '" + campaignName + "'");
    auto next = m_db->prepare("SELECT coalesce(max(seq), 0) + 1 FROM candidates "
                              "WHERE campaign = ?1");
    if (!next)
      return next.error();
    next->bind(1, campaignName);
    auto row = next->step();
    if (!row)
      return row.error();
    std::int64_t seq = next->integer(0);
    auto exists = m_db->prepare("SELECT 1 FROM candidates WHERE campaign = ?1 AND id = ?2");
    auto blob = m_db->prepare("INSERT OR IGNORE INTO blobs(sha256, content) VALUES (?1, ?2)");
    auto insert = m_db->prepare(
        "INSERT INTO candidates(campaign, id, seq, line, entry_sha256, parents, kernel, "
        "kernel_sha256, author, arm, budget, timestamp, rationale, measurements, accepted, codes, "
        "predicted_us, bottleneck, lowering_digest, lowered_ok, measured_us, imported_at) VALUES "
        "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, "
        "?20, ?21, ?22)");
    for (auto* st : {&exists, &blob, &insert})
      if (!*st)
        return st->error();
    std::string now = utcNow();
    std::set<std::string> inBatch;
    auto isKnown = [&](const std::string& id) -> Expected<bool> {
      if (inBatch.count(id))
        return true;
      exists->reset();
      exists->bind(1, campaignName).bind(2, id);
      return exists->step();
    };
    std::vector<std::string> ids;
    for (const CandidateRecord& c : batch) {
      auto dup = isKnown(c.id);
      if (!dup)
        return dup.error();
      if (*dup)
        return invalid("candidate '" + c.id + "' is already in campaign '" + campaignName + "'");
      for (const std::string& p : c.parents) {
        auto k = isKnown(p);
        if (!k)
          return k.error();
        if (!*k)
          return invalid("candidate '" + c.id + "' names unknown parent '" + p + "'");
      }
      std::string kernelSha = sha256Hex(c.kernelText);
      blob->reset();
      if (Status s = blob->bind(1, kernelSha).bind(2, c.kernelText).run(); !s)
        return s.error();
      insert->reset();
      insert->bind(1, campaignName).bind(2, c.id).bind(3, seq++).bind(4, c.line);
      insert->bind(5, c.entrySha256).bind(6, stringArray(c.parents)).bind(7, c.kernel);
      insert->bind(8, kernelSha).bind(9, c.author).bind(10, c.arm).bind(11, c.budget);
      insert->bind(12, c.timestamp).bind(13, c.rationale).bind(14, c.measurements);
      insert->bind(15, std::int64_t(c.accepted)).bind(16, stringArray(c.codes));
      insert->bind(17, c.predictedUs).bind(18, c.bottleneck).bind(19, c.loweringDigest);
      insert->bind(20, std::int64_t(c.loweredOk)).bind(21, c.measuredUs).bind(22, now);
      if (Status s = insert->run(); !s)
        return s.error();
      inBatch.insert(c.id);
      ids.push_back(c.id);
    }
    auto touch = m_db->prepare("UPDATE campaigns SET updated_at = ?2 WHERE name = ?1");
    if (!touch)
      return touch.error();
    if (Status s = touch->bind(1, campaignName).bind(2, now).run(); !s)
      return s.error();
    json::Writer w(false);
    w.beginObject().key("candidates").raw(stringArray(ids)).endObject();
    auto seqNo = appendAudit(actor, "campaign.import", campaignName, w.take());
    if (!seqNo)
      return seqNo.error();
    return static_cast<std::int64_t>(ids.size());
  };
  return endAct(*began, body());
}

Expected<std::vector<CandidateRecord>> Workspace::candidates(const std::string& campaignName) {
  auto stmt = m_db->prepare(std::string(kCandidateColumns) + " WHERE campaign = ?1 ORDER BY seq");
  if (stmt)
    stmt->bind(1, campaignName);
  return detail::readAll<CandidateRecord>(stmt, readCandidate);
}

Expected<std::optional<std::string>> Workspace::blob(const std::string& sha256) {
  auto stmt = m_db->prepare("SELECT content FROM blobs WHERE sha256 = ?1");
  if (!stmt)
    return stmt.error();
  stmt->bind(1, sha256);
  auto row = stmt->step();
  if (!row)
    return row.error();
  if (!*row)
    return std::optional<std::string>();
  return std::optional<std::string>(stmt->text(0));
}

} // namespace cake::ws
