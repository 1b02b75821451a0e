// The workspace store: opening and migrating the database, acts as transactions, revisions of
// the approved overlay (install, revert, diff) and the overlay handed to the compiler.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Workspace/Workspace.h"

#include "WorkspaceInternal.h"

#include "cake/Support/Json.h"
#include "cake/Support/Sha256.h"
#include "cake/Support/SourceManager.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

namespace cake::ws {

using detail::Database;
using detail::Statement;

namespace {

/// `PRAGMA application_id` of a workspace database ("CAKE").
constexpr std::int64_t kApplicationId = 0x43414b45;
constexpr std::size_t kMaxFileBytes = 4u << 20;
constexpr std::size_t kMaxFiles = 10000;
constexpr int kBusyTimeoutMs = 10000;

// Migration 1: revisions of the overlay, the content-addressed file store, the head pointer and
// the audit log. Revisions, files and the log are immutable: triggers refuse UPDATE and DELETE.
constexpr std::string_view kSchema1 = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE blobs(sha256 TEXT PRIMARY KEY, content TEXT NOT NULL) STRICT;
CREATE TABLE revisions(
  id INTEGER PRIMARY KEY,
  parent INTEGER REFERENCES revisions(id),
  created_at TEXT NOT NULL,
  actor TEXT NOT NULL,
  reason TEXT NOT NULL,
  content_hash TEXT NOT NULL) STRICT;
CREATE TABLE revision_files(
  revision INTEGER NOT NULL REFERENCES revisions(id),
  kind TEXT NOT NULL CHECK (kind IN ('primitive', 'rule', 'calibration', 'target')),
  path TEXT NOT NULL,
  sha256 TEXT NOT NULL REFERENCES blobs(sha256),
  PRIMARY KEY (revision, kind, path)) STRICT, WITHOUT ROWID;
CREATE TABLE head(
  id INTEGER PRIMARY KEY CHECK (id = 1),
  revision INTEGER NOT NULL REFERENCES revisions(id)) STRICT;
CREATE TABLE audit(
  seq INTEGER PRIMARY KEY,
  time TEXT NOT NULL,
  actor TEXT NOT NULL,
  act TEXT NOT NULL,
  subject TEXT NOT NULL,
  payload TEXT NOT NULL,
  created_revision INTEGER UNIQUE REFERENCES revisions(id),
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL) STRICT;
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
  BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
  BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER revisions_no_update BEFORE UPDATE ON revisions
  BEGIN SELECT RAISE(ABORT, 'revisions are immutable'); END;
CREATE TRIGGER revisions_no_delete BEFORE DELETE ON revisions
  BEGIN SELECT RAISE(ABORT, 'revisions are immutable'); END;
CREATE TRIGGER revision_files_no_update BEFORE UPDATE ON revision_files
  BEGIN SELECT RAISE(ABORT, 'revisions are immutable'); END;
CREATE TRIGGER revision_files_no_delete BEFORE DELETE ON revision_files
  BEGIN SELECT RAISE(ABORT, 'revisions are immutable'); END;
CREATE TRIGGER blobs_no_update BEFORE UPDATE ON blobs
  BEGIN SELECT RAISE(ABORT, 'file contents are immutable'); END;
CREATE TRIGGER blobs_no_delete BEFORE DELETE ON blobs
  BEGIN SELECT RAISE(ABORT, 'file contents are immutable'); END;
)sql";

// Migration 2: the review records. Proposals are identified by the hash of their exact content;
// evaluations and votes name that hash, so a changed proposal starts with none.
constexpr std::string_view kSchema2 = R"sql(
CREATE TABLE proposals(
  hash TEXT PRIMARY KEY,
  path TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('primitive', 'rule', 'calibration', 'target')),
  title TEXT NOT NULL,
  author TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN
    ('new', 'evaluated', 'changes-requested', 'approved', 'rejected', 'stale')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL) STRICT;
CREATE INDEX proposals_by_path ON proposals(path);
CREATE TABLE evaluations(
  id INTEGER PRIMARY KEY,
  proposal TEXT NOT NULL REFERENCES proposals(hash),
  revision INTEGER NOT NULL REFERENCES revisions(id),
  report TEXT NOT NULL,
  created_at TEXT NOT NULL) STRICT;
