// `cake proposal status|approve|reject|request-changes|comment`: what an agent reads back about
// its proposal, and the reviewer's acts on it (approval installs a new workspace revision).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "CliSupport.h"

#include "cake/Driver/Output.h"
#include "cake/Proposal/Review.h"
#include "cake/Support/Json.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

namespace cake::cli {

namespace {

bool looksLikeHash(const std::string& text) {
  if (text.size() != 64)
    return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return false;
  return true;
}

/// Prints a refusal ("cake proposal: refused [code]: message" on standard error; with json the
/// {"refused": …} document on standard output) and returns exit code 1.
int printRefusal(const proposal::ReviewRefusal& r, const std::string& format) {
  if (format == "json")
    std::cout << proposal::toJson(r);
  std::fprintf(stderr, "cake proposal: refused [%s]: %s\n", r.code.c_str(), r.message.c_str());
  return finishStdout(1);
}

/// Loads the folder; a folder that does not load is refused with its first finding's code (all
/// findings, located, on standard error).
std::optional<proposal::Proposal> loadFolder(const std::string& dir, const std::string& format,
                                             int& exitCode) {
  SourceManager sources;
  DiagnosticEngine diags;
  auto p = proposal::loadProposal(dir, sources, diags);
  if (p)
    return p;
  diags.sortByLocation();
  for (const Diagnostic& d : diags.diagnostics())
    std::fputs(driver::renderText(d, sources).c_str(), stderr);
  proposal::ReviewRefusal r;
  r.code = diags.diagnostics().empty() ? "prop-io" : diags.diagnostics().front().code;
  r.message = "the proposal folder '" + dir + "' does not load";
  exitCode = printRefusal(r, format);
  return std::nullopt;
}

/// The CAKE_TEST_SLOW_ACT_MS test hook: milliseconds to sleep after each write of an act, inside
/// its transaction, so the kill test (tests/review/kill_approve.py) can land in the middle; 0
/// only prints the markers (the test times the act with them).
std::function<void(std::string_view)> slowActHook() {
  const char* env = std::getenv("CAKE_TEST_SLOW_ACT_MS");
  if (!env)
    return {};
  auto ms = parseInteger(env);
  if (!ms || *ms < 0 || *ms > 60000)
    return {};
  return [ms = *ms](std::string_view step) {
    // Unbuffered: the kill test counts these lines to tell a kill inside the act from one before.
    std::fprintf(stderr, "CAKE_TEST_SLOW_ACT_MS: after %.*s\n", static_cast<int>(step.size()),
                 step.data());
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  };
}

int status(ws::Workspace& workspace, const std::string& target, const std::string& format) {
  std::error_code ec;
  ws::Expected<proposal::ReviewStatus> st = ws::Error{ws::ErrorCode::Sqlite, ""};
  if (looksLikeHash(target) && !std::filesystem::is_directory(target, ec)) {
    st = proposal::reviewStatus(workspace, target);
    if (!st && st.error().code == ws::ErrorCode::UnknownProposal)
      return printRefusal(
          {"prop-not-registered", "no proposal " + target + " is registered in this workspace", {}},
          format);
  } else {
    int code = 0;
    auto p = loadFolder(target, format, code);
    if (!p)
      return code;
    st = proposal::reviewStatus(workspace, *p);
  }
  if (!st) {
    printWorkspaceError(st.error(), format);
    return 2;
  }
  std::cout << (format == "json" ? proposal::toJson(*st) : proposal::toText(*st));
  return finishStdout(0);
}

} // namespace

int proposalReview(const std::string& sub, const Args& a) {
  std::string format = a.get("--format", "text");
  int code = 0;
  if (!checkFormat("proposal", format, {"text", "json"}, code))
    return code;
  if (a.positional.size() != 1)
    return usageError("proposal",
                      sub + " takes one proposal folder" + (sub == "status" ? " or hash" : ""));
  if (!a.options.count("--workspace"))
    return usageError("proposal", sub + " needs --workspace WS");
  if (sub == "status" && (a.options.count("--reviewer") || a.options.count("--comment") ||
                          a.options.count("--accept-change")))
    return usageError("proposal", "status takes no --reviewer, --comment or --accept-change");
  auto decision = ws::decisionFromString(sub);
  if (sub != "status" && !decision)
    return usageError("proposal", "unknown subcommand '" + sub + "'");
  if (decision && *decision != ws::Decision::Approve && a.options.count("--accept-change"))
    return usageError("proposal", "--accept-change belongs to approve");

  auto w = ws::Workspace::open(a.get("--workspace"), ws::OpenMode::MustExist);
  if (!w) {
    printWorkspaceError(w.error(), format);
    return 2;
  }
  if (sub == "status")
    return status(*w, a.positional[0], format);

  auto p = loadFolder(a.positional[0], format, code);
  if (!p)
    return code;
  proposal::ReviewRequest request;
  request.decision = *decision;
  request.reviewer = a.get("--reviewer");
  request.comment = a.get("--comment");
  request.acceptChanges = a.getAll("--accept-change");
  request.afterStep = slowActHook();
  proposal::ReviewResult result = proposal::review(*w, *p, request);
  if (result.refusal)
    return printRefusal(*result.refusal, format);
  if (result.error || !result.outcome) {
    printWorkspaceError(result.error.value_or(ws::Error{ws::ErrorCode::Sqlite, "no outcome"}),
                        format);
    return 2;
  }
  const proposal::ReviewOutcome& out = *result.outcome;
  if (format == "json") {
    json::Writer j;
    j.beginObject().key("proposal_hash").value(p->hash).key("decision").value(sub);
    j.key("state").value(ws::toString(out.state)).key("vote").value(out.voteId);
    j.key("installed_revision");
    out.installedRevision ? j.value(*out.installedRevision) : j.null();
    j.endObject();
    std::cout << j.str() << "\n";
  } else {
    std::printf("proposal %s: %s by %s, now %s", p->hash.c_str(), sub.c_str(),
                request.reviewer.c_str(), std::string(ws::toString(out.state)).c_str());
    if (out.installedRevision)
      std::printf("; installed as revision %lld", static_cast<long long>(*out.installedRevision));
    std::printf("\n");
  }
  return finishStdout(0);
}

} // namespace cake::cli
