// Helpers shared by the workspace store's translation units (not installed).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "Database.h"

#include "cake/Workspace/Workspace.h"

#include <string>
#include <string_view>
#include <vector>

namespace cake::ws::detail {

/// ws-invalid-argument unless `text` is one JSON document (at most `maxBytes`).
Status checkJson(std::string_view text, std::string_view what, std::size_t maxBytes = 16u << 20);
/// ws-invalid-argument when `name` (an actor, a reviewer) is empty, too long or has control
/// characters.
Status checkName(std::string_view name, std::string_view what);

/// Steps a prepared statement to its end and reads every row with `read(statement)`: the one
/// loop behind every list query of the store (a statement that failed to prepare is its error).
template <class T, class Read>
Expected<std::vector<T>> readAll(Expected<Statement>& prepared, Read&& read) {
  if (!prepared)
    return prepared.error();
  Statement& stmt = *prepared;
  std::vector<T> out;
  for (;;) {
    auto row = stmt.step();
    if (!row)
      return row.error();
    if (!*row)
      return out;
    out.push_back(read(stmt));
  }
}

/// The content hash of an overlay whose files are sorted by kind then path (sha256 filled).
std::string overlayHash(const std::vector<WorkspaceFile>& sorted);

} // namespace cake::ws::detail

namespace cake::ws {

// Defined here because every translation unit of the store ends acts with results.
template <class T> Expected<T> Workspace::endAct(bool began, Expected<T> result) {
  Status s = endAct(began, result ? Status::success() : Status(result.error()));
  if (!s)
    return s.error();
  return result;
}

} // namespace cake::ws
