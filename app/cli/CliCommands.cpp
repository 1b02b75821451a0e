// Implementation of the `cake` subcommands: check, fmt, primitives, targets, corpus, explain,
// version. Every command has a JSON form; exit codes are 0 (ok), 1 (findings), 2 (usage/IO).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "CliCommands.h"

#include "CliPrimitives.h"
#include "CliSupport.h"
#include "cake/Driver/Compiler.h"
#include "cake/Driver/Manifest.h"
#include "cake/Driver/Output.h"
#include "cake/Driver/Reports.h"
#include "cake/Driver/Sarif.h"
#include "cake/IR/Printer.h"
#include "cake/Interp/Run.h"
#include "cake/Parse/Parser.h"
#include "cake/Support/StringUtil.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <unistd.h>


namespace cake::cli {

constexpr std::size_t kMaxInputBytes = 64u << 20;

/// Splits arguments; `valued` options take a value, `boolean` ones do not.
Args parseArgs(const std::vector<std::string>& in, std::size_t start,
               const std::set<std::string>& valued, const std::set<std::string>& boolean) {
  Args a;
  for (std::size_t i = start; i < in.size(); ++i) {
    const std::string& s = in[i];
    if (s == "--") {
      for (++i; i < in.size(); ++i)
        a.positional.push_back(in[i]);
      break;
    }
    if (s.size() > 1 && s[0] == '-' && s != "-") {
      std::string key = s, value;
      bool hasValue = false;
      if (auto eq = s.find('='); eq != std::string::npos) {
        key = s.substr(0, eq);
        value = s.substr(eq + 1);
        hasValue = true;
      }
      if (valued.count(key)) {
        if (!hasValue) {
          if (i + 1 >= in.size()) {
            a.error = "option " + key + " needs a value";
            return a;
          }
          value = in[++i];
        }
        a.options[key] = value;
        a.repeated[key].push_back(value);
      } else if (boolean.count(key) && !hasValue) {
        a.flags.insert(key);
      } else {
        a.error = "unknown option '" + s + "'";
        return a;
      }
      continue;
    }
    a.positional.push_back(s);
  }
  return a;
}

int usageError(const std::string& command, const std::string& message) {
  std::fprintf(stderr, "cake %s: %s\nRun 'cake help %s' for usage.\n", command.c_str(),
               message.c_str(), command.c_str());
  return 2;
}

std::optional<std::string> readInput(const std::string& path, std::string& error) {
  if (path == "-") {
    std::string content;
    char buf[1 << 16];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) {
      content.append(buf, n);
      if (content.size() > kMaxInputBytes) {
        error = "standard input exceeds " + std::to_string(kMaxInputBytes) + " bytes";
        return std::nullopt;
      }
    }
    return content;
  }
  return readFile(path, error, kMaxInputBytes);
}

bool checkFormat(const std::string& command, const std::string& format,
                 std::initializer_list<std::string_view> allowed, int& exitCode) {
  if (std::find(allowed.begin(), allowed.end(), format) != allowed.end())
    return true;
  std::string list;
  for (std::string_view a : allowed)
    list += (list.empty() ? "" : ", ") + std::string(a);
  exitCode = usageError(command, "unknown format '" + format + "' (use " + list + ")");
  return false;
}

bool useColor(const Args& a) {
  std::string mode = a.get("--color", "auto");
  if (mode == "always")
    return true;
  if (mode == "never")
    return false;
  return isatty(STDOUT_FILENO) && std::getenv("NO_COLOR") == nullptr;
}

/// Loads the compiler data; on failure prints the located definition findings and returns null.
std::unique_ptr<driver::Compiler> loadCompiler(const std::string& argv0, const Args& a,
                                               const std::string& format) {
  driver::DataPaths paths = driver::defaultDataPaths(argv0);
  if (a.options.count("--registry"))
    paths.primitives = a.get("--registry");
  if (a.options.count("--targets"))
    paths.targets = a.get("--targets");
  if (a.options.count("--rules"))
    paths.rules = a.get("--rules");
  if (a.options.count("--calibration"))
    paths.calibration = a.get("--calibration");
  DataOverlay overlay;
  if (a.options.count("--workspace")) {
    // Built-in data plus the workspace's head revision (the approved overlay).
    auto o = loadWorkspaceOverlay(a.get("--workspace"));
    if (!o) {
      printWorkspaceError(o.error(), format);
      return nullptr;
    }
    overlay = std::move(*o);
  }
  auto compiler = driver::Compiler::load(paths, std::move(overlay));
  if (compiler->ok()) {
    // Reports (non-blocking) about the data still deserve to be seen.
    for (const Diagnostic& d : compiler->loadDiagnostics())
      std::fputs(driver::renderText(d, compiler->sources()).c_str(), stderr);
    return compiler;
  }
  if (format == "json") {
    json::Writer w;
    w.beginObject();
    w.key("compiler_revision").null();
    w.key("error").value("the compiler's data files are invalid");
    w.key("definition_findings").beginArray();
    for (const Diagnostic& d : compiler->loadDiagnostics()) {
      w.beginObject();
      w.key("path").value(compiler->sources().contains(d.range.file)
                              ? compiler->sources().name(d.range.file)
                              : std::string());
      w.key("finding");
      driver::writeJson(w, d, compiler->sources());
      w.endObject();
    }
    w.endArray();
    w.endObject();
    std::cout << w.str() << "\n";
  }
  for (const Diagnostic& d : compiler->loadDiagnostics())
    std::fputs(driver::renderText(d, compiler->sources()).c_str(), stderr);
  if (compiler->targets().all().empty())
    std::fprintf(stderr, "cake: no target loaded from '%s'\n", paths.targets.c_str());
  if (compiler->registry().all().empty())
    std::fprintf(stderr, "cake: no primitive loaded from '%s'\n", paths.primitives.c_str());
  std::fprintf(stderr, "cake: the compiler's data files are invalid (see above); exit 2\n");
  return nullptr;
}

