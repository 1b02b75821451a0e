// Structured errors of the workspace store: a stable code and a message, returned, never thrown.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace cake::ws {

/// Why a workspace act failed. The spelling (toString) is stable: scripts and agents match it.
enum class ErrorCode {
  Io,              ///< ws-io: the directory or database file cannot be created or read
  NotFound,        ///< ws-not-found: no workspace at the path (MustExist)
  NotAWorkspace,   ///< ws-not-a-workspace: an SQLite database of something else
  Corrupt,         ///< ws-corrupt: not a database, or a damaged one
  TooNew,          ///< ws-too-new: written by a newer cake (schema version above ours)
  Busy,            ///< ws-busy: another process held the write lock past the busy timeout
  InvalidArgument, ///< ws-invalid-argument: a bad path, kind, name, JSON payload or size
  UnknownRevision, ///< ws-unknown-revision: no such revision
  UnknownProposal, ///< ws-unknown-proposal: no proposal with that content hash
  NoChange,        ///< ws-no-change: the act would not change anything (revert to the head)
  Sqlite,          ///< ws-sqlite: any other SQLite failure (its message is kept)
};

/// The stable spelling of `code` ("ws-corrupt").
std::string_view toString(ErrorCode code);

struct Error {
  ErrorCode code = ErrorCode::Sqlite;
  std::string message;
  /// "ws-corrupt: <message>".
  std::string text() const { return std::string(toString(code)) + ": " + message; }
};

/// A value or the error that prevented it. Must be checked: fallible acts never throw.
template <class T> class [[nodiscard]] Expected {
public:
  Expected(T value) : m_v(std::move(value)) {}
  Expected(Error error) : m_v(std::move(error)) {}
  explicit operator bool() const { return m_v.index() == 0; }
  bool ok() const { return m_v.index() == 0; }
  T& operator*() {
    assert(ok());
    return std::get<0>(m_v);
  }
  const T& operator*() const {
    assert(ok());
    return std::get<0>(m_v);
  }
  T* operator->() { return &**this; }
  const T* operator->() const { return &**this; }
  const Error& error() const {
    assert(!ok());
    return std::get<1>(m_v);
  }

private:
  std::variant<T, Error> m_v;
};

/// Success or an error (an act without a result).
class [[nodiscard]] Status {
public:
  Status() = default;
  Status(Error error) : m_error(std::move(error)) {}
  static Status success() { return {}; }
  explicit operator bool() const { return !m_error; }
  bool ok() const { return !m_error; }
  const Error& error() const {
    assert(m_error);
    return *m_error;
  }

private:
  std::optional<Error> m_error;
};

} // namespace cake::ws
