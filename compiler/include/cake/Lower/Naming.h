// Names of thread-program variables in emitted code (CUDA C++ identifiers, PTX registers),
// unique by construction: the program keeps variable identity (an index), the printers ask a
// scope-aware namer for the text, so a lowering loop named like a user loop can never capture
// the user's binding.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Lower/ThreadProgram.h"

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace cake::lower {

/// Hands out identifiers per lexical scope: a binding never takes a name that is reserved or
/// bound in any open scope (so it cannot shadow or be shadowed by a binding still referenced),
/// while sibling scopes may reuse a name. A conflict appends `_1`, `_2`, ... to the hint.
class ScopedNamer {
public:
  /// `reserved`: names no binding may take (keywords, globals, parameters, constants).
  explicit ScopedNamer(std::function<bool(const std::string&)> reserved);

  void pushScope();
  void popScope();
  /// Binds `key` (a variable index) in the innermost scope to a fresh name derived from `hint`
  /// and returns it. Binding a key again rebinds it.
  const std::string& bind(int key, std::string_view hint);
  /// The name `key` was bound to (empty when never bound).
  const std::string& nameOf(int key) const;
  /// A valid identifier ([A-Za-z][A-Za-z0-9_]*, no `__`) spelled as close to `hint` as possible.
  static std::string sanitize(std::string_view hint);

private:
  bool taken(const std::string& name) const;

  std::function<bool(const std::string&)> m_reserved;
  std::vector<std::vector<std::string>> m_scopes;
  std::unordered_map<std::string, int> m_open; ///< name -> how many open scopes bind it
  std::unordered_map<int, std::string> m_names;
};

/// Whether `name` is a C++ keyword or an identifier the CUDA emitter uses itself (CUDA
/// built-ins, standard types and functions the generated code calls).
bool isReservedCudaName(const std::string& name);

/// The CUDA C++ name of every variable of `program` (indexed like `program.vars`): a walk over
/// its scopes (Scope declarations, For/Repeat counters) with a ScopedNamer. `reserved` adds the
/// emitter's file-level names (parameters, constants, helper functions).
std::vector<std::string> cudaVariableNames(const Program& program,
                                           const std::function<bool(const std::string&)>& reserved);

} // namespace cake::lower
