// Cake-IR-aware libFuzzer mutator for fuzz_parse: grows the shapes that byte mutations almost
// never reach (a 20,000-term operator chain, deep nesting, huge literals, shuffled statements).
// SPDX-License-Identifier: GPL-3.0-or-later
//
// libFuzzer's own mutations flip and splice bytes; to build `1+1+…+1` with 20,000 terms it would
// have to insert the same two bytes 20,000 times in a row, which it never does, so the stack
// overflow of issue 11 item 5.1 stayed hidden. Half of the mutations here are libFuzzer's (so
// coverage-guided byte fuzzing keeps working); the other half rewrite the text structurally:
//   - operator chains of 1..~30,000 terms with any binary operator, at a number or a name;
//   - unary chains (`----x`, `~~~~x`), parentheses, lists and member chains nested deeply;
//   - nested `for` blocks;
//   - huge or malformed literals (past 64 bits, 1e999, long digit strings);
//   - statements (lines) duplicated, deleted or swapped, and one identifier renamed to another.
// The mutator is deterministic in its seed, as libFuzzer requires for reproducible runs.
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <random>
#include <string>
#include <string_view>
#include <vector>

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size,
                                        std::size_t maxSize);

namespace {

using Rng = std::minstd_rand;

std::size_t pick(Rng& rng, std::size_t n) { return n == 0 ? 0 : rng() % n; }

/// A count between 1 and `cap`, log-uniform: small counts often, huge ones regularly.
std::size_t count(Rng& rng, std::size_t cap) {
  if (cap == 0)
    return 0;
  unsigned bits = 1 + unsigned(pick(rng, 15));
  std::size_t n = 1 + pick(rng, std::size_t(1) << bits);
  return std::min(n, cap);
}

/// How many repetitions to grow: a quarter of the time all that fits (the largest shapes are the
/// ones that exhaust stacks), otherwise log-uniform up to `cap`.
std::size_t amount(Rng& rng, std::size_t cap) { return rng() % 4 == 0 ? cap : count(rng, cap); }

bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

struct Token {
  std::size_t begin, end;
};

/// True when the token at `begin` sits inside an expression: after '=', a bracket, a comma, a
/// slice or an operator. Chains grown elsewhere (after an op name, in a header) are only syntax
/// errors, which never reach the passes after the parser.
bool inExpression(const std::string& text, std::size_t begin) {
  std::size_t i = begin;
  while (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t'))
    --i;
  return i > 0 && std::strchr("=[(,:+-*/%<>&|^~", text[i - 1]) != nullptr;
}

/// Numbers and identifiers of `text` outside `//` comments (a rough lexer: strings are not
/// skipped, which only widens what gets mutated). `operands` are those inside expressions.
void scan(const std::string& text, std::vector<Token>& numbers, std::vector<Token>& names,
          std::vector<Token>& operands) {
  for (std::size_t i = 0; i < text.size();) {
    char c = text[i];
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n')
        ++i;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t j = i;
      while (j < text.size() && (isIdentChar(text[j]) || text[j] == '.'))
        ++j;
      numbers.push_back({i, j});
      if (inExpression(text, i))
        operands.push_back({i, j});
      i = j;
    } else if (isIdentStart(c)) {
      std::size_t j = i;
      while (j < text.size() && isIdentChar(text[j]))
        ++j;
      names.push_back({i, j});
      if (inExpression(text, i))
        operands.push_back({i, j});
      i = j;
    } else {
      ++i;
    }
  }
}

/// Start offsets of the lines of `text`.
std::vector<std::size_t> lineStarts(const std::string& text) {
  std::vector<std::size_t> starts{0};
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n' && i + 1 < text.size())
      starts.push_back(i + 1);
  return starts;
}

std::string lineAt(const std::string& text, const std::vector<std::size_t>& starts,
                   std::size_t k) {
  std::size_t b = starts[k];
  std::size_t e = k + 1 < starts.size() ? starts[k + 1] : text.size();
  std::string line = text.substr(b, e - b);
  if (line.empty() || line.back() != '\n')
    line += '\n';
  return line;
}

std::string repeat(std::string_view piece, std::size_t n) {
  std::string out;
  out.reserve(piece.size() * n);
  for (std::size_t i = 0; i < n; ++i)
    out += piece;
  return out;
}

/// An operand site: mostly a number or name inside an expression (so the grown shape reaches
/// the passes after the parser), sometimes any number or name, or the end of the text.
Token operandSite(Rng& rng, const std::vector<Token>& numbers, const std::vector<Token>& names,
                  const std::vector<Token>& operands, std::size_t size) {
  unsigned choice = rng() % 8;
  const std::vector<Token>& from = choice < 6 && !operands.empty() ? operands
                                   : choice == 6 && !numbers.empty() ? numbers
                                                                      : names;
  if (from.empty())
    return {size, size};
  return from[pick(rng, from.size())];
}

/// One structural mutation of `text`, keeping it within `room` extra bytes when possible.
/// Returns false when nothing applied (the caller falls back to libFuzzer's mutation).
bool mutateStructurally(std::string& text, std::size_t maxSize, Rng& rng) {
  std::vector<Token> numbers, names, operands;
  scan(text, numbers, names, operands);
  std::size_t room = maxSize > text.size() ? maxSize - text.size() : 0;
  static constexpr std::string_view kBinary[] = {" + ", "+",  " - ", "*",  " / ",
                                                 " % ", "<<", ">>",  " & ", " | ", "^"};
  switch (pick(rng, 9)) {
  case 0: { // a long operator chain after an operand
    Token at = operandSite(rng, numbers, names, operands, text.size());
    std::string_view op = kBinary[pick(rng, std::size(kBinary))];
    std::string operand =
        rng() % 2 ? std::string("1") : text.substr(at.begin, std::min<std::size_t>(at.end - at.begin, 8));
    if (operand.empty())
      operand = "1";
    std::string piece = std::string(op) + operand;
    std::size_t n = amount(rng, room / piece.size());
    if (n == 0)
      return false;
    text.insert(at.end, repeat(piece, n));
    return true;
  }
  case 1: { // a unary chain before an operand
    Token at = operandSite(rng, numbers, names, operands, text.size());
    std::size_t n = amount(rng, room);
    if (n == 0)
      return false;
    text.insert(at.begin, std::string(n, rng() % 2 ? '-' : '~'));
    return true;
  }
  case 2: { // brackets or lists nested around an operand
    Token at = operandSite(rng, numbers, names, operands, text.size());
    std::size_t n = amount(rng, room / 2);
    if (n == 0)
      return false;
    bool list = rng() % 3 == 0;
    text.insert(at.end, std::string(n, list ? ']' : ')'));
    text.insert(at.begin, std::string(n, list ? '[' : '('));
    return true;
  }
  case 3: { // a member chain after a name
    if (names.empty())
      return false;
    Token at = names[pick(rng, names.size())];
    std::string piece = rng() % 2 ? ".x" : ".slot";
    std::size_t n = count(rng, room / piece.size());
    if (n == 0)
      return false;
    text.insert(at.end, repeat(piece, n));
    return true;
  }
  case 4: { // nested blocks at a line start
    std::vector<std::size_t> starts = lineStarts(text);
    std::size_t at = starts[pick(rng, starts.size())];
    std::string open = "for i in 0..2 {\n";
    std::size_t n = count(rng, room / (open.size() + 2));
    if (n == 0)
      return false;
    text.insert(at, repeat(open, n) + repeat("}\n", n));
    return true;
  }
  case 5: { // a huge or malformed literal in place of a number
    static constexpr std::string_view kHuge[] = {
        "9223372036854775807",  "9223372036854775808", "18446744073709551616",
        "-9223372036854775808", "1e999",               "1e-999",
        "0x7fffffffffffffff",   "0xffffffffffffffffff", "4294967296",
        "2147483648",           "0.0000000000000001",  "1.7976931348623157e308"};
    std::string literal;
    if (rng() % 4 == 0)
      literal = std::string(count(rng, std::min<std::size_t>(room + 1, 4096)), '9');
    else
      literal = std::string(kHuge[pick(rng, std::size(kHuge))]);
    if (numbers.empty()) {
      text += literal;
      return true;
    }
    Token at = numbers[pick(rng, numbers.size())];
    text.replace(at.begin, at.end - at.begin, literal);
    return true;
  }
  case 6: { // duplicate a statement (possibly many times: redeclarations, huge bodies)
    std::vector<std::size_t> starts = lineStarts(text);
    std::size_t k = pick(rng, starts.size());
    std::string line = lineAt(text, starts, k);
    std::size_t n = count(rng, room / std::max<std::size_t>(1, line.size()));
    if (n == 0)
      return false;
    std::size_t to = starts[pick(rng, starts.size())];
    text.insert(to, repeat(line, n));
    return true;
  }
  case 7: { // swap or delete statements
    std::vector<std::size_t> starts = lineStarts(text);
    if (starts.size() < 2)
      return false;
    std::vector<std::string> lines;
    for (std::size_t k = 0; k < starts.size(); ++k)
      lines.push_back(lineAt(text, starts, k));
    std::size_t a = pick(rng, lines.size()), b = pick(rng, lines.size());
    if (rng() % 3 == 0)
      lines.erase(lines.begin() + std::ptrdiff_t(a));
    else
      std::swap(lines[a], lines[b]);
    text.clear();
    for (const std::string& l : lines)
      text += l;
    return true;
  }
  default: { // rename one identifier to another one of the file (use before declaration,
             // a role where a barrier belongs, shadowing)
    if (names.size() < 2)
      return false;
    Token from = names[pick(rng, names.size())];
    Token to = names[pick(rng, names.size())];
    std::string replacement = text.substr(to.begin, to.end - to.begin);
    text.replace(from.begin, from.end - from.begin, replacement);
    return true;
  }
  }
}

} // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t maxSize, unsigned int seed) {
  Rng rng(seed);
  if (rng() % 2 == 0)
    return LLVMFuzzerMutate(data, size, maxSize);
  std::string text(reinterpret_cast<const char*>(data), size);
  if (!mutateStructurally(text, maxSize, rng) || text.size() > maxSize ||
      text == std::string_view(reinterpret_cast<const char*>(data), size))
    return LLVMFuzzerMutate(data, size, maxSize);
  std::memcpy(data, text.data(), text.size());
  return text.size();
}
