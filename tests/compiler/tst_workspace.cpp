// Tests of the workspace store: migrations, acts as single transactions, the audit chain and its
// tamper detection, revert, the overlay the compiler loads, corrupt files, and crash safety
// (installs killed with SIGKILL at random moments).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "TestUtil.h"

#include "cake/Support/Sha256.h"
#include "cake/Support/StringUtil.h"
#include "cake/Workspace/Workspace.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <fstream>
#include <random>
#include <sqlite3.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace cake;
using namespace cake::ws;

// QCOMPARE on the store's enums, by their stable spelling.
template <class E> QString name(E value) {
  return QString::fromUtf8(ws::toString(value).data());
}

namespace {

std::string dbPath(const QTemporaryDir& dir) {
  return dir.path().toStdString() + "/" + std::string(Workspace::kDatabaseName);
}

/// Raw SQL on the database file, bypassing the store (what a tamperer can do).
void rawSql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  QVERIFY2(rc == SQLITE_OK, err ? err : "?");
  sqlite3_close(db);
}

/// A raw SQL statement that must fail; returns SQLite's message.
std::string rawSqlFails(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  std::string message = rc == SQLITE_OK ? std::string("(succeeded)") : (err ? err : "?");
  sqlite3_free(err);
  sqlite3_close(db);
  return message;
}

std::string builtinFile(const std::string& relative) {
  std::string error;
  auto text = readFile(std::string(CAKE_SOURCE_DIR) + "/" + relative, error, 1u << 20);
  return text ? *text : std::string();
}

/// ew.fill under another name: a primitive the built-in registry does not have.
WorkspaceFile newPrimitive(const std::string& name) {
  std::string text = builtinFile("compiler/primitives/elementwise/ew.fill.json");
  std::size_t at = text.find("\"name\": \"ew.fill\"");
  text.replace(at, std::string("\"name\": \"ew.fill\"").size(), "\"name\": \"" + name + "\"");
  return {FileKind::Primitive, "elementwise/" + name + ".json", text, {}};
}

Workspace create(const QTemporaryDir& dir) {
  auto w = Workspace::open(dir.path().toStdString(), OpenMode::CreateIfMissing);
  if (!w)
    qFatal("cannot create the workspace: %s", w.error().text().c_str());
  return std::move(*w);
}

std::int64_t countAudit(Workspace& w) {
  auto log = w.auditLog();
  return log ? static_cast<std::int64_t>(log->size()) : -1;
}

} // namespace

class TestWorkspace : public QObject {
  Q_OBJECT
private slots:
  void createAndReopen();
  void migratesOlderSchema();
  void refusesNewerSchema();
  void corruptFiles_data();
  void corruptFiles();
  void installAndChanges();
  void invalidPaths_data();
  void invalidPaths();
  void actIsOneTransaction();
  void nestedActFailureIsUndone();
  void concurrentWriters();
  void immutableTables();
  void auditTamper_data();
  void auditTamper();
  void revert();
  void overlayChangesCheck();
  void overlayDiagnosticsNameTheRevision();
  void overlayLoaderLimits();
  void proposals();
  void crashSafety();
};

void TestWorkspace::createAndReopen() {
  QTemporaryDir dir;
  std::string missing = dir.path().toStdString() + "/ws";
  auto none = Workspace::open(missing, OpenMode::MustExist);
  QVERIFY(!none);
  QCOMPARE(name(none.error().code), name(ErrorCode::NotFound));
  QCOMPARE(toString(none.error().code), std::string_view("ws-not-found"));
  {
    auto w = Workspace::open(missing, OpenMode::CreateIfMissing);
    QVERIFY2(w, w ? "" : w.error().text().c_str());
    QCOMPARE(*w->head(), 1);
    QCOMPARE(w->revisions()->size(), std::size_t(1));
    QCOMPARE(w->overlayFiles(1)->size(), std::size_t(0));
    auto log = w->auditLog();
    QCOMPARE(log->size(), std::size_t(1));
    QCOMPARE(log->at(0).act, std::string("workspace.init"));
    QCOMPARE(log->at(0).createdRevision, std::optional<std::int64_t>(1));
    QCOMPARE(log->at(0).prevHash, std::string(64, '0'));
  }
  // Opening again (either mode) neither adds a revision nor an audit entry.
  for (OpenMode mode : {OpenMode::MustExist, OpenMode::CreateIfMissing}) {
    auto w = Workspace::open(missing, mode);
    QVERIFY(w);
    QCOMPARE(w->revisions()->size(), std::size_t(1));
    QCOMPARE(countAudit(*w), 1);
    QVERIFY(w->verifyAudit()->ok);
  }
}

