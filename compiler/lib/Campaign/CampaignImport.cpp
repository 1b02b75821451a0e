// Campaign import (new candidates assessed like gate cases on a small thread pool, stored in
// topological batches, one act each) and the lineage read back: best path, JSON and text.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "CampaignInternal.h"

#include "cake/Gate/Gate.h"
#include "cake/LowerLLVM/LlvmBackend.h"
#include "cake/Support/Json.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <map>
#include <thread>

namespace cake::campaign {

namespace {

/// Fills the assessment of one record with the gate's observation of its kernel.
void assess(const driver::Compiler& compiler, const std::string& campaign, ws::CandidateRecord& c) {
  // The campaign-relative label names the source, so digests do not depend on the folder.
  gate::Observation o = gate::observeKernel(compiler, campaign + "/" + c.kernel, c.kernelText);
  c.accepted = o.accepted;
  c.codes = o.codes;
  c.predictedUs = o.predictedUs;
  c.bottleneck = o.bottleneck;
  // The PTX of the in-process LLVM path where it exists; for a target that path does not
  // emit (sm_100a), the CUDA export is the lowering.
  auto digest = [](const std::string& d) { return d.rfind("sha256:", 0) == 0; };
  bool viaCuda = o.accepted && !lower::llvmSupportsTarget(o.target);
  c.loweringDigest = viaCuda ? o.cuda : o.ptx;
  c.loweredOk = o.accepted && digest(c.loweringDigest);
}

void assessAll(const driver::Compiler& compiler, const std::string& campaign,
               std::vector<detail::Entry>& entries, unsigned jobs) {
  if (entries.empty())
    return;
  jobs = jobs ? jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, entries.size()));
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < entries.size();) {
      ws::CandidateRecord& c = entries[i].record;
      try {
        assess(compiler, campaign, c);
      } catch (const std::exception& e) {
        // One kernel's internal error is its assessment, not the end of the import.
        c.accepted = false;
        c.codes = {"internal-error"};
        c.loweringDigest = std::string("internal error: ") + e.what();
      }
    }
  };
  std::vector<std::thread> workers;
  for (unsigned k = 1; k < jobs; ++k)
    workers.emplace_back(work);
  work();
  for (std::thread& t : workers)
    t.join();
}

void writeError(json::Writer& w, const LogError& e) {
  w.beginObject();
  w.key("file").value(e.file);
  w.key("line").value(static_cast<std::int64_t>(e.line));
  w.key("column").value(static_cast<std::int64_t>(e.column));
  w.key("code").value(e.code);
  w.key("message").value(e.message);
  w.endObject();
}

void optionalNumber(json::Writer& w, const char* key, const std::optional<double>& v) {
  w.key(key);
  if (v)
    w.value(*v);
  else
    w.null();
}

std::string micro(const std::optional<double>& us) {
  if (!us)
    return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f us", *us);
  return buf;
}

} // namespace

ImportResult importCampaign(const driver::Compiler& compiler, ws::Workspace& workspace,
                            const std::string& dir, const ImportOptions& options) {
  ImportResult result;
  auto storeError = [&](const ws::Error& e) {
    result.errors.push_back({dir, 0, 0, "campaign-store", e.text()});
    result.fatal = true;
    return result;
  };
  auto spec = detail::readSpec(dir, result.errors);
  if (!spec) {
    result.fatal = true;
    return result;
  }
  result.campaign = spec->name;
  if (ws::Status s = workspace.registerCampaign(*spec, options.actor); !s)
    return storeError(s.error());
  auto stored = workspace.candidates(spec->name);
  if (!stored)
    return storeError(stored.error());
  detail::Known known;
  for (const ws::CandidateRecord& c : *stored)
    known[c.id] = {c.line, c.entrySha256};
  detail::FolderRead read;
  detail::readLog(dir, spec->name, known, read);
  result.skipped = read.skipped;
  result.pending = read.pending;
  result.errors.insert(result.errors.end(), read.errors.begin(), read.errors.end());
  // Assessed and stored a batch at a time: a long import commits as it goes, and a kill loses
  // at most the batch in progress.
  std::size_t batch = std::max<std::size_t>(1, options.batch);
  for (std::size_t i = 0; i < read.entries.size(); i += batch) {
    std::size_t end = std::min(read.entries.size(), i + batch);
    std::vector<detail::Entry> chunk(std::make_move_iterator(read.entries.begin() + long(i)),
                                     std::make_move_iterator(read.entries.begin() + long(end)));
    assessAll(compiler, spec->name, chunk, options.jobs);
    std::vector<ws::CandidateRecord> records;
    for (detail::Entry& e : chunk)
      records.push_back(std::move(e.record));
    auto added = workspace.addCandidates(spec->name, records, options.actor);
    if (!added)
      return storeError(added.error());
    result.imported += static_cast<std::size_t>(*added);
  }
  return result;
}

