// The only code that talks to the SQLite C library: an owned connection, prepared statements
// with typed binds and columns, and SQLite result codes mapped to workspace error codes.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Workspace/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace cake::ws::detail {

/// The workspace error for SQLite result code `rc` (extended codes too).
ErrorCode errorCodeFor(int rc);

/// One prepared statement. Binds are 1-based like SQLite's.
class Statement {
public:
  Statement() = default;
  Statement(sqlite3* db, sqlite3_stmt* stmt) : m_db(db), m_stmt(stmt) {}
  Statement(Statement&& o) noexcept;
  Statement& operator=(Statement&& o) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  Statement& bind(int index, std::string_view text);
  Statement& bind(int index, const std::string& text) {
    return bind(index, std::string_view(text));
  }
  Statement& bind(int index, const char* text) { return bind(index, std::string_view(text)); }
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, double value);
  Statement& bindNull(int index);
  Statement& bind(int index, const std::optional<double>& value) {
    return value ? bind(index, *value) : bindNull(index);
  }
  Statement& bind(int index, const std::optional<std::int64_t>& value) {
    return value ? bind(index, *value) : bindNull(index);
  }
  Statement& bind(int index, const std::optional<std::string>& value) {
    return value ? bind(index, std::string_view(*value)) : bindNull(index);
  }

  /// Steps once: true with a row, false when done, an error otherwise (also a bind error).
  Expected<bool> step();
  /// Steps until done (for statements without rows).
  Status run();
  /// Ready to bind and run again (bindings cleared).
  void reset();

  std::string text(int column) const;
  std::int64_t integer(int column) const;
  double real(int column) const;
  bool isNull(int column) const;
  std::optional<double> optionalReal(int column) const {
    return isNull(column) ? std::nullopt : std::optional<double>(real(column));
  }
  std::optional<std::int64_t> optionalInteger(int column) const {
    return isNull(column) ? std::nullopt : std::optional<std::int64_t>(integer(column));
  }

private:
  sqlite3* m_db = nullptr;
  sqlite3_stmt* m_stmt = nullptr;
  int m_bindError = 0;
};

/// An open connection.
class Database {
public:
  /// Opens (create: creates) the file; the connection is configured by the caller.
  static Expected<std::unique_ptr<Database>> open(const std::string& path, bool create);
  ~Database();

  Status exec(std::string_view sql);
  Expected<Statement> prepare(std::string_view sql);
  /// A one-row, one-column integer query (a PRAGMA, a count).
  Expected<std::int64_t> queryInteger(std::string_view sql);
  /// The error for the connection's last failure, with `context` in front.
  Error lastError(int rc, std::string_view context) const;
  sqlite3* handle() const { return m_db; }

private:
  explicit Database(sqlite3* db) : m_db(db) {}
  sqlite3* m_db = nullptr;
};

} // namespace cake::ws::detail
