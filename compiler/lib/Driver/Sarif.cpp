// SARIF 2.1.0 writer (OASIS Static Analysis Results Interchange Format).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Driver/Sarif.h"

#include "cake/Support/Json.h"

#include <cctype>
#include <filesystem>
#include <map>

namespace cake::driver {

namespace {

std::string_view level(Severity s) {
  switch (s) {
  case Severity::Blocking:
    return "error";
  case Severity::Report:
    return "warning";
  case Severity::Hint:
    return "note";
  }
  return "none";
}

void region(json::Writer& w, SourceRange r, const SourceManager& sm) {
  LineColumn b = sm.lineColumn(r.file, r.begin);
  LineColumn e = sm.lineColumn(r.file, r.end);
  w.key("region").beginObject();
  w.key("startLine").value(b.line).key("startColumn").value(b.column);
  w.key("endLine").value(e.line).key("endColumn").value(std::max(e.column, b.line == e.line ? b.column + 1 : e.column));
  w.endObject();
}

/// Percent-encodes a path for a URI (RFC 3986): unreserved characters and '/' stay, every other
/// byte (spaces, '#', '?', '%', non-ASCII UTF-8) becomes %XX.
std::string encodePath(std::string_view path) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (char ch : path) {
    auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

/// The artifactLocation of a path: absolute paths as file:// URIs, relative ones relative to the
/// SRCROOT base (the working directory, given in run.originalUriBaseIds).
void artifactLocation(json::Writer& w, const std::string& path, std::size_t index) {
  w.key("artifactLocation").beginObject();
  if (!path.empty() && path.front() == '/') {
    w.key("uri").value("file://" + encodePath(path));
  } else {
    w.key("uri").value(encodePath(path));
    w.key("uriBaseId").value("SRCROOT");
  }
  w.key("index").value(static_cast<std::uint64_t>(index));
  w.endObject();
}

/// A rule's SARIF "name": the code without its family prefix, in PascalCase
/// ("ps-parity-cadence" -> "ParityCadence").
std::string ruleName(std::string_view code) {
  std::size_t dash = code.find('-');
  std::string out;
  bool upper = true;
  for (char c : code.substr(dash == std::string_view::npos ? 0 : dash + 1)) {
    if (c == '-') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

/// The findings of one file that the log writes (all, or the requested selection).
std::vector<const Diagnostic*> findingsOf(const SarifFile& f) {
  std::vector<const Diagnostic*> out;
  if (!f.result)
    return out;
  if (!f.findings) {
    for (const Diagnostic& d : f.result->diagnostics)
      out.push_back(&d);
    return out;
  }
  for (std::size_t i : *f.findings)
    if (i < f.result->diagnostics.size())
      out.push_back(&f.result->diagnostics[i]);
  return out;
}

} // namespace

std::string toSarif(const Compiler& compiler, const std::vector<SarifFile>& files) {
  // Rules referenced by results, in first-use order.
  std::vector<std::string> ruleIds;
  std::map<std::string, std::size_t> ruleIndex;
  // Artifacts: every file a result or a related location points into.
  std::vector<std::string> artifacts;
  std::map<std::string, std::size_t> artifactIndex;
  auto artifact = [&](const std::string& path) {
    auto [it, fresh] = artifactIndex.try_emplace(path, artifacts.size());
    if (fresh)
      artifacts.push_back(path);
    return it->second;
  };
  for (const SarifFile& f : files) {
    artifact(f.path);
    if (!f.result)
      continue;
    for (const Diagnostic* dp : findingsOf(f)) {
      const Diagnostic& d = *dp;
      if (ruleIndex.try_emplace(d.code, ruleIds.size()).second)
        ruleIds.push_back(d.code);
      for (const DiagNote& n : d.notes)
        if (f.result->sources->contains(n.range.file))
          artifact(f.result->sources->name(n.range.file));
    }
  }

  json::Writer w;
  w.beginObject();
  w.key("$schema").value(
      "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json");
  w.key("version").value("2.1.0");
  w.key("runs").beginArray().beginObject();
  w.key("tool").beginObject().key("driver").beginObject();
  w.key("name").value("cake");
  w.key("fullName").value("Cake IR compiler (cake check)");
  w.key("version").value(Compiler::version());
  w.key("semanticVersion").value(Compiler::version());
  w.key("rules").beginArray();
  for (const std::string& id : ruleIds) {
    const verify::Rule* rule = compiler.rules().find(id);
    w.beginObject();
    w.key("id").value(id);
    w.key("name").value(ruleName(id));
    if (rule) {
      w.key("shortDescription").beginObject().key("text").value(rule->title).endObject();
      w.key("fullDescription").beginObject().key("text").value(rule->doc).endObject();
      std::string help = rule->doc + "\n\nBad:\n" + rule->bad + "\n\nGood:\n" + rule->good;
      std::string markdown = rule->doc + "\n\nBad:\n\n```\n" + rule->bad + "\n```\n\nGood:\n\n```\n" +
                             rule->good + "\n```";
      w.key("help").beginObject().key("text").value(help).key("markdown").value(markdown).endObject();
      w.key("defaultConfiguration").beginObject().key("level").value(level(rule->severity)).endObject();
      w.key("properties").beginObject();
      w.key("family").value(toString(rule->family));
      w.key("analysis").value(rule->analysis);
      w.key("kind").value(verify::toString(rule->kind));
      w.endObject();
    } else {
      w.key("shortDescription").beginObject().key("text").value(id).endObject();
    }
    w.endObject();
  }
  w.endArray();
  w.endObject().endObject(); // driver, tool
  // Relative paths are relative to the working directory of the run.
  std::error_code ec;
  std::string root = std::filesystem::current_path(ec).generic_string();
  if (!ec) {
    if (root.empty() || root.back() != '/')
      root += '/';
    w.key("originalUriBaseIds").beginObject().key("SRCROOT").beginObject();
    w.key("uri").value("file://" + encodePath(root)).endObject().endObject();
  }
  w.key("artifacts").beginArray();
  for (std::size_t i = 0; i < artifacts.size(); ++i) {
    w.beginObject().key("location").beginObject();
    const std::string& a = artifacts[i];
    if (!a.empty() && a.front() == '/') {
      w.key("uri").value("file://" + encodePath(a));
    } else {
      w.key("uri").value(encodePath(a));
      w.key("uriBaseId").value("SRCROOT");
    }
    w.endObject().endObject();
  }
  w.endArray();
  w.key("results").beginArray();
  for (const SarifFile& f : files) {
    if (!f.result)
      continue;
    const SourceManager& sm = *f.result->sources;
    for (const Diagnostic* dp : findingsOf(f)) {
      const Diagnostic& d = *dp;
      w.beginObject();
      w.key("ruleId").value(d.code);
      w.key("ruleIndex").value(static_cast<std::uint64_t>(ruleIndex[d.code]));
      w.key("level").value(level(d.severity));
      w.key("message").beginObject().key("text").value(d.message).endObject();
      w.key("locations").beginArray().beginObject();
      w.key("physicalLocation").beginObject();
      std::string path = sm.contains(d.range.file) ? sm.name(d.range.file) : f.path;
      artifactLocation(w, path, artifact(path));
      if (sm.contains(d.range.file))
        region(w, d.range, sm);
      w.endObject().endObject().endArray();
      if (!d.notes.empty()) {
        w.key("relatedLocations").beginArray();
        for (std::size_t i = 0; i < d.notes.size(); ++i) {
          const DiagNote& n = d.notes[i];
          w.beginObject();
          w.key("id").value(static_cast<std::uint64_t>(i));
          if (sm.contains(n.range.file)) {
            std::string np = sm.name(n.range.file);
            w.key("physicalLocation").beginObject();
            artifactLocation(w, np, artifact(np));
            region(w, n.range, sm);
            w.endObject();
          }
          w.key("message").beginObject().key("text").value(n.message).endObject();
          w.endObject();
        }
        w.endArray();
      }
      // SARIF fixes are edits; advice without an edit range goes to the properties.
      const bool editable = d.fix && d.fix->range.valid() && sm.contains(d.fix->range.file);
      if (editable) {
        std::string fp = sm.name(d.fix->range.file);
        w.key("fixes").beginArray().beginObject();
        w.key("description").beginObject().key("text").value(d.fix->message).endObject();
        w.key("artifactChanges").beginArray().beginObject();
        artifactLocation(w, fp, artifact(fp));
        w.key("replacements").beginArray().beginObject();
        w.key("deletedRegion");
        {
          LineColumn b = sm.lineColumn(d.fix->range.file, d.fix->range.begin);
          LineColumn e = sm.lineColumn(d.fix->range.file, d.fix->range.end);
          w.beginObject().key("startLine").value(b.line).key("startColumn").value(b.column);
          w.key("endLine").value(e.line).key("endColumn").value(e.column).endObject();
        }
        w.key("insertedContent").beginObject().key("text").value(d.fix->replacement).endObject();
        w.endObject().endArray(); // replacement, replacements
        w.endObject().endArray(); // artifactChange, artifactChanges
        w.endObject().endArray(); // fix, fixes
      }
      w.key("properties").beginObject().key("family").value(toString(d.family));
      // A consequence of another finding is reported below its rule's default level; the
      // cause's rule names why.
      if (d.causedBy)
        w.key("caused_by").value(d.causedBy->code);
      if (d.fix && !editable)
        w.key("fix_advice").value(d.fix->message);
      w.endObject();
      w.endObject();
    }
  }
  w.endArray();
  w.key("invocations").beginArray().beginObject();
  bool ok = true;
  for (const SarifFile& f : files)
    ok &= f.result != nullptr;
  w.key("executionSuccessful").value(ok);
  if (!ok) {
    w.key("toolExecutionNotifications").beginArray();
    for (const SarifFile& f : files)
      if (!f.result) {
        w.beginObject().key("level").value("error");
        w.key("message").beginObject().key("text").value("cannot read '" + f.path + "': " + f.error).endObject();
        w.endObject();
      }
    w.endArray();
  }
  w.endObject().endArray();
  w.key("properties").beginObject().key("compiler_revision").value(compiler.revision()).endObject();
  w.endObject().endArray(); // run, runs
  w.endObject();
  return w.take();
}

} // namespace cake::driver
