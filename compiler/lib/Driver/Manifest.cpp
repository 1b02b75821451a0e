// Reading the corpus manifest and judging a check against a case's expectation.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Driver/Manifest.h"

#include "cake/Support/JsonSchema.h"
#include "cake/Support/StringUtil.h"

#include <algorithm>
#include <filesystem>
#include <set>

namespace cake::driver {

namespace {

constexpr std::size_t kMaxManifestBytes = 4u << 20;
constexpr std::size_t kMaxWorkloadBytes = 1u << 20;

/// Validates one workload contract file; false after reporting located findings.
bool checkWorkload(const std::string& path, SourceManager& sources, DiagnosticEngine& diags) {
  std::string error;
  auto text = readFile(path, error, kMaxWorkloadBytes);
  if (!text) {
    FileId f = sources.addBuffer(path, "");
    diags.report(DiagId::DefIo, {f, 0, 0}, "cannot read workload '" + path + "': " + error);
    return false;
  }
  FileId f = sources.addBuffer(path, *text);
  auto doc = json::parse(sources.text(f), f, diags);
  if (!doc)
    return false;
  json::ObjectReader r(*doc, diags, "workload contract");
  r.allow("$comment");
  r.string("operator", true);
  r.string("target", true);
  r.field("shapes", json::Kind::Object, true);
  r.field("dtypes", json::Kind::Object, true);
  if (const json::Value* tol = r.field("tolerance", json::Kind::Object, true)) {
    json::ObjectReader t(*tol, diags, "\"tolerance\"");
    t.number("rtol", true);
    t.number("atol", true);
    t.finish();
    if (!t.ok())
      r.fail();
  }
  r.string("oracle", true);
  r.stringList("references", true);
  r.field("notes", json::Kind::String, false);
  r.finish();
  return r.ok();
}

} // namespace

std::string Manifest::kernelPath(const CorpusCase& c) const {
  return (std::filesystem::path(baseDir) / c.path).string();
}

std::optional<Manifest> loadManifest(const std::string& path, SourceManager& sources,
                                     DiagnosticEngine& diags) {
  Manifest m;
  std::error_code ec;
  m.path = std::filesystem::is_directory(path, ec)
               ? (std::filesystem::path(path) / "manifest.json").string()
               : path;
  m.baseDir = std::filesystem::path(m.path).parent_path().string();
  std::string error;
  auto text = readFile(m.path, error, kMaxManifestBytes);
  if (!text) {
    FileId f = sources.addBuffer(m.path, "");
    diags.report(DiagId::DefIo, {f, 0, 0}, "cannot read manifest '" + m.path + "': " + error);
    return std::nullopt;
  }
  FileId mf = sources.addBuffer(m.path, *text);
  auto doc = json::parse(sources.text(mf), mf, diags);
  if (!doc)
    return std::nullopt;
  json::ObjectReader r(*doc, diags, "corpus manifest");
  r.allow("$comment");
  if (const json::Value* list = r.field("cases", json::Kind::Array, true)) {
    std::set<std::string> ids;
    for (const json::Value& v : list->elements) {
      json::ObjectReader c(v, diags, "corpus case");
      CorpusCase cc;
      cc.id = c.string("id", true).value_or("");
      cc.path = c.string("path", true).value_or("");
      cc.workload = c.string("workload", true).value_or("");
      if (!cc.id.empty() && !ids.insert(cc.id).second)
        diags.report(DiagId::DefDuplicate, v.get("id")->range,
                     "case id '" + cc.id + "' is used twice");
      if (const json::Value* e = c.field("expect", json::Kind::Object, true)) {
        json::ObjectReader ex(*e, diags, "\"expect\"");
        cc.accepted = ex.boolean("accepted", true).value_or(true);
        cc.codes = ex.stringList("codes", true);
        ex.finish();
        if (!ex.ok())
          c.fail();
      }
      c.finish();
      if (c.ok()) {
        if (!cc.workload.empty())
          checkWorkload((std::filesystem::path(m.baseDir) / cc.workload).string(), sources, diags);
        m.cases.push_back(std::move(cc));
      }
    }
  }
  r.finish();
  if (diags.hasBlocking())
    return std::nullopt;
  return m;
}

std::string expectationProblem(const CorpusCase& c, bool accepted,
                               const std::vector<Diagnostic>& findings) {
  std::set<std::string> expected(c.codes.begin(), c.codes.end());
  for (const Diagnostic& d : findings)
    if (d.severity == Severity::Blocking && !expected.count(d.code))
      return "unexpected blocking finding [" + d.code + "] " + d.message;
  for (const std::string& want : c.codes)
    if (std::none_of(findings.begin(), findings.end(),
                     [&](const Diagnostic& d) { return d.code == want; }))
      return "expected finding [" + want + "] not reported";
  if (accepted != c.accepted)
    return accepted ? "accepted, but the case expects a refusal"
                    : "refused, but the case expects acceptance";
  return {};
}

} // namespace cake::driver
