// The campaign log reader shared by import and the search (not installed).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Campaign/Campaign.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cake::campaign::detail {

/// One valid new candidate line, ready to be assessed.
struct Entry {
  ws::CandidateRecord record; ///< log fields filled, assessment empty
};

/// What reading a folder gave: the spec, the new valid entries in topological order (parents
/// first, then by line), and the counts and errors.
struct FolderRead {
  std::optional<ws::CampaignRecord> spec;
  std::vector<Entry> entries;
  std::size_t skipped = 0, pending = 0;
  std::vector<LogError> errors;
};

/// Stored candidates of the campaign by id: (line, entry sha256).
using Known = std::map<std::string, std::pair<std::int64_t, std::string>>;

/// Reads campaign.json (`spec` unset and an error on failure).
std::optional<ws::CampaignRecord> readSpec(const std::string& dir, std::vector<LogError>& errors);
/// Reads candidates.jsonl against the candidates already stored.
void readLog(const std::string& dir, const std::string& campaign, const Known& known,
             FolderRead& out);

} // namespace cake::campaign::detail
