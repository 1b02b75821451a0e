// A JSON reader that keeps a source range on every value, and a deterministic JSON writer.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Support/Diagnostic.h"

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cake::json {

enum class Kind : std::uint8_t { Null, Bool, Number, String, Array, Object };
std::string_view toString(Kind kind);

struct Member;

/// A parsed JSON value. Objects keep member order; every value knows where it was written so
/// schema errors in data files point at the offending field.
class Value {
public:
  Kind kind = Kind::Null;
  bool boolean = false;
  double number = 0.0;
  /// Set when the number literal is an integer that fits in int64.
  std::optional<std::int64_t> integer;
  std::string string;
  std::vector<Value> elements;
  std::vector<Member> members;
  SourceRange range;

  bool isNull() const { return kind == Kind::Null; }
  bool isBool() const { return kind == Kind::Bool; }
  bool isNumber() const { return kind == Kind::Number; }
  bool isString() const { return kind == Kind::String; }
  bool isArray() const { return kind == Kind::Array; }
  bool isObject() const { return kind == Kind::Object; }

  /// The member value for `key`, or nullptr (also when this is not an object).
  const Value* get(std::string_view key) const;
  /// The member (with its key range) for `key`, or nullptr.
  const Member* member(std::string_view key) const;
};

struct Member {
  std::string key;
  SourceRange keyRange;
  Value value;
};

struct ParseLimits {
  std::size_t maxDepth = 128;
  std::size_t maxBytes = 16u << 20;
};

/// Parses `text` (registered as `file`); errors go to `diags` as def-json-syntax findings with
/// the exact location. Returns nullopt on error.
std::optional<Value> parse(std::string_view text, FileId file, DiagnosticEngine& diags,
                           ParseLimits limits = {});

/// Streaming JSON writer with stable formatting (two-space indent or compact).
class Writer {
public:
  explicit Writer(bool pretty = true) : m_pretty(pretty) {}

  Writer& beginObject();
  Writer& endObject();
  Writer& beginArray();
  Writer& endArray();
  Writer& key(std::string_view name);
  Writer& value(std::string_view text);
  Writer& value(const char* text) { return value(std::string_view(text)); }
  Writer& value(const std::string& text) { return value(std::string_view(text)); }
  Writer& value(std::int64_t number);
  Writer& value(int number) { return value(static_cast<std::int64_t>(number)); }
  Writer& value(std::uint32_t number) { return value(static_cast<std::int64_t>(number)); }
  Writer& value(std::uint64_t number);
  Writer& value(double number);
  Writer& value(bool flag);
  Writer& null();
  /// Writes an already-parsed value (used to echo data files).
  Writer& value(const Value& v);
  /// Inserts pre-serialised JSON verbatim as the next value.
  Writer& raw(std::string_view json);

  /// Hands the text to `out` whenever more than `chunk` bytes are buffered, so that a huge
  /// document (`cake cost --format json` of a 50 MB kernel is 300 MB) never exists whole in
  /// memory. str() and take() then return only the text not yet handed over.
  void streamTo(std::ostream& out, std::size_t chunk = std::size_t{1} << 20) {
    m_sink = &out;
    m_chunk = chunk;
  }

  const std::string& str() const { return m_out; }
  std::string take() { return std::move(m_out); }

private:
  void beforeValue();
  void newline();
  void maybeFlush();
  struct Level {
    bool isObject;
    bool empty;
  };
  std::string m_out;
  std::vector<Level> m_stack;
  bool m_pretty;
  bool m_afterKey = false;
  std::ostream* m_sink = nullptr;
  std::size_t m_chunk = 0;
};

/// Escapes a string as a JSON string literal (with quotes).
std::string quote(std::string_view text);

} // namespace cake::json
