// Canonical text form of Cake IR (what `cake fmt` writes).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/IR/Kernel.h"

#include <string>

namespace cake::ir {

/// Prints an expression with the minimum parentheses its precedence needs.
std::string print(const Expr& expr);
/// Prints a module in canonical form: two-space indentation, declarations before role blocks,
/// `key=value` attributes, spaces around binary operators, comments and single blank lines kept.
/// Printing is idempotent and parse(print(m)) is structurally equal to m.
std::string print(const Module& module);

} // namespace cake::ir