// ------------------------------------------------------------------ check
int cmdCheck(const std::string& argv0, const std::vector<std::string>& all) {
  Args a = parseArgs(all, 1,
                     {"--format", "--registry", "--targets", "--rules", "--workspace", "--color",
                      "--max-findings", "--max-text", "--stop-after"},
                     {"--verify", "--verify-blocking", "--quiet", "--help"});
  if (!a.error.empty())
    return usageError("check", a.error);
  std::string format = a.get("--format", "text");
  int code = 0;
  if (!checkFormat("check", format, {"text", "json", "sarif"}, code))
    return code;
  long long maxFindingsIn = -1, maxTextIn = -1;
  std::string bad;
  if (!integerOption(a, "--max-findings", 0, std::numeric_limits<long long>::max(), maxFindingsIn,
                     bad) ||
      !integerOption(a, "--max-text", 8, std::numeric_limits<long long>::max(), maxTextIn, bad))
    return usageError("check", bad);
  std::size_t maxFindings = maxFindingsIn < 0 ? SIZE_MAX : static_cast<std::size_t>(maxFindingsIn);
  std::size_t maxText = maxTextIn < 0 ? SIZE_MAX : static_cast<std::size_t>(maxTextIn);
  verify::VerifyOptions verifyOptions;
  std::string stopAfter = a.get("--stop-after", "verify");
  if (stopAfter == "sema")
    verifyOptions.analyses = false;
  else if (stopAfter != "verify")
    return usageError("check", "--stop-after takes 'sema' or 'verify', not '" + stopAfter + "'");
  bool verifyMode = a.has("--verify") || a.has("--verify-blocking");
  if (a.positional.empty())
    return usageError("check", "no input file (use '-' for standard input)");
  auto compiler = loadCompiler(argv0, a, format);
  if (!compiler)
    return 2;
  bool color = format == "text" && useColor(a);
  bool ioError = false, blocking = false, verifyFailed = false;
  std::vector<driver::CheckResult> results;
  std::vector<driver::SarifFile> sarif;
  results.reserve(a.positional.size());
  json::Writer w;
  w.beginObject();
  w.key("compiler_revision").value(compiler->revision());
  w.key("files").beginArray();
  for (const std::string& path : a.positional) {
    std::string error;
    auto text = readInput(path, error);
    std::string shownPath = path == "-" ? "<stdin>" : path;
    if (!text) {
      ioError = true;
      if (format == "json") {
        w.beginObject().key("path").value(shownPath).key("error").value(error).endObject();
      }
      std::fprintf(stderr, "cake: error: cannot read '%s': %s\n", shownPath.c_str(),
                   error.c_str());
      sarif.push_back({shownPath, nullptr, error});
      continue;
    }
    // Only --verify reads the text again; otherwise the source manager keeps the one copy.
    results.push_back(compiler->check(shownPath, verifyMode ? *text : std::move(*text),
                                      verifyOptions));
    driver::CheckResult& r = results.back();
    blocking |= !r.accepted;
    // Bounded mode for agent prompts: most severe first, then cut.
    std::size_t omitted = r.dropped;
    if (maxFindings != SIZE_MAX || maxText != SIZE_MAX) {
      std::stable_sort(r.diagnostics.begin(), r.diagnostics.end(),
                       [](const Diagnostic& x, const Diagnostic& y) { return x.severity < y.severity; });
      if (r.diagnostics.size() > maxFindings) {
        omitted += r.diagnostics.size() - maxFindings;
        r.diagnostics.resize(maxFindings);
      }
      auto clip = [&](std::string& t) {
        if (t.size() > maxText)
          t = t.substr(0, maxText - 3) + "...";
      };
      for (Diagnostic& d : r.diagnostics) {
        clip(d.message);
        for (DiagNote& n : d.notes)
          clip(n.message);
      }
    }
    if (format == "sarif") {
      sarif.push_back({shownPath, &r, ""});
      continue;
    }
    if (verifyMode) {
      std::vector<std::string> problems;
      auto expectations = driver::parseExpectations(*text, problems);
      auto mismatches = driver::verifyExpectations(std::move(expectations), r.diagnostics,
                                                   *r.sources, r.file, a.has("--verify-blocking"));
      problems.insert(problems.end(), mismatches.begin(), mismatches.end());
      for (const std::string& p : problems)
        std::printf("%s: %s\n", shownPath.c_str(), p.c_str());
      if (!problems.empty())
        verifyFailed = true;
      continue;
    }
    if (format == "json") {
      driver::writeCheckFileJson(w, shownPath, r, omitted);
      continue;
    }
    std::size_t counts[3] = {0, 0, 0};
    for (const Diagnostic& d : r.diagnostics) {
      ++counts[static_cast<int>(d.severity)];
      if (!a.has("--quiet"))
        std::fputs(driver::renderText(d, *r.sources, {color, true}).c_str(), stdout);
    }
    std::printf("%s: %s (%zu blocking, %zu report, %zu hint%s)\n", shownPath.c_str(),
                r.accepted ? "accepted" : "refused", counts[0], counts[1], counts[2],
                omitted ? (", " + std::to_string(omitted) + " omitted").c_str() : "");
  }
  w.endArray();
  w.endObject();
  if (format == "json" && !verifyMode)
    std::cout << w.str() << "\n";
  if (format == "sarif")
    std::cout << driver::toSarif(*compiler, sarif) << "\n";
  if (ioError)
    return 2;
  if (verifyMode)
    return verifyFailed ? 1 : 0;
  return blocking ? 1 : 0;
}

