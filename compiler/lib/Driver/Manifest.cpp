// Reading the corpus manifest and judging a check against a case's expectation.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Driver/Manifest.h"

#include "cake/Reference/Workload.h"
#include "cake/Support/JsonSchema.h"
#include "cake/Support/StringUtil.h"

#include <algorithm>
#include <filesystem>
#include <set>

namespace cake::driver {

namespace {

constexpr std::size_t kMaxManifestBytes = 4u << 20;

/// Validates one workload contract file (docs/workloads.md); false after reporting located
/// findings.
bool checkWorkload(const std::string& path, SourceManager& sources, DiagnosticEngine& diags) {
  return ref::loadWorkload(path, sources, diags).has_value();
}

} // namespace

std::string findCaseWorkload(const std::string& corpus, const std::string& kernelPath,
                             std::string& id, std::string& error) {
  namespace fs = std::filesystem;
  SourceManager sources;
  DiagnosticEngine diags;
  auto m = loadManifest(corpus, sources, diags);
  std::error_code ec;
  fs::path want = fs::weakly_canonical(kernelPath, ec);
  if (m)
    for (const CorpusCase& c : m->cases) {
      if (c.workload.empty() || fs::weakly_canonical(m->kernelPath(c), ec) != want)
        continue;
      id = c.id;
      return (fs::path(m->baseDir) / c.workload).string();
    }
  error = "no workload contract for '" + kernelPath + "': it is not a case of the corpus manifest" +
          (m ? std::string() : " (the manifest '" + corpus + "' cannot be read)") +
          "; give --workload FILE";
  return {};
}

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
        if (const json::Value* run = ex.field("run", json::Kind::Object, false)) {
          json::ObjectReader rr(*run, diags, "\"expect.run\"");
          cc.runCorrect = rr.boolean("correct", true);
          cc.runLine = rr.integer("written_by_line", false, 1).value_or(0);
          rr.finish();
          if (!rr.ok())
            ex.fail();
          if (cc.workload.empty()) {
            diags.report(DiagId::DefMissingField, json::headRange(*run),
                         "\"expect.run\" needs the case's \"workload\" contract");
            ex.fail();
          }
        }
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
