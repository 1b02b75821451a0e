// Field-by-field reading of JSON data objects with located schema findings.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Support/JsonSchema.h"

#include "cake/Support/StringUtil.h"

#include <algorithm>

namespace cake::json {

SourceRange headRange(const Value& v) {
  return {v.range.file, v.range.begin, std::min(v.range.end, v.range.begin + 1)};
}

ObjectReader::ObjectReader(const Value& object, DiagnosticEngine& diags, std::string context)
    : m_object(object), m_diags(diags), m_context(std::move(context)) {
  if (!object.isObject()) {
    m_diags.report(DiagId::DefInvalidValue, object.range,
                   m_context + " must be a JSON object, found " +
                       std::string(toString(object.kind)));
    m_ok = false;
  }
}

void ObjectReader::invalid(const Value& at, std::string message) {
  m_diags.report(DiagId::DefInvalidValue, at.range, std::move(message));
  m_ok = false;
}

void ObjectReader::allow(std::string_view key) { m_known.emplace_back(key); }

const Value* ObjectReader::field(std::string_view key, Kind kind, bool required) {
  m_known.emplace_back(key);
  if (!m_object.isObject())
    return nullptr;
  const Value* v = m_object.get(key);
  if (!v) {
    if (required) {
      m_diags.report(DiagId::DefMissingField, headRange(m_object),
                     m_context + " lacks the required field \"" + std::string(key) + "\"");
      m_ok = false;
    }
    return nullptr;
  }
  if (v->kind != kind) {
    invalid(*v, "field \"" + std::string(key) + "\" of " + m_context + " must be a " +
                    std::string(toString(kind)) + ", found " + std::string(toString(v->kind)));
    return nullptr;
  }
  return v;
}

std::optional<std::string> ObjectReader::string(std::string_view key, bool required) {
  const Value* v = field(key, Kind::String, required);
  if (!v)
    return std::nullopt;
  return v->string;
}

std::optional<std::int64_t> ObjectReader::integer(std::string_view key, bool required,
                                                  std::int64_t min, std::int64_t max) {
  const Value* v = field(key, Kind::Number, required);
  if (!v)
    return std::nullopt;
  if (!v->integer) {
    invalid(*v, "field \"" + std::string(key) + "\" must be an integer");
    return std::nullopt;
  }
  if (*v->integer < min || *v->integer > max) {
    invalid(*v, "field \"" + std::string(key) + "\" must be in [" + std::to_string(min) + ", " +
                    std::to_string(max) + "]");
    return std::nullopt;
  }
  return v->integer;
}

std::optional<double> ObjectReader::number(std::string_view key, bool required) {
  const Value* v = field(key, Kind::Number, required);
  if (!v)
    return std::nullopt;
  return v->number;
}

std::optional<bool> ObjectReader::boolean(std::string_view key, bool required) {
  const Value* v = field(key, Kind::Bool, required);
  if (!v)
    return std::nullopt;
  return v->boolean;
}

std::optional<std::string> ObjectReader::oneOf(std::string_view key,
                                               std::span<const std::string_view> allowed,
                                               bool required) {
  const Value* v = field(key, Kind::String, required);
  if (!v)
    return std::nullopt;
  if (std::find(allowed.begin(), allowed.end(), v->string) == allowed.end()) {
    std::string list;
    for (std::string_view a : allowed) {
      if (!list.empty())
        list += ", ";
      list += a;
    }
    invalid(*v, "field \"" + std::string(key) + "\" is \"" + v->string + "\"; expected one of: " +
                    list);
    return std::nullopt;
  }
  return v->string;
}

std::vector<std::string> ObjectReader::stringList(std::string_view key, bool required) {
  std::vector<std::string> out;
  const Value* v = field(key, Kind::Array, required);
  if (!v)
    return out;
  for (const Value& e : v->elements) {
    if (!e.isString()) {
      invalid(e, "elements of \"" + std::string(key) + "\" must be strings");
      continue;
    }
    out.push_back(e.string);
  }
  return out;
}

void ObjectReader::finish() {
  if (!m_object.isObject())
    return;
  for (const Member& m : m_object.members) {
    if (std::find(m_known.begin(), m_known.end(), m.key) != m_known.end())
      continue;
    std::string message = "unknown field \"" + m.key + "\" in " + m_context;
    Diagnostic* d = m_diags.report(DiagId::DefUnknownField, m.keyRange, message);
    if (auto guess = closestMatch(m.key, m_known))
      setFix(d, "did you mean \"" + *guess + "\"?", m.keyRange, "\"" + *guess + "\"");
    m_ok = false;
  }
}

} // namespace cake::json
