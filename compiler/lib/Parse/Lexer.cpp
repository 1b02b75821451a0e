// Cake IR tokenizer: identifiers, numbers (dec/hex/bin, floats, tags), strings, punctuation.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Parse/Lexer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace cake {

std::string_view describe(Tok kind) {
  switch (kind) {
  case Tok::Eof:
    return "end of file";
  case Tok::Newline:
    return "end of line";
  case Tok::Ident:
    return "identifier";
  case Tok::Int:
    return "integer";
  case Tok::Float:
    return "number";
  case Tok::String:
    return "string";
  case Tok::Tag:
    return "tag";
  case Tok::LBrace:
    return "'{'";
  case Tok::RBrace:
    return "'}'";
  case Tok::LBracket:
    return "'['";
  case Tok::RBracket:
    return "']'";
  case Tok::LParen:
    return "'('";
  case Tok::RParen:
    return "')'";
  case Tok::Comma:
    return "','";
  case Tok::Colon:
    return "':'";
  case Tok::Equal:
    return "'='";
  case Tok::Dot:
    return "'.'";
  case Tok::DotDot:
    return "'..'";
  case Tok::PlusColon:
    return "'+:'";
  case Tok::Plus:
    return "'+'";
  case Tok::Minus:
    return "'-'";
  case Tok::Star:
    return "'*'";
  case Tok::Slash:
    return "'/'";
  case Tok::Percent:
    return "'%'";
  case Tok::Caret:
    return "'^'";
  case Tok::Amp:
    return "'&'";
  case Tok::Pipe:
    return "'|'";
  case Tok::Tilde:
    return "'~'";
  case Tok::Shl:
    return "'<<'";
  case Tok::Shr:
    return "'>>'";
  case Tok::EqEq:
    return "'=='";
  case Tok::NotEq:
    return "'!='";
  case Tok::Less:
    return "'<'";
  case Tok::LessEq:
    return "'<='";
  case Tok::Greater:
    return "'>'";
  case Tok::GreaterEq:
    return "'>='";
  case Tok::AndAnd:
    return "'&&'";
  case Tok::OrOr:
    return "'||'";
  case Tok::Bang:
    return "'!'";
  }
  return "token";
}

namespace {
bool isIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }
bool isHex(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
} // namespace

Lexer::Lexer(std::string_view text, FileId file, DiagnosticEngine& diags, std::size_t start)
    : m_text(text), m_file(file), m_diags(diags), m_pos(std::min(start, text.size())) {
  // A UTF-8 byte order mark is not content.
  if (m_pos == 0 && m_text.substr(0, 3) == "\xEF\xBB\xBF")
    m_pos = 3;
}

const Token& Lexer::peek(std::size_t ahead) {
  while (m_lookahead.size() <= ahead)
    m_lookahead.push_back(lex());
  return m_lookahead[ahead];
}

Token Lexer::next() {
  if (m_lookahead.empty())
    return lex();
  Token t = std::move(m_lookahead.front());
  m_lookahead.pop_front();
  return t;
}

void Lexer::error(DiagId id, std::uint32_t begin, std::uint32_t end, std::string message) {
  ++m_errors;
  m_diags.report(id, {m_file, begin, end}, std::move(message));
}

