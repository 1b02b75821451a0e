// `cake campaign import|list|show` and `cake evolve`: campaigns of candidate kernels in the
// workspace store, and the built-in schedule search that writes and imports one.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "CliSupport.h"

#include "cake/Campaign/Campaign.h"
#include "cake/Campaign/Evolve.h"
#include "cake/Support/Json.h"
#include "cake/Support/StringUtil.h"
#include "cake/Workspace/Workspace.h"

#include <cstdio>
#include <filesystem>
#include <iostream>

namespace cake::cli {

namespace {

const std::set<std::string> kCompilerOptions{"--registry", "--targets", "--rules", "--calibration"};

std::optional<ws::Workspace> openStore(const std::string& command, const Args& a,
                                       const std::string& format, int& exitCode,
                                       ws::OpenMode mode = ws::OpenMode::MustExist) {
  if (!a.options.count("--workspace")) {
    exitCode = usageError(command, "--workspace WS is required");
    return std::nullopt;
  }
  auto w = ws::Workspace::open(a.get("--workspace"), mode);
  if (!w) {
    printWorkspaceError(w.error(), format);
    exitCode = 2;
    return std::nullopt;
  }
  return std::move(*w);
}

int importCommand(const std::string& argv0, const Args& a, const std::string& format) {
  if (a.positional.size() != 2)
    return usageError("campaign", "import takes one campaign folder");
  long long jobs = 0;
  std::string bad;
  if (!integerOption(a, "--jobs", 1, 256, jobs, bad))
    return usageError("campaign", bad);
  int code = 0;
  auto store = openStore("campaign", a, format, code);
  if (!store)
    return code;
  auto compiler = loadCompiler(argv0, a, format);
  if (!compiler)
    return 2;
  campaign::ImportOptions options;
  options.jobs = static_cast<unsigned>(jobs);
  options.actor = a.get("--actor", "cake");
  campaign::ImportResult r = campaign::importCampaign(*compiler, *store, a.positional[1], options);
  std::cout << (format == "json" ? campaign::toJson(r) : campaign::toText(r));
  return r.fatal ? 2 : r.errors.empty() ? 0 : 1;
}

int listCommand(const Args& a, const std::string& format) {
  int code = 0;
  auto store = openStore("campaign", a, format, code);
  if (!store)
    return code;
  auto all = store->campaigns();
  if (!all) {
    printWorkspaceError(all.error(), format);
    return 2;
  }
  json::Writer w;
  w.beginArray();
  std::string text;
  for (const ws::CampaignRecord& c : *all) {
    auto cands = store->candidates(c.name);
    if (!cands) {
      printWorkspaceError(cands.error(), format);
      return 2;
    }
    std::size_t accepted = 0;
    for (const ws::CandidateRecord& k : *cands)
      accepted += k.accepted;
    auto path = campaign::bestPath(*cands);
    std::optional<double> best;
    for (const ws::CandidateRecord& k : *cands)
      if (!path.empty() && k.id == path.back())
        best = campaign::rankTime(k);
    w.beginObject().key("name").value(c.name).key("folder").value(c.folder);
    w.key("candidates").value(static_cast<std::uint64_t>(cands->size()));
    w.key("accepted").value(static_cast<std::uint64_t>(accepted));
    w.key("best");
    if (best)
      w.beginObject().key("id").value(path.back()).key("us").value(*best).endObject();
    else
      w.null();
    w.key("updated_at").value(c.updatedAt).endObject();
    char buf[64];
    std::snprintf(buf, sizeof buf, best ? "%.2f us" : "-", best.value_or(0));
    text += c.name + "  " + std::to_string(cands->size()) + " candidates, " +
            std::to_string(accepted) + " accepted, best " +
            (best ? path.back() + " " + buf : std::string("-")) + "  (" + c.folder + ")\n";
  }
  w.endArray();
  std::cout << (format == "json" ? w.take() + "\n" : text);
  return 0;
}

int showCommand(const Args& a, const std::string& format) {
  if (a.positional.size() != 2)
    return usageError("campaign", "show takes one campaign name");
  int code = 0;
  auto store = openStore("campaign", a, format, code);
  if (!store)
    return code;
  auto c = store->campaign(a.positional[1]);
  if (!c) {
    printWorkspaceError(c.error(), format);
    return 2;
  }
  if (!*c) {
    printWorkspaceError({ws::ErrorCode::InvalidArgument,
                         "no campaign named '" + a.positional[1] + "' in the workspace"},
                        format);
    return 2;
  }
  auto cands = store->candidates(a.positional[1]);
  if (!cands) {
    printWorkspaceError(cands.error(), format);
    return 2;
  }
  std::cout << (format == "json" ? campaign::showJson(**c, *cands)
                                 : campaign::showText(**c, *cands));
  return 0;
}

} // namespace

int cmdCampaign(const std::string& argv0, const std::vector<std::string>& all) {
  std::set<std::string> valued{"--workspace", "--format", "--jobs", "--actor"};
  valued.insert(kCompilerOptions.begin(), kCompilerOptions.end());
  Args a = parseArgs(all, 1, valued, {"--help"});
  if (!a.error.empty())
    return usageError("campaign", a.error);
  std::string format = a.get("--format", "text");
  int code = 0;
  if (!checkFormat("campaign", format, {"text", "json"}, code))
    return code;
  std::string sub = a.positional.empty() ? "" : a.positional[0];
  if (sub == "import")
    return importCommand(argv0, a, format);
  if (sub == "list")
    return a.positional.size() == 1 ? listCommand(a, format)
                                    : usageError("campaign", "list takes no argument");
  if (sub == "show")
    return showCommand(a, format);
  return usageError("campaign", sub.empty() ? "name a subcommand: import, list or show"
                                            : "unknown subcommand '" + sub + "'");
}

int cmdEvolve(const std::string& argv0, const std::vector<std::string>& all) {
  std::set<std::string> valued{"--workspace", "--format",   "--budget",    "--seed",
                               "--strategy",  "--out",      "--arm",       "--name",
                               "--jobs",      "--workload", "--timestamp", "--actor"};
  valued.insert(kCompilerOptions.begin(), kCompilerOptions.end());
  Args a = parseArgs(all, 1, valued, {"--help", "--no-hints"});
  if (!a.error.empty())
    return usageError("evolve", a.error);
  std::string format = a.get("--format", "text");
  int code = 0;
  if (!checkFormat("evolve", format, {"text", "json"}, code))
    return code;
  if (a.positional.size() != 1)
    return usageError("evolve", "give one kernel file to start from");
  if (!a.options.count("--budget"))
    return usageError("evolve", "--budget N (candidates to write) is required");
  long long budget = 0, seed = 1, jobs = 0;
  std::string bad;
  if (!integerOption(a, "--budget", 1, 100000, budget, bad) ||
      !integerOption(a, "--seed", 0, (1ll << 62), seed, bad) ||
      !integerOption(a, "--jobs", 1, 256, jobs, bad))
    return usageError("evolve", bad);
  auto strategy = campaign::strategyFromString(a.get("--strategy", "islands"));
  if (!strategy)
    return usageError("evolve", "--strategy is islands or map-elites");
  std::string kernel = a.positional[0];
  namespace fs = std::filesystem;
  campaign::EvolveOptions options;
  options.budget = static_cast<std::size_t>(budget);
  options.seed = static_cast<std::uint64_t>(seed);
  options.strategy = *strategy;
  options.arm = a.get("--arm", "a");
  options.campaign = a.get("--name", "evolve-" + fs::path(kernel).stem().string());
  options.timestamp = a.get("--timestamp", ws::utcNow());
  options.jobs = static_cast<unsigned>(jobs);
  options.hints = !a.has("--no-hints");
  for (const std::string& id : {options.arm, options.campaign})
    if (id.empty() || id.size() > 64 ||
        id.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
            std::string::npos)
      return usageError("evolve", "--arm and --name are 1 to 64 letters, digits, '.', '_', '-'");
  if (a.options.count("--workload")) {
    auto text = readFile(a.get("--workload"), bad, campaign::kMaxSpecBytes);
    if (!text) {
      std::fprintf(stderr, "cake evolve: cannot read the workload: %s\n", bad.c_str());
      return 2;
    }
    options.workload = *text;
  }
  int wcode = 0;
  auto store = openStore("evolve", a, format, wcode, ws::OpenMode::CreateIfMissing);
  if (!store)
    return wcode;
  std::string out =
      a.get("--out", (fs::path(a.get("--workspace")) / "campaigns" / options.campaign).string());
  auto compiler = loadCompiler(argv0, a, format);
  if (!compiler)
    return 2;
  campaign::EvolveResult r = campaign::evolve(*compiler, kernel, out, options);
  if (!r.ok) {
    std::fprintf(stderr, "cake evolve: %s\n", r.error.c_str());
    return 2;
  }
  campaign::ImportOptions io;
  io.jobs = options.jobs;
  io.actor = a.get("--actor", "cake evolve");
  campaign::ImportResult imp = campaign::importCampaign(*compiler, *store, out, io);
  if (imp.fatal || !imp.errors.empty()) {
    std::fputs(campaign::toText(imp).c_str(), stderr);
    return 2;
  }
  // The search ranks by the verifier and the cost model only; the best reported is the fastest
  // predicted candidate of this arm that the import also lowered (the campaign's best path rule).
  if (auto stored = store->candidates(r.campaign)) {
    r.bestId.clear();
    r.bestUs.reset();
    for (const ws::CandidateRecord& c : *stored)
      if ((c.arm == r.arm || c.parents.empty()) && c.accepted && c.loweredOk && c.predictedUs &&
          (!r.bestUs || *c.predictedUs < *r.bestUs)) {
        r.bestId = c.id;
        r.bestUs = c.predictedUs;
      }
  }
  if (format == "json") {
    json::Writer w;
    w.beginObject().key("campaign").value(r.campaign).key("arm").value(r.arm);
    w.key("folder").value(out);
    w.key("candidates").value(static_cast<std::uint64_t>(r.candidates));
    w.key("accepted").value(static_cast<std::uint64_t>(r.accepted));
    w.key("best");
    if (r.bestUs)
      w.beginObject().key("id").value(r.bestId).key("predicted_us").value(*r.bestUs).endObject();
    else
      w.null();
    w.endObject();
    std::cout << w.take() << "\n";
  } else {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f us", r.bestUs.value_or(0));
    std::cout << "campaign " << r.campaign << " arm " << r.arm << ": " << r.candidates
              << " candidates, " << r.accepted << " accepted, best "
              << (r.bestUs ? r.bestId + " " + buf : std::string("-")) << " (" << out << ")\n";
  }
  return 0;
}

} // namespace cake::cli