void TestWorkspace::migratesOlderSchema() {
  const auto latest = static_cast<int>(Workspace::migrations().size());
  QVERIFY(latest >= 4);
  // Databases of every older version: the later migrations' tables gone (read from their SQL,
  // in reverse order of creation so references go first), the version lowered.
  for (int from = 1; from < latest; ++from) {
    QTemporaryDir dir;
    {
      Workspace w = create(dir);
      QVERIFY(w.installRevision({newPrimitive("ew.one")}, "alice", "first"));
    }
    std::string drop;
    std::vector<std::string> dropped;
    for (int m = from; m < latest; ++m) { // migrations()[m] is version m + 1
      std::string_view sql = Workspace::migrations()[static_cast<std::size_t>(m)].sql;
      for (std::size_t at = 0; (at = sql.find("CREATE TABLE ", at)) != std::string_view::npos;) {
        at += 13;
        std::size_t end = sql.find_first_of("( ", at);
        dropped.emplace_back(sql.substr(at, end - at));
        drop = "DROP TABLE " + dropped.back() + "; " + drop;
      }
    }
    QVERIFY(!drop.empty());
    rawSql(dbPath(dir), drop + "PRAGMA user_version = " + std::to_string(from) + ";");
    auto w = Workspace::open(dir.path().toStdString(), OpenMode::MustExist);
    QVERIFY2(w, w ? "" : w.error().text().c_str());
    // The migrations ran: their tables exist, the version is the latest, the data are kept.
    ProposalRecord p{sha256Hex("p"), "props/p", FileKind::Primitive, "t", R"({"kind":"human"})"};
    QVERIFY(w->registerProposal(p, "alice"));
    QCOMPARE(w->proposals()->size(), std::size_t(1));
    QCOMPARE(*w->head(), 2);
    RunRow run;
    run.kernel = "k";
    run.record = R"({"kernel": "k"})";
    QVERIFY(w->addRun(run, "alice"));
    QCOMPARE(w->runs()->size(), std::size_t(1));
    QVERIFY(w->verifyAudit()->ok);
    sqlite3* db = nullptr;
    sqlite3_open(dbPath(dir).c_str(), &db);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, nullptr);
    QCOMPARE(sqlite3_step(st), SQLITE_ROW);
    QCOMPARE(sqlite3_column_int(st, 0), latest);
    sqlite3_finalize(st);
    for (const std::string& table : dropped) {
      std::string q = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '" +
                      table + "'";
      sqlite3_prepare_v2(db, q.c_str(), -1, &st, nullptr);
      QCOMPARE(sqlite3_step(st), SQLITE_ROW);
      QVERIFY2(sqlite3_column_int(st, 0) == 1, table.c_str());
      sqlite3_finalize(st);
    }
    sqlite3_close(db);
  }
}

void TestWorkspace::refusesNewerSchema() {
  QTemporaryDir dir;
  { create(dir); }
  const auto latest = static_cast<int>(Workspace::migrations().size());
  rawSql(dbPath(dir), "PRAGMA user_version = " + std::to_string(latest + 1) + ";");
  auto w = Workspace::open(dir.path().toStdString(), OpenMode::MustExist);
  QVERIFY(!w);
  QCOMPARE(name(w.error().code), name(ErrorCode::TooNew));
  QVERIFY2(w.error().message.find("schema version " + std::to_string(latest + 1)) !=
               std::string::npos,
           w.error().message.c_str());
  // The current version still opens.
  rawSql(dbPath(dir), "PRAGMA user_version = " + std::to_string(latest) + ";");
  QVERIFY(Workspace::open(dir.path().toStdString(), OpenMode::MustExist));
}

void TestWorkspace::corruptFiles_data() {
  QTest::addColumn<QString>("kind");
  QTest::addColumn<int>("code");
  QTest::newRow("random bytes") << "random" << int(ErrorCode::Corrupt);
  QTest::newRow("text file") << "text" << int(ErrorCode::Corrupt);
  QTest::newRow("truncated workspace") << "truncated" << int(ErrorCode::Corrupt);
  QTest::newRow("damaged pages") << "damaged" << int(ErrorCode::Corrupt);
  QTest::newRow("another application's database") << "foreign" << int(ErrorCode::NotAWorkspace);
  QTest::newRow("empty file") << "empty" << int(ErrorCode::NotAWorkspace);
}

void TestWorkspace::corruptFiles() {
  QFETCH(QString, kind);
  QFETCH(int, code);
  QTemporaryDir dir;
  const std::string path = dbPath(dir);
  if (kind == "truncated" || kind == "damaged") {
    {
      Workspace w = create(dir);
      for (int i = 0; i < 20; ++i) {
        WorkspaceFile f = newPrimitive("ew.p" + std::to_string(i));
        f.content += std::string(5000, ' ');
        QVERIFY(w.installRevision({f}, "alice", "fill pages"));
      }
    }
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    QVERIFY(bytes.size() > 40000);
    if (kind == "truncated") {
      bytes.resize(4096); // the header page alone: the tables' pages are gone
    } else {
      std::mt19937 rng(7); // every page after the first overwritten with noise
      for (std::size_t i = 4096; i < bytes.size(); ++i)
        bytes[i] = static_cast<char>(rng());
    }
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  } else if (kind == "random") {
    std::mt19937 rng(42);
    std::string bytes(10000, '\0');
    for (char& c : bytes)
      c = static_cast<char>(rng());
    std::ofstream(path, std::ios::binary) << bytes;
  } else if (kind == "text") {
    std::ofstream(path) << "this is not a database\n";
  } else if (kind == "foreign") {
    rawSql(path, "CREATE TABLE songs(title TEXT); INSERT INTO songs VALUES ('x');");
  } else {
    std::ofstream(path).flush();
  }
  // Whatever the open finds, it reports; nothing crashes, and CreateIfMissing never overwrites.
  for (OpenMode mode : {OpenMode::MustExist, OpenMode::CreateIfMissing}) {
    auto w = Workspace::open(dir.path().toStdString(), mode);
    if (kind == "empty" && mode == OpenMode::CreateIfMissing) {
      QVERIFY2(w, w ? "" : w.error().text().c_str()); // an interrupted init is finished
      continue;
    }
    QVERIFY2(!w, qPrintable(kind));
    QCOMPARE(int(w.error().code), code);
    QVERIFY(!w.error().message.empty());
  }
}