// ------------------------------------------------------------------ fmt
int cmdFmt(const std::vector<std::string>& all) {
  Args a = parseArgs(all, 1, {"--color"}, {"--check", "--in-place", "-i", "--help"});
  if (!a.error.empty())
    return usageError("fmt", a.error);
  if (a.positional.empty())
    return usageError("fmt", "no input file (use '-' for standard input)");
  bool inPlace = a.has("--in-place") || a.has("-i");
  if (a.positional.size() > 1 && !inPlace && !a.has("--check"))
    return usageError("fmt", "several files need --in-place or --check");
  int exitCode = 0;
  for (const std::string& path : a.positional) {
    if (inPlace && path == "-")
      return usageError("fmt", "--in-place cannot rewrite standard input");
    std::string error;
    auto text = readInput(path, error);
    std::string shown = path == "-" ? "<stdin>" : path;
    if (!text) {
      std::fprintf(stderr, "cake: error: cannot read '%s': %s\n", shown.c_str(), error.c_str());
      exitCode = 2;
      continue;
    }
    SourceManager sources;
    FileId file = sources.addBuffer(shown, *text);
    DiagnosticEngine diags;
    ir::Module module = parseModule(sources, file, diags);
    if (diags.hasBlocking()) {
      // Never print or write a partial file: formatting needs a file that parses.
      for (const Diagnostic& d : diags.diagnostics())
        std::fputs(driver::renderText(d, sources).c_str(), stderr);
      std::fprintf(stderr, "cake fmt: '%s' has syntax errors; nothing was written\n",
                   shown.c_str());
      exitCode = std::max(exitCode, 1);
      continue;
    }
    std::string formatted = ir::print(module);
    if (a.has("--check")) {
      if (formatted != *text) {
        std::printf("%s: not canonical (run 'cake fmt -i %s')\n", shown.c_str(), shown.c_str());
        exitCode = std::max(exitCode, 1);
      }
      continue;
    }
    if (inPlace) {
      if (formatted != *text && !replaceFile(path, formatted, error)) {
        std::fprintf(stderr, "cake: error: %s\n", error.c_str());
        exitCode = 2;
      }
      continue;
    }
    std::fwrite(formatted.data(), 1, formatted.size(), stdout);
  }
  return exitCode;
}

// ------------------------------------------------------------------ targets
int cmdTargets(const std::string& argv0, const std::vector<std::string>& all) {
  Args a = parseArgs(
      all, 1, {"--format", "--registry", "--targets", "--rules", "--workspace", "--calibration"},
      {"--help"});
  if (!a.error.empty())
    return usageError("targets", a.error);
  std::string format = a.get("--format", "text");
  int code = 0;
  if (!checkFormat("targets", format, {"text", "json"}, code))
    return code;
  auto compiler = loadCompiler(argv0, a, format);
  if (!compiler)
    return 2;
  const auto& targets = compiler->targets().all();
  if (format == "json") {
    json::Writer w;
    w.beginObject();
    w.key("compiler_revision").value(compiler->revision());
    w.key("targets").beginArray();
    for (const auto& t : targets) {
      w.beginObject();
      w.key("name").value(t->name).key("gpu").value(t->gpu);
      w.key("compute_capability").value(t->computeCapability).key("ptx_isa").value(t->ptxIsa);
      auto facts = [&](const char* key, const auto& map) {
        w.key(key).beginObject();
        for (const auto& [k, f] : map) {
          w.key(k).beginObject().key("value").value(f.value).key("source").value(f.source);
          w.endObject();
        }
        w.endObject();
      };
      facts("limits", t->limits);
      facts("machine", t->machine);
      facts("tensor_tflops", t->tensorTflops);
      facts("timing", t->timing);
      facts("features", t->features);
      w.key("spaces").beginArray();
      for (ir::Space s : t->spaces)
        w.value(ir::toString(s));
      w.endArray();
      w.key("dtypes").beginArray();
      for (ir::DType d : t->dtypes)
        w.value(ir::toString(d));
      w.endArray();
      w.key("calibrated").value(t->calibrated());
      w.key("path").value(t->path);
      w.endObject();
    }
    w.endArray();
    w.endObject();
    std::cout << w.str() << "\n";
    return 0;
  }
  for (const auto& t : targets) {
    std::vector<std::string> on;
    for (const auto& [k, f] : t->features)
      if (f.value)
        on.push_back(k);
    std::printf("%-8s %s (cc %s, PTX ISA >= %s)%s\n", t->name.c_str(), t->gpu.c_str(),
                t->computeCapability.c_str(), t->ptxIsa.c_str(),
                t->calibrated() ? "" : "  [not calibrated]");
    std::printf("         %lld SMs, %.0f MHz, HBM %.0f GB/s, smem/CTA %lld B, TMEM %lld cols\n",
                static_cast<long long>(t->machineValue("sm_count")),
                t->machineValue("boost_clock_mhz"), t->machineValue("hbm_bandwidth_gbps"),
                static_cast<long long>(t->limit("smem_per_cta_bytes")),
                static_cast<long long>(t->limit("tmem_columns")));
    std::printf("         features: %s\n", join(on, ", ").c_str());
  }
  return 0;
}

