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

/// One data file held in memory rather than on disk: a file of a workspace's approved overlay.
struct OverlayFile {
  /// Relative to its kind's directory, '/'-separated ("elementwise/ew.gelu.json").
  std::string name;
  /// What diagnostics call it ("ws:rev3/primitives/elementwise/ew.gelu.json").
  std::string label;
  std::string content;
};

/// The in-memory files laid over each kind of built-in data directory.
struct DataOverlay {
  std::vector<OverlayFile> primitives, rules, targets, calibration;
  bool empty() const {
    return primitives.empty() && rules.empty() && targets.empty() && calibration.empty();
  }
};

/// Lays `overlay` over `files`: an overlay file replaces the file with the same file name (a
/// primitive, rule, target or calibration is named by its file's stem, so the same file name is
/// the same definition), the others are added; the result is sorted by name. Each overlay file is
/// registered in `sources` under its label; one above `maxBytes`, or one in a subdirectory when
/// the kind is not `recursive`, is a def-io finding and left out.
void applyOverlay(std::vector<DataFile>& files, const std::vector<OverlayFile>& overlay,
                  std::string_view what, bool recursive, std::size_t maxBytes,
                  SourceManager& sources, DiagnosticEngine& diags);

/// The `*.json` files of `dir` (with `recursive`, of its subdirectories too), sorted by path;
/// each is read (at most `maxBytes`) and registered in `sources`. A file that cannot be read and
/// a listing error are def-io findings; nullopt (also a finding: "cannot read <what> directory")
/// when `dir` is not a directory.
/// With an `overlay`, the files are those of `dir` with the overlay laid over them (applyOverlay).
std::optional<std::vector<DataFile>> loadDataFiles(const std::string& dir, std::string_view what,
                                                   bool recursive, std::size_t maxBytes,
                                                   SourceManager& sources, DiagnosticEngine& diags,
                                                   const std::vector<OverlayFile>& overlay = {});

} // namespace cake
