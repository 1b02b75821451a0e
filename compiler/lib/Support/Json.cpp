// JSON parsing with source ranges and deterministic JSON writing.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Support/Json.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ostream>

namespace cake::json {

std::string_view toString(Kind kind) {
  switch (kind) {
  case Kind::Null:
    return "null";
  case Kind::Bool:
    return "boolean";
  case Kind::Number:
    return "number";
  case Kind::String:
    return "string";
  case Kind::Array:
    return "array";
  case Kind::Object:
    return "object";
  }
  return "value";
}

const Value* Value::get(std::string_view key) const {
  const Member* m = member(key);
  return m ? &m->value : nullptr;
}

const Member* Value::member(std::string_view key) const {
  if (kind != Kind::Object)
    return nullptr;
  for (const Member& m : members)
    if (m.key == key)
      return &m;
  return nullptr;
}

namespace {

class Parser {
public:
  Parser(std::string_view text, FileId file, DiagnosticEngine& diags, ParseLimits limits)
      : m_text(text), m_file(file), m_diags(diags), m_limits(limits) {}

  std::optional<Value> run() {
    if (m_text.size() > m_limits.maxBytes) {
      error(0, 0, "data file is larger than " + std::to_string(m_limits.maxBytes) + " bytes");
      return std::nullopt;
    }
    skipSpace();
    Value v;
    if (!parseValue(v, 0))
      return std::nullopt;
    skipSpace();
    if (m_pos != m_text.size()) {
      error(m_pos, m_pos + 1, "unexpected content after the JSON value");
      return std::nullopt;
    }
    return v;
  }

private:
  void error(std::size_t begin, std::size_t end, std::string message) {
    if (end > m_text.size())
      end = m_text.size();
    if (begin > end)
      begin = end;
    m_diags.report(DiagId::DefJsonSyntax,
                   {m_file, static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end)},
                   std::move(message));
  }

  void skipSpace() {
    while (m_pos < m_text.size()) {
      char c = m_text[m_pos];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
        ++m_pos;
      else
        break;
    }
  }

  bool parseValue(Value& out, std::size_t depth) {
    if (depth > m_limits.maxDepth) {
      error(m_pos, m_pos + 1, "nesting deeper than " + std::to_string(m_limits.maxDepth));
      return false;
    }
    if (m_pos >= m_text.size()) {
      error(m_pos, m_pos, "unexpected end of file, expected a value");
      return false;
    }
    std::size_t start = m_pos;
    char c = m_text[m_pos];
    bool ok = false;
    if (c == '{')
      ok = parseObject(out, depth);
    else if (c == '[')
      ok = parseArray(out, depth);
    else if (c == '"') {
      out.kind = Kind::String;
      ok = parseString(out.string);
    } else if (c == '-' || (c >= '0' && c <= '9'))
      ok = parseNumber(out);
    else if (literal("true")) {
      out.kind = Kind::Bool;
      out.boolean = true;
      ok = true;
    } else if (literal("false")) {
      out.kind = Kind::Bool;
      ok = true;
    } else if (literal("null")) {
      out.kind = Kind::Null;
      ok = true;
    } else {
      error(m_pos, m_pos + 1, describeUnexpected("a value"));
      return false;
    }
    out.range = {m_file, static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(m_pos)};
    return ok;
  }

  std::string describeUnexpected(std::string_view expected) {
    if (m_pos >= m_text.size())
      return "unexpected end of file, expected " + std::string(expected);
    unsigned char c = static_cast<unsigned char>(m_text[m_pos]);
    char buf[64];
    if (c >= 0x20 && c < 0x7f)
      std::snprintf(buf, sizeof buf, "'%c'", c);
    else
      std::snprintf(buf, sizeof buf, "byte 0x%02x", c);
    return "expected " + std::string(expected) + ", found " + buf;
  }

  bool literal(std::string_view word) {
    if (m_text.substr(m_pos, word.size()) == word) {
      m_pos += word.size();
      return true;
    }
    return false;
  }

  bool parseObject(Value& out, std::size_t depth) {
    out.kind = Kind::Object;
    ++m_pos; // '{'
    skipSpace();
    if (m_pos < m_text.size() && m_text[m_pos] == '}') {
      ++m_pos;
      return true;
    }
    while (true) {
      skipSpace();
      if (m_pos >= m_text.size() || m_text[m_pos] != '"') {
        error(m_pos, m_pos + 1, describeUnexpected("a member name string"));
        return false;
      }
      Member member;
      std::size_t keyStart = m_pos;
      if (!parseString(member.key))
        return false;
      member.keyRange = {m_file, static_cast<std::uint32_t>(keyStart),
                         static_cast<std::uint32_t>(m_pos)};
      for (const Member& existing : out.members) {
        if (existing.key == member.key) {
          error(keyStart, m_pos, "duplicate member \"" + member.key + "\"");
          return false;
        }
      }
      skipSpace();
      if (m_pos >= m_text.size() || m_text[m_pos] != ':') {
        error(m_pos, m_pos + 1, describeUnexpected("':'"));
        return false;
      }
      ++m_pos;
      skipSpace();
      if (!parseValue(member.value, depth + 1))
        return false;
      out.members.push_back(std::move(member));
      skipSpace();
      if (m_pos < m_text.size() && m_text[m_pos] == ',') {
        ++m_pos;
        continue;
      }
      if (m_pos < m_text.size() && m_text[m_pos] == '}') {
        ++m_pos;
        return true;
      }
      error(m_pos, m_pos + 1, describeUnexpected("',' or '}'"));
      return false;
    }
  }

