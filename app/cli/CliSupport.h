// Helpers shared by the `cake` subcommands: argument parsing, usage errors, compiler loading.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Driver/Compiler.h"
#include "cake/Workspace/Error.h"

#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace cake::cli {

/// Parsed command line of one subcommand.
struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::string> options; ///< --key value / --key=value (the last given)
  /// Every value of each valued option, in order (for repeatable ones).
  std::map<std::string, std::vector<std::string>> repeated;
  std::set<std::string> flags; ///< --flag
  std::string error;

  std::string get(const std::string& key, const std::string& fallback = {}) const {
    auto it = options.find(key);
    return it == options.end() ? fallback : it->second;
  }
  bool has(const std::string& flag) const { return flags.count(flag) != 0; }
  /// Every value given for a repeatable option (`--accept-change A --accept-change B`).
  std::vector<std::string> getAll(const std::string& key) const {
    auto it = repeated.find(key);
    return it == repeated.end() ? std::vector<std::string>() : it->second;
  }
};

/// Splits arguments; `valued` options take a value, `boolean` ones do not.
Args parseArgs(const std::vector<std::string>& in, std::size_t start,
               const std::set<std::string>& valued, const std::set<std::string>& boolean);
/// Prints a usage error and returns exit code 2.
int usageError(const std::string& command, const std::string& message);
/// Validates --format; sets `exitCode` (2) and returns false when it is not allowed.
bool checkFormat(const std::string& command, const std::string& format,
                 std::initializer_list<std::string_view> allowed, int& exitCode);
/// Loads the compiler data honouring --registry/--targets/--rules; on invalid data prints the
/// located findings (JSON too when `format` is json) and returns null.
std::unique_ptr<driver::Compiler> loadCompiler(const std::string& argv0, const Args& a,
                                               const std::string& format);

/// The head revision's overlay of the workspace in `dir` (which must exist).
ws::Expected<DataOverlay> loadWorkspaceOverlay(const std::string& dir);
/// Prints a workspace error: "cake: ws-CODE: message" on standard error, and with `format`
/// json also {"error": {"code", "message"}} on standard output.
void printWorkspaceError(const ws::Error& error, const std::string& format);

/// Writes `content` to `path` (created or truncated); false with `error` set when opening,
/// writing or closing fails.
bool writeFile(const std::string& path, const std::string& content, std::string& error);
/// Replaces the content of the existing file `path` atomically: through a symlink (the link's
/// target is rewritten, the link stays), with the target's permission bits kept, by writing a
/// temporary file next to it and renaming it over.
bool replaceFile(const std::string& path, const std::string& content, std::string& error);
/// The whole of `text` as a finite number; nullopt for nan, inf, overflow or trailing text.
std::optional<double> parseReal(const std::string& text);
/// The whole of `text` as a decimal integer; nullopt on overflow or trailing text.
std::optional<long long> parseInteger(const std::string& text);
/// Reads option `key` (when given) as a finite number in [lo, hi]; false with `error` otherwise.
bool realOption(const Args& a, const std::string& key, double lo, double hi, double& out,
                std::string& error);
/// Reads option `key` (when given) as an integer in [lo, hi]; false with `error` otherwise.
bool integerOption(const Args& a, const std::string& key, long long lo, long long hi,
                   long long& out, std::string& error);
/// Flushes standard output; a write error anywhere in the run becomes a message and exit 2.
int finishStdout(int exitCode);

int cmdRules(const std::string& argv0, const std::vector<std::string>& args);
int cmdExplain(const std::string& argv0, const std::vector<std::string>& args);
int cmdTrace(const std::string& argv0, const std::vector<std::string>& args);
int cmdCost(const std::string& argv0, const std::vector<std::string>& args);
int cmdDiff(const std::string& argv0, const std::vector<std::string>& args);
int cmdCalibrate(const std::string& argv0, const std::vector<std::string>& args);
int cmdLower(const std::string& argv0, const std::vector<std::string>& args);
/// `cake run` (CliRun.cpp): bundle, executor, record.
int cmdRun(const std::string& argv0, const std::vector<std::string>& args);
/// `cake runs --workspace WS`: the stored run records.
int cmdRuns(const std::string& argv0, const std::vector<std::string>& args);
int cmdGate(const std::string& argv0, const std::vector<std::string>& args);
/// The workload contract of `kernelPath` (CliRun.cpp): --workload, else that of the corpus
/// manifest case (--corpus, default the bundled corpus) whose kernel is that file; `id` is the
/// contract's id. Empty with `error` when there is none.
std::string findWorkload(const std::string& argv0, const Args& a, const std::string& kernelPath,
                         std::string& id, std::string& error);
/// The check options binding run-time scalar parameters to the `run.scalars` of the workload
/// contract at `workloadPath` (CliRun.cpp; none when it cannot be read); `values` receives them.
verify::VerifyOptions workloadScalars(const std::string& workloadPath,
                                      std::vector<std::pair<std::string, std::int64_t>>* values);
/// `cake run --device cpu` on the local executor (CliRunCpu.cpp): the CPU interpreter's verdict.
int cmdRunCpu(const std::string& argv0, const std::vector<std::string>& args);
int cmdProposal(const std::string& argv0, const std::vector<std::string>& args);
/// `cake proposal status|approve|reject|request-changes|comment` (`sub`), arguments parsed.
int proposalReview(const std::string& sub, const Args& a);
int cmdWorkspace(const std::string& argv0, const std::vector<std::string>& args);
int cmdRevisions(const std::string& argv0, const std::vector<std::string>& args);
int cmdRevision(const std::string& argv0, const std::vector<std::string>& args);
int cmdAudit(const std::string& argv0, const std::vector<std::string>& args);
int cmdCampaign(const std::string& argv0, const std::vector<std::string>& args);
int cmdEvolve(const std::string& argv0, const std::vector<std::string>& args);

} // namespace cake::cli