// ------------------------------------------------------------------ corpus
namespace {
/// Why the CPU run of a case (small shapes) does not match its `expect.run`; empty when it does.
std::string runProblem(const driver::Compiler& compiler, const driver::CorpusCase& c,
                       const std::string& path, const std::string& text,
                       const std::string& workload) {
  interp::RunResult r = interp::runOnCpu(compiler, path, text, workload);
  if (!r.ran && *c.runCorrect) {
    std::string why = r.findings.empty() ? std::string("not run")
                                         : "[" + r.findings.front().code + "] " +
                                               r.findings.front().message;
    return "CPU run: " + why;
  }
  if (r.correct != *c.runCorrect)
    return r.correct ? "CPU run: correct, but the case expects a wrong result"
                     : "CPU run: incorrect, but the case expects a correct result";
  if (c.runLine) {
    for (const interp::OutputVerdict& o : r.outputs)
      if (o.firstMismatch) {
        const interp::WrittenBy& w = o.firstMismatch->writtenBy;
        if (!w.known || w.line != std::uint32_t(c.runLine))
          return "CPU run: the first wrong element of " + o.name + " was written by line " +
                 (w.known ? std::to_string(w.line) : std::string("none")) +
                 ", the case expects line " + std::to_string(c.runLine);
        return {};
      }
    return "CPU run: no wrong element to attribute to line " + std::to_string(c.runLine);
  }
  return {};
}
} // namespace

int cmdCorpus(const std::string& argv0, const std::vector<std::string>& all) {
  Args a = parseArgs(all, 1, {"--format", "--registry", "--targets", "--rules", "--workspace"},
                     {"--help"});
  if (!a.error.empty())
    return usageError("corpus", a.error);
  std::string format = a.get("--format", "text");
  int code = 0;
  if (!checkFormat("corpus", format, {"text", "json"}, code))
    return code;
  std::string manifestPath =
      a.positional.empty() ? (std::filesystem::path(driver::defaultCorpusDir(argv0)) / "manifest.json").string()
                           : a.positional[0];
  auto compiler = loadCompiler(argv0, a, format);
  if (!compiler)
    return 2;
  SourceManager sources;
  DiagnosticEngine diags;
  auto manifest = driver::loadManifest(manifestPath, sources, diags);
  if (!manifest) {
    for (const Diagnostic& d : diags.diagnostics())
      std::fputs(driver::renderText(d, sources).c_str(), stderr);
    return 2;
  }
  bool allPass = true;
  json::Writer w;
  w.beginObject();
  w.key("compiler_revision").value(compiler->revision());
  w.key("manifest").value(manifest->path);
  w.key("cases").beginArray();
  for (const driver::CorpusCase& c : manifest->cases) {
    std::string path = manifest->kernelPath(c);
    std::string error;
    auto kernelText = readFile(path, error, kMaxInputBytes);
    std::vector<std::string> got;
    bool accepted = false;
    std::string problem;
    if (!kernelText) {
      problem = "cannot read: " + error;
    } else {
      driver::CheckResult r = compiler->check(path, *kernelText);
      accepted = r.accepted;
      for (const Diagnostic& d : r.diagnostics)
        got.push_back(d.code);
      problem = driver::expectationProblem(c, accepted, r.diagnostics);
      if (problem.empty() && c.runCorrect)
        problem = runProblem(*compiler, c, path, *kernelText,
                             (std::filesystem::path(manifest->baseDir) / c.workload).string());
    }
    bool pass = problem.empty();
    allPass &= pass;
    if (format == "json") {
      w.beginObject();
      w.key("id").value(c.id).key("path").value(c.path).key("pass").value(pass);
      w.key("accepted").value(accepted);
      w.key("codes").beginArray();
      for (const std::string& g : got)
        w.value(g);
      w.endArray();
      if (!pass)
        w.key("problem").value(problem);
      w.endObject();
    } else {
      std::printf("%-4s %-28s %s%s\n", pass ? "ok" : "FAIL", c.id.c_str(),
                  accepted ? "accepted" : "refused",
                  pass ? "" : ("  -- " + problem).c_str());
    }
  }
  w.endArray();
  w.key("pass").value(allPass);
  w.endObject();
  if (format == "json")
    std::cout << w.str() << "\n";
  else
    std::printf("%zu case(s), %s\n", manifest->cases.size(), allPass ? "all pass" : "FAILURES");
  return allPass ? 0 : 1;
}