void TestWorkspace::installAndChanges() {
  QTemporaryDir dir;
  Workspace w = create(dir);
  WorkspaceFile a = newPrimitive("ew.a"), b = newPrimitive("ew.b");
  auto r2 =
      w.installRevision({b, a}, "alice", "add a and b", "proposal.approve", R"({"proposal":"x"})");
  QVERIFY2(r2, r2 ? "" : r2.error().text().c_str());
  QCOMPARE(*r2, 2);
  QCOMPARE(*w.head(), 2);
  auto files = w.overlayFiles(2);
  QCOMPARE(files->size(), std::size_t(2));
  QCOMPARE(files->at(0).path, std::string("elementwise/ew.a.json")); // sorted
  QCOMPARE(files->at(0).content, a.content);
  QCOMPARE(files->at(0).sha256, sha256Hex(a.content));
  auto rev = w.revision(2);
  QCOMPARE(rev->parent, std::optional<std::int64_t>(1));
  QCOMPARE(rev->actor, std::string("alice"));
  QCOMPARE(rev->reason, std::string("add a and b"));
  auto c2 = w.changes(2);
  QCOMPARE(c2->size(), std::size_t(2));
  QCOMPARE(name(c2->at(0).change), name(ChangeKind::Added));
  QVERIFY(c2->at(0).oldSha256.empty());

  // Revision 3: a changed, b removed, a rule added.
  WorkspaceFile a2 = a;
  a2.content += " ";
  WorkspaceFile rule{FileKind::Rule, "program-safety/x-rule.json", "{}", {}};
  QCOMPARE(*w.installRevision({a2, rule}, "bob", "change a, drop b"), 3);
  auto c3 = w.changes(3);
  QCOMPARE(c3->size(), std::size_t(3));
  QCOMPARE(c3->at(0).path, std::string("elementwise/ew.a.json"));
  QCOMPARE(name(c3->at(0).change), name(ChangeKind::Changed));
  QCOMPARE(c3->at(0).oldSha256, sha256Hex(a.content));
  QCOMPARE(c3->at(0).newSha256, sha256Hex(a2.content));
  QCOMPARE(c3->at(1).path, std::string("elementwise/ew.b.json"));
  QCOMPARE(name(c3->at(1).change), name(ChangeKind::Removed));
  QCOMPARE(name(c3->at(2).kind), name(FileKind::Rule));
  QCOMPARE(name(c3->at(2).change), name(ChangeKind::Added));
  // Revision 2 is unchanged by its successor (immutable snapshots).
  QCOMPARE(w.overlayFiles(2)->size(), std::size_t(2));

  auto overlay = w.dataOverlay(3);
  QCOMPARE(overlay->primitives.size(), std::size_t(1));
  QCOMPARE(overlay->rules.size(), std::size_t(1));
  QCOMPARE(overlay->primitives[0].label, std::string("ws:rev3/primitives/elementwise/ew.a.json"));
  QCOMPARE(overlay->primitives[0].name, std::string("elementwise/ew.a.json"));
  QCOMPARE(overlay->rules[0].label, std::string("ws:rev3/rules/program-safety/x-rule.json"));

  auto log = w.auditLog();
  QCOMPARE(log->size(), std::size_t(3));
  QCOMPARE(log->at(1).act, std::string("proposal.approve"));
  QCOMPARE(log->at(1).subject, std::string("rev2"));
  QCOMPARE(log->at(1).createdRevision, std::optional<std::int64_t>(2));
  QVERIFY2(log->at(1).payload.find(R"("details":{"proposal":"x"})") != std::string::npos,
           log->at(1).payload.c_str());
  QCOMPARE(log->at(2).prevHash, log->at(1).hash);
  QCOMPARE(name(w.revision(99).error().code), name(ErrorCode::UnknownRevision));
  QVERIFY(w.verifyAudit()->ok);
}

void TestWorkspace::invalidPaths_data() {
  QTest::addColumn<int>("kind");
  QTest::addColumn<QString>("path");
  QTest::newRow("parent") << int(FileKind::Primitive) << "../x.json";
  QTest::newRow("inner parent") << int(FileKind::Primitive) << "a/../../x.json";
  QTest::newRow("absolute") << int(FileKind::Primitive) << "/etc/x.json";
  QTest::newRow("empty part") << int(FileKind::Primitive) << "a//x.json";
  QTest::newRow("dot part") << int(FileKind::Primitive) << "./x.json";
  QTest::newRow("backslash") << int(FileKind::Primitive) << "a\\x.json";
  QTest::newRow("not json") << int(FileKind::Primitive) << "x.txt";
  QTest::newRow("only .json") << int(FileKind::Primitive) << ".json";
  QTest::newRow("empty") << int(FileKind::Rule) << "";
  QTest::newRow("control") << int(FileKind::Rule) << "a\nb.json";
  QTest::newRow("target in a subdirectory") << int(FileKind::Target) << "sub/sm_99.json";
  QTest::newRow("calibration in a subdirectory") << int(FileKind::Calibration) << "x/sm_90a.json";
  QTest::newRow("too long") << int(FileKind::Primitive) << QString(252, 'a') + ".json";
}

