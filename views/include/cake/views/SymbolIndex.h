// Definitions and references of the names of one parsed kernel (buffers, barriers, roles,
// pipelines, tensor maps, params, consts, loop variables), from the parser's source ranges: the
// editor's go-to-definition looks positions up here instead of matching text.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/ViewData.h"

#include <QString>
#include <QVector>

namespace cake::driver {
struct CheckResult;
}

namespace cake::views {

/// One named entity: a kernel-level declaration or a loop variable.
struct SymbolDef {
  QString name;
  QString kind;        ///< the declaring keyword: "smem", "mbarrier", "role", ..., or "for"
  SourceSpan nameSpan; ///< the name in its declaration
  SourceSpan decl;     ///< the whole declaring line (or `for` header)
};

/// A use of a name, resolved to its definition.
struct SymbolRef {
  SourceSpan span;
  int def = -1; ///< index into SymbolIndex::defs
};

struct SymbolIndex {
  QVector<SymbolDef> defs;
  QVector<SymbolRef> refs; ///< in source order

  /// The definition referenced (or declared) at a 1-based position; -1 when none.
  int definitionAt(int line, int column) const;
  /// The first definition with that name (-1 when none).
  int find(const QString& name) const;
};

/// Walks the parsed module (operands, attribute values, index expressions, `on` role lists,
/// types) and resolves each name to the declaration or enclosing loop variable it denotes.
SymbolIndex buildSymbolIndex(const driver::CheckResult& result);

} // namespace cake::views
