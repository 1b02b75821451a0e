// Diagnostic code table and the capped diagnostic collector.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Support/Diagnostic.h"

#include <algorithm>
#include <array>

namespace cake {

namespace {
constexpr DiagCodeInfo kCodes[] = {
#define CAKE_DIAG(id, code, family, severity, title)                                             \
  {DiagId::id, code, Family::family, Severity::severity, title},
#include "cake/Support/DiagnosticCodes.def"
#undef CAKE_DIAG
};
} // namespace

std::string_view toString(Family family) {
  switch (family) {
  case Family::Syntax:
    return "syntax";
  case Family::ScheduleSemantics:
    return "schedule-semantics";
  case Family::HardwareConformance:
    return "hardware-conformance";
  case Family::DataConsistency:
    return "data-consistency";
  case Family::ProgramSafety:
    return "program-safety";
  case Family::Definition:
    return "definition";
  case Family::Performance:
    return "performance";
  }
  return "unknown";
}

std::string_view toString(Severity severity) {
  switch (severity) {
  case Severity::Blocking:
    return "blocking";
  case Severity::Report:
    return "report";
  case Severity::Hint:
    return "hint";
  }
  return "unknown";
}

std::string_view familyPrefix(Family family) {
  switch (family) {
  case Family::Syntax:
    return "syn-";
  case Family::ScheduleSemantics:
    return "sem-";
  case Family::HardwareConformance:
    return "hw-";
  case Family::DataConsistency:
    return "dc-";
  case Family::ProgramSafety:
    return "ps-";
  case Family::Definition:
    return "def-";
  case Family::Performance:
    return "perf-";
  }
  return "";
}

bool isValidCode(std::string_view code) {
  if (code.size() < 3 || code.front() == '-' || code.back() == '-' ||
      code.find('-') == std::string_view::npos)
    return false;
  return std::all_of(code.begin(), code.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

std::optional<Family> parseFamily(std::string_view text) {
  for (Family f : {Family::Syntax, Family::ScheduleSemantics, Family::HardwareConformance,
                   Family::DataConsistency, Family::ProgramSafety, Family::Definition,
                   Family::Performance})
    if (toString(f) == text)
      return f;
  return std::nullopt;
}

std::optional<Severity> parseSeverity(std::string_view text) {
  for (Severity s : {Severity::Blocking, Severity::Report, Severity::Hint})
    if (toString(s) == text)
      return s;
  return std::nullopt;
}

const DiagCodeInfo& diagInfo(DiagId id) { return kCodes[static_cast<std::size_t>(id)]; }

const DiagCodeInfo* findDiagCode(std::string_view code) {
  for (const DiagCodeInfo& info : kCodes)
    if (info.code == code)
      return &info;
  return nullptr;
}

std::span<const DiagCodeInfo> allDiagCodes() { return kCodes; }

Diagnostic* DiagnosticEngine::find(std::string_view code, SourceRange range) {
  for (Diagnostic& d : m_diags)
    if (d.code == code && d.range == range)
      return &d;
  return nullptr;
}

Diagnostic* DiagnosticEngine::report(Diagnostic diag) {
  if (m_diags.size() >= m_max) {
    m_droppedBlocking |= diag.severity == Severity::Blocking;
    if (m_dropped++ == 0) {
      // One summary finding, placed at the first dropped location, tells the reader more exist.
      Diagnostic summary;
      const DiagCodeInfo& info = diagInfo(DiagId::SynTooManyFindings);
      summary.code = std::string(info.code);
      summary.family = info.family;
      summary.severity = info.severity;
      summary.range = diag.range;
      summary.message = "more than " + std::to_string(m_max) +
                        " findings; the remaining ones are omitted";
      m_diags.push_back(std::move(summary));
    }
    return nullptr;
  }
  // Messages quote user text (names, tokens); a 10 MB identifier must not make a 10 MB finding.
  constexpr std::size_t kMaxMessage = 1000;
  auto clip = [](std::string& text) {
    if (text.size() > kMaxMessage) {
      std::size_t cut = kMaxMessage;
      while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
        --cut;
      text.resize(cut);
      text += "...";
    }
  };
  clip(diag.message);
  for (DiagNote& n : diag.notes)
    clip(n.message);
  m_diags.push_back(std::move(diag));
  return &m_diags.back();
}

Diagnostic* DiagnosticEngine::report(DiagId id, SourceRange range, std::string message) {
  const DiagCodeInfo& info = diagInfo(id);
  Diagnostic diag;
  diag.code = std::string(info.code);
  diag.family = info.family;
  diag.severity = info.severity;
  diag.range = range;
  diag.message = std::move(message);
  return report(std::move(diag));
}

std::vector<Diagnostic> DiagnosticEngine::take() {
  std::vector<Diagnostic> out = std::move(m_diags);
  m_diags.clear();
  return out;
}

bool DiagnosticEngine::hasBlocking() const {
  return m_droppedBlocking || std::any_of(m_diags.begin(), m_diags.end(),
                     [](const Diagnostic& d) { return d.severity == Severity::Blocking; });
}

std::size_t DiagnosticEngine::count(Severity severity) const {
  return static_cast<std::size_t>(std::count_if(
      m_diags.begin(), m_diags.end(), [&](const Diagnostic& d) { return d.severity == severity; }));
}

void DiagnosticEngine::sortByLocation() {
  std::stable_sort(m_diags.begin(), m_diags.end(), [](const Diagnostic& a, const Diagnostic& b) {
    if (a.range.file != b.range.file)
      return a.range.file < b.range.file;
    return a.range.begin < b.range.begin;
  });
}

} // namespace cake