CREATE INDEX evaluations_by_proposal ON evaluations(proposal);
CREATE TABLE votes(
  id INTEGER PRIMARY KEY,
  proposal TEXT NOT NULL REFERENCES proposals(hash),
  reviewer TEXT NOT NULL,
  decision TEXT NOT NULL CHECK (decision IN ('approve', 'reject', 'request-changes', 'comment')),
  comment TEXT NOT NULL,
  created_at TEXT NOT NULL) STRICT;
CREATE INDEX votes_by_proposal ON votes(proposal);
CREATE TABLE gate_acceptances(
  id INTEGER PRIMARY KEY,
  case_id TEXT NOT NULL,
  revision INTEGER NOT NULL REFERENCES revisions(id),
  actor TEXT NOT NULL,
  comment TEXT NOT NULL,
  proposal TEXT REFERENCES proposals(hash),
  created_at TEXT NOT NULL) STRICT;
CREATE INDEX gate_acceptances_by_revision ON gate_acceptances(revision);
)sql";

// Migration 3: campaigns of candidate kernels and each candidate's assessment. A candidate is
// imported once and never changed (its log line is the record); kernels live in `blobs`.
constexpr std::string_view kSchema3 = R"sql(
CREATE TABLE campaigns(
  name TEXT PRIMARY KEY,
  folder TEXT NOT NULL,
  spec TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL) STRICT;
CREATE TABLE candidates(
  campaign TEXT NOT NULL REFERENCES campaigns(name),
  id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  line INTEGER NOT NULL,
  entry_sha256 TEXT NOT NULL,
  parents TEXT NOT NULL,
  kernel TEXT NOT NULL,
  kernel_sha256 TEXT NOT NULL REFERENCES blobs(sha256),
  author TEXT NOT NULL,
  arm TEXT NOT NULL,
  budget TEXT NOT NULL,
  timestamp TEXT NOT NULL,
  rationale TEXT NOT NULL,
  measurements TEXT NOT NULL,
  accepted INTEGER NOT NULL,
  codes TEXT NOT NULL,
  predicted_us REAL,
  bottleneck TEXT NOT NULL,
  lowering_digest TEXT NOT NULL,
  lowered_ok INTEGER NOT NULL,
  measured_us REAL,
  imported_at TEXT NOT NULL,
  PRIMARY KEY (campaign, id),
  UNIQUE (campaign, seq)) STRICT;
CREATE TRIGGER candidates_no_update BEFORE UPDATE ON candidates
  BEGIN SELECT RAISE(ABORT, 'imported candidates are immutable'); END;
CREATE TRIGGER candidates_no_delete BEFORE DELETE ON candidates
  BEGIN SELECT RAISE(ABORT, 'imported candidates are immutable'); END;
)sql";

// Migration 4: GPU (and CPU device) run records, as `cake run` stores them (docs/runs.md). The
// record is kept verbatim; the columns are what the Runs dock and `cake calibrate` select by.
constexpr std::string_view kSchema4 = R"sql(
CREATE TABLE runs(
  id INTEGER PRIMARY KEY,
  kernel TEXT NOT NULL,
  source_path TEXT NOT NULL,
  schedule_hash TEXT NOT NULL,
  target TEXT NOT NULL,
  device TEXT NOT NULL,
  executor TEXT NOT NULL,
  workload TEXT NOT NULL,
  correct INTEGER CHECK (correct IN (0, 1)),
  record TEXT NOT NULL,
  created_at TEXT NOT NULL) STRICT;
CREATE INDEX runs_by_kernel ON runs(kernel);
)sql";

constexpr Migration kMigrations[] = {
    {1, "revisions of the approved overlay, file store, head, audit log", kSchema1},
    {2, "proposals, evaluations, votes, gate acceptances", kSchema2},
    {3, "campaigns, candidates and their assessments", kSchema3},
    {4, "run records", kSchema4},
};

Error invalid(std::string message) {
  return Error{ErrorCode::InvalidArgument, std::move(message)};
}