void TestWorkspace::invalidPaths() {
  QFETCH(int, kind);
  QFETCH(QString, path);
  QTemporaryDir dir;
  Workspace w = create(dir);
  WorkspaceFile ok = newPrimitive("ew.ok");
  WorkspaceFile bad{FileKind(kind), path.toStdString(), "{}", {}};
  auto r = w.installRevision({ok, bad}, "alice", "bad path");
  QVERIFY(!r);
  QCOMPARE(name(r.error().code), name(ErrorCode::InvalidArgument));
  QCOMPARE(*w.head(), 1);
  QCOMPARE(w.revisions()->size(), std::size_t(1));
  QCOMPARE(countAudit(w), 1);
  // The exact boundary: 255 characters are accepted (the "too long" row has 256).
  WorkspaceFile longest{FileKind::Primitive, std::string(250, 'a') + ".json", "{}", {}};
  QVERIFY(w.installRevision({longest}, "alice", "longest path"));
}

void TestWorkspace::actIsOneTransaction() {
  QTemporaryDir dir;
  Workspace w = create(dir);
  // An act that installs a revision and then fails leaves nothing behind.
  Status s = w.atomically([&]() -> Status {
    auto r = w.installRevision({newPrimitive("ew.x")}, "alice", "inside");
    if (!r)
      return r.error();
    auto v = w.addVote(std::string(64, 'a'), "bob", Decision::Approve, "no such proposal");
    if (!v)
      return v.error();
    return Status::success();
  });
  QVERIFY(!s);
  QCOMPARE(name(s.error().code), name(ErrorCode::UnknownProposal));
  QCOMPARE(*w.head(), 1);
  QCOMPARE(w.revisions()->size(), std::size_t(1));
  QCOMPARE(countAudit(w), 1);
  QVERIFY(w.verifyAudit()->ok);
  // The same act without the failing part commits both entries together.
  QVERIFY(w.atomically([&]() -> Status {
    if (auto r = w.installRevision({newPrimitive("ew.x")}, "alice", "inside"); !r)
      return r.error();
    if (auto a = w.appendAudit("alice", "note", "rev2", R"({"n":1})"); !a)
      return a.error();
    return Status::success();
  }));
  QCOMPARE(*w.head(), 2);
  QCOMPARE(countAudit(w), 3);
  // A duplicate file, a bad payload or a bad actor is refused before anything is written.
  WorkspaceFile d = newPrimitive("ew.d");
  QCOMPARE(name(w.installRevision({d, d}, "alice", "twice").error().code),
           name(ErrorCode::InvalidArgument));
  QCOMPARE(name(w.installRevision({d}, "alice", "r", "revision.install", "{not json").error().code),
           name(ErrorCode::InvalidArgument));
  QCOMPARE(name(w.installRevision({d}, "", "no actor").error().code),
           name(ErrorCode::InvalidArgument));
  QCOMPARE(name(w.appendAudit("alice", "note", "s", "[1,").error().code),
           name(ErrorCode::InvalidArgument));
  QCOMPARE(*w.head(), 2);
  QCOMPARE(countAudit(w), 3);
}

void TestWorkspace::nestedActFailureIsUndone() {
  QTemporaryDir dir;
  Workspace w = create(dir);
  // The inner act installs a revision and fails; the outer act ignores that and goes on.
  QVERIFY(w.atomically([&]() -> Status {
    Status inner = w.atomically([&]() -> Status {
      if (auto r = w.installRevision({newPrimitive("ew.inner")}, "alice", "inner"); !r)
        return r.error();
      return Error{ErrorCode::InvalidArgument, "the inner act fails after writing"};
    });
    if (inner)
      return Error{ErrorCode::Sqlite, "the inner act should have failed"};
    if (auto r = w.installRevision({newPrimitive("ew.outer")}, "alice", "outer"); !r)
      return r.error();
    return Status::success();
  }));
  // Only the outer revision exists, as revision 2, with its audit entry right after init.
  auto revisions = w.revisions();
  QCOMPARE(revisions->size(), std::size_t(2));
  QCOMPARE(revisions->back().reason, std::string("outer"));
  QCOMPARE(revisions->back().id, 2);
  QCOMPARE(w.overlayFiles(2)->at(0).path, std::string("elementwise/ew.outer.json"));
  QCOMPARE(countAudit(w), 2);
  auto report = w.verifyAudit();
  QVERIFY2(report->ok, report->message.c_str());
}

