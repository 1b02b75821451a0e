// Structural checks of inline PTX: the text stays one instruction statement (see InlinePtx.h).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Registry/InlinePtx.h"

#include <cstdio>
#include <cstring>

namespace cake::reg {

namespace {

bool isWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

/// The characters PTX instructions need. Everything else either has no use in an instruction
/// or could end the text early where it is printed: '"' and '\\' in a CUDA string, '$' in LLVM
/// asm, '/' opening a comment that swallows the code after it.
bool allowedChar(char c) {
  if (isWordChar(c))
    return true;
  return c != '\0' && std::strchr(" \t\n.:,;[]{}()+-@!|<>=%", c) != nullptr;
}

std::string describe(char c) {
  auto u = static_cast<unsigned char>(c);
  char buf[32];
  if (u >= 0x20 && u < 0x7f)
    std::snprintf(buf, sizeof buf, "'%c'", c);
  else
    std::snprintf(buf, sizeof buf, "byte 0x%02X", u);
  return buf;
}

} // namespace

std::vector<InlinePtxIssue> checkInlinePtx(std::string_view text,
                                           std::optional<std::size_t> operandCount,
                                           std::size_t limit) {
  std::vector<InlinePtxIssue> out;
  auto issue = [&](std::size_t b, std::size_t e, std::string m) {
    if (out.size() < limit)
      out.push_back({b, e, std::move(m)});
  };
  std::vector<std::size_t> open; // offsets of the '{' not yet closed
  bool atStart = true;
  bool inReg = false; // inside a '.reg' declaration, whose type and vector tokens start with '.'
  for (std::size_t i = 0; i < text.size() && out.size() < limit; ++i) {
    char c = text[i];
    if (!allowedChar(c)) {
      issue(i, i + 1, "character " + describe(c) + " cannot appear in inline PTX");
      continue;
    }
    if (c == '%') {
      std::size_t j = i + 1;
      while (j < text.size() && isDigit(text[j]))
        ++j;
      std::string ref(text.substr(i, j - i));
      if (!operandCount) {
        issue(i, std::max(j, i + 1),
              "operand reference '" + ref +
                  "' in a template: operands are bound through slots such as {dst.reg}, and "
                  "lowering numbers them");
      } else if (j == i + 1) {
        issue(i, i + 1, "'%' is not followed by an operand number");
      } else {
        // Compare digit strings without overflow: a long number is out of range anyway.
        std::string_view digits = text.substr(i + 1, j - i - 1);
        while (digits.size() > 1 && digits.front() == '0')
          digits.remove_prefix(1);
        bool inRange = digits.size() <= 18 && std::stoull(std::string(digits)) < *operandCount;
        if (!inRange)
          issue(i, j,
                "operand reference '" + ref + "' but the statement has " +
                    std::to_string(*operandCount) + " operand" +
                    (*operandCount == 1 ? "" : "s"));
      }
      atStart = false;
      i = j - 1;
      continue;
    }
    if (c == '{') {
      open.push_back(i);
      atStart = true;
      inReg = false;
      continue;
    }
    if (c == '}') {
      if (open.empty())
        issue(i, i + 1,
              "'}' closes a scope the text did not open (it would end the kernel's body)");
      else
        open.pop_back();
      atStart = true;
      continue;
    }
    if (c == ';' || c == '\n') {
      atStart = true;
      inReg = false;
      continue;
    }
    // A '.' that starts a token (not a modifier glued to an opcode or operand) is a directive
    // wherever it stands: 'x.visible .entry k()' hides one behind an instruction-like word.
    // Only the type and name tokens of a '.reg' declaration may follow it.
    if (c == '.' && !atStart && !inReg && (i == 0 || !isWordChar(text[i - 1])) &&
        i + 1 < text.size() && isWordChar(text[i + 1]) && !isDigit(text[i + 1])) {
      std::size_t j = i + 1;
      while (j < text.size() && isWordChar(text[j]))
        ++j;
      issue(i, j,
            "directive '" + std::string(text.substr(i, j - i)) +
                "' inside an instruction: inline PTX may hold no entry, function, section or "
                "other directive");
      i = j - 1;
      continue;
    }
    if (c == ' ' || c == '\t' || !atStart)
      continue;
    atStart = false;
    std::size_t j = i + (c == '.' ? 1 : 0);
    while (j < text.size() && isWordChar(text[j]))
      ++j;
    if (c == '.') {
      std::string_view word = text.substr(i, j - i);
      inReg = word == ".reg";
      if (word != ".reg")
        issue(i, j,
              "directive '" + std::string(word) +
                  "' in inline PTX: only instructions, and '.reg' declarations inside a braced "
                  "scope, may appear (no entry, function, section or debug directive)");
      else if (open.empty())
        issue(i, j, "a '.reg' declaration must sit inside a braced scope of the same text");
      i = j - 1;
      continue;
    }
    if (isWordChar(c) && !isDigit(c) && j < text.size() && text[j] == ':' &&
        (j + 1 >= text.size() || text[j + 1] != ':')) {
      if (open.empty())
        issue(i, j + 1,
              "label '" + std::string(text.substr(i, j - i)) +
                  ":' outside a braced scope of the same text (it would be visible to the whole "
                  "kernel)");
      i = j;
      continue;
    }
    if (j > i)
      i = j - 1;
  }
  if (!open.empty() && out.size() < limit)
    issue(open.back(), open.back() + 1, "'{' is never closed");
  return out;
}

bool isPtxTokenWord(std::string_view v) {
  std::size_t i = 0;
  while (true) {
    std::size_t start = i;
    while (i < v.size() && isWordChar(v[i]))
      ++i;
    if (i == start)
      return false; // empty word: leading, trailing or doubled separator
    if (i == v.size())
      return true;
    if (v[i] == '.')
      ++i;
    else if (v.substr(i, 2) == "::")
      i += 2;
    else
      return false;
  }
}

std::size_t countPtxEntries(std::string_view ptx) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < ptx.size(); ++i) {
    char c = ptx[i];
    if (c == '/' && i + 1 < ptx.size() && ptx[i + 1] == '/') {
      std::size_t nl = ptx.find('\n', i);
      i = nl == std::string_view::npos ? ptx.size() : nl;
      continue;
    }
    if (c == '/' && i + 1 < ptx.size() && ptx[i + 1] == '*') {
      std::size_t close = ptx.find("*/", i + 2);
      i = close == std::string_view::npos ? ptx.size() : close + 1;
      continue;
    }
    if (c == '"') { // .file names: a path may contain anything
      std::size_t close = ptx.find('"', i + 1);
      i = close == std::string_view::npos ? ptx.size() : close;
      continue;
    }
    if (c == '.' && ptx.substr(i, 6) == ".entry" && (i == 0 || !isWordChar(ptx[i - 1])) &&
        (i + 6 >= ptx.size() || !isWordChar(ptx[i + 6])))
      ++n;
  }
  return n;
}

} // namespace cake::reg
