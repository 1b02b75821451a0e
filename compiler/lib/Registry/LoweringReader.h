// Reading of a primitive's "lowering" section: strategy, templates, expansions (private to the
// registry loader).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Registry/Primitive.h"
#include "cake/Support/JsonSchema.h"

#include <memory>

namespace cake::reg::detail {

/// Reads `v` (the "lowering" object of a primitive file) into `prim.lowering`: the strategy,
/// the builtin pattern name (checked against builtinPatterns()), the templates with their typed
/// slots (def-invalid-template, def-template-injection), variants, refusals, the intrinsic and
/// the expansion steps as written. Returns false after reporting located findings.
[[nodiscard]] bool readLowering(const json::Value& v, Primitive& prim, const DefScope& scope,
                                std::string_view fileText, DiagnosticEngine& diags);

/// Second pass once every primitive file is loaded: resolves each expansion step against the
/// registry (a known primitive, available on every target, operand kinds and counts that fit,
/// known attributes with values of their type, no cycle). Returns the names of the primitives
/// whose expansion is invalid (each got a located finding).
std::vector<std::string> resolveExpansions(const std::vector<std::unique_ptr<Primitive>>& prims,
                                           DiagnosticEngine& diags);

} // namespace cake::reg::detail
