// SARIF 2.1.0 output of check results, so findings open in standard SARIF viewers.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Driver/Compiler.h"

#include <string>
#include <vector>

namespace cake::driver {

struct SarifFile {
  std::string path;
  const CheckResult* result = nullptr; ///< null when the file could not be read
  std::string error;
  /// Indices into result->diagnostics to write (a selection, e.g. the workbench's "copy
  /// selected"); null writes every finding.
  const std::vector<std::size_t>* findings = nullptr;
};

/// One SARIF log with one run: the rules referenced by results (with help text and default
/// levels), one artifact per file, results with regions, related locations and fixes.
std::string toSarif(const Compiler& compiler, const std::vector<SarifFile>& files);

} // namespace cake::driver
