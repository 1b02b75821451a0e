// Structured diagnostics: code, family, severity, ranges, notes and fixes stay data until shown.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Support/SourceManager.h"

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cake {

/// What class of contract a finding is about.
enum class Family : std::uint8_t {
  Syntax,
  ScheduleSemantics,
  HardwareConformance,
  DataConsistency,
  ProgramSafety,
  /// A primitive, target or rule data file (not a kernel) is malformed.
  Definition,
  /// Performance reports and optimisation hints (never blocking by default).
  Performance,
};

/// blocking findings refuse the kernel; reports and hints never do.
enum class Severity : std::uint8_t { Blocking, Report, Hint };

std::string_view toString(Family family);
std::string_view toString(Severity severity);
std::optional<Family> parseFamily(std::string_view text);
std::optional<Severity> parseSeverity(std::string_view text);
/// The code prefix of each family ("ps-deadlock" is program-safety): "ps-".
std::string_view familyPrefix(Family family);
/// Finding codes are lower-case words (and digits) joined by '-', at least two: "dc-mma-shape".
bool isValidCode(std::string_view code);

/// Compile-time ids of the built-in codes (see DiagnosticCodes.def).
enum class DiagId : std::uint16_t {
#define CAKE_DIAG(id, code, family, severity, title) id,
#include "cake/Support/DiagnosticCodes.def"
#undef CAKE_DIAG
};

/// Static description of a built-in diagnostic code.
struct DiagCodeInfo {
  DiagId id;
  std::string_view code;
  Family family;
  Severity severity;
  std::string_view title;
};

const DiagCodeInfo& diagInfo(DiagId id);
/// Looks a code up by its stable string; nullptr when unknown.
const DiagCodeInfo* findDiagCode(std::string_view code);
std::span<const DiagCodeInfo> allDiagCodes();

/// A secondary location ("declared here", "producer role is here").
struct DiagNote {
  SourceRange range;
  std::string message;
};

/// A suggested fix; `replacement` applies to `range` when the range is valid.
struct FixSuggestion {
  std::string message;
  SourceRange range;
  std::string replacement;
};

/// The finding a consequence follows from, by its code and location (stable across sorting).
struct DiagCause {
  std::string code;
  SourceRange range;
};

/// One finding.
struct Diagnostic {
  std::string code;
  Family family = Family::Syntax;
  Severity severity = Severity::Blocking;
  SourceRange range;
  std::string message;
  std::vector<DiagNote> notes;
  std::optional<FixSuggestion> fix;
  /// Set on a consequence of another finding (a race that a broken barrier protocol lets
  /// happen): the root cause, which lists its consequences as notes.
  std::optional<DiagCause> causedBy;
};

/// Collects diagnostics with a cap so that pathological input cannot use unbounded memory.
class DiagnosticEngine {
public:
  explicit DiagnosticEngine(std::size_t maxDiagnostics = 500) : m_max(maxDiagnostics) {}

  /// Adds a diagnostic and returns it for further decoration (notes, fix), or nullptr when the
  /// cap has been reached (the drop is counted and summarised once).
  Diagnostic* report(Diagnostic diag);
  Diagnostic* report(DiagId id, SourceRange range, std::string message);

  const std::vector<Diagnostic>& diagnostics() const { return m_diags; }
  /// The most recent diagnostic (to attach notes after the fact), or nullptr.
  Diagnostic* last() { return m_diags.empty() ? nullptr : &m_diags.back(); }
  /// The first diagnostic with this code at this range, or nullptr.
  Diagnostic* find(std::string_view code, SourceRange range);
  std::vector<Diagnostic> take();
  bool hasBlocking() const;
  std::size_t count(Severity severity) const;
  std::size_t dropped() const { return m_dropped; }
  /// Sorts by file and position, keeping report order for ties (deterministic output).
  void sortByLocation();

private:
  std::vector<Diagnostic> m_diags;
  std::size_t m_max;
  std::size_t m_dropped = 0;
  bool m_droppedBlocking = false; ///< a blocking finding beyond the cap still refuses the kernel
};

/// Adds a note to a possibly-dropped diagnostic.
inline void addNote(Diagnostic* diag, SourceRange range, std::string message) {
  if (diag)
    diag->notes.push_back({range, std::move(message)});
}
inline void setFix(Diagnostic* diag, std::string message, SourceRange range = {},
                   std::string replacement = {}) {
  if (diag)
    diag->fix = FixSuggestion{std::move(message), range, std::move(replacement)};
}

} // namespace cake