// ------------------------------------------------------------------ explain / version / help
int cmdVersion(const std::string& argv0, const std::vector<std::string>& all) {
  Args a = parseArgs(all, 1, {"--format", "--registry", "--targets", "--rules", "--workspace"},
                     {"--help", "--version"});
  if (!a.error.empty())
    return usageError("version", a.error);
  std::string format = a.get("--format", "text");
  auto compiler = loadCompiler(argv0, a, format);
  if (!compiler)
    return 2;
  if (format == "json") {
    json::Writer w;
    w.beginObject();
    w.key("version").value(driver::Compiler::version());
    w.key("compiler_revision").value(compiler->revision());
    w.key("primitives").value(static_cast<std::uint64_t>(compiler->registry().all().size()));
    w.key("targets").beginArray();
    for (const std::string& t : compiler->targets().names())
      w.value(t);
    w.endArray();
    w.key("primitive_dir").value(compiler->paths().primitives);
    w.key("corpus_dir").value(driver::defaultCorpusDir(argv0));
    w.key("target_dir").value(compiler->paths().targets);
    w.endObject();
    std::cout << w.str() << "\n";
    return 0;
  }
  std::printf("cake %s (compiler revision %s; %zu primitives, targets %s)\n",
              driver::Compiler::version().c_str(), compiler->revision().c_str(),
              compiler->registry().all().size(), join(compiler->targets().names(), ", ").c_str());
  return 0;
}

