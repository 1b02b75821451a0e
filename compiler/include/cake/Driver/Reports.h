// Renderings of check results and rules shared by the CLI and the workbench: the file object of
// `cake check --format json` and the text/JSON of `cake explain`.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Driver/Compiler.h"
#include "cake/Support/Json.h"

#include <cstddef>
#include <string>
#include <vector>

namespace cake::driver {

/// Writes one file object of `cake check --format json`
/// ({path, kernel, target, accepted, findings, omitted}). `findings` selects indices of
/// result.diagnostics (null: every finding).
void writeCheckFileJson(json::Writer& w, const std::string& path, const CheckResult& result,
                        std::size_t omitted, const std::vector<std::size_t>* findings = nullptr);

/// The whole `cake check --format json` document for one checked file.
std::string checkJson(const Compiler& compiler, const std::string& path, const CheckResult& result,
                      const std::vector<std::size_t>* findings = nullptr);

/// One rule as the JSON object of `cake explain --format json` / `cake rules --format json`.
/// With `registry`, adds "requirements": the primitive requirements the rule checks (for the
/// coverage rule hw-requirement-unchecked: every unchecked requirement).
void writeRuleJson(json::Writer& w, const verify::Rule& rule,
                   const reg::Registry* registry = nullptr);

/// The primitive requirements a rule accounts for: those it checks, or, for the coverage rule
/// (hw-requirement-unchecked), every requirement no rule checks.
std::vector<reg::RequirementRef> requirementsOf(const reg::Registry& registry,
                                                const verify::Rule& rule);

/// The text of `cake explain CODE`: header, documentation, bad and good examples, the pattern,
/// the primitives whose constraints report the code and the primitive requirements it covers.
std::string explainText(const Compiler& compiler, const verify::Rule& rule);

} // namespace cake::driver
