// `cake proposal evaluate`: reads an untrusted proposal folder, evaluates it in a sandboxed
// compiler (examples, gate with and without it) and, with --workspace, records the evaluation.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "CliSupport.h"

#include "cake/Driver/Manifest.h"
#include "cake/Driver/Output.h"
#include "cake/Proposal/Proposal.h"
#include "cake/Proposal/Record.h"
#include "cake/Support/Json.h"
#include "cake/Workspace/Workspace.h"

#include <cstdio>
#include <iostream>

#ifndef CAKE_CORPUS_DIR
#define CAKE_CORPUS_DIR ""
#endif

namespace cake::cli {

namespace {

/// Prints located prop-* findings (text on standard error; JSON on standard output).
int reportLoadFailure(const DiagnosticEngine& diags, const SourceManager& sources,
                      const std::string& format) {
  for (const Diagnostic& d : diags.diagnostics())
    std::fputs(driver::renderText(d, sources).c_str(), stderr);
  if (format == "json") {
    json::Writer w;
    w.beginObject();
    w.key("proposal_hash").null();
    w.key("valid").value(false);
    w.key("findings").beginArray();
    for (const Diagnostic& d : diags.diagnostics()) {
      w.beginObject();
      w.key("path").value(sources.contains(d.range.file) ? sources.name(d.range.file)
                                                         : std::string());
      w.key("finding");
      driver::writeJson(w, d, sources);
      w.endObject();
    }
    w.endArray();
    w.key("verdict").value("invalid");
    w.endObject();
    std::cout << w.str() << "\n";
  }
  return 1;
}

int evaluate(const std::string& argv0, const Args& a) {
  std::string format = a.get("--format", "text");
  int code = 0;
  if (!checkFormat("proposal", format, {"text", "json"}, code))
    return code;
  if (a.positional.size() != 1)
    return usageError("proposal", "evaluate takes one proposal folder");
  long long jobs = 0;
  std::string bad;
  if (!integerOption(a, "--jobs", 1, 256, jobs, bad))
    return usageError("proposal", bad);

  SourceManager sources;
  DiagnosticEngine diags;
  auto p = proposal::loadProposal(a.positional[0], sources, diags);
  if (!p) {
    diags.sortByLocation();
    return finishStdout(reportLoadFailure(diags, sources, format));
  }

  driver::DataPaths paths = driver::defaultDataPaths(argv0);
  if (a.options.count("--registry"))
    paths.primitives = a.get("--registry");
  if (a.options.count("--targets"))
    paths.targets = a.get("--targets");
  if (a.options.count("--rules"))
    paths.rules = a.get("--rules");

  std::optional<ws::Workspace> workspace;
  std::int64_t head = 0;
  DataOverlay overlay;
  if (a.options.count("--workspace")) {
    auto w = ws::Workspace::open(a.get("--workspace"), ws::OpenMode::MustExist);
    if (!w) {
      printWorkspaceError(w.error(), format);
      return 2;
    }
    workspace.emplace(std::move(*w));
    auto h = workspace->head();
    auto o = h ? workspace->dataOverlay(*h) : ws::Expected<DataOverlay>(h.error());
    if (!o) {
      printWorkspaceError(o.error(), format);
      return 2;
    }
    head = *h;
    overlay = std::move(*o);
  }

  std::optional<driver::Manifest> manifest;
  SourceManager manifestSources;
  DiagnosticEngine manifestDiags;
  if (!a.has("--no-gate")) {
    manifest =
        driver::loadManifest(a.get("--corpus", driver::defaultCorpusDir(argv0)), manifestSources, manifestDiags);
    if (!manifest) {
      for (const Diagnostic& d : manifestDiags.diagnostics())
        std::fputs(driver::renderText(d, manifestSources).c_str(), stderr);
      return 2;
    }
  }
  gate::GateOptions options;
  options.jobs = static_cast<unsigned>(jobs);
  proposal::Evaluation ev =
      proposal::evaluateProposal(*p, paths, overlay, manifest ? &*manifest : nullptr, options);
  std::string report = proposal::toJson(ev);

  if (workspace) {
    auto recorded =
        proposal::recordEvaluation(*workspace, *p, head, report, a.get("--actor", "cake"));
    if (!recorded) {
      printWorkspaceError(recorded.error(), format);
      return 2;
    }
  }
  if (format == "json")
    std::cout << report;
  else
    std::cout << proposal::toText(ev);
  return finishStdout(ev.verdict == "clean" ? 0 : 1);
}

} // namespace

int cmdProposal(const std::string& argv0, const std::vector<std::string>& all) {
  if (all.size() < 2 || all[1] == "--help" || all[1] == "help")
    return usageError(
        "proposal", "usage: cake proposal evaluate P [--workspace WS] [--corpus MANIFEST] "
                    "[--format text|json]\n"
                    "       cake proposal status P|HASH --workspace WS [--format text|json]\n"
                    "       cake proposal approve|reject|request-changes|comment P --workspace WS "
                    "--reviewer NAME --comment TEXT [--accept-change CASE...]");
  const std::string& sub = all[1];
  if (sub == "evaluate") {
    Args a = parseArgs(all, 2,
                       {"--workspace", "--corpus", "--format", "--jobs", "--actor", "--registry",
                        "--targets", "--rules"},
                       {"--no-gate"});
    if (!a.error.empty())
      return usageError("proposal", a.error);
    return evaluate(argv0, a);
  }
  if (sub != "status" && !ws::decisionFromString(sub))
    return usageError("proposal", "unknown subcommand '" + sub +
                                      "' (evaluate, status, approve, reject, request-changes, "
                                      "comment)");
  Args a = parseArgs(all, 2,
                     {"--workspace", "--format", "--reviewer", "--comment", "--accept-change"}, {});
  if (!a.error.empty())
    return usageError("proposal", a.error);
  return proposalReview(sub, a);
}

} // namespace cake::cli
