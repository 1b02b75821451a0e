// Deep copies of IR pieces (the expansion steps of lowering and of the CPU interpreter are built
// from the outer operation's operands).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/IR/Kernel.h"

namespace cake::ir {

/// A deep copy of an operand: its index expressions cloned, node ids kept.
Operand cloneOperand(const Operand& o);

} // namespace cake::ir