void TestWorkspace::concurrentWriters() {
  QTemporaryDir dir;
  const std::string path = dir.path().toStdString();
  { create(dir); }
  constexpr int kWriters = 3, kActs = 15;
  std::vector<pid_t> children;
  for (int c = 0; c < kWriters; ++c) {
    pid_t pid = fork();
    QVERIFY(pid >= 0);
    if (pid == 0) {
      auto w = Workspace::open(path, OpenMode::MustExist);
      if (!w)
        _exit(3);
      for (int n = 0; n < kActs; ++n) {
        std::string name = "ew.c" + std::to_string(c) + "n" + std::to_string(n);
        if (!w->installRevision({newPrimitive(name)}, "writer" + std::to_string(c), name))
          _exit(4);
        if (!w->appendAudit("writer" + std::to_string(c), "note", name, "{}"))
          _exit(5);
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    QVERIFY2(WIFEXITED(status) && WEXITSTATUS(status) == 0,
             qPrintable(QStringLiteral("a writer failed (status %1)").arg(status)));
  }
  auto w = Workspace::open(path, OpenMode::MustExist);
  QVERIFY(w);
  QCOMPARE(w->revisions()->size(), std::size_t(1 + kWriters * kActs));
  QCOMPARE(countAudit(*w), 1 + 2 * kWriters * kActs);
  auto report = w->verifyAudit();
  QVERIFY2(report->ok, report->message.c_str());
  // Each revision's parent is the revision before it: no act read a stale head.
  auto revisions = w->revisions();
  for (std::size_t i = 1; i < revisions->size(); ++i)
    QCOMPARE(revisions->at(i).parent, std::optional<std::int64_t>(revisions->at(i - 1).id));
}

void TestWorkspace::immutableTables() {
  QTemporaryDir dir;
  {
    Workspace w = create(dir);
    QVERIFY(w.installRevision({newPrimitive("ew.i")}, "alice", "one"));
  }
  const std::string path = dbPath(dir);
  for (const char* sql :
       {"UPDATE audit SET actor = 'mallory' WHERE seq = 1", "DELETE FROM audit WHERE seq = 2",
        "UPDATE revisions SET actor = 'mallory'", "DELETE FROM revision_files",
        "UPDATE blobs SET content = 'x'", "DELETE FROM revisions WHERE id = 2"}) {
    std::string message = rawSqlFails(path, sql);
    QVERIFY2(message.find("append-only") != std::string::npos ||
                 message.find("immutable") != std::string::npos,
             (std::string(sql) + ": " + message).c_str());
  }
  auto w = Workspace::open(dir.path().toStdString());
  QVERIFY(w->verifyAudit()->ok);
}

void TestWorkspace::auditTamper_data() {
  QTest::addColumn<QString>("sql");
  QTest::addColumn<qint64>("firstBad");
  QTest::addColumn<QString>("says");
  // The log holds 4 entries: init, rev2, rev3, a note. Triggers are dropped first.
  QTest::newRow("payload edited") << "UPDATE audit SET payload = '{\"n\":2}' WHERE seq = 4"
                                  << qint64(4) << "does not match its hash";
  QTest::newRow("actor edited") << "UPDATE audit SET actor = 'mallory' WHERE seq = 2" << qint64(2)
                                << "does not match its hash";
  QTest::newRow("time edited") << "UPDATE audit SET time = '2020-01-01T00:00:00.000Z' WHERE seq = 1"
                               << qint64(1) << "does not match its hash";
  QTest::newRow("middle entry deleted")
      << "DELETE FROM audit WHERE seq = 3" << qint64(3) << "is missing";
  QTest::newRow("first entry deleted")
      << "DELETE FROM audit WHERE seq = 1" << qint64(1) << "is missing";
  QTest::newRow("last entry deleted")
      << "DELETE FROM audit WHERE seq = 4" << qint64(4) << "removed from the end";
  QTest::newRow("link rewritten") << "UPDATE audit SET prev_hash = hash WHERE seq = 3" << qint64(3)
                                  << "does not link";
  QTest::newRow("file content swapped")
      << "UPDATE blobs SET content = content || ' ' WHERE sha256 IN (SELECT sha256 FROM "
         "revision_files WHERE revision = 3)"
      << qint64(3) << "does not match its sha256";
  QTest::newRow("file removed from a revision") << "DELETE FROM revision_files WHERE revision = 2"
                                                << qint64(2) << "do not match its content hash";
  QTest::newRow("revision without audit entry")
      << "INSERT INTO revisions(id, parent, created_at, actor, reason, content_hash) SELECT 9, 3, "
         "created_at, actor, reason, content_hash FROM revisions WHERE id = 3"
      << qint64(5) << "revision 9 has no audit entry";
}

void TestWorkspace::auditTamper() {
  QFETCH(QString, sql);
  QFETCH(qint64, firstBad);
  QFETCH(QString, says);
  QTemporaryDir dir;
  {
    Workspace w = create(dir);
    QVERIFY(w.installRevision({newPrimitive("ew.t")}, "alice", "two"));
    QVERIFY(w.installRevision({newPrimitive("ew.u")}, "alice", "three"));
    QVERIFY(w.appendAudit("bob", "note", "rev3", R"({"n":1})"));
    auto report = w.verifyAudit();
    QVERIFY2(report->ok, report->message.c_str());
    QCOMPARE(report->entries, 4);
  }
  rawSql(dbPath(dir), "DROP TRIGGER audit_no_update; DROP TRIGGER audit_no_delete; "
                      "DROP TRIGGER blobs_no_update; DROP TRIGGER revision_files_no_delete; " +
                          sql.toStdString() + ";");
  auto w = Workspace::open(dir.path().toStdString());
  QVERIFY2(w, w ? "" : w.error().text().c_str());
  auto report = w->verifyAudit();
  QVERIFY(report);
  QVERIFY(!report->ok);
  QCOMPARE(report->firstBadSeq, std::optional<std::int64_t>(firstBad));
  QVERIFY2(report->message.find(says.toStdString()) != std::string::npos, report->message.c_str());
}

void TestWorkspace::revert() {
  QTemporaryDir dir;
  Workspace w = create(dir);
  QCOMPARE(*w.installRevision({newPrimitive("ew.r1")}, "alice", "r1"), 2);
  QCOMPARE(*w.installRevision({newPrimitive("ew.r2")}, "alice", "r2"), 3);
  auto r = w.revert(2, "carol", "r2 broke the gate");
  QVERIFY2(r, r ? "" : r.error().text().c_str());
  QCOMPARE(*r, 4);
  QCOMPARE(*w.head(), 4);
  QCOMPARE(w.revision(4)->contentHash, w.revision(2)->contentHash);
  QCOMPARE(w.revision(4)->parent, std::optional<std::int64_t>(3));
  QCOMPARE(w.revision(4)->actor, std::string("carol"));
  QCOMPARE(w.overlayFiles(4)->at(0).path, std::string("elementwise/ew.r1.json"));
  QCOMPARE(w.changes(4)->size(), std::size_t(2)); // r1 back, r2 gone
  QCOMPARE(w.overlayFiles(3)->at(0).path, std::string("elementwise/ew.r2.json")); // kept
  auto log = w.auditLog();
  QCOMPARE(log->back().act, std::string("revision.revert"));
  QCOMPARE(log->back().actor, std::string("carol"));
  QVERIFY(log->back().payload.find(R"("reverted_to":2)") != std::string::npos);
  // Reverting to what the head already holds, or to nothing, is refused and writes nothing.
  QCOMPARE(name(w.revert(4, "carol", "again").error().code), name(ErrorCode::NoChange));
  QCOMPARE(name(w.revert(2, "carol", "again").error().code), name(ErrorCode::NoChange));
  QCOMPARE(name(w.revert(99, "carol", "x").error().code), name(ErrorCode::UnknownRevision));
  QCOMPARE(name(w.revert(1, "", "x").error().code), name(ErrorCode::InvalidArgument));
  QCOMPARE(*w.head(), 4);
  // The empty overlay of revision 1 is a valid revert target.
  QCOMPARE(*w.revert(1, "carol", "back to built-ins"), 5);
  QCOMPARE(w.overlayFiles(5)->size(), std::size_t(0));
  QVERIFY(w.verifyAudit()->ok);
}

void TestWorkspace::overlayChangesCheck() {
  const driver::DataPaths paths = test::compiler().paths();
  std::string kernel = builtinFile("corpus/rmsnorm/rmsnorm.cake");
  QVERIFY(kernel.find("ew.fill ") != std::string::npos);
  for (std::size_t at; (at = kernel.find("ew.fill ")) != std::string::npos;)
    kernel.replace(at, 8, "ew.myfill ");
  auto builtin = driver::Compiler::load(paths);
  auto refused = builtin->check("k.cake", kernel);
  QVERIFY(!refused.accepted);
  QVERIFY(test::codes(refused.diagnostics, *refused.sources)
              .join(" ")
              .contains("sem-unknown-primitive"));

  QTemporaryDir dir;
  Workspace w = create(dir);
  QVERIFY(w.installRevision({newPrimitive("ew.myfill")}, "alice", "add ew.myfill"));
  auto overlay = w.dataOverlay(*w.head());
  QVERIFY(overlay);
  auto withOverlay = driver::Compiler::load(paths, *overlay);
  QVERIFY2(withOverlay->ok(), qPrintable(test::messages(withOverlay->loadDiagnostics())));
  QVERIFY(withOverlay->registry().find("ew.myfill"));
  QCOMPARE(withOverlay->registry().all().size(), builtin->registry().all().size() + 1);
  auto accepted = withOverlay->check("k.cake", kernel);
  QVERIFY2(accepted.accepted, qPrintable(test::messages(accepted.diagnostics)));
  // The compiler revision covers the overlay: another content, another revision.
  QVERIFY(withOverlay->revision() != builtin->revision());
  WorkspaceFile changed = newPrimitive("ew.myfill");
  changed.content.insert(changed.content.find("\"summary\": \"") + 12, "Changed. ");
  QVERIFY(w.installRevision({changed}, "alice", "reword"));
  auto reworded = driver::Compiler::load(paths, *w.dataOverlay(*w.head()));
  QVERIFY(reworded->ok());
  QVERIFY(reworded->revision() != withOverlay->revision());
  // The same content at another revision (a revert) is the same compiler revision.
  QVERIFY(w.revert(2, "alice", "back"));
  QCOMPARE(driver::Compiler::load(paths, *w.dataOverlay(*w.head()))->revision(),
           withOverlay->revision());

  // An overlay file with a built-in primitive's name replaces it.
  WorkspaceFile replaced{FileKind::Primitive,
                         "elementwise/ew.fill.json",
                         builtinFile("compiler/primitives/elementwise/ew.fill.json"),
                         {}};
  replaced.content.insert(replaced.content.find("\"summary\": \"") + 12, "Replaced. ");
  QVERIFY(w.installRevision({replaced}, "alice", "reworded ew.fill"));
  auto replacing = driver::Compiler::load(paths, *w.dataOverlay(*w.head()));
  QVERIFY2(replacing->ok(), qPrintable(test::messages(replacing->loadDiagnostics())));
  QCOMPARE(replacing->registry().all().size(), builtin->registry().all().size());
  const reg::Primitive* fill = replacing->registry().find("ew.fill");
  QVERIFY(fill);
  QVERIFY(fill->summary.rfind("Replaced. ", 0) == 0);
  QCOMPARE(replacing->sources().name(fill->nameRange.file),
           std::string("ws:rev") + std::to_string(*w.head()) +
               "/primitives/elementwise/ew.fill.json");
}

void TestWorkspace::overlayDiagnosticsNameTheRevision() {
  QTemporaryDir dir;
  Workspace w = create(dir);
  WorkspaceFile broken = newPrimitive("ew.broken");
  broken.content.replace(broken.content.find("\"issue\": \"thread\""), 17, "\"issue\": \"galaxy\"");
  WorkspaceFile target{FileKind::Target, "sm_90a.json", "{\"name\": ", {}};
  QCOMPARE(*w.installRevision({broken, target}, "alice", "broken"), 2);
  auto c = driver::Compiler::load(test::compiler().paths(), *w.dataOverlay(2));
  QVERIFY(!c->ok());
  QStringList files;
  for (const Diagnostic& d : c->loadDiagnostics())
    files << QString::fromStdString(c->sources().name(d.range.file));
  QVERIFY2(files.contains("ws:rev2/primitives/elementwise/ew.broken.json"),
           qPrintable(files.join(", ")));
  QVERIFY2(files.contains("ws:rev2/targets/sm_90a.json"), qPrintable(files.join(", ")));
}

void TestWorkspace::overlayLoaderLimits() {
  // The loaders guard the overlay by themselves (a workspace is not its only source).
  SourceManager sources;
  DiagnosticEngine diags;
  std::vector<DataFile> files{{"/data/compute/x.json", "compute/x.json", 0},
                              {"/data/a.json", "a.json", 0}};
  std::vector<OverlayFile> overlay{
      {"sub/sm_99.json", "ws:rev2/targets/sub/sm_99.json", "{}"},
      {"big.json", "ws:rev2/targets/big.json", std::string(101, ' ')},
      {"exact.json", "ws:rev2/targets/exact.json", std::string(100, ' ')},
      {"elementwise/x.json", "ws:rev2/targets/elementwise/x.json", "{}"}};
  applyOverlay(files, overlay, "target", true, 100, sources, diags);
  // Recursive kind: the subdirectory file is taken; x.json replaces the built-in x.json.
  QStringList names;
  for (const DataFile& f : files)
    names << QString::fromStdString(f.name + "=" + f.path.string());
  QCOMPARE(names, QStringList({"a.json=/data/a.json",
                               "elementwise/x.json=ws:rev2/targets/elementwise/x.json",
                               "exact.json=ws:rev2/targets/exact.json",
                               "sub/sm_99.json=ws:rev2/targets/sub/sm_99.json"}));
  QCOMPARE(diags.diagnostics().size(), std::size_t(1));
  QCOMPARE(diags.diagnostics()[0].message,
           std::string("overlay target file 'ws:rev2/targets/big.json' is larger than 100 bytes"));
  QCOMPARE(sources.name(diags.diagnostics()[0].range.file),
           std::string("ws:rev2/targets/big.json"));

  // Not recursive: a file in a subdirectory is refused.
  std::vector<DataFile> flat;
  DiagnosticEngine diags2;
  applyOverlay(flat, {overlay[0]}, "target", false, 100, sources, diags2);
  QVERIFY(flat.empty());
  QCOMPARE(diags2.diagnostics().size(), std::size_t(1));
  QCOMPARE(diags2.diagnostics()[0].code, std::string("def-io"));
  QVERIFY(diags2.diagnostics()[0].message.find("must not lie in a subdirectory") !=
          std::string::npos);
}

void TestWorkspace::proposals() {
  QTemporaryDir dir;
  Workspace w = create(dir);
  ProposalRecord p{sha256Hex("v1"), "corpus/proposals/gelu", FileKind::Primitive, "ew.gelu",
                   R"({"kind":"agent","name":"a1"})"};
  auto first = w.registerProposal(p, "a1");
  QVERIFY2(first, first ? "" : first.error().text().c_str());
  QCOMPARE(name(first->state), name(ProposalState::New));
  QVERIFY(!first->createdAt.empty());
  QCOMPARE(countAudit(w), 2);
  QVERIFY(w.registerProposal(p, "a1")); // idempotent: no second row, no audit entry
  QCOMPARE(w.proposals()->size(), std::size_t(1));
  QCOMPARE(countAudit(w), 2);

  auto e = w.addEvaluation(p.hash, 1, R"({"verdict":"clean"})", "cake");
  QVERIFY(e);
  QCOMPARE(w.evaluations(p.hash)->size(), std::size_t(1));
  QCOMPARE(w.evaluations(p.hash)->at(0).report, std::string(R"({"verdict":"clean"})"));
  // Evaluating new content makes it evaluated (within the evaluate act: no entry of its own).
  QCOMPARE(name((*w.proposal(p.hash))->state), name(ProposalState::Evaluated));
  QCOMPARE(countAudit(w), 3);
  QVERIFY(w.setProposalState(p.hash, ProposalState::ChangesRequested, "cake", "rename it"));
  QVERIFY(w.addEvaluation(p.hash, 1, R"({"verdict":"clean"})", "cake"));
  QCOMPARE(name((*w.proposal(p.hash))->state), name(ProposalState::ChangesRequested));
  QVERIFY(w.addVote(p.hash, "alice", Decision::RequestChanges, "rename it"));
  auto votes = w.votes(p.hash);
  QCOMPARE(votes->size(), std::size_t(1));
  QCOMPARE(name(votes->at(0).decision), name(Decision::RequestChanges));
  QCOMPARE(votes->at(0).comment, std::string("rename it"));
  QVERIFY(w.acceptGateCase("hopper_gemm", 1, "alice", "expected speedup", p.hash));
  QCOMPARE(w.gateAcceptances(1)->size(), std::size_t(1));
  QCOMPARE(w.gateAcceptances(2)->size(), std::size_t(0));
  QCOMPARE(w.gateAcceptances(1)->at(0).proposal, std::optional<std::string>(p.hash));

  // New content at the same path: the earlier content is stale, the new one has no votes.
  ProposalRecord p2 = p;
  p2.hash = sha256Hex("v2");
  QVERIFY(w.registerProposal(p2, "a1"));
  QCOMPARE(name((*w.proposal(p.hash))->state), name(ProposalState::Stale));
  QCOMPARE(name((*w.proposal(p2.hash))->state), name(ProposalState::New));
  QCOMPARE(w.votes(p2.hash)->size(), std::size_t(0));
  QCOMPARE(w.proposals("corpus/proposals/gelu")->size(), std::size_t(2));
  QVERIFY(!*w.proposal(sha256Hex("unknown")));

  // Refusals.
  QCOMPARE(name(w.addVote(sha256Hex("unknown"), "bob", Decision::Approve, "").error().code),
           name(ErrorCode::UnknownProposal));
  QCOMPARE(name(w.addEvaluation(p2.hash, 42, "{}", "cake").error().code),
           name(ErrorCode::UnknownRevision));
  QCOMPARE(name(w.addEvaluation(p2.hash, 1, "{", "cake").error().code),
           name(ErrorCode::InvalidArgument));
  ProposalRecord badHash = p;
  badHash.hash = "ABC";
  QCOMPARE(name(w.registerProposal(badHash, "a1").error().code), name(ErrorCode::InvalidArgument));
  ProposalRecord badAuthor = p;
  badAuthor.hash = sha256Hex("v3");
  badAuthor.author = "not json";
  QCOMPARE(name(w.registerProposal(badAuthor, "a1").error().code),
           name(ErrorCode::InvalidArgument));

  auto log = w.auditLog();
  QStringList acts;
  for (const AuditEntry& a : *log)
    acts << QString::fromStdString(a.act);
  QCOMPARE(acts, QStringList({"workspace.init", "proposal.submit", "proposal.evaluate",
                              "proposal.state", "proposal.evaluate", "proposal.request-changes",
                              "gate.accept", "proposal.submit"}));
  QVERIFY(w.verifyAudit()->ok);
}

void TestWorkspace::crashSafety() {
  QTemporaryDir dir;
  const std::string path = dir.path().toStdString();
  { create(dir); }
  std::mt19937 rng(20261201);
  int killedMidRun = 0;
  std::int64_t lastCount = 1;
  // Rounds until 15 kills landed after the child's first act (bounded): a loaded machine starts
  // the child late, so a fixed round count would test less there, not differently.
  int round = 0;
  for (; round < 120 && killedMidRun < 15; ++round) {
    int ready[2];
    QVERIFY(pipe(ready) == 0);
    pid_t pid = fork();
    QVERIFY(pid >= 0);
    if (pid == 0) {
      // The child: installs revisions of 1 to 3 files (64 KiB each, so an act takes a while)
      // until killed. The reason records how many files the revision must hold.
      close(ready[0]);
      auto w = Workspace::open(path, OpenMode::MustExist);
      if (!w)
        _exit(3);
      // Open: the parent's random delay starts now, not at fork().
      if (write(ready[1], "r", 1) != 1)
        _exit(5);
      for (int n = 0;; ++n) {
        int count = n % 3 + 1;
        std::vector<WorkspaceFile> files;
        for (int i = 0; i < count; ++i)
          files.push_back({FileKind::Primitive,
                           "p" + std::to_string(i) + ".json",
                           std::to_string(getpid()) + "/" + std::to_string(n) + "/" +
                               std::string(64 << 10, char('a' + i)),
                           {}});
        if (!w->installRevision(files, "child", "files=" + std::to_string(count)))
          _exit(4);
      }
    }
    close(ready[1]);
    char byte = 0;
    while (read(ready[0], &byte, 1) < 0 && errno == EINTR) {
    }
    close(ready[0]);
    std::this_thread::sleep_for(std::chrono::microseconds(2000 + rng() % 60000));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    QVERIFY2(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
             qPrintable(QStringLiteral("round %1: the child ended on its own (status %2)")
                            .arg(round)
                            .arg(status)));
    auto w = Workspace::open(path, OpenMode::MustExist);
    QVERIFY2(w, w ? "" : w.error().text().c_str());
    auto head = w->head();
    QVERIFY(head);
    auto rev = w->revision(*head);
    QVERIFY(rev);
    auto files = w->overlayFiles(*head);
    QVERIFY(files);
    if (*head > 1) {
      // Every file of the head's revision is there, whole.
      QCOMPARE(QString::fromStdString("files=" + std::to_string(files->size())),
               QString::fromStdString(rev->reason));
      for (const WorkspaceFile& f : *files) {
        QCOMPARE(f.content.size() > (64u << 10), true);
        QCOMPARE(sha256Hex(f.content), f.sha256);
      }
    }
    auto report = w->verifyAudit();
    QVERIFY(report);
    QVERIFY2(report->ok, report->message.c_str());
    auto revisions = w->revisions();
    auto log = w->auditLog();
    std::int64_t installs = 0;
    for (const AuditEntry& e : *log)
      installs += e.act == "revision.install";
    QCOMPARE(static_cast<std::int64_t>(revisions->size()), installs + 1); // + workspace.init
    QCOMPARE(*head, revisions->back().id);
    if (static_cast<std::int64_t>(revisions->size()) > lastCount)
      ++killedMidRun;
    lastCount = static_cast<std::int64_t>(revisions->size());
  }
  // The child made progress in most rounds (the kills did not all land before the first act).
  QVERIFY2(killedMidRun >= 15, qPrintable(QStringLiteral("%1 kills after an act in %2 rounds")
                                               .arg(killedMidRun)
                                               .arg(round)));
}

QTEST_GUILESS_MAIN(TestWorkspace)
#include "tst_workspace.moc"