  bool parseArray(Value& out, std::size_t depth) {
    out.kind = Kind::Array;
    ++m_pos; // '['
    skipSpace();
    if (m_pos < m_text.size() && m_text[m_pos] == ']') {
      ++m_pos;
      return true;
    }
    while (true) {
      skipSpace();
      Value element;
      if (!parseValue(element, depth + 1))
        return false;
      out.elements.push_back(std::move(element));
      skipSpace();
      if (m_pos < m_text.size() && m_text[m_pos] == ',') {
        ++m_pos;
        continue;
      }
      if (m_pos < m_text.size() && m_text[m_pos] == ']') {
        ++m_pos;
        return true;
      }
      error(m_pos, m_pos + 1, describeUnexpected("',' or ']'"));
      return false;
    }
  }

  static void appendUtf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  bool parseHex4(std::uint32_t& out) {
    if (m_pos + 4 > m_text.size()) {
      error(m_pos, m_text.size(), "truncated \\u escape");
      return false;
    }
    out = 0;
    for (int i = 0; i < 4; ++i) {
      char c = m_text[m_pos + i];
      out <<= 4;
      if (c >= '0' && c <= '9')
        out |= static_cast<std::uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f')
        out |= static_cast<std::uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        out |= static_cast<std::uint32_t>(c - 'A' + 10);
      else {
        error(m_pos + i, m_pos + i + 1, "invalid hex digit in \\u escape");
        return false;
      }
    }
    m_pos += 4;
    return true;
  }

  bool parseString(std::string& out) {
    std::size_t start = m_pos;
    ++m_pos; // opening quote
    while (m_pos < m_text.size()) {
      char c = m_text[m_pos];
      if (c == '"') {
        ++m_pos;
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20) {
        error(m_pos, m_pos + 1, "control character inside a string (escape it)");
        return false;
      }
      if (c != '\\') {
        out += c;
        ++m_pos;
        continue;
      }
      ++m_pos;
      if (m_pos >= m_text.size())
        break;
      char e = m_text[m_pos++];
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        std::uint32_t cp = 0;
        if (!parseHex4(cp))
          return false;
        if (cp >= 0xD800 && cp < 0xDC00 && m_text.substr(m_pos, 2) == "\\u") {
          m_pos += 2;
          std::uint32_t lo = 0;
          if (!parseHex4(lo))
            return false;
          if (lo >= 0xDC00 && lo < 0xE000)
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          else
            cp = 0xFFFD;
        } else if (cp >= 0xD800 && cp < 0xE000) {
          cp = 0xFFFD;
        }
        appendUtf8(out, cp);
        break;
      }
      default:
        error(m_pos - 2, m_pos, std::string("invalid escape '\\") + e + "'");
        return false;
      }
    }
    error(start, m_text.size(), "unterminated string");
    return false;
  }

  bool parseNumber(Value& out) {
    std::size_t start = m_pos;
    if (m_text[m_pos] == '-')
      ++m_pos;
    auto digits = [&] {
      std::size_t n = 0;
      while (m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '9') {
        ++m_pos;
        ++n;
      }
      return n;
    };
    if (digits() == 0) {
      error(start, m_pos + 1, "invalid number");
      return false;
    }
    bool isFloat = false;
    if (m_pos < m_text.size() && m_text[m_pos] == '.') {
      ++m_pos;
      isFloat = true;
      if (digits() == 0) {
        error(start, m_pos + 1, "digits expected after '.'");
        return false;
      }
    }
    if (m_pos < m_text.size() && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E')) {
      ++m_pos;
      isFloat = true;
      if (m_pos < m_text.size() && (m_text[m_pos] == '+' || m_text[m_pos] == '-'))
        ++m_pos;
      if (digits() == 0) {
        error(start, m_pos + 1, "digits expected in exponent");
        return false;
      }
    }
    std::string_view lexeme = m_text.substr(start, m_pos - start);
    out.kind = Kind::Number;
    if (!isFloat) {
      std::int64_t value = 0;
      auto [ptr, ec] = std::from_chars(lexeme.data(), lexeme.data() + lexeme.size(), value);
      if (ec == std::errc() && ptr == lexeme.data() + lexeme.size())
        out.integer = value;
    }
    std::string copy(lexeme);
    out.number = std::strtod(copy.c_str(), nullptr);
    if (!std::isfinite(out.number)) {
      error(start, m_pos, "number out of range");
      return false;
    }
    return true;
  }

  std::string_view m_text;
  FileId m_file;
  DiagnosticEngine& m_diags;
  ParseLimits m_limits;
  std::size_t m_pos = 0;
};

} // namespace