void printHelp(const std::string& topic) {
  static const std::map<std::string, std::string> help = {
      {"check",
       "cake check FILE... [--format text|json|sarif] [--max-findings N] [--max-text N]\n"
       "           [--verify | --verify-blocking] [--quiet] [--color auto|always|never]\n"
       "           [--stop-after sema|verify] [--registry DIR] [--targets DIR] [--rules DIR]\n"
       "           [--workspace WS]\n"
       "  Parses, type-checks and verifies kernels ('-' reads standard input).\n"
       "  --stop-after sema skip the verifier's analyses (parse and type check only)\n"
       "  --max-findings N  keep the N most severe findings per file (JSON: omitted)\n"
       "  --max-text N      cut messages to N characters (agent prompts)\n"
       "  --verify          compare findings with '// expect: CODE' annotations\n"
       "  --verify-blocking the same, but unannotated reports and hints are ignored\n"
       "  exit: 0 no blocking finding, 1 blocking findings, 2 usage or I/O error\n"},
      {"fmt", "cake fmt FILE|- [--check] [-i|--in-place]\n"
              "  Prints the canonical form. --check exits 1 when a file is not canonical;\n"
              "  -i rewrites files atomically. Files with syntax errors are never written.\n"},
      {"primitives", "cake primitives [NAME...] [--format text|json|md] [--target T]\n"
                     "                [--registry DIR] [--targets DIR]\n"
                     "  Lists the primitive registry loaded from its data files.\n"},
      {"targets", "cake targets [--format text|json] [--targets DIR] [--calibration DIR]\n"
                  "  Lists the known exact targets with their cited facts.\n"},
      {"corpus", "cake corpus [MANIFEST] [--format text|json]\n"
                 "  Checks every corpus case against its expectation (default: the bundled\n"
                 "  corpus/manifest.json). exit 1 when a case does not match.\n"},
      {"gate", "cake gate [--corpus DIR|MANIFEST] [--baseline REPORT] [-o REPORT]\n"
               "          [--format text|json] [--ptxas] [--jobs N] [--timeout S]\n"
               "          [--cuda-home DIR] [--registry DIR] [--targets DIR] [--rules DIR]\n"
               "          [--calibration DIR] [--workspace WS]\n"
               "cake gate --accept CASE... --baseline REPORT --actor NAME --comment TEXT\n"
               "          [--workspace WS]\n"
               "  Runs every manifest case in parallel: check (verdict, finding codes), cost\n"
               "  (predicted us), lowering digests (SHA-256 of metadata, PTX of the LLVM path,\n"
               "  CUDA) and, with --ptxas, ptxas's verdict. Each case is compared with its\n"
               "  manifest expectation and, with --baseline, with the baseline report: the delta\n"
               "  lists changed verdicts, findings, predictions (relative change > 1e-9) and\n"
               "  code digests, and missing or new cases. -o writes the JSON report (a baseline).\n"
               "  --accept rewrites the baseline entries of exactly the named cases from this\n"
               "  run and records who and why in its accepted_changes; manifest expectations\n"
               "  are never rewritten. With --workspace, the compiler is the workspace's head\n"
               "  revision and the act is also recorded in its audit log. See docs/corpus.md.\n"
               "  exit: 0 pass, 1 a case does not match its manifest or an unaccepted change,\n"
               "  2 usage, I/O or invalid manifest/baseline\n"},
      {"explain", "cake explain CODE [--format text|json]\n"
                  "  The rule behind a finding code: family, severity, analysis, documentation\n"
                  "  with a bad and a good example.\n"},
      {"trace", "cake trace FILE [--format json|chrome] [--tiles N] [--max-events N]\n"
                "  The barrier-protocol simulation of a kernel: per-role events (issue, arrive,\n"
                "  expect_tx, complete_tx, wait with slot and phase), barrier and resource\n"
                "  summaries; --format chrome writes Chrome/Perfetto trace JSON.\n"},
      {"lower",
       "cake lower FILE --emit llvm|ptx|cuda|cubin|metadata|sass [-o OUT] [--via llvm|cuda]\n"
       "           [--cuda-compiler nvrtc|nvcc] [--format text|json] [-O N] [--no-debug-info]\n"
       "           [--timeout S] [--cuda-home DIR] [--benchmark N]\n"
       "  Lowers an accepted kernel. metadata: the derived tables (JSON); llvm/ptx: the\n"
       "  in-process LLVM path (sm_80, sm_90a); cuda: CUDA C++ with inline PTX for every\n"
       "  target; cubin: ptxas (--via llvm) or NVRTC/nvcc (--via cuda) with resource\n"
       "  evidence judged against the IR; sass: that cubin (nvcc -lineinfo with --via cuda)\n"
       "  disassembled by nvdisasm -c -g (found through CAKE_NVDISASM, PATH, the CUDA\n"
       "  toolkit or the pip package nvidia-cuda-nvdisasm; JSON adds the SASS -> IR line\n"
       "  links). --benchmark N times the LLVM path against\n"
       "  nvcc -ptx on the exported CUDA. exit: 0 ok, 1 findings, 2 usage or I/O error\n"},
      {"diff", "cake diff A.cake B.cake [--format text|json] [--target T] [--no-ptx]\n"
               "  Semantic diff: declarations and operations added/removed/changed (aligned by\n"
               "  role, primitive and operands, not by line), findings appeared/disappeared,\n"
               "  delta of predicted time and bottleneck, shared memory, registers, stages, and\n"
               "  the generated PTX (LLVM path). --target T costs and lowers both on T.\n"
               "  exit: 0 no semantic difference, 1 different, 2 usage, I/O or parse error\n"},
      {"run",
       "cake run KERNEL --device cpu [--workload W] [--shapes small|full] [--seed S]\n"
       "         [--interleavings N] [--max-memory-mib M] [--format text|json]\n"
       "  Executes the schedule with the CPU interpreter on the inputs of its workload\n"
       "  contract (default: the bundled corpus case's) and compares every output with\n"
       "  the reference operator; the first wrong element names the IR line that last\n"
       "  wrote it (docs/workloads.md). exit 0 correct, 1 incorrect or not runnable, 2 usage.\n"
       "cake run FILE [--device gpu|cpu] [--executor local|ssh://HOST|slurm[:PARTITION]]\n"
       "         [--timeout S] [--format text|json] [--workload CONTRACT.json] [--bundle DIR]\n"
       "         [--bundle-only] [--keep] [--runner PATH] [--ssh-config FILE]\n"
       "         [--shared-dir DIR] [--remote-tmp DIR] [--workspace WS] [--measurements FILE]\n"
       "         [--shapes small|full]\n"
       "  Builds a run bundle (cubin via ptxas for sm_80/sm_90a, via nvcc for sm_100a;\n"
       "  lowering metadata; the workload contract, from the corpus manifest unless given)\n"
       "  and runs it with `cake-run` through the executor: local; ssh (system ssh/scp, the\n"
       "  runner at --runner or $CAKE_RUNNER on the host, default this cake's cake-run path);\n"
       "  slurm (sbatch --parsable, --gres=gpu:1, squeue polling, scancel on timeout or\n"
       "  Ctrl-C; the bundle goes to --shared-dir or $CAKE_SLURM_SHARED_DIR). Prints the run\n"
       "  record; --workspace stores it, --measurements adds it for `cake calibrate`\n"
       "  (a CPU run to be stored goes through cake-run too; --shapes: its contract shapes).\n"
       "  See docs/runs.md. exit: 0 correct, 1 incorrect or not built, 2 usage, 3 no driver\n"
       "  or device, 4 target refused, 5 executor failed/timeout/cancel, 6 no oracle\n"},
      {"runs", "cake runs --workspace WS [--kernel NAME] [--format text|json]\n"
               "  The run records `cake run --workspace` stored, oldest first (JSON: each\n"
               "  record verbatim).\n"},
      {"cost", "cake cost FILE [--format text|json] [--no-hints] [--calibration DIR]\n"
               "  Predicted kernel time with bounds, the bottleneck (memory-, tensor-, compute-,\n"
               "  latency/sync- or occupancy-bound) attributed to operations and roles, roofline\n"
               "  coordinates and hints naming the IR decision to change with its predicted gain.\n"
               "  Refuses kernels with blocking findings (exit 1). See docs/cost.md.\n"},
      {"calibrate",
       "cake calibrate MEASUREMENTS.json [--target T] [-o FILE] [--format text|json]\n"
       "  Fits the cost model's parameters to measured runs ({\"kernel\", \"measured_us\",\n"
       "  \"problem\"?, \"consts\"?, \"stages\"?, \"schedule\"?}), reports rank correlation\n"
       "  and top-1 regret before/after, and writes the calibration file with -o.\n"},
      {"rules", "cake rules [--format text|json|md] [--family F] [--severity S]\n"
                "  Lists the rule registry loaded from compiler/rules/ (data).\n"},
      {"workspace",
       "cake workspace init WS [--format text|json]\n"
       "  Creates the workspace directory WS with its store (WS/workspace.db, SQLite):\n"
       "  revision 1 (the built-in data, no overlay) and the first audit entry.\n"
       "  An existing workspace is left as it is. See docs/workspace.md.\n"},
      {"revisions", "cake revisions --workspace WS [--format text|json]\n"
                    "  Every revision of the approved overlay, oldest first: actor, reason, time,\n"
                    "  content hash and the files added (+), changed (~) and removed (-) against\n"
                    "  its parent.\n"},
      {"revision", "cake revision revert REV --workspace WS --reviewer NAME --comment TEXT\n"
                   "           [--format text|json]\n"
                   "  Installs the overlay of revision REV (3 or rev3) as a new revision; the\n"
                   "  revert is recorded in the audit log. exit 2 when REV is unknown or already\n"
                   "  the head's content.\n"},
      {"campaign",
       "cake campaign import DIR --workspace WS [--format text|json] [--jobs N] [--actor NAME]\n"
       "cake campaign list --workspace WS [--format text|json]\n"
       "cake campaign show NAME --workspace WS [--format text|json]\n"
       "  Imports the new lines of a campaign folder (campaign.json, candidates.jsonl; see\n"
       "  docs/campaigns.md): each candidate checked, costed and lowered in parallel and\n"
       "  stored; bad lines are located errors, the rest is imported. list and show print the\n"
       "  stored campaigns, the lineage and the best path.\n"
       "  exit: 0 ok, 1 some lines refused, 2 usage, unusable campaign.json or store error\n"},
      {"evolve",
       "cake evolve KERNEL --workspace WS --budget N [--seed S] [--strategy islands|map-elites]\n"
       "          [--out DIR] [--arm NAME] [--name CAMPAIGN] [--workload FILE] [--jobs N]\n"
       "          [--timestamp ISO] [--no-hints] [--format text|json]\n"
       "  Searches one-decision schedule edits of KERNEL (pipeline depth, grid schedule, tile\n"
       "  constants, register split, swizzle, MMA groups in flight), gated by the verifier and\n"
       "  ranked by the cost model (the edits its hints name first, unless --no-hints); writes\n"
       "  a campaign folder (or a new arm of one) and imports it. Deterministic for a seed (give "
       "--timestamp for byte-identical logs).\n"},
      {"proposal",
       "cake proposal evaluate P [--workspace WS] [--corpus DIR|MANIFEST] [--format text|json]\n"
       "          [--actor NAME] [--jobs N] [--no-gate] [--registry DIR] [--targets DIR]\n"
       "          [--rules DIR]\n"
       "  Reads the untrusted proposal folder P (docs/proposals.md), loads it into a sandboxed\n"
       "  compiler (built-ins + the workspace's head + P), runs its examples and the corpus\n"
       "  gate with and without it, and prints {proposal_hash, valid, findings, examples,\n"
       "  gate, verdict}. With --workspace the evaluation is recorded (audit entry).\n"
       "  exit: 0 clean, 1 invalid, examples fail or regressions, 2 usage or store error\n"
       "cake proposal status P|HASH --workspace WS [--format text|json]\n"
       "  State, latest evaluation, changed gate cases, votes, whether approval is possible\n"
       "  and why not (can_approve, blocked {code, message, cases}), installed revision.\n"
       "cake proposal approve P --workspace WS --reviewer NAME --comment TEXT\n"
       "          [--accept-change CASE]... [--format text|json]\n"
       "  On a clean evaluation of P's exact content at the head, by a reviewer who is not\n"
       "  its author, with every changed gate case accepted: installs P's definition files\n"
       "  as a new revision (vote, acceptances, state, audit: one transaction).\n"
       "cake proposal reject|request-changes|comment P --workspace WS --reviewer NAME\n"
       "          --comment TEXT [--format text|json]\n"
       "  exit: 0 done, 1 refused (prop-* code), 2 usage or store error\n"},
      {"audit", "cake audit verify --workspace WS [--format text|json]\n"
                "cake audit log --workspace WS [--format text|json]\n"
                "  verify: checks the hash chain of the audit log and that every revision was\n"
                "  recorded; exit 0 intact, 1 with the first bad entry, 2 usage or store error.\n"
                "  log: the entries (seq, time, actor, act, subject, payload, hashes).\n"},
      {"version", "cake --version | cake version [--format json]\n"
                  "  Version and compiler revision (hash of the primitive and target files).\n"},
  };
  if (auto it = help.find(topic); it != help.end()) {
    std::fputs(it->second.c_str(), stdout);
    return;
  }
  std::fputs("cake — Cake IR compiler (agent interface; JSON everywhere)\n\n"
             "usage: cake COMMAND [ARGS]\n\n"
             "commands:\n"
             "  check       parse and type-check kernels\n"
             "  fmt         print the canonical form of a kernel\n"
             "  primitives  list the primitive registry (data loaded at run time)\n"
             "  targets     list the exact targets and their facts\n"
             "  corpus      check the kernel corpus against its manifest\n"
             "  gate        the corpus gate: every case checked, costed, lowered; deltas\n"
             "  rules       the rule registry: every finding code with its documentation\n"
             "  explain     the documentation of one finding code\n"
             "  trace       the verifier's event trace and barrier/resource summaries\n"
             "  cost        predicted time, bottleneck, roofline and hints of a kernel\n"
             "  calibrate   fit the cost model to measured runs\n"
             "  diff        semantic diff of two kernels (operations, findings, cost, PTX)\n"
             "  lower       lower a kernel to metadata, LLVM IR, PTX, CUDA C++ or a cubin\n"
             "  run         run a kernel: CPU interpreter against the reference, or a GPU (local,\n"
             "              ssh, Slurm) with the timing protocol; prints its verdict / run record\n"
             "  runs        the run records stored in a workspace\n"
             "  workspace   create a workspace (the store of approved data and its audit log)\n"
             "  revisions   the workspace's revisions and what each changed\n"
             "  revision    revert the workspace to an earlier revision (a recorded act)\n"
             "  audit       verify or print the workspace's tamper-evident audit log\n"
             "  proposal    evaluate, review (status, approve, reject) a proposal folder\n"
             "  campaign    import, list and show campaigns of candidate kernels (lineage)\n"
             "  evolve      search schedule edits of a kernel and write a campaign\n"
             "  version     version and compiler revision (also --version)\n"
             "  help        this text, or 'cake help COMMAND'\n\n"
             "check, cost, lower, primitives, targets, rules, explain, trace, corpus and version\n"
             "take --workspace WS: the built-in data plus the workspace's approved overlay.\n",
             stdout);
}