/// Relative, '/'-separated, no empty, "." or ".." part, no backslash or control character,
/// a ".json" name; targets and calibrations directly in their directory.
Status checkPath(FileKind kind, const std::string& path) {
  auto bad = [&](const std::string& why) {
    return invalid("overlay path '" + path + "' (" + std::string(toString(kind)) + ") " + why);
  };
  if (path.empty() || path.size() > 255)
    return bad("must have 1 to 255 characters");
  if (path.front() == '/')
    return bad("must be relative");
  for (char c : path)
    if (static_cast<unsigned char>(c) < 0x20 || c == '\\' || c == 0x7f)
      return bad("must not contain a backslash or a control character");
  std::size_t start = 0;
  for (;;) {
    std::size_t slash = path.find('/', start);
    std::string part = path.substr(start, slash == std::string::npos ? slash : slash - start);
    if (part.empty() || part == "." || part == "..")
      return bad("must not have an empty, '.' or '..' part");
    if (slash == std::string::npos)
      break;
    start = slash + 1;
  }
  if (path.size() < 6 || path.compare(path.size() - 5, 5, ".json") != 0)
    return bad("must name a .json file");
  if ((kind == FileKind::Target || kind == FileKind::Calibration) &&
      path.find('/') != std::string::npos)
    return bad("must lie directly in " + std::string(dataDirectory(kind)) + "/");
  return Status::success();
}

bool fileLess(const WorkspaceFile& a, const WorkspaceFile& b) {
  return std::pair(toString(a.kind), a.path) < std::pair(toString(b.kind), b.path);
}

} // namespace

namespace detail {

std::string overlayHash(const std::vector<WorkspaceFile>& sorted) {
  Sha256 h;
  h.update("cake-overlay/1\n");
  for (const WorkspaceFile& f : sorted) {
    h.update(toString(f.kind));
    h.update("\n" + f.path + "\n" + f.sha256 + "\n");
  }
  return h.hexDigest();
}

Status checkJson(std::string_view text, std::string_view what, std::size_t maxBytes) {
  if (text.size() > maxBytes)
    return invalid(std::string(what) + " is larger than " + std::to_string(maxBytes) + " bytes");
  SourceManager sources;
  FileId file = sources.addBuffer(std::string(what), std::string(text));
  DiagnosticEngine diags(1);
  if (!json::parse(sources.text(file), file, diags)) {
    std::string why = diags.diagnostics().empty() ? "" : ": " + diags.diagnostics()[0].message;
    return invalid(std::string(what) + " is not a JSON document" + why);
  }
  return Status::success();
}

Status checkName(std::string_view name, std::string_view what) {
  if (name.empty() || name.size() > 200)
    return invalid(std::string(what) + " must have 1 to 200 characters");
  for (char c : name)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      return invalid(std::string(what) + " must not contain control characters");
  return Status::success();
}

} // namespace detail

std::string_view toString(FileKind kind) {
  switch (kind) {
  case FileKind::Primitive:
    return "primitive";
  case FileKind::Rule:
    return "rule";
  case FileKind::Calibration:
    return "calibration";
  case FileKind::Target:
    return "target";
  }
  return "primitive";
}

std::optional<FileKind> fileKindFromString(std::string_view text) {
  for (FileKind k : {FileKind::Primitive, FileKind::Rule, FileKind::Calibration, FileKind::Target})
    if (toString(k) == text)
      return k;
  return std::nullopt;
}

std::string_view dataDirectory(FileKind kind) {
  switch (kind) {
  case FileKind::Primitive:
    return "primitives";
  case FileKind::Rule:
    return "rules";
  case FileKind::Calibration:
    return "calibration";
  case FileKind::Target:
    return "targets";
  }
  return "primitives";
}

std::string_view toString(ChangeKind change) {
  switch (change) {
  case ChangeKind::Added:
    return "added";
  case ChangeKind::Changed:
    return "changed";
  case ChangeKind::Removed:
    return "removed";
  }
  return "changed";
}

