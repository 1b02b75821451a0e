// Loading a directory of JSON data files.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Support/DataFiles.h"

#include "cake/Support/StringUtil.h"

#include <algorithm>

namespace cake {

void applyOverlay(std::vector<DataFile>& files, const std::vector<OverlayFile>& overlay,
                  std::string_view what, bool recursive, std::size_t maxBytes,
                  SourceManager& sources, DiagnosticEngine& diags) {
  namespace fs = std::filesystem;
  for (const OverlayFile& o : overlay) {
    FileId f = sources.addBuffer(o.label, o.content);
    if (o.content.size() > maxBytes) {
      diags.report(DiagId::DefIo, {f, 0, 0},
                   "overlay " + std::string(what) + " file '" + o.label + "' is larger than " +
                       std::to_string(maxBytes) + " bytes");
      continue;
    }
    if (!recursive && o.name.find('/') != std::string::npos) {
      diags.report(DiagId::DefIo, {f, 0, 0},
                   "overlay " + std::string(what) + " file '" + o.label +
                       "' must not lie in a subdirectory");
      continue;
    }
    std::string fileName = fs::path(o.name).filename().string();
    std::erase_if(files, [&](const DataFile& d) { return d.path.filename() == fileName; });
    files.push_back({fs::path(o.label), o.name, f});
  }
  std::sort(files.begin(), files.end(), [](const DataFile& a, const DataFile& b) {
    return fs::path(a.name) < fs::path(b.name);
  });
}

std::optional<std::vector<DataFile>> loadDataFiles(const std::string& dir, std::string_view what,
                                                   bool recursive, std::size_t maxBytes,
                                                   SourceManager& sources, DiagnosticEngine& diags,
                                                   const std::vector<OverlayFile>& overlay) {
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
  if (!overlay.empty())
    applyOverlay(files, overlay, what, recursive, maxBytes, sources, diags);
  return files;
}

} // namespace cake
