// Parses `.cake` text into the Cake IR syntax tree with recovery and a source-range side table.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/IR/Kernel.h"
#include "cake/Support/Diagnostic.h"

namespace cake {

struct ParseOptions {
  /// Larger inputs are refused with syn-file-too-large (10 MB files are accepted).
  std::size_t maxFileBytes = 64u << 20;
  /// Maximum nesting of `on`/`for` blocks below the kernel.
  unsigned maxBlockDepth = 24;
  /// Maximum nesting of expressions (parentheses, lists, operators).
  unsigned maxExprDepth = 48;
  /// Maximum height of one expression tree, counted over operator chains too: `1+1+…+1` is
  /// built iteratively but every later walker (folding, printing, type checking, cost,
  /// lowering) recurses over the tree, so a 20,000-term chain would overflow their stacks.
  /// At most 65,535.
  unsigned maxExprHeight = 256;
};

/// Parses one buffer. Always returns a module; `module.kernel` is empty only when no kernel
/// header was found. Every syntax problem becomes a located finding and parsing resumes at the
/// next line, so one file reports all independent errors.
ir::Module parseModule(const SourceManager& sources, FileId file, DiagnosticEngine& diags,
                       const ParseOptions& options = {});

} // namespace cake
