// Streaming tokenizer for Cake IR (also used for registry constraint expressions).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Support/Diagnostic.h"

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>

namespace cake {

enum class Tok : std::uint8_t {
  Eof,
  Newline,
  Ident,
  Int,
  Float,
  String,
  Tag, ///< number-led word: 128B
  LBrace,
  RBrace,
  LBracket,
  RBracket,
  LParen,
  RParen,
  Comma,
  Colon,
  Equal,
  Dot,
  DotDot,
  PlusColon,
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  Caret,
  Amp,
  Pipe,
  Tilde,
  Shl,
  Shr,
  EqEq,
  NotEq,
  Less,
  LessEq,
  Greater,
  GreaterEq,
  AndAnd,
  OrOr,
  Bang,
};

/// Human-readable spelling for messages ("'{'", "identifier", "end of line").
std::string_view describe(Tok kind);

struct Token {
  Tok kind = Tok::Eof;
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  std::uint32_t line = 1; ///< 1-based line of `begin`
  std::int64_t intValue = 0;
  double floatValue = 0.0;
  std::string text; ///< identifier/tag spelling, decoded string contents, or number lexeme

  bool is(Tok k) const { return kind == k; }
};

/// A `//` comment. `ownLine` is true when nothing but whitespace precedes it on its line.
struct Comment {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  std::uint32_t line = 1;
  bool ownLine = false;
  std::string text; ///< after the "//", trailing whitespace trimmed
};

/// Produces tokens on demand with arbitrary lookahead. Lexical errors are reported once per
/// run of bad input and the offending bytes are skipped, so the parser always makes progress.
class Lexer {
public:
  /// Lexes `text` from byte `start`; offsets in tokens and findings are offsets into `text`
  /// (so a sub-range of a larger file keeps its real positions).
  Lexer(std::string_view text, FileId file, DiagnosticEngine& diags, std::size_t start = 0);

  const Token& peek(std::size_t ahead = 0);
  Token next();
  /// Comments seen so far and not yet taken, in source order.
  std::deque<Comment>& comments() { return m_comments; }
  SourceRange range(const Token& t) const { return {m_file, t.begin, t.end}; }
  /// Lexical errors reported so far (a statement whose tokens had one is dropped).
  std::size_t errorCount() const { return m_errors; }
  FileId file() const { return m_file; }
  std::string_view text() const { return m_text; }

private:
  Token lex();
  void lexNumber(Token& t);
  void lexString(Token& t);
  void error(DiagId id, std::uint32_t begin, std::uint32_t end, std::string message);

  std::string_view m_text;
  FileId m_file;
  DiagnosticEngine& m_diags;
  std::size_t m_pos = 0;
  std::uint32_t m_line = 1;
  bool m_lineHasToken = false;
  std::size_t m_errors = 0;
  std::deque<Token> m_lookahead;
  std::deque<Comment> m_comments;
};

} // namespace cake
