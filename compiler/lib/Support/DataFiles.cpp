// Loading a directory of JSON data files.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Support/DataFiles.h"

#include "cake/Support/StringUtil.h"

#include <algorithm>

namespace cake {

std::optional<std::vector<DataFile>> loadDataFiles(const std::string& dir, std::string_view what,
                                                   bool recursive, std::size_t maxBytes,
                                                   SourceManager& sources, DiagnosticEngine& diags) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    FileId f = sources.addBuffer(dir, "");
    diags.report(DiagId::DefIo, {f, 0, 0},
                 "cannot read " + std::string(what) + " directory '" + dir + "'" +
                     (ec ? ": " + ec.message() : std::string()));
    return std::nullopt;
  }
  std::vector<fs::path> paths, unreadable;
  // Only the non-throwing filesystem overloads: a symlink loop (ELOOP), a dangling link or an
  // unreadable entry is a located finding naming the path, never an exception that ends the
  // CLI with "internal error" or aborts the workbench's loader thread.
  auto take = [&](const fs::directory_entry& e) {
    if (e.path().extension() != ".json")
      return;
    std::error_code sec;
    bool regular = e.is_regular_file(sec);
    if (sec)
      unreadable.push_back(e.path()); // reported below, in path order like the files
    else if (regular)
      paths.push_back(e.path());
  };
  if (recursive)
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      take(*it);
  else
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      take(*it);
  if (ec) {
    FileId f = sources.addBuffer(dir, "");
    diags.report(DiagId::DefIo, {f, 0, 0}, "cannot list '" + dir + "': " + ec.message());
  }
  std::sort(unreadable.begin(), unreadable.end());
  for (const fs::path& p : unreadable) {
    std::error_code sec;
    (void)fs::status(p, sec); // the reason, again without throwing
    FileId f = sources.addBuffer(p.string(), "");
    diags.report(DiagId::DefIo, {f, 0, 0},
                 "cannot read '" + p.string() + "': " +
                     (sec ? sec.message() : std::string("not a readable file")));
  }
  std::sort(paths.begin(), paths.end());
  std::vector<DataFile> files;
  for (const fs::path& p : paths) {
    std::string error;
    auto content = readFile(p.string(), error, maxBytes);
    if (!content) {
      FileId f = sources.addBuffer(p.string(), "");
      diags.report(DiagId::DefIo, {f, 0, 0}, "cannot read '" + p.string() + "': " + error);
      continue;
    }
    std::error_code rel;
    files.push_back({p, fs::relative(p, dir, rel).generic_string(),
                     sources.addBuffer(p.string(), std::move(*content))});
  }
  return files;
}

} // namespace cake