std::string utcNow() {
  using namespace std::chrono;
  auto now = system_clock::now();
  std::time_t t = system_clock::to_time_t(now);
  auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[80];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

Workspace::Workspace() = default;
Workspace::Workspace(Workspace&&) noexcept = default;
Workspace& Workspace::operator=(Workspace&&) noexcept = default;
Workspace::~Workspace() = default;

std::span<const Migration> Workspace::migrations() {
  return kMigrations;
}

Expected<Workspace> Workspace::open(const std::string& dir, OpenMode mode) {
  // Two connections creating the same workspace at once (the workbench's session and a job it
  // runs, or two CLI processes) can meet SQLite's deadlock-avoidance SQLITE_BUSY, which comes back
  // at once, without the busy timeout: while the schema is being created or switched to WAL,
  // try again for as long as the busy timeout allows.
  auto start = std::chrono::steady_clock::now();
  for (;;) {
    Expected<Workspace> w = openOnce(dir, mode);
    if (w || w.error().code != ErrorCode::Busy ||
        std::chrono::steady_clock::now() - start > std::chrono::milliseconds(kBusyTimeoutMs))
      return w;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

Expected<Workspace> Workspace::openOnce(const std::string& dir, OpenMode mode) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path dbPath = fs::path(dir) / std::string(kDatabaseName);
  bool exists = fs::exists(dbPath, ec);
  if (ec)
    return Error{ErrorCode::Io, "cannot read '" + dbPath.string() + "': " + ec.message()};
  if (!exists && mode == OpenMode::MustExist)
    return Error{ErrorCode::NotFound, "no workspace at '" + dir + "' (no " +
                                          std::string(kDatabaseName) +
                                          "; create one with `cake workspace init`)"};
  if (!exists) {
    fs::create_directories(dir, ec);
    if (ec)
      return Error{ErrorCode::Io, "cannot create directory '" + dir + "': " + ec.message()};
  } else if (!fs::is_regular_file(dbPath, ec)) {
    return Error{ErrorCode::NotAWorkspace, "'" + dbPath.string() + "' is not a regular file"};
  }

  auto db = Database::open(dbPath.string(), !exists);
  if (!db)
    return db.error();
  Workspace w;
  w.m_db = std::move(*db);
  w.m_dir = dir;
  Database& d = *w.m_db;
  auto where = [&](const Error& e) {
    return Error{e.code, "'" + dbPath.string() + "': " + e.message};
  };
  if (Status s = d.exec("PRAGMA busy_timeout = " + std::to_string(kBusyTimeoutMs)); !s)
    return where(s.error());
  // The first read of the file: a garbage file fails here with SQLITE_NOTADB (ws-corrupt).
  auto appId = d.queryInteger("PRAGMA application_id");
  if (!appId)
    return where(appId.error());
  auto version = d.queryInteger("PRAGMA user_version");
  if (!version)
    return where(version.error());
  auto tables = d.queryInteger("SELECT count(*) FROM sqlite_master");
  if (!tables)
    return where(tables.error());
  bool fresh = *appId == 0 && *version == 0 && *tables == 0;
  if (!fresh && *appId != kApplicationId)
    return Error{ErrorCode::NotAWorkspace,
                 "'" + dbPath.string() + "' is an SQLite database but not a cake workspace"};
  if (fresh && mode == OpenMode::MustExist)
    return Error{ErrorCode::NotAWorkspace,
                 "'" + dbPath.string() +
                     "' is empty (an interrupted init?); run `cake workspace "
                     "init` again"};
  const auto latest = static_cast<std::int64_t>(std::size(kMigrations));
  if (*version > latest)
    return Error{ErrorCode::TooNew, "'" + dbPath.string() + "' has schema version " +
                                        std::to_string(*version) + ", this cake knows up to " +
                                        std::to_string(latest) + ": use a newer cake"};
  // WAL: readers never block the writer; a killed writer leaves the last committed state.
  {
    auto stmt = d.prepare("PRAGMA journal_mode = WAL");
    if (!stmt)
      return where(stmt.error());
    auto row = stmt->step();
    if (!row)
      return where(row.error());
    if (!*row || stmt->text(0) != "wal")
      return Error{ErrorCode::Io, "'" + dbPath.string() + "': cannot switch to WAL mode"};
  }
  for (std::string_view pragma : {"PRAGMA foreign_keys = ON", "PRAGMA synchronous = FULL"})
    if (Status s = d.exec(pragma); !s)
      return where(s.error());
  if (Status s = w.migrate(fresh); !s)
    return where(s.error());
  return w;
}

Status Workspace::migrate(bool created) {
  Database& d = *m_db;
  return atomically([&]() -> Status {
    // Read again inside the write lock: another process may have migrated meanwhile.
    auto version = d.queryInteger("PRAGMA user_version");
    if (!version)
      return version.error();
    const auto latest = static_cast<std::int64_t>(std::size(kMigrations));
    if (*version > latest)
      return Error{ErrorCode::TooNew, "schema version " + std::to_string(*version) +
                                          " is newer than this cake's " + std::to_string(latest)};
    for (const Migration& m : kMigrations) {
      if (m.version <= *version)
        continue;
      if (Status s = d.exec(m.sql); !s)
        return Error{s.error().code, "migration " + std::to_string(m.version) + " (" +
                                         std::string(m.description) + "): " + s.error().message};
      if (Status s = d.exec("PRAGMA user_version = " + std::to_string(m.version)); !s)
        return s;
    }
    if (*version == 0) {
      if (Status s = d.exec("PRAGMA application_id = " + std::to_string(kApplicationId)); !s)
        return s;
    }
    auto heads = d.queryInteger("SELECT count(*) FROM head");
    if (!heads)
      return heads.error();
    if (*heads == 0) {
      if (!created)
        return Error{ErrorCode::Corrupt, "the workspace has no head revision"};
      // Revision 1: the built-in data alone. The head always names a revision.
      std::string hash = detail::overlayHash({});
      auto ins = d.prepare("INSERT INTO revisions(id, parent, created_at, actor, reason, "
                           "content_hash) VALUES (1, NULL, ?1, 'cake', 'workspace created', ?2)");
      if (!ins)
        return ins.error();
      ins->bind(1, utcNow()).bind(2, hash);
      if (Status s = ins->run(); !s)
        return s;
      if (Status s = d.exec("INSERT INTO head(id, revision) VALUES (1, 1)"); !s)
        return s;
      json::Writer payload(false);
      payload.beginObject().key("schema_version").value(latest).key("content_hash").value(hash);
      payload.endObject();
      if (auto seq = appendAudit("cake", "workspace.init", "rev1", payload.str(), 1); !seq)
        return seq.error();
    }
    return Status::success();
  });
}

Expected<bool> Workspace::beginAct() {
  if (m_actDepth > 0) {
    // A nested act is a savepoint: when it fails it is undone even if the caller goes on, so
    // no act is ever half-applied (a revision row without its files or its audit entry).
    if (Status s = m_db->exec("SAVEPOINT act" + std::to_string(m_actDepth)); !s)
      return s.error();
    ++m_actDepth;
    return false;
  }
  // IMMEDIATE: take the write lock now, so two acts never interleave their reads and writes.
  if (Status s = m_db->exec("BEGIN IMMEDIATE"); !s)
    return s.error();
  m_actDepth = 1;
  return true;
}

Status Workspace::endAct(bool began, Status result) {
  --m_actDepth;
  if (!began) {
    std::string name = "act" + std::to_string(m_actDepth);
    if (!result)
      (void)m_db->exec("ROLLBACK TO " + name);
    if (Status s = m_db->exec("RELEASE " + name); !s && result)
      return s;
    return result;
  }
  if (result) {
    if (Status s = m_db->exec("COMMIT"); !s) {
      (void)m_db->exec("ROLLBACK");
      return s;
    }
    return result;
  }
  (void)m_db->exec("ROLLBACK");
  return result;
}

Status Workspace::atomically(const std::function<Status()>& body) {
  auto began = beginAct();
  if (!began)
    return began.error();
  return endAct(*began, body());
}

Expected<std::int64_t> Workspace::head() {
  return m_db->queryInteger("SELECT revision FROM head WHERE id = 1");
}

namespace {

Revision readRevision(const Statement& s) {
  Revision r;
  r.id = s.integer(0);
  r.parent = s.optionalInteger(1);
  r.createdAt = s.text(2);
  r.actor = s.text(3);
  r.reason = s.text(4);
  r.contentHash = s.text(5);
  return r;
}

constexpr std::string_view kRevisionColumns =
    "SELECT id, parent, created_at, actor, reason, content_hash FROM revisions";

} // namespace

Expected<std::vector<Revision>> Workspace::revisions() {
  auto stmt = m_db->prepare(std::string(kRevisionColumns) + " ORDER BY id");
  return detail::readAll<Revision>(stmt, readRevision);
}

Expected<Revision> Workspace::revision(std::int64_t id) {
  auto stmt = m_db->prepare(std::string(kRevisionColumns) + " WHERE id = ?1");
  if (!stmt)
    return stmt.error();
  stmt->bind(1, id);
  auto row = stmt->step();
  if (!row)
    return row.error();
  if (!*row)
    return Error{ErrorCode::UnknownRevision, "no revision " + std::to_string(id)};
  return readRevision(*stmt);
}

Expected<std::vector<WorkspaceFile>> Workspace::overlayFiles(std::int64_t id) {
  if (auto r = revision(id); !r)
    return r.error();
  auto stmt = m_db->prepare("SELECT f.kind, f.path, b.content, f.sha256 FROM revision_files f "
                            "LEFT JOIN blobs b ON b.sha256 = f.sha256 WHERE f.revision = ?1");
  if (!stmt)
    return stmt.error();
  stmt->bind(1, id);
  std::vector<WorkspaceFile> out;
  for (;;) {
    auto row = stmt->step();
    if (!row)
      return row.error();
    if (!*row)
      break;
    auto kind = fileKindFromString(stmt->text(0));
    if (!kind || stmt->isNull(2))
      return Error{ErrorCode::Corrupt, "revision " + std::to_string(id) + " has a damaged file '" +
                                           stmt->text(1) + "'"};
    out.push_back({*kind, stmt->text(1), stmt->text(2), stmt->text(3)});
  }
  std::sort(out.begin(), out.end(), fileLess);
  return out;
}

Expected<std::vector<FileChange>> Workspace::changes(std::int64_t id) {
  auto rev = revision(id);
  if (!rev)
    return rev.error();
  std::vector<WorkspaceFile> before;
  if (rev->parent) {
    auto files = overlayFiles(*rev->parent);
    if (!files)
      return files.error();
    before = std::move(*files);
  }
  auto after = overlayFiles(id);
  if (!after)
    return after.error();
  std::map<std::pair<std::string_view, std::string>, std::pair<std::string, std::string>> both;
  for (const WorkspaceFile& f : before)
    both[{toString(f.kind), f.path}].first = f.sha256;
  for (const WorkspaceFile& f : *after)
    both[{toString(f.kind), f.path}].second = f.sha256;
  std::vector<FileChange> out;
  for (const auto& [key, shas] : both) {
    if (shas.first == shas.second)
      continue;
    ChangeKind change = shas.first.empty()    ? ChangeKind::Added
                        : shas.second.empty() ? ChangeKind::Removed
                                              : ChangeKind::Changed;
    out.push_back({*fileKindFromString(key.first), key.second, change, shas.first, shas.second});
  }
  return out;
}

Expected<DataOverlay> Workspace::dataOverlay(std::int64_t id) {
  auto files = overlayFiles(id);
  if (!files)
    return files.error();
  DataOverlay overlay;
  for (WorkspaceFile& f : *files) {
    OverlayFile o{f.path,
                  "ws:rev" + std::to_string(id) + "/" + std::string(dataDirectory(f.kind)) + "/" +
                      f.path,
                  std::move(f.content)};
    switch (f.kind) {
    case FileKind::Primitive:
      overlay.primitives.push_back(std::move(o));
      break;
    case FileKind::Rule:
      overlay.rules.push_back(std::move(o));
      break;
    case FileKind::Calibration:
      overlay.calibration.push_back(std::move(o));
      break;
    case FileKind::Target:
      overlay.targets.push_back(std::move(o));
      break;
    }
  }
  return overlay;
}

Expected<std::int64_t> Workspace::installRevision(const std::vector<WorkspaceFile>& files,
                                                  const std::string& actor,
                                                  const std::string& reason,
                                                  const std::string& auditAct,
                                                  const std::string& auditPayload) {
  if (Status s = detail::checkName(actor, "the actor"); !s)
    return s.error();
  if (Status s = detail::checkName(auditAct, "the audit act"); !s)
    return s.error();
  if (reason.size() > 10000)
    return invalid("the reason is longer than 10000 characters");
  if (files.size() > kMaxFiles)
    return invalid("an overlay has at most " + std::to_string(kMaxFiles) + " files");
  if (Status s = detail::checkJson(auditPayload, "the audit payload"); !s)
    return s.error();
  std::vector<WorkspaceFile> sorted;
  sorted.reserve(files.size());
  for (const WorkspaceFile& f : files) {
    if (Status s = checkPath(f.kind, f.path); !s)
      return s.error();
    if (f.content.size() > kMaxFileBytes)
      return invalid("overlay file '" + f.path + "' is larger than " +
                     std::to_string(kMaxFileBytes) + " bytes");
    sorted.push_back({f.kind, f.path, f.content, sha256Hex(f.content)});
  }
  std::sort(sorted.begin(), sorted.end(), fileLess);
  for (std::size_t i = 1; i < sorted.size(); ++i)
    if (sorted[i].kind == sorted[i - 1].kind && sorted[i].path == sorted[i - 1].path)
      return invalid("overlay file '" + sorted[i].path + "' (" +
                     std::string(toString(sorted[i].kind)) + ") is given twice");
  std::string hash = detail::overlayHash(sorted);

  auto began = beginAct();
  if (!began)
    return began.error();
  auto body = [&]() -> Expected<std::int64_t> {
    auto parent = head();
    if (!parent)
      return parent.error();
    auto ins = m_db->prepare("INSERT INTO revisions(parent, created_at, actor, reason, "
                             "content_hash) VALUES (?1, ?2, ?3, ?4, ?5)");
    if (!ins)
      return ins.error();
    ins->bind(1, *parent).bind(2, utcNow()).bind(3, actor).bind(4, reason).bind(5, hash);
    if (Status s = ins->run(); !s)
      return s.error();
    auto id = m_db->queryInteger("SELECT last_insert_rowid()");
    if (!id)
      return id.error();
    auto blob = m_db->prepare("INSERT OR IGNORE INTO blobs(sha256, content) VALUES (?1, ?2)");
    auto file = m_db->prepare(
        "INSERT INTO revision_files(revision, kind, path, sha256) VALUES (?1, ?2, ?3, ?4)");
    if (!blob)
      return blob.error();
    if (!file)
      return file.error();
    for (const WorkspaceFile& f : sorted) {
      blob->reset();
      blob->bind(1, f.sha256).bind(2, f.content);
      if (Status s = blob->run(); !s)
        return s.error();
      file->reset();
      file->bind(1, *id).bind(2, toString(f.kind)).bind(3, f.path).bind(4, f.sha256);
      if (Status s = file->run(); !s)
        return s.error();
    }
    auto move = m_db->prepare("UPDATE head SET revision = ?1 WHERE id = 1");
    if (!move)
      return move.error();
    move->bind(1, *id);
    if (Status s = move->run(); !s)
      return s.error();
    json::Writer payload(false);
    payload.beginObject().key("revision").value(*id).key("parent").value(*parent);
    payload.key("content_hash").value(hash).key("files").beginArray();
    for (const WorkspaceFile& f : sorted) {
      payload.beginObject().key("kind").value(toString(f.kind)).key("path").value(f.path);
      payload.key("sha256").value(f.sha256).endObject();
    }
    payload.endArray().key("details").raw(auditPayload).endObject();
    auto seq = appendAudit(actor, auditAct, "rev" + std::to_string(*id), payload.str(), *id);
    if (!seq)
      return seq.error();
    return *id;
  };
  return endAct(*began, body());
}

Expected<std::int64_t> Workspace::revert(std::int64_t id, const std::string& actor,
                                         const std::string& comment) {
  if (Status s = detail::checkName(actor, "the reviewer"); !s)
    return s.error();
  auto began = beginAct();
  if (!began)
    return began.error();
  auto body = [&]() -> Expected<std::int64_t> {
    auto target = revision(id);
    if (!target)
      return target.error();
    auto h = head();
    if (!h)
      return h.error();
    auto current = revision(*h);
    if (!current)
      return current.error();
    if (current->contentHash == target->contentHash)
      return Error{ErrorCode::NoChange, "the head (revision " + std::to_string(*h) +
                                            ") already has the content of revision " +
                                            std::to_string(id)};
    auto files = overlayFiles(id);
    if (!files)
      return files.error();
    json::Writer details(false);
    details.beginObject().key("reverted_to").value(id).key("comment").value(comment).endObject();
    return installRevision(*files, actor,
                           "revert to revision " + std::to_string(id) + ": " + comment,
                           "revision.revert", details.str());
  };
  return endAct(*began, body());
}

} // namespace cake::ws
