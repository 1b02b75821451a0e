// `cake gate`: the corpus gate (every manifest case checked, costed and lowered, compared with
// its expectation and a baseline report) and `cake gate --accept`, the recorded act that
// accepts a case's change into the baseline.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "CliSupport.h"

#include "cake/Driver/Manifest.h"
#include "cake/Driver/Output.h"
#include "cake/Gate/Gate.h"
#include "cake/Support/StringUtil.h"
#include "cake/Workspace/Workspace.h"

#include <cstdio>
#include <filesystem>
#include <iostream>


namespace cake::cli {

namespace {

constexpr std::size_t kMaxReportBytes = 64u << 20;

void printFindings(const DiagnosticEngine& diags, const SourceManager& sources) {
  for (const Diagnostic& d : diags.diagnostics())
    std::fputs(driver::renderText(d, sources).c_str(), stderr);
}

/// Reads a baseline report; prints located findings and returns nullopt when it is unusable.
std::optional<gate::GateReport> readBaseline(const std::string& path) {
  std::string error;
  auto text = readFile(path, error, kMaxReportBytes);
  if (!text) {
    std::fprintf(stderr, "cake gate: cannot read baseline '%s': %s\n", path.c_str(), error.c_str());
    return std::nullopt;
  }
  SourceManager sources;
  DiagnosticEngine diags;
  auto report = gate::readReport(path, std::move(*text), sources, diags);
  if (!report) {
    printFindings(diags, sources);
    std::fprintf(stderr, "cake gate: '%s' is not a gate report\n", path.c_str());
  }
  return report;
}

} // namespace

int cmdGate(const std::string& argv0, const std::vector<std::string>& all) {
  Args a = parseArgs(all, 1,
                     {"--corpus", "--baseline", "-o", "--output", "--format", "--jobs", "--actor",
                      "--comment", "--timeout", "--cuda-home", "--registry", "--targets", "--rules",
                      "--calibration", "--workspace"},
                     {"--ptxas", "--accept", "--help"});
  if (!a.error.empty())
    return usageError("gate", a.error);
  std::string format = a.get("--format", "text");
  int code = 0;
  if (!checkFormat("gate", format, {"text", "json"}, code))
    return code;
  long long jobs = 0;
  double timeout = 60;
  std::string bad;
  if (!integerOption(a, "--jobs", 1, 256, jobs, bad) ||
      !realOption(a, "--timeout", 0.001, 86400, timeout, bad))
    return usageError("gate", bad);
  bool accepting = a.has("--accept");
  std::string baselinePath = a.get("--baseline");
  std::string actor = a.get("--actor"), comment = a.get("--comment");
  if (accepting) {
    if (a.positional.empty())
      return usageError("gate", "--accept needs the case id(s) whose change is accepted");
    if (baselinePath.empty())
      return usageError("gate", "--accept rewrites a baseline: give --baseline REPORT");
    if (actor.empty() || comment.empty())
      return usageError("gate", "accepting a change is a recorded act: give --actor NAME and "
                                "--comment TEXT");
  } else if (!a.positional.empty()) {
    return usageError("gate", "unexpected argument '" + a.positional[0] +
                                  "' (case ids are named only with --accept)");
  } else if (a.options.count("--actor") || a.options.count("--comment")) {
    return usageError("gate", "--actor and --comment belong to --accept");
  }

  std::string out = a.get("-o", a.get("--output"));
  std::error_code ec;
  if (!out.empty() && !baselinePath.empty() &&
      (out == baselinePath || std::filesystem::equivalent(out, baselinePath, ec)))
    // Writing this run over the baseline would accept every change without a record.
    return usageError("gate", "-o would overwrite the baseline; accept a case's change with "
                              "--accept CASE (a recorded act)");

  auto compiler = loadCompiler(argv0, a, format);
  if (!compiler)
    return 2;
  SourceManager sources;
  DiagnosticEngine diags;
  std::string corpus = a.get("--corpus", driver::defaultCorpusDir(argv0));
  auto manifest = driver::loadManifest(corpus, sources, diags);
  if (!manifest) {
    printFindings(diags, sources);
    return 2;
  }
  std::optional<gate::GateReport> baseline;
  if (!baselinePath.empty() && !(baseline = readBaseline(baselinePath)))
    return 2;

  gate::GateOptions options;
  options.jobs = static_cast<unsigned>(jobs);
  options.ptxas = a.has("--ptxas");
  options.ptxasTimeoutSeconds = timeout;
  options.cudaHome = a.get("--cuda-home");
  gate::GateReport report = gate::runGate(*compiler, *manifest, options);

  if (accepting) {
    std::string error;
    // With a workspace, the act is also recorded there (one transaction: every case's
    // acceptance and its audit entry, at the head revision) before the baseline is rewritten.
    gate::GateRecorder recorder;
    std::optional<ws::Workspace> workspace;
    if (a.options.count("--workspace")) {
      auto w = ws::Workspace::open(a.get("--workspace"));
      if (!w) {
        printWorkspaceError(w.error(), format);
        return 2;
      }
      workspace.emplace(std::move(*w));
      recorder = [&](const gate::AcceptAct& act, std::string& why) {
        ws::Status st = workspace->atomically([&]() -> ws::Status {
          auto head = workspace->head();
          if (!head)
            return head.error();
          for (const std::string& id : act.cases)
            if (auto r = workspace->acceptGateCase(id, *head, act.actor, act.comment); !r)
              return r.error();
          return ws::Status::success();
        });
        if (!st)
          why = "the workspace did not record the act: " + st.error().text();
        return bool(st);
      };
    }
    if (!gate::acceptChanges(*baseline, report, a.positional, actor, comment, recorder, error)) {
      std::fprintf(stderr, "cake gate: %s\n", error.c_str());
      return 2;
    }
    if (!replaceFile(baselinePath, gate::toJson(*baseline), error)) {
      std::fprintf(stderr, "cake gate: %s\n", error.c_str());
      return 2;
    }
    std::fprintf(stderr, "cake gate: accepted the change(s) of %s into '%s' (by %s)\n",
                 join(baseline->acceptedChanges.back().cases, ", ").c_str(), baselinePath.c_str(),
                 actor.c_str());
  }
  if (baseline)
    gate::compareWithBaseline(report, *baseline);

  std::string jsonText = gate::toJson(report);
  if (!out.empty()) {
    std::string error;
    if (!writeFile(out, jsonText, error)) {
      std::fprintf(stderr, "cake gate: %s\n", error.c_str());
      return 2;
    }
  }
  if (format == "json")
    std::cout << jsonText;
  else
    std::cout << gate::toText(report);
  if (report.ptxas == gate::PtxasMode::Unavailable)
    std::fprintf(stderr, "cake gate: --ptxas: ptxas not found (set CUDA_HOME or --cuda-home); "
                         "no ptxas verdicts\n");
  return report.pass() ? 0 : 1;
}

} // namespace cake::cli
