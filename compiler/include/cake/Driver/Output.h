// Diagnostic handlers: caret text for humans, JSON for agents, and the `expect` annotation
// checker used by test files.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Support/Diagnostic.h"
#include "cake/Support/Json.h"

#include <optional>
#include <string>
#include <vector>

namespace cake::driver {

struct TextOptions {
  bool color = false;
  /// Show the source line and a caret under the range.
  bool snippets = true;
};

/// `file:line:col: error[code]: message`, the source line with carets, notes and the fix.
std::string renderText(const Diagnostic& diag, const SourceManager& sources,
                       const TextOptions& options = {});

/// Writes one finding as the JSON object of the `cake check` schema
/// ({code, family, severity, message, range, notes, fix}).
void writeJson(json::Writer& w, const Diagnostic& diag, const SourceManager& sources);
/// Writes `{"line","column","end_line","end_column"}` (plus "path" when `withPath`).
void writeRange(json::Writer& w, SourceRange range, const SourceManager& sources, bool withPath);

/// One `// expect...` annotation of a test file.
struct Expectation {
  std::uint32_t line = 0;         ///< line the finding must be on
  std::string code;               ///< finding code
  std::string messageSubstring;   ///< optional {{...}}
  std::optional<Severity> severity; ///< set by expected-blocking/-report/-hint
  std::uint32_t annotationLine = 0;
  bool matched = false;
};

/// Reads annotations of the form
///   `// expect: CODE {{message part}}`        (finding on this line, any severity)
///   `// expected-blocking: CODE`               (also -report, -hint: checks the severity)
///   `// expect@+N: CODE`, `// expect@-N: CODE` (relative line)
///   `// expect@L12: CODE`                     (absolute line)
/// Malformed annotations are returned as problems.
std::vector<Expectation> parseExpectations(std::string_view text,
                                           std::vector<std::string>& problems);

/// Matches findings of `file` against expectations; returns human-readable mismatches (empty
/// when every finding was expected and every expectation was met).
/// With `blockingOnly`, unannotated non-blocking findings are not mismatches.
std::vector<std::string> verifyExpectations(std::vector<Expectation> expectations,
                                            const std::vector<Diagnostic>& diags,
                                            const SourceManager& sources, FileId file,
                                            bool blockingOnly = false);

} // namespace cake::driver