std::string toJson(const ImportResult& r) {
  json::Writer w;
  w.beginObject();
  w.key("campaign");
  if (r.campaign.empty())
    w.null();
  else
    w.value(r.campaign);
  w.key("imported").value(static_cast<std::int64_t>(r.imported));
  w.key("skipped").value(static_cast<std::int64_t>(r.skipped));
  w.key("pending").value(static_cast<std::int64_t>(r.pending));
  w.key("errors").beginArray();
  for (const LogError& e : r.errors)
    writeError(w, e);
  w.endArray();
  w.endObject();
  return w.take() + "\n";
}

std::string toText(const ImportResult& r) {
  std::string out;
  for (const LogError& e : r.errors)
    out += e.file + ":" + std::to_string(e.line) + ":" + std::to_string(e.column) +
           ": error: " + e.message + " [" + e.code + "]\n";
  out += "campaign " + (r.campaign.empty() ? std::string("?") : r.campaign) + ": " +
         std::to_string(r.imported) + " imported, " + std::to_string(r.skipped) + " skipped, " +
         std::to_string(r.errors.size()) + " error(s)" +
         (r.pending ? ", 1 line pending (no newline yet)" : "") + "\n";
  return out;
}

std::optional<double> rankTime(const ws::CandidateRecord& c) {
  if (c.measuredUs)
    return c.measuredUs;
  return c.predictedUs;
}

std::vector<std::string> bestPath(const std::vector<ws::CandidateRecord>& candidates) {
  const ws::CandidateRecord* best = nullptr;
  for (const ws::CandidateRecord& c : candidates) {
    auto t = rankTime(c);
    // A kernel that cannot be emitted cannot run, however fast its prediction.
    if (!c.accepted || !c.loweredOk || !t)
      continue;
    if (!best || *t < *rankTime(*best))
      best = &c;
  }
  if (!best)
    return {};
  std::map<std::string, const ws::CandidateRecord*> byId;
  for (const ws::CandidateRecord& c : candidates)
    byId[c.id] = &c;
  std::vector<std::string> path;
  // First parents up to a root; the store refuses cycles, the bound guards a foreign database.
  for (const ws::CandidateRecord* c = best; c && path.size() <= candidates.size();) {
    path.push_back(c->id);
    if (c->parents.empty())
      break;
    auto it = byId.find(c->parents.front());
    c = it == byId.end() ? nullptr : it->second;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

std::string showJson(const ws::CampaignRecord& campaign,
                     const std::vector<ws::CandidateRecord>& candidates) {
  json::Writer w;
  w.beginObject();
  w.key("name").value(campaign.name);
  w.key("folder").value(campaign.folder);
  w.key("spec").raw(campaign.spec);
  w.key("candidates").beginArray();
  for (const ws::CandidateRecord& c : candidates) {
    w.beginObject();
    w.key("id").value(c.id);
    w.key("parents").beginArray();
    for (const std::string& p : c.parents)
      w.value(p);
    w.endArray();
    w.key("kernel").value(c.kernel);
    w.key("kernel_sha256").value(c.kernelSha256);
    w.key("author").raw(c.author);
    if (!c.arm.empty())
      w.key("arm").value(c.arm);
    w.key("line").value(c.line);
    w.key("timestamp").value(c.timestamp);
    w.key("budget").raw(c.budget);
    w.key("rationale").value(c.rationale);
    w.key("accepted").value(c.accepted);
    w.key("codes").beginArray();
    for (const std::string& code : c.codes)
      w.value(code);
    w.endArray();
    optionalNumber(w, "predicted_us", c.predictedUs);
    w.key("bottleneck").value(c.bottleneck);
    w.key("lowered_ok").value(c.loweredOk);
    w.key("lowering_digest").value(c.loweringDigest);
    if (c.measuredUs) {
      w.key("measured_us").value(*c.measuredUs);
      w.key("measurements").raw(c.measurements);
    }
    w.endObject();
  }
  w.endArray();
  w.key("best_path").beginArray();
  for (const std::string& id : bestPath(candidates))
    w.value(id);
  w.endArray();
  w.endObject();
  return w.take() + "\n";
}

std::string showText(const ws::CampaignRecord& campaign,
                     const std::vector<ws::CandidateRecord>& candidates) {
  std::string out = "campaign " + campaign.name + " (" + campaign.folder +
                    "): " + std::to_string(candidates.size()) + " candidate(s)\n";
  for (const ws::CandidateRecord& c : candidates) {
    std::string parents;
    for (const std::string& p : c.parents)
      parents += (parents.empty() ? "" : ",") + p;
    std::string verdict = !c.accepted ? "refused" : c.loweredOk ? "accepted" : "lowering-failed";
    out += "  " + c.id + " <- [" + parents + "] " + verdict + " " + micro(c.predictedUs);
    if (c.measuredUs)
      out += " measured " + micro(c.measuredUs);
    if (!c.codes.empty()) {
      out += " (";
      for (std::size_t i = 0; i < c.codes.size(); ++i)
        out += (i ? " " : "") + c.codes[i];
      out += ")";
    }
    out += "\n";
  }
  std::string path;
  for (const std::string& id : bestPath(candidates))
    path += (path.empty() ? "" : " -> ") + id;
  out += "best path: " + (path.empty() ? std::string("(no accepted candidate)") : path) + "\n";
  return out;
}

} // namespace cake::campaign