Token Lexer::lex() {
  while (true) {
    // Skip horizontal whitespace.
    while (m_pos < m_text.size() &&
           (m_text[m_pos] == ' ' || m_text[m_pos] == '\t' || m_text[m_pos] == '\f' ||
            m_text[m_pos] == '\v'))
      ++m_pos;
    Token t;
    t.begin = static_cast<std::uint32_t>(m_pos);
    t.line = m_line;
    if (m_pos >= m_text.size()) {
      t.kind = Tok::Eof;
      t.end = t.begin;
      return t;
    }
    char c = m_text[m_pos];
    if (c == '\n' || c == '\r') {
      m_pos += (c == '\r' && m_pos + 1 < m_text.size() && m_text[m_pos + 1] == '\n') ? 2 : 1;
      t.kind = Tok::Newline;
      t.end = static_cast<std::uint32_t>(m_pos);
      ++m_line;
      m_lineHasToken = false;
      return t;
    }
    if (c == '/' && m_pos + 1 < m_text.size() && m_text[m_pos + 1] == '/') {
      Comment com;
      com.begin = static_cast<std::uint32_t>(m_pos);
      com.line = m_line;
      com.ownLine = !m_lineHasToken;
      std::size_t start = m_pos + 2;
      while (m_pos < m_text.size() && m_text[m_pos] != '\n' && m_text[m_pos] != '\r')
        ++m_pos;
      com.end = static_cast<std::uint32_t>(m_pos);
      std::string_view body = m_text.substr(start, m_pos - start);
      while (!body.empty() && (body.back() == ' ' || body.back() == '\t'))
        body.remove_suffix(1);
      com.text = std::string(body);
      m_comments.push_back(std::move(com));
      continue;
    }
    m_lineHasToken = true;
    if (isIdentStart(c)) {
      std::size_t start = m_pos;
      while (m_pos < m_text.size() && isIdentChar(m_text[m_pos]))
        ++m_pos;
      t.kind = Tok::Ident;
      t.text = std::string(m_text.substr(start, m_pos - start));
      t.end = static_cast<std::uint32_t>(m_pos);
      return t;
    }
    if (isDigit(c)) {
      lexNumber(t);
      return t;
    }
    if (c == '"') {
      lexString(t);
      return t;
    }
    auto two = [&](char second) {
      return m_pos + 1 < m_text.size() && m_text[m_pos + 1] == second;
    };
    Tok kind = Tok::Eof;
    std::size_t len = 1;
    switch (c) {
    case '{':
      kind = Tok::LBrace;
      break;
    case '}':
      kind = Tok::RBrace;
      break;
    case '[':
      kind = Tok::LBracket;
      break;
    case ']':
      kind = Tok::RBracket;
      break;
    case '(':
      kind = Tok::LParen;
      break;
    case ')':
      kind = Tok::RParen;
      break;
    case ',':
      kind = Tok::Comma;
      break;
    case ':':
      kind = Tok::Colon;
      break;
    case '=':
      kind = two('=') ? (len = 2, Tok::EqEq) : Tok::Equal;
      break;
    case '.':
      kind = two('.') ? (len = 2, Tok::DotDot) : Tok::Dot;
      break;
    case '+':
      kind = two(':') ? (len = 2, Tok::PlusColon) : Tok::Plus;
      break;
    case '-':
      kind = Tok::Minus;
      break;
    case '*':
      kind = Tok::Star;
      break;
    case '/':
      kind = Tok::Slash;
      break;
    case '%':
      kind = Tok::Percent;
      break;
    case '^':
      kind = Tok::Caret;
      break;
    case '&':
      kind = two('&') ? (len = 2, Tok::AndAnd) : Tok::Amp;
      break;
    case '|':
      kind = two('|') ? (len = 2, Tok::OrOr) : Tok::Pipe;
      break;
    case '~':
      kind = Tok::Tilde;
      break;
    case '!':
      kind = two('=') ? (len = 2, Tok::NotEq) : Tok::Bang;
      break;
    case '<':
      kind = two('<') ? (len = 2, Tok::Shl) : two('=') ? (len = 2, Tok::LessEq) : Tok::Less;
      break;
    case '>':
      kind = two('>') ? (len = 2, Tok::Shr) : two('=') ? (len = 2, Tok::GreaterEq) : Tok::Greater;
      break;
    default: {
      // One finding per run of bytes that cannot start a token (binary input stays bounded).
      std::size_t start = m_pos;
      auto bad = [&](char ch) {
        return !(isIdentChar(ch) || ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' ||
                 std::string_view("{}[](),:=.+-*/%^&|~!<>\"").find(ch) != std::string_view::npos);
      };
      while (m_pos < m_text.size() && bad(m_text[m_pos]))
        ++m_pos;
      unsigned char first = static_cast<unsigned char>(m_text[start]);
      char buf[96];
      if (first >= 0x20 && first < 0x7f)
        std::snprintf(buf, sizeof buf, "unexpected character '%c'", first);
      else
        std::snprintf(buf, sizeof buf, "unexpected byte 0x%02x (Cake IR is ASCII outside comments "
                                       "and strings)", first);
      std::string message = buf;
      if (m_pos - start > 1)
        message += " (and " + std::to_string(m_pos - start - 1) + " more invalid bytes)";
      error(DiagId::SynInvalidCharacter, static_cast<std::uint32_t>(start),
            static_cast<std::uint32_t>(m_pos), std::move(message));
      continue;
    }
    }
    m_pos += len;
    t.kind = kind;
    t.end = static_cast<std::uint32_t>(m_pos);
    return t;
  }
}