int run(const std::string& argv0, const std::vector<std::string>& args) {
  if (args.empty()) {
    printHelp("");
    return 2;
  }
  const std::string& cmd = args[0];
  if (cmd == "--version" || cmd == "-V" || cmd == "version")
    return cmdVersion(argv0, args);
  if (cmd == "help" || cmd == "--help" || cmd == "-h") {
    printHelp(args.size() > 1 ? args[1] : "");
    return 0;
  }
  if (std::find(args.begin(), args.end(), "--help") != args.end()) {
    printHelp(cmd);
    return 0;
  }
  if (cmd == "check")
    return cmdCheck(argv0, args);
  if (cmd == "fmt")
    return cmdFmt(args);
  if (cmd == "primitives")
    return cmdPrimitives(argv0, args);
  if (cmd == "targets")
    return cmdTargets(argv0, args);
  if (cmd == "corpus")
    return cmdCorpus(argv0, args);
  if (cmd == "gate")
    return cmdGate(argv0, args);
  if (cmd == "run")
    return cmdRun(argv0, args);
  if (cmd == "explain")
    return cmdExplain(argv0, args);
  if (cmd == "rules")
    return cmdRules(argv0, args);
  if (cmd == "trace")
    return cmdTrace(argv0, args);
  if (cmd == "cost")
    return cmdCost(argv0, args);
  if (cmd == "calibrate")
    return cmdCalibrate(argv0, args);
  if (cmd == "diff")
    return cmdDiff(argv0, args);
  if (cmd == "lower")
    return cmdLower(argv0, args);
  if (cmd == "run")
    return cmdRun(argv0, args);
  if (cmd == "runs")
    return cmdRuns(argv0, args);
  if (cmd == "workspace")
    return cmdWorkspace(argv0, args);
  if (cmd == "revisions")
    return cmdRevisions(argv0, args);
  if (cmd == "revision")
    return cmdRevision(argv0, args);
  if (cmd == "audit")
    return cmdAudit(argv0, args);
  if (cmd == "proposal")
    return cmdProposal(argv0, args);
  if (cmd == "campaign")
    return cmdCampaign(argv0, args);
  if (cmd == "evolve")
    return cmdEvolve(argv0, args);
  std::vector<std::string> commands{"check",     "fmt",     "primitives", "targets",   "corpus",
                                    "gate",      "explain", "rules",      "trace",     "cost",
                                    "calibrate", "diff",    "lower",      "run",       "runs",
                                    "workspace", "revisions", "revision", "audit",     "proposal",
                                    "campaign",  "evolve",  "version",    "help"};
  std::string msg = "unknown command '" + cmd + "'";
  if (auto guess = closestMatch(cmd, commands))
    msg += "; did you mean '" + *guess + "'?";
  std::fprintf(stderr, "cake: %s\nRun 'cake help' for the list of commands.\n", msg.c_str());
  return 2;
}

// Shared with CliPrimitives.cpp.
std::unique_ptr<driver::Compiler> loadCompilerFor(const std::string& argv0,
                                                  const std::vector<std::string>& all,
                                                  std::vector<std::string>& names,
                                                  std::string& format, std::string& target,
                                                  int& exitCode) {
  Args a = parseArgs(all, 1,
                     {"--format", "--registry", "--targets", "--rules", "--workspace", "--target"},
                     {"--help"});
  if (!a.error.empty()) {
    exitCode = usageError("primitives", a.error);
    return nullptr;
  }
  format = a.get("--format", "text");
  if (!checkFormat("primitives", format, {"text", "json", "md"}, exitCode))
    return nullptr;
  target = a.get("--target");
  names = a.positional;
  auto compiler = loadCompiler(argv0, a, format == "json" ? "json" : "text");
  if (!compiler)
    exitCode = 2;
  return compiler;
}

} // namespace cake::cli
