// Type checking of a parsed kernel against the primitive registry and its exact target.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Sema/KernelModel.h"
#include "cake/Support/Diagnostic.h"

#include <map>
#include <string>

namespace cake::sema {

/// Checks declarations, statements and every operation against its primitive definition
/// (operand kinds, spaces, dtypes, subscripts, attributes, constraints, target availability).
/// Always returns a model of what could be resolved; the model is complete exactly when no
/// blocking finding was reported.
/// `scalarValues` binds run-time scalar parameters by name (a workload contract's values); a
/// scalar it does not name is bound to the end of its range.
KernelModel check(const ir::Module& module, const reg::Registry& registry,
                  const target::TargetSet& targets, DiagnosticEngine& diags,
                  const std::map<std::string, std::int64_t>& scalarValues = {});

/// Reserved words that cannot name declarations or loop variables.
bool isReservedName(std::string_view name);

} // namespace cake::sema
