// Reading an untrusted proposal folder: file walk without following links, size and path
// limits, the proposal.json schema with located prop-* findings, and the content hash.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Proposal/Proposal.h"

#include "cake/Support/Json.h"
#include "cake/Support/Sha256.h"
#include "cake/Support/StringUtil.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

namespace cake::proposal {

namespace fs = std::filesystem;

std::string_view toString(Kind kind) {
  switch (kind) {
  case Kind::Primitive:
    return "primitive";
  case Kind::Rule:
    return "rule";
  case Kind::Calibration:
    return "calibration";
  case Kind::Target:
    return "target";
  }
  return "primitive";
}

std::optional<Kind> kindFromString(std::string_view text) {
  for (Kind k : {Kind::Primitive, Kind::Rule, Kind::Calibration, Kind::Target})
    if (toString(k) == text)
      return k;
  return std::nullopt;
}

std::string_view kindDirectory(Kind kind) {
  switch (kind) {
  case Kind::Primitive:
    return "primitives";
  case Kind::Rule:
    return "rules";
  case Kind::Calibration:
    return "calibration";
  case Kind::Target:
    return "targets";
  }
  return "primitives";
}

namespace {

constexpr std::string_view kManifest = "proposal.json";

class Reader {
public:
  Reader(std::string dir, SourceManager& sources, DiagnosticEngine& diags)
      : m_dir(std::move(dir)), m_sources(sources), m_diags(diags) {}

  /// A finding at `range`; a finding about a file that was not read points at an empty buffer
  /// named after it (so it still renders as path:1:1).
  void error(std::string code, SourceRange range, std::string message) {
    m_diags.report(
        Diagnostic{std::move(code), Family::Definition, Severity::Blocking, range, message});
  }
  void errorAt(const std::string& rel, std::string code, std::string message) {
    error(std::move(code), {fileFor(rel), 0, 0}, std::move(message));
  }
  FileId fileFor(const std::string& rel) {
    auto it = m_placeholders.find(rel);
    if (it != m_placeholders.end())
      return it->second;
    FileId f = m_sources.addBuffer(label(rel), "");
    m_placeholders.emplace(rel, f);
    return f;
  }
  std::string label(const std::string& rel) const { return m_dir + "/" + rel; }