void Lexer::lexNumber(Token& t) {
  std::size_t start = m_pos;
  bool isFloat = false;
  int base = 10;
  std::string digits;
  if (m_text[m_pos] == '0' && m_pos + 1 < m_text.size() &&
      (m_text[m_pos + 1] == 'x' || m_text[m_pos + 1] == 'X' || m_text[m_pos + 1] == 'b' ||
       m_text[m_pos + 1] == 'B') &&
      m_pos + 2 < m_text.size() &&
      ((m_text[m_pos + 1] == 'x' || m_text[m_pos + 1] == 'X') ? isHex(m_text[m_pos + 2])
                                                              : (m_text[m_pos + 2] == '0' ||
                                                                 m_text[m_pos + 2] == '1'))) {
    base = (m_text[m_pos + 1] == 'x' || m_text[m_pos + 1] == 'X') ? 16 : 2;
    m_pos += 2;
    while (m_pos < m_text.size() &&
           (m_text[m_pos] == '_' || (base == 16 ? isHex(m_text[m_pos])
                                                : (m_text[m_pos] == '0' || m_text[m_pos] == '1')))) {
      if (m_text[m_pos] != '_')
        digits += m_text[m_pos];
      ++m_pos;
    }
  } else {
    while (m_pos < m_text.size() && (isDigit(m_text[m_pos]) || m_text[m_pos] == '_')) {
      if (m_text[m_pos] != '_')
        digits += m_text[m_pos];
      ++m_pos;
    }
    // A fraction needs a digit after '.', so "0..4" stays a range.
    if (m_pos + 1 < m_text.size() && m_text[m_pos] == '.' && isDigit(m_text[m_pos + 1])) {
      isFloat = true;
      ++m_pos;
      while (m_pos < m_text.size() && isDigit(m_text[m_pos]))
        ++m_pos;
    }
    if (m_pos < m_text.size() && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E')) {
      std::size_t save = m_pos;
      ++m_pos;
      if (m_pos < m_text.size() && (m_text[m_pos] == '+' || m_text[m_pos] == '-'))
        ++m_pos;
      if (m_pos < m_text.size() && isDigit(m_text[m_pos])) {
        isFloat = true;
        while (m_pos < m_text.size() && isDigit(m_text[m_pos]))
          ++m_pos;
      } else {
        m_pos = save; // not an exponent: the letters form a tag below
      }
    }
  }
  // Letters glued to a decimal integer make a tag (128B); anywhere else they are an error.
  if (m_pos < m_text.size() && isIdentStart(m_text[m_pos])) {
    std::size_t tagEnd = m_pos;
    while (tagEnd < m_text.size() && isIdentChar(m_text[tagEnd]))
      ++tagEnd;
    if (base == 10 && !isFloat) {
      m_pos = tagEnd;
      t.kind = Tok::Tag;
      t.text = std::string(m_text.substr(start, m_pos - start));
      t.end = static_cast<std::uint32_t>(m_pos);
      return;
    }
    m_pos = tagEnd;
    t.kind = Tok::Int;
    t.end = static_cast<std::uint32_t>(m_pos);
    t.text = std::string(m_text.substr(start, m_pos - start));
    error(DiagId::SynInvalidNumber, t.begin, t.end, "malformed number '" + t.text + "'");
    return;
  }
  t.end = static_cast<std::uint32_t>(m_pos);
  t.text = std::string(m_text.substr(start, m_pos - start));
  if (isFloat) {
    t.kind = Tok::Float;
    std::string clean;
    for (char ch : t.text)
      if (ch != '_')
        clean += ch;
    t.floatValue = std::strtod(clean.c_str(), nullptr);
    if (!std::isfinite(t.floatValue))
      error(DiagId::SynNumberOutOfRange, t.begin, t.end, "floating-point literal overflows");
    return;
  }
  t.kind = Tok::Int;
  std::uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
  if (ec != std::errc() || ptr != digits.data() + digits.size() ||
      value > static_cast<std::uint64_t>(INT64_MAX)) {
    error(DiagId::SynNumberOutOfRange, t.begin, t.end,
          "integer literal '" + (t.text.size() > 40 ? t.text.substr(0, 40) + "..." : t.text) +
              "' does not fit in a signed 64-bit integer");
    t.intValue = 0;
    return;
  }
  t.intValue = static_cast<std::int64_t>(value);
}

void Lexer::lexString(Token& t) {
  std::size_t start = m_pos;
  ++m_pos;
  std::string value;
  while (m_pos < m_text.size()) {
    char c = m_text[m_pos];
    if (c == '"') {
      ++m_pos;
      t.kind = Tok::String;
      t.text = std::move(value);
      t.end = static_cast<std::uint32_t>(m_pos);
      return;
    }
    if (c == '\n' || c == '\r')
      break;
    if (c == '\\' && m_pos + 1 < m_text.size()) {
      char e = m_text[m_pos + 1];
      if (e == '"' || e == '\\') {
        value += e;
        m_pos += 2;
        continue;
      }
      if (e == 'n') {
        value += '\n';
        m_pos += 2;
        continue;
      }
    }
    value += c;
    ++m_pos;
  }
  t.kind = Tok::String;
  t.text = std::move(value);
  t.end = static_cast<std::uint32_t>(m_pos);
  error(DiagId::SynUnterminatedString, static_cast<std::uint32_t>(start), t.end,
        "string literal is not closed before the end of the line");
}

} // namespace cake
