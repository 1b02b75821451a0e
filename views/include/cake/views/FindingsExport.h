// The findings of a check snapshot in the CLI's formats (caret text, `cake check --format json`,
// SARIF) and a rule's `cake explain` text, through the compiler library's own writers.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/CompileSession.h"

#include <QString>
#include <vector>

namespace cake::views {

enum class FindingsFormat { Text, Json, Sarif };

/// Renders the findings `indices` (diagnostic indices; null: all) of a snapshot.
QString exportFindings(const driver::Compiler& compiler, const CheckSnapshot& snapshot,
                       const std::vector<std::size_t>* indices, FindingsFormat format);

/// `cake explain CODE` for a finding code; empty when the rule registry does not know it.
QString explainCode(const driver::Compiler& compiler, const QString& code);

/// The same rule documentation for a narrow pane (B15): prose in paragraphs of the proportional
/// UI font that wrap, the bad/good examples as code blocks that wrap too (pre-wrap), the
/// reporting primitives and requirements as lists. Empty when the code is unknown.
QString explainHtml(const driver::Compiler& compiler, const QString& code);

} // namespace cake::views
