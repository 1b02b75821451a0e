// The structural rules every piece of inline PTX obeys, whether it comes from a registry
// template (checked at load time) or from lowering (checked again before it is emitted): it
// stays inside the instruction statement it belongs to and cannot open a function, a section or
// a second kernel, nor escape the CUDA string or LLVM asm text it is printed into.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cake::reg {

/// One violation: the byte range in the checked text and what is wrong.
struct InlinePtxIssue {
  std::size_t begin = 0, end = 0;
  std::string message;
};

/// Checks inline PTX text (statements separated by ';' and newlines).
///  - characters: ASCII letters, digits, space, tab, newline and `_ . : , ; [ ] { } ( ) + - @ ! |
///    < > =` (no quotes, backslashes, '$', comments, control or non-ASCII characters);
///  - braces balance and never close a scope the text did not open;
///  - a statement never starts with a directive, except `.reg` inside a braced scope of the text,
///    and labels appear only inside such a scope (both stay local to the scope);
///  - operand references: with `operandCount` unset (a template) no '%' at all, since operands
///    are bound only through slots; otherwise every `%N` has N < *operandCount.
/// Returns the violations in text order (at most `limit`).
std::vector<InlinePtxIssue> checkInlinePtx(std::string_view text,
                                           std::optional<std::size_t> operandCount,
                                           std::size_t limit = 8);

/// Whether `value` may be substituted into PTX as an enum value: identifier-like words of
/// `[A-Za-z0-9_]` joined by '.' or '::' (`ca`, `32x32b`, `kind::f16`).
bool isPtxTokenWord(std::string_view value);

/// The number of kernel entry directives (`.entry`) in a PTX module, outside comments.
std::size_t countPtxEntries(std::string_view ptx);

} // namespace cake::reg
