// Loading a directory of JSON data files (primitives, rules, targets, calibrations): listed,
// sorted, read with a size cap and registered in the SourceManager, with located I/O findings.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Support/Diagnostic.h"
#include "cake/Support/SourceManager.h"

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cake {

struct DataFile {
  std::filesystem::path path;
  std::string name; ///< relative to the directory, '/'-separated ("compute/wgmma.mma.json")
  FileId file = 0;  ///< registered in the SourceManager with the file's content
};

/// The `*.json` files of `dir` (with `recursive`, of its subdirectories too), sorted by path;
/// each is read (at most `maxBytes`) and registered in `sources`. A file that cannot be read and
/// a listing error are def-io findings; nullopt (also a finding: "cannot read <what> directory")
/// when `dir` is not a directory.
std::optional<std::vector<DataFile>> loadDataFiles(const std::string& dir, std::string_view what,
                                                   bool recursive, std::size_t maxBytes,
                                                   SourceManager& sources, DiagnosticEngine& diags);

} // namespace cake
