// Reading of a primitive's "requirements" table (private to the registry loader).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Registry/Primitive.h"
#include "cake/Support/JsonSchema.h"

namespace cake::reg::detail {

/// Reads `list` (the "requirements" array of a primitive file) into `prim.requirements`.
/// Every malformed entry gets a located def-* finding; returns false when any entry failed.
/// Rule codes in "checked_by" are only checked for their spelling here: the rule registry,
/// loaded after the primitives, reports a code it does not know (verify::RuleSet::load).
[[nodiscard]] bool readRequirements(const json::Value& list, Primitive& prim, const DefScope& scope,
                                    std::string_view fileText, DiagnosticEngine& diags);

/// The kinds a requirement may have, in documentation order.
std::span<const std::string_view> requirementKinds();

} // namespace cake::reg::detail