  const std::string m_dir;
  SourceManager& m_sources;
  DiagnosticEngine& m_diags;
  std::map<std::string, FileId> m_placeholders;
};

/// A relative, '/'-separated path without empty, "." or ".." parts, absolute start or
/// backslashes.
bool safeRelative(std::string_view p) {
  if (p.empty() || p.front() == '/' || p.find('\\') != std::string_view::npos ||
      p.find('\0') != std::string_view::npos)
    return false;
  std::size_t start = 0;
  while (start <= p.size()) {
    std::size_t end = p.find('/', start);
    if (end == std::string_view::npos)
      end = p.size();
    std::string_view part = p.substr(start, end - start);
    if (part.empty() || part == "." || part == "..")
      return false;
    start = end + 1;
  }
  return true;
}

const json::Value* stringField(Reader& r, const json::Value& obj, std::string_view key,
                               bool required) {
  const json::Value* v = obj.get(key);
  if (!v) {
    if (required)
      r.error("prop-missing-field", obj.range, "proposal.json needs \"" + std::string(key) + "\"");
    return nullptr;
  }
  if (!v->isString() || (required && v->string.empty())) {
    r.error("prop-invalid-value", v->range,
            "\"" + std::string(key) + "\" must be a non-empty string");
    return nullptr;
  }
  return v;
}

bool onlyKnown(Reader& r, const json::Value& obj, std::initializer_list<std::string_view> known,
               std::string_view what) {
  bool ok = true;
  for (const json::Member& m : obj.members)
    if (std::find(known.begin(), known.end(), m.key) == known.end()) {
      r.error("prop-unknown-field", m.keyRange,
              "\"" + m.key + "\" is not a field of " + std::string(what));
      ok = false;
    }
  return ok;
}

} // namespace

std::optional<Proposal> loadProposal(const std::string& dirIn, SourceManager& sources,
                                     DiagnosticEngine& diags, const Limits& limits) {
  std::string dir = dirIn;
  while (dir.size() > 1 && dir.back() == '/')
    dir.pop_back();
  Reader r(dir, sources, diags);
  std::size_t before = diags.diagnostics().size() + diags.dropped();
  auto failed = [&] { return diags.diagnostics().size() + diags.dropped() != before; };

  std::error_code ec;
  if (fs::is_symlink(dir, ec) || !fs::is_directory(dir, ec)) {
    r.error("prop-io", {sources.addBuffer(dir, ""), 0, 0},
            "a proposal is a folder (not a link) holding proposal.json");
    return std::nullopt;
  }

  // Walk everything, never following links: what the folder holds, with sizes checked before
  // any content is read.
  std::map<std::string, std::string> contents; // relative path -> content
  std::size_t total = 0, count = 0;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
  if (ec) {
    r.error("prop-io", {sources.addBuffer(dir, ""), 0, 0},
            "cannot list the folder: " + ec.message());
    return std::nullopt;
  }
  for (; it != end; it.increment(ec)) {
    if (ec)
      break;
    // Lexical: fs::relative would follow a link out of the folder.
    std::string rel = it->path().lexically_relative(dir).generic_string();
    fs::file_status st = it->symlink_status(ec);
    if (fs::is_symlink(st)) {
      r.errorAt(rel, "prop-symlink", "links are not allowed in a proposal");
      continue;
    }
    if (fs::is_directory(st))
      continue;
    if (!fs::is_regular_file(st)) {
      r.errorAt(rel, "prop-not-a-file", "only plain files are allowed in a proposal");
      continue;
    }
    if (++count > limits.maxFiles) {
      r.errorAt(rel, "prop-too-many-files",
                "more than " + std::to_string(limits.maxFiles) + " files in the proposal");
      break;
    }
    std::uintmax_t size = it->file_size(ec);
    if (ec || size > limits.maxFileBytes) {
      r.errorAt(rel, "prop-too-large",
                "file is larger than " + std::to_string(limits.maxFileBytes) + " bytes");
      continue;
    }
    total += size;
    if (total > limits.maxTotalBytes) {
      r.errorAt(rel, "prop-too-large",
                "the proposal is larger than " + std::to_string(limits.maxTotalBytes) + " bytes");
      break;
    }
    std::string error;
    auto text = readFile(it->path().string(), error, limits.maxFileBytes);
    if (!text) {
      r.errorAt(rel, "prop-io", "cannot read: " + error);
      continue;
    }
    contents.emplace(rel, std::move(*text));
  }
  if (ec)
    r.error("prop-io", {sources.addBuffer(dir, ""), 0, 0},
            "cannot list the folder: " + ec.message());
  if (failed())
    return std::nullopt;

  auto manifestIt = contents.find(std::string(kManifest));
  if (manifestIt == contents.end()) {
    r.errorAt(std::string(kManifest), "prop-missing-manifest", "the folder has no proposal.json");
    return std::nullopt;
  }
  Proposal p;
  p.dir = dir;
  p.manifestText = manifestIt->second;
  FileId mf = sources.addBuffer(r.label(std::string(kManifest)), p.manifestText);
  DiagnosticEngine parseDiags;
  auto doc = json::parse(sources.text(mf), mf, parseDiags);
  if (!doc) {
    for (Diagnostic d : parseDiags.diagnostics()) {
      d.code = "prop-json-syntax";
      diags.report(std::move(d));
    }
    return std::nullopt;
  }
  if (!doc->isObject()) {
    r.error("prop-invalid-value", doc->range, "proposal.json must hold one object");
    return std::nullopt;
  }
  onlyKnown(r, *doc, {"$comment", "kind", "title", "author", "motivation", "evidence", "files"},
            "a proposal");
  if (const json::Value* k = stringField(r, *doc, "kind", true)) {
    if (auto kind = kindFromString(k->string))
      p.kind = *kind;
    else
      r.error("prop-invalid-value", k->range,
              "\"kind\" must be primitive, rule, calibration or target");
  }
  if (const json::Value* t = stringField(r, *doc, "title", true))
    p.title = t->string;
  if (const json::Value* m = stringField(r, *doc, "motivation", true))
    p.motivation = m->string;
  if (const json::Value* a = doc->get("author"); !a) {
    r.error("prop-missing-field", doc->range, "proposal.json needs \"author\"");
  } else if (!a->isObject()) {
    r.error("prop-invalid-value", a->range,
            "\"author\" must be an object {kind, name, model?, run?}");
  } else {
    onlyKnown(r, *a, {"kind", "name", "model", "run"}, "an author");
    if (const json::Value* k = stringField(r, *a, "kind", true)) {
      if (k->string != "agent" && k->string != "human")
        r.error("prop-invalid-value", k->range, "author \"kind\" must be agent or human");
      p.author.kind = k->string;
    }
    if (const json::Value* n = stringField(r, *a, "name", true))
      p.author.name = n->string;
    if (const json::Value* m = stringField(r, *a, "model", false))
      p.author.model = m->string;
    if (const json::Value* m = stringField(r, *a, "run", false))
      p.author.run = m->string;
  }
  if (const json::Value* e = doc->get("evidence"); !e) {
    r.error("prop-missing-field", doc->range, "proposal.json needs \"evidence\" (a list)");
  } else if (!e->isArray()) {
    r.error("prop-invalid-value", e->range, "\"evidence\" must be a list");
  } else {
    for (const json::Value& item : e->elements) {
      json::Writer w(false);
      w.value(item);
      p.evidence.push_back(w.take());
    }
  }

  std::set<std::string> claimed{std::string(kManifest)};
  const json::Value* files = doc->get("files");
  if (!files) {
    r.error("prop-missing-field", doc->range, "proposal.json needs \"files\" (a list)");
  } else if (!files->isArray() || files->elements.empty()) {
    r.error("prop-invalid-value", files->range, "\"files\" must be a non-empty list");
  } else {
    for (const json::Value& f : files->elements) {
      if (!f.isObject()) {
        r.error("prop-invalid-value", f.range, "a file entry is an object {path, kind}");
        continue;
      }
      onlyKnown(r, f, {"path", "kind"}, "a file entry");
      const json::Value* path = stringField(r, f, "path", true);
      const json::Value* kind = stringField(r, f, "kind", true);
      if (!path || !kind)
        continue;
      auto k = kindFromString(kind->string);
      if (!k) {
        r.error("prop-invalid-value", kind->range,
                "file \"kind\" must be primitive, rule, calibration or target");
        continue;
      }
      if (!safeRelative(path->string)) {
        r.error("prop-path-escape", path->range,
                "'" + path->string +
                    "' is not a path inside the proposal folder (relative, "
                    "'/'-separated, without '.', '..' or empty parts)");
        continue;
      }
      std::string prefix = std::string(kindDirectory(*k)) + "/";
      if (path->string.rfind(prefix, 0) != 0 || !path->string.ends_with(".json")) {
        r.error("prop-file-kind", path->range,
                "a " + kind->string + " file lies under '" + prefix + "' and ends in .json");
        continue;
      }
      auto c = contents.find(path->string);
      if (c == contents.end()) {
        r.error("prop-missing-file", path->range, "'" + path->string + "' is not in the folder");
        continue;
      }
      if (!claimed.insert(path->string).second) {
        r.error("prop-invalid-value", path->range, "'" + path->string + "' is listed twice");
        continue;
      }
      p.files.push_back({*k, path->string, path->string.substr(prefix.size()), c->second});
    }
  }
  for (const auto& [rel, content] : contents) {
    for (bool positive : {true, false}) {
      std::string prefix = positive ? "examples/positive/" : "examples/negative/";
      if (rel.rfind(prefix, 0) == 0 && rel.ends_with(".cake") &&
          rel.find('/', prefix.size()) == std::string::npos) {
        p.examples.push_back({rel, positive, content});
        claimed.insert(rel);
      }
    }
  }
  for (const auto& [rel, content] : contents)
    if (!claimed.count(rel) && rel != "README.md")
      r.errorAt(rel, "prop-unexpected-file",
                "not listed in \"files\" and not an example (examples/positive|negative/*.cake)");
  std::sort(p.files.begin(), p.files.end(),
            [](const auto& a, const auto& b) { return a.path < b.path; });
  if (failed())
    return std::nullopt;
  p.hash = proposalHash(p);
  return p;
}

std::string proposalHash(const Proposal& proposal) {
  std::vector<std::pair<std::string_view, std::string_view>> files;
  files.emplace_back(kManifest, proposal.manifestText);
  for (const DefinitionFile& f : proposal.files)
    files.emplace_back(f.path, f.content);
  for (const Example& e : proposal.examples)
    files.emplace_back(e.path, e.content);
  std::sort(files.begin(), files.end());
  Sha256 h;
  h.update("cake-proposal-v1\n");
  for (const auto& [path, content] : files) {
    h.update(path);
    h.update(std::string_view("\0", 1));
    h.update(std::to_string(content.size()));
    h.update(std::string_view("\0", 1));
    h.update(content);
  }
  return h.hexDigest();
}

DataOverlay proposalOverlay(const Proposal& proposal, DataOverlay base) {
  for (const DefinitionFile& f : proposal.files) {
    OverlayFile o{f.name, proposal.dir + "/" + f.path, f.content};
    switch (f.kind) {
    case Kind::Primitive:
      base.primitives.push_back(std::move(o));
      break;
    case Kind::Rule:
      base.rules.push_back(std::move(o));
      break;
    case Kind::Calibration:
      base.calibration.push_back(std::move(o));
      break;
    case Kind::Target:
      base.targets.push_back(std::move(o));
      break;
    }
  }
  return base;
}

} // namespace cake::proposal