std::optional<Value> parse(std::string_view text, FileId file, DiagnosticEngine& diags,
                           ParseLimits limits) {
  return Parser(text, file, diags, limits).run();
}

namespace {
/// Length of the valid UTF-8 sequence starting at `p`, or 0 when it is invalid.
std::size_t utf8Length(std::string_view s, std::size_t p) {
  unsigned char c = static_cast<unsigned char>(s[p]);
  std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || p + n > s.size())
    return 0;
  for (std::size_t i = 1; i < n; ++i)
    if ((static_cast<unsigned char>(s[p + i]) & 0xC0) != 0x80)
      return 0;
  if (n == 2 && c < 0xC2)
    return 0; // overlong
  return n;
}
} // namespace

std::string quote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x80) {
      // Output is always valid UTF-8: invalid bytes become U+FFFD.
      std::size_t n = utf8Length(text, i);
      if (n == 0) {
        out += "\xEF\xBF\xBD";
      } else {
        out.append(text.substr(i, n));
        i += n - 1;
      }
      continue;
    }
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (u < 0x20 || u == 0x7f) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", u);
        out += buf;
      } else {
        out += c;
      }
    }
  }
  out += '"';
  return out;
}

void Writer::newline() {
  if (!m_pretty)
    return;
  m_out += '\n';
  m_out.append(m_stack.size() * 2, ' ');
}

void Writer::maybeFlush() {
  if (!m_sink || m_out.size() < m_chunk)
    return;
  m_sink->write(m_out.data(), static_cast<std::streamsize>(m_out.size()));
  m_out.clear();
}

void Writer::beforeValue() {
  if (m_afterKey) {
    m_afterKey = false;
    return;
  }
  if (m_stack.empty())
    return;
  Level& top = m_stack.back();
  if (!top.empty)
    m_out += ',';
  top.empty = false;
  newline();
}

Writer& Writer::beginObject() {
  beforeValue();
  m_out += '{';
  m_stack.push_back({true, true});
  return *this;
}

Writer& Writer::endObject() {
  bool empty = m_stack.back().empty;
  m_stack.pop_back();
  if (!empty)
    newline();
  m_out += '}';
  maybeFlush();
  return *this;
}

Writer& Writer::beginArray() {
  beforeValue();
  m_out += '[';
  m_stack.push_back({false, true});
  return *this;
}

Writer& Writer::endArray() {
  bool empty = m_stack.back().empty;
  m_stack.pop_back();
  if (!empty)
    newline();
  m_out += ']';
  maybeFlush();
  return *this;
}

Writer& Writer::key(std::string_view name) {
  beforeValue();
  m_out += quote(name);
  m_out += m_pretty ? ": " : ":";
  m_afterKey = true;
  return *this;
}

Writer& Writer::value(std::string_view text) {
  beforeValue();
  m_out += quote(text);
  return *this;
}

Writer& Writer::value(std::int64_t number) {
  beforeValue();
  m_out += std::to_string(number);
  return *this;
}

Writer& Writer::value(std::uint64_t number) {
  beforeValue();
  m_out += std::to_string(number);
  return *this;
}

Writer& Writer::value(double number) {
  beforeValue();
  if (!std::isfinite(number)) {
    m_out += "null";
    return *this;
  }
  // Shortest representation that round-trips, so output is stable across runs.
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, number);
  std::string_view text(buf, ec == std::errc() ? static_cast<std::size_t>(ptr - buf) : 0);
  m_out += text;
  if (text.find_first_of(".eE") == std::string_view::npos &&
      text.find("inf") == std::string_view::npos)
    m_out += ".0";
  return *this;
}

Writer& Writer::value(bool flag) {
  beforeValue();
  m_out += flag ? "true" : "false";
  return *this;
}

Writer& Writer::null() {
  beforeValue();
  m_out += "null";
  return *this;
}

Writer& Writer::raw(std::string_view json) {
  beforeValue();
  m_out += json;
  return *this;
}

Writer& Writer::value(const Value& v) {
  switch (v.kind) {
  case Kind::Null:
    return null();
  case Kind::Bool:
    return value(v.boolean);
  case Kind::Number:
    return v.integer ? value(*v.integer) : value(v.number);
  case Kind::String:
    return value(std::string_view(v.string));
  case Kind::Array:
    beginArray();
    for (const Value& e : v.elements)
      value(e);
    return endArray();
  case Kind::Object:
    beginObject();
    for (const Member& m : v.members) {
      key(m.key);
      value(m.value);
    }
    return endObject();
  }
  return *this;
}

} // namespace cake::json
