// `cake workspace`, `cake revisions`, `cake revision revert` and `cake audit`: the workspace
// store from the command line, and the overlay that --workspace adds to the compiler's data.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "CliSupport.h"

#include "cake/Support/Json.h"
#include "cake/Workspace/Workspace.h"

#include <cstdio>
#include <iostream>

namespace cake::cli {

namespace {

/// Opens the workspace named by --workspace (or reports the usage error).
std::optional<ws::Workspace> openWorkspace(const std::string& command, const Args& a,
                                           const std::string& format, int& exitCode) {
  if (!a.options.count("--workspace")) {
    exitCode = usageError(command, "--workspace WS is required");
    return std::nullopt;
  }
  auto w = ws::Workspace::open(a.get("--workspace"), ws::OpenMode::MustExist);
  if (!w) {
    printWorkspaceError(w.error(), format);
    exitCode = 2;
    return std::nullopt;
  }
  return std::move(*w);
}

void writeChanges(json::Writer& w, const std::vector<ws::FileChange>& changes) {
  w.key("changes").beginArray();
  for (const ws::FileChange& c : changes) {
    w.beginObject();
    w.key("kind").value(toString(c.kind));
    w.key("path").value(c.path);
    w.key("change").value(toString(c.change));
    w.key("old_sha256");
    c.oldSha256.empty() ? w.null() : w.value(c.oldSha256);
    w.key("new_sha256");
    c.newSha256.empty() ? w.null() : w.value(c.newSha256);
    w.endObject();
  }
  w.endArray();
}

char changeMark(ws::ChangeKind c) {
  return c == ws::ChangeKind::Added ? '+' : c == ws::ChangeKind::Removed ? '-' : '~';
}

/// "3" or "rev3".
std::optional<std::int64_t> parseRevision(std::string text) {
  if (text.rfind("rev", 0) == 0)
    text = text.substr(3);
  auto n = parseInteger(text);
  if (!n || *n < 1)
    return std::nullopt;
  return *n;
}

} // namespace

ws::Expected<DataOverlay> loadWorkspaceOverlay(const std::string& dir) {
  auto w = ws::Workspace::open(dir, ws::OpenMode::MustExist);
  if (!w)
    return w.error();
  auto head = w->head();
  if (!head)
    return head.error();
  return w->dataOverlay(*head);
}

void printWorkspaceError(const ws::Error& error, const std::string& format) {
  if (format == "json") {
    json::Writer w;
    w.beginObject().key("error").beginObject();
    w.key("code").value(toString(error.code)).key("message").value(error.message);
    w.endObject().endObject();
    std::cout << w.str() << "\n";
  }
  std::fprintf(stderr, "cake: %s\n", error.text().c_str());
}

int cmdWorkspace(const std::string&, const std::vector<std::string>& all) {
  Args a = parseArgs(all, 1, {"--format"}, {"--help"});
  if (!a.error.empty())
    return usageError("workspace", a.error);
  std::string format = a.get("--format", "text");
  int code = 0;
  if (!checkFormat("workspace", format, {"text", "json"}, code))
    return code;
  if (a.positional.empty() || a.positional[0] != "init")
    return usageError("workspace", "expected 'init WS'");
  if (a.positional.size() != 2)
    return usageError("workspace", "expected one workspace directory after 'init'");
  const std::string& dir = a.positional[1];
  auto w = ws::Workspace::open(dir, ws::OpenMode::CreateIfMissing);
  if (!w) {
    printWorkspaceError(w.error(), format);
    return 2;
  }
  auto head = w->head();
  auto revisions = w->revisions();
  if (!head || !revisions) {
    printWorkspaceError(!head ? head.error() : revisions.error(), format);
    return 2;
  }
  if (format == "json") {
    json::Writer j;
    j.beginObject().key("workspace").value(dir).key("head").value(*head);
    j.key("revisions").value(static_cast<std::int64_t>(revisions->size()));
    j.key("schema_version").value(static_cast<std::int64_t>(ws::Workspace::migrations().size()));
    j.endObject();
    std::cout << j.str() << "\n";
  } else {
    std::printf("workspace %s: head revision %lld (%zu revision%s)\n", dir.c_str(),
                static_cast<long long>(*head), revisions->size(),
                revisions->size() == 1 ? "" : "s");
  }
  return 0;
}

int cmdRevisions(const std::string&, const std::vector<std::string>& all) {
  Args a = parseArgs(all, 1, {"--format", "--workspace"}, {"--help"});
  if (!a.error.empty())
    return usageError("revisions", a.error);
  std::string format = a.get("--format", "text");
  int code = 0;
  if (!checkFormat("revisions", format, {"text", "json"}, code))
    return code;
  if (!a.positional.empty())
    return usageError("revisions", "unexpected argument '" + a.positional[0] + "'");
  auto w = openWorkspace("revisions", a, format, code);
  if (!w)
    return code;
  auto head = w->head();
  auto revisions = w->revisions();
  if (!head || !revisions) {
    printWorkspaceError(!head ? head.error() : revisions.error(), format);
    return 2;
  }
  json::Writer j;
  j.beginObject().key("head").value(*head).key("revisions").beginArray();
  for (const ws::Revision& r : *revisions) {
    auto changes = w->changes(r.id);
    if (!changes) {
      printWorkspaceError(changes.error(), format);
      return 2;
    }
    if (format == "json") {
      j.beginObject().key("id").value(r.id).key("parent");
      r.parent ? j.value(*r.parent) : j.null();
      j.key("head").value(r.id == *head);
      j.key("created_at").value(r.createdAt).key("actor").value(r.actor);
      j.key("reason").value(r.reason).key("content_hash").value(r.contentHash);
      writeChanges(j, *changes);
      j.endObject();
      continue;
    }
    std::printf("rev%lld%s  %s  %s: %s\n", static_cast<long long>(r.id),
                r.id == *head ? " (head)" : "", r.createdAt.c_str(), r.actor.c_str(),
                r.reason.c_str());
    for (const ws::FileChange& c : *changes)
      std::printf("  %c %s %s\n", changeMark(c.change), std::string(toString(c.kind)).c_str(),
                  c.path.c_str());
  }
  j.endArray().endObject();
  if (format == "json")
    std::cout << j.str() << "\n";
  return 0;
}

int cmdRevision(const std::string&, const std::vector<std::string>& all) {
  Args a = parseArgs(all, 1, {"--format", "--workspace", "--reviewer", "--comment"}, {"--help"});
  if (!a.error.empty())
    return usageError("revision", a.error);
  std::string format = a.get("--format", "text");
  int code = 0;
  if (!checkFormat("revision", format, {"text", "json"}, code))
    return code;
  if (a.positional.size() != 2 || a.positional[0] != "revert")
    return usageError("revision", "expected 'revert REV'");
  auto rev = parseRevision(a.positional[1]);
  if (!rev)
    return usageError("revision", "'" + a.positional[1] + "' is not a revision (3 or rev3)");
  if (a.get("--reviewer").empty())
    return usageError("revision", "--reviewer NAME is required (who reverts)");
  if (!a.options.count("--comment") || a.get("--comment").empty())
    return usageError("revision", "--comment TEXT is required (why)");
  auto w = openWorkspace("revision", a, format, code);
  if (!w)
    return code;
  auto created = w->revert(*rev, a.get("--reviewer"), a.get("--comment"));
  if (!created) {
    printWorkspaceError(created.error(), format);
    return 2;
  }
  if (format == "json") {
    json::Writer j;
    j.beginObject().key("reverted_to").value(*rev).key("revision").value(*created);
    j.key("head").value(*created).endObject();
    std::cout << j.str() << "\n";
  } else {
    std::printf("revision %lld: the overlay of revision %lld (head)\n",
                static_cast<long long>(*created), static_cast<long long>(*rev));
  }
  return 0;
}

int cmdAudit(const std::string&, const std::vector<std::string>& all) {
  Args a = parseArgs(all, 1, {"--format", "--workspace"}, {"--help"});
  if (!a.error.empty())
    return usageError("audit", a.error);
  std::string format = a.get("--format", "text");
  int code = 0;
  if (!checkFormat("audit", format, {"text", "json"}, code))
    return code;
  if (a.positional.size() != 1 || (a.positional[0] != "verify" && a.positional[0] != "log"))
    return usageError("audit", "expected 'verify' or 'log'");
  auto w = openWorkspace("audit", a, format, code);
  if (!w)
    return code;
  if (a.positional[0] == "verify") {
    auto report = w->verifyAudit();
    if (!report) {
      printWorkspaceError(report.error(), format);
      return 2;
    }
    if (format == "json") {
      json::Writer j;
      j.beginObject().key("ok").value(report->ok).key("entries").value(report->entries);
      j.key("first_bad_seq");
      report->firstBadSeq ? j.value(*report->firstBadSeq) : j.null();
      j.key("message").value(report->message).endObject();
      std::cout << j.str() << "\n";
    } else if (report->ok) {
      std::printf("%s\n", report->message.c_str());
    } else {
      std::printf("audit log BROKEN at entry %lld: %s\n",
                  static_cast<long long>(report->firstBadSeq.value_or(0)), report->message.c_str());
    }
    return report->ok ? 0 : 1;
  }
  auto log = w->auditLog();
  if (!log) {
    printWorkspaceError(log.error(), format);
    return 2;
  }
  if (format == "json") {
    json::Writer j;
    j.beginObject().key("entries").beginArray();
    for (const ws::AuditEntry& e : *log) {
      j.beginObject().key("seq").value(e.seq).key("time").value(e.time);
      j.key("actor").value(e.actor).key("act").value(e.act).key("subject").value(e.subject);
      j.key("payload").raw(e.payload).key("created_revision");
      e.createdRevision ? j.value(*e.createdRevision) : j.null();
      j.key("prev_hash").value(e.prevHash).key("hash").value(e.hash).endObject();
    }
    j.endArray().endObject();
    std::cout << j.str() << "\n";
    return 0;
  }
  for (const ws::AuditEntry& e : *log)
    std::printf("%lld  %s  %s  %s  %s  %s\n", static_cast<long long>(e.seq), e.time.c_str(),
                e.actor.c_str(), e.act.c_str(), e.subject.c_str(), e.hash.substr(0, 12).c_str());
  return 0;
}

} // namespace cake::cli
