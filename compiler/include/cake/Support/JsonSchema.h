// Reads JSON objects of data files (primitives, targets, manifests) against a fixed field set,
// reporting located def-* findings for missing, mistyped and unknown fields.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Support/Json.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cake::json {

class ObjectReader {
public:
  /// `context` names the object in messages ("primitive 'tma.load'", "operand #2").
  ObjectReader(const Value& object, DiagnosticEngine& diags, std::string context);

  bool isObject() const { return m_object.isObject(); }
  const Value& object() const { return m_object; }

  /// The field's value when present and of `kind` (reports otherwise).
  const Value* field(std::string_view key, Kind kind, bool required);
  std::optional<std::string> string(std::string_view key, bool required);
  std::optional<std::int64_t> integer(std::string_view key, bool required,
                                      std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                                      std::int64_t max = std::numeric_limits<std::int64_t>::max());
  std::optional<double> number(std::string_view key, bool required);
  std::optional<bool> boolean(std::string_view key, bool required);
  /// A string that must be one of `allowed`.
  std::optional<std::string> oneOf(std::string_view key, std::span<const std::string_view> allowed,
                                   bool required);
  /// An array of strings (an absent optional field yields an empty list).
  std::vector<std::string> stringList(std::string_view key, bool required);
  /// Marks a field as known without reading it.
  void allow(std::string_view key);

  /// Reports every member not read or allowed (with a did-you-mean).
  void finish();
  bool ok() const { return m_ok; }
  void fail() { m_ok = false; }
  DiagnosticEngine& diags() { return m_diags; }
  const std::string& context() const { return m_context; }

  /// Reports def-invalid-value at `at`.
  void invalid(const Value& at, std::string message);

private:
  const Value& m_object;
  DiagnosticEngine& m_diags;
  std::string m_context;
  std::vector<std::string> m_known;
  bool m_ok = true;
};

/// The first-character range of a value (for "missing field" findings on a large object).
SourceRange headRange(const Value& v);

} // namespace cake::json
