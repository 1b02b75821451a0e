// Campaigns of candidate kernels: the log folder an agent harness appends to (campaign.json,
// candidates.jsonl), read with limits and located errors per line, every new candidate assessed
// like a gate case (check, cost, lowering digest) in parallel and stored in the workspace; the
// lineage read back with its best-so-far path. See docs/campaigns.md.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Driver/Compiler.h"
#include "cake/Workspace/Workspace.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cake::campaign {

/// The files of a campaign folder.
inline constexpr const char* kSpecFile = "campaign.json";
inline constexpr const char* kLogFile = "candidates.jsonl";
/// Limits on untrusted input: a kernel file, one log line, the whole log, campaign.json.
inline constexpr std::size_t kMaxKernelBytes = 1u << 20;
inline constexpr std::size_t kMaxLineBytes = 64u << 10;
inline constexpr std::size_t kMaxLogBytes = 256u << 20;
inline constexpr std::size_t kMaxSpecBytes = 1u << 20;

/// A located problem in a campaign folder. `code` is stable (scripts and agents match it):
/// campaign-spec, campaign-malformed-line, campaign-line-too-long, campaign-missing-field,
/// campaign-bad-field, campaign-duplicate-id, campaign-unknown-parent, campaign-lineage-cycle,
/// campaign-parent-invalid, campaign-kernel-outside, campaign-kernel-missing,
/// campaign-kernel-too-large, campaign-store.
struct LogError {
  std::string file;                   ///< the folder's file as named by the caller's folder path
  std::uint32_t line = 0, column = 0; ///< 1-based; 0 when the problem has no position
  std::string code;
  std::string message;
};

struct ImportOptions {
  /// Assessment threads; 0: std::thread::hardware_concurrency().
  unsigned jobs = 0;
  /// Candidates per store act (one transaction and one audit entry each).
  std::size_t batch = 64;
  std::string actor = "cake";
};

struct ImportResult {
  std::string campaign; ///< empty when campaign.json was unusable
  std::size_t imported = 0;
  /// Lines already in the store (the same line, the same bytes): an earlier import took them.
  std::size_t skipped = 0;
  /// 1 when the log ends in a line without its newline (an append in progress): left for the
  /// next import, not an error.
  std::size_t pending = 0;
  std::vector<LogError> errors;
  /// The import stopped (campaign.json unusable, the store failed); batches committed before
  /// stay committed.
  bool fatal = false;
};

/// Imports the new lines of the campaign in folder `dir` into `workspace`: each valid new
/// candidate is assessed with `compiler` (in parallel) and stored in topological order, in
/// batches. Bad lines become located errors; the rest is imported.
ImportResult importCampaign(const driver::Compiler& compiler, ws::Workspace& workspace,
                            const std::string& dir, const ImportOptions& options = {});

/// {"campaign", "imported", "skipped", "pending", "errors": [{file, line, column, code,
/// message}]}.
std::string toJson(const ImportResult& result);
/// One line per error ("file:line:col: error: message [code]") and a summary line.
std::string toText(const ImportResult& result);

/// The time a candidate is ranked by: its measurement when present, else its prediction.
std::optional<double> rankTime(const ws::CandidateRecord& c);
/// Ids from a root to the best accepted candidate (lowest rankTime; the earlier one on a tie),
/// following first parents; empty when no candidate is accepted with a time.
std::vector<std::string> bestPath(const std::vector<ws::CandidateRecord>& candidates);

/// `cake campaign show` as JSON: {name, folder, spec, candidates: [...], best_path: [...]}.
std::string showJson(const ws::CampaignRecord& campaign,
                     const std::vector<ws::CandidateRecord>& candidates);
std::string showText(const ws::CampaignRecord& campaign,
                     const std::vector<ws::CandidateRecord>& candidates);

} // namespace cake::campaign
