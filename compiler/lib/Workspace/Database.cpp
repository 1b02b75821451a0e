// SQLite connection and statement wrapper of the workspace store.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Database.h"

#include <memory>
#include <sqlite3.h>

namespace cake::ws {

std::string_view toString(ErrorCode code) {
  switch (code) {
  case ErrorCode::Io:
    return "ws-io";
  case ErrorCode::NotFound:
    return "ws-not-found";
  case ErrorCode::NotAWorkspace:
    return "ws-not-a-workspace";
  case ErrorCode::Corrupt:
    return "ws-corrupt";
  case ErrorCode::TooNew:
    return "ws-too-new";
  case ErrorCode::Busy:
    return "ws-busy";
  case ErrorCode::InvalidArgument:
    return "ws-invalid-argument";
  case ErrorCode::UnknownRevision:
    return "ws-unknown-revision";
  case ErrorCode::UnknownProposal:
    return "ws-unknown-proposal";
  case ErrorCode::NoChange:
    return "ws-no-change";
  case ErrorCode::Sqlite:
    return "ws-sqlite";
  }
  return "ws-sqlite";
}

namespace detail {

ErrorCode errorCodeFor(int rc) {
  switch (rc & 0xff) {
  case SQLITE_NOTADB:
  case SQLITE_CORRUPT:
  case SQLITE_FORMAT:
    return ErrorCode::Corrupt;
  case SQLITE_BUSY:
  case SQLITE_LOCKED:
    return ErrorCode::Busy;
  case SQLITE_CANTOPEN:
  case SQLITE_IOERR:
  case SQLITE_READONLY:
  case SQLITE_FULL:
  case SQLITE_PERM:
  case SQLITE_NOLFS:
    return ErrorCode::Io;
  case SQLITE_TOOBIG:
    return ErrorCode::InvalidArgument;
  default:
    return ErrorCode::Sqlite;
  }
}

Statement::Statement(Statement&& o) noexcept
    : m_db(o.m_db), m_stmt(o.m_stmt), m_bindError(o.m_bindError) {
  o.m_stmt = nullptr;
}

Statement& Statement::operator=(Statement&& o) noexcept {
  if (this != &o) {
    sqlite3_finalize(m_stmt);
    m_db = o.m_db;
    m_stmt = o.m_stmt;
    m_bindError = o.m_bindError;
    o.m_stmt = nullptr;
  }
  return *this;
}

Statement::~Statement() {
  sqlite3_finalize(m_stmt);
}

Statement& Statement::bind(int index, std::string_view text) {
  // SQLITE_TRANSIENT: SQLite copies, so temporaries may be bound.
  int rc =
      sqlite3_bind_text64(m_stmt, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK && !m_bindError)
    m_bindError = rc;
  return *this;
}

Statement& Statement::bind(int index, std::int64_t value) {
  int rc = sqlite3_bind_int64(m_stmt, index, value);
  if (rc != SQLITE_OK && !m_bindError)
    m_bindError = rc;
  return *this;
}

Statement& Statement::bind(int index, double value) {
  int rc = sqlite3_bind_double(m_stmt, index, value);
  if (rc != SQLITE_OK && !m_bindError)
    m_bindError = rc;
  return *this;
}

Statement& Statement::bindNull(int index) {
  int rc = sqlite3_bind_null(m_stmt, index);
  if (rc != SQLITE_OK && !m_bindError)
    m_bindError = rc;
  return *this;
}

Expected<bool> Statement::step() {
  if (m_bindError)
    return Error{errorCodeFor(m_bindError),
                 std::string("cannot bind a value: ") + sqlite3_errstr(m_bindError)};
  int rc = sqlite3_step(m_stmt);
  if (rc == SQLITE_ROW)
    return true;
  if (rc == SQLITE_DONE)
    return false;
  return Error{errorCodeFor(rc), sqlite3_errmsg(m_db)};
}

Status Statement::run() {
  for (;;) {
    auto more = step();
    if (!more)
      return more.error();
    if (!*more)
      return Status::success();
  }
}

void Statement::reset() {
  sqlite3_reset(m_stmt);
  sqlite3_clear_bindings(m_stmt);
  m_bindError = 0;
}

std::string Statement::text(int column) const {
  const unsigned char* p = sqlite3_column_text(m_stmt, column);
  int n = sqlite3_column_bytes(m_stmt, column);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n))
           : std::string();
}

double Statement::real(int column) const {
  return sqlite3_column_double(m_stmt, column);
}

std::int64_t Statement::integer(int column) const {
  return sqlite3_column_int64(m_stmt, column);
}

bool Statement::isNull(int column) const {
  return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}

Expected<std::unique_ptr<Database>> Database::open(const std::string& path, bool create) {
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) |
              SQLITE_OPEN_NOMUTEX; // one connection per Workspace object, one thread at a time
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return Error{errorCodeFor(rc), "cannot open '" + path + "': " + message};
  }
  sqlite3_extended_result_codes(db, 1);
  return std::unique_ptr<Database>(new Database(db));
}

Database::~Database() {
  sqlite3_close_v2(m_db);
}

Status Database::exec(std::string_view sql) {
  std::string owned(sql);
  char* message = nullptr;
  int rc = sqlite3_exec(m_db, owned.c_str(), nullptr, nullptr, &message);
  if (rc == SQLITE_OK)
    return Status::success();
  std::string text = message ? message : sqlite3_errstr(rc);
  sqlite3_free(message);
  return Error{errorCodeFor(rc), text};
}

Expected<Statement> Database::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(m_db, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return lastError(rc, "cannot prepare a statement");
  }
  return Statement(m_db, stmt);
}

Expected<std::int64_t> Database::queryInteger(std::string_view sql) {
  auto stmt = prepare(sql);
  if (!stmt)
    return stmt.error();
  auto row = stmt->step();
  if (!row)
    return row.error();
  if (!*row)
    return Error{ErrorCode::Sqlite, "no row from '" + std::string(sql) + "'"};
  return stmt->integer(0);
}

Error Database::lastError(int rc, std::string_view context) const {
  return Error{errorCodeFor(rc), std::string(context) + ": " + sqlite3_errmsg(m_db)};
}

} // namespace detail
} // namespace cake::ws
