// Rendering of findings (text, JSON) and verification of expectation annotations.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Driver/Output.h"

#include <algorithm>
#include <charconv>

namespace cake::driver {

namespace {

std::string_view label(Severity s) {
  switch (s) {
  case Severity::Blocking:
    return "error";
  case Severity::Report:
    return "warning";
  case Severity::Hint:
    return "hint";
  }
  return "error";
}

std::string_view colorOf(Severity s) {
  switch (s) {
  case Severity::Blocking:
    return "\033[1;31m";
  case Severity::Report:
    return "\033[1;35m";
  case Severity::Hint:
    return "\033[1;36m";
  }
  return "";
}

/// Replaces non-printable bytes so a snippet of binary input cannot garble a terminal.
std::string printable(std::string_view line) {
  std::string out;
  for (char c : line) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '\t')
      out += ' ';
    else if (u < 0x20 || u == 0x7f)
      out += '?';
    else
      out += c;
  }
  return out;
}

void snippet(std::string& out, SourceRange range, const SourceManager& sources,
             const TextOptions& options) {
  if (!options.snippets || !sources.contains(range.file) || sources.name(range.file).ends_with('/'))
    return;
  LineColumn begin = sources.lineColumn(range.file, range.begin);
  LineColumn end = sources.lineColumn(range.file, range.end);
  std::string_view text = sources.lineText(range.file, begin.line);
  if (text.size() > 400)
    text = text.substr(0, 400);
  std::string lineNo = std::to_string(begin.line);
  std::string pad(std::max<std::size_t>(lineNo.size(), 4), ' ');
  std::string num = std::string(pad.size() - lineNo.size(), ' ') + lineNo;
  out += num + " | " + printable(text) + "\n";
  std::uint32_t width =
      end.line == begin.line && end.column > begin.column ? end.column - begin.column : 1;
  std::uint32_t avail = static_cast<std::uint32_t>(text.size()) + 1;
  if (begin.column > avail)
    width = 1;
  else
    width = std::min(width, avail - begin.column + 1);
  out += pad + " | " + std::string(begin.column > 0 ? begin.column - 1 : 0, ' ');
  if (options.color)
    out += "\033[1;32m";
  out += '^';
  if (width > 1)
    out += std::string(width - 1, '~');
  if (options.color)
    out += "\033[0m";
  out += '\n';
}

std::string location(SourceRange range, const SourceManager& sources) {
  if (!sources.contains(range.file))
    return "<unknown>";
  // A directory (its name ends in '/') is reported as a whole: "no rule file for X in DIR/".
  if (sources.name(range.file).ends_with('/'))
    return sources.name(range.file);
  LineColumn lc = sources.lineColumn(range.file, range.begin);
  return sources.name(range.file) + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.column);
}

} // namespace

std::string renderText(const Diagnostic& diag, const SourceManager& sources,
                       const TextOptions& options) {
  std::string out = location(diag.range, sources) + ": ";
  if (options.color)
    out += colorOf(diag.severity);
  out += label(diag.severity);
  out += "[" + diag.code + "]";
  if (options.color)
    out += "\033[0m";
  out += ": " + diag.message + "\n";
  snippet(out, diag.range, sources, options);
  if (diag.fix) {
    out += "      = fix: " + diag.fix->message;
    std::string bare = diag.fix->replacement;
    if (bare.size() >= 2 && bare.front() == '"' && bare.back() == '"')
      bare = bare.substr(1, bare.size() - 2);
    if (diag.fix->range.valid() && !bare.empty() && bare.find('\n') == std::string::npos &&
        diag.fix->message.find(bare) == std::string::npos)
      out += " (replace with '" + diag.fix->replacement + "')";
    out += "\n";
  }
  for (const DiagNote& note : diag.notes) {
    out += location(note.range, sources) + ": note: " + note.message + "\n";
    snippet(out, note.range, sources, options);
  }
  return out;
}

void writeRange(json::Writer& w, SourceRange range, const SourceManager& sources, bool withPath) {
  w.beginObject();
  if (withPath && sources.contains(range.file))
    w.key("path").value(sources.name(range.file));
  if (sources.contains(range.file)) {
    LineColumn b = sources.lineColumn(range.file, range.begin);
    LineColumn e = sources.lineColumn(range.file, range.end);
    w.key("line").value(b.line).key("column").value(b.column);
    w.key("end_line").value(e.line).key("end_column").value(e.column);
  } else {
    w.key("line")
        .value(0)
        .key("column")
        .value(0)
        .key("end_line")
        .value(0)
        .key("end_column")
        .value(0);
  }
  w.endObject();
}

void writeJson(json::Writer& w, const Diagnostic& diag, const SourceManager& sources) {
  w.beginObject();
  w.key("code").value(diag.code);
  w.key("family").value(toString(diag.family));
  w.key("severity").value(toString(diag.severity));
  w.key("message").value(diag.message);
  w.key("range");
  writeRange(w, diag.range, sources, false);
  w.key("notes").beginArray();
  for (const DiagNote& n : diag.notes) {
    w.beginObject();
    w.key("message").value(n.message);
    w.key("range");
    writeRange(w, n.range, sources, n.range.file != diag.range.file);
    w.endObject();
  }
  w.endArray();
  w.key("fix");
  if (!diag.fix) {
    w.null();
  } else {
    w.beginObject();
    w.key("message").value(diag.fix->message);
    if (diag.fix->range.valid()) {
      w.key("range");
      writeRange(w, diag.fix->range, sources, diag.fix->range.file != diag.range.file);
      w.key("replacement").value(diag.fix->replacement);
    }
    w.endObject();
  }
  w.key("caused_by");
  if (!diag.causedBy) {
    w.null();
  } else {
    w.beginObject();
    w.key("code").value(diag.causedBy->code);
    w.key("range");
    writeRange(w, diag.causedBy->range, sources, diag.causedBy->range.file != diag.range.file);
    w.endObject();
  }
  w.endObject();
}

std::vector<Expectation> parseExpectations(std::string_view text,
                                           std::vector<std::string>& problems) {
  std::vector<Expectation> out;
  std::uint32_t lineNo = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos)
      eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    ++lineNo;
    pos = eol + 1;
    // A line may carry several annotations: "// expect: a  // expect: b".
    for (std::size_t at = line.find("// expect"); at != std::string_view::npos;
         at = line.find("// expect", at + 9)) {
      std::string_view rest = line.substr(at + 9);
      std::size_t next = rest.find("// expect");
      if (next != std::string_view::npos)
        rest = rest.substr(0, next);
      Expectation e;
      if (rest.substr(0, 2) == "ed") {
        // expected-SEVERITY
        rest.remove_prefix(2);
        bool matched = false;
        for (Severity s : {Severity::Blocking, Severity::Report, Severity::Hint}) {
          std::string tag = "-" + std::string(toString(s));
          if (rest.substr(0, tag.size()) == tag) {
            e.severity = s;
            rest.remove_prefix(tag.size());
            matched = true;
            break;
          }
        }
        if (!matched) {
          problems.push_back("line " + std::to_string(lineNo) +
                             ": malformed expectation: use expected-blocking, expected-report or "
                             "expected-hint");
          continue;
        }
      }
      e.annotationLine = lineNo;
      e.line = lineNo;
      auto bad = [&](const std::string& why) {
        problems.push_back("line " + std::to_string(lineNo) + ": malformed expectation: " + why);
      };
      if (!rest.empty() && rest[0] == '@') {
        rest.remove_prefix(1);
        bool absolute = !rest.empty() && rest[0] == 'L';
        int sign = 0;
        if (absolute)
          rest.remove_prefix(1);
        else if (!rest.empty() && (rest[0] == '+' || rest[0] == '-')) {
          sign = rest[0] == '+' ? 1 : -1;
          rest.remove_prefix(1);
        } else {
          bad("expected @+N, @-N or @LN");
          continue;
        }
        std::uint32_t n = 0;
        auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), n);
        if (ec != std::errc()) {
          bad("expected a number after '@'");
          continue;
        }
        rest.remove_prefix(static_cast<std::size_t>(ptr - rest.data()));
        if (absolute)
          e.line = n;
        else if (sign > 0)
          e.line = lineNo + n;
        else if (n >= lineNo) {
          bad("relative line before the start of the file");
          continue;
        } else
          e.line = lineNo - n;
      }
      if (rest.empty() || rest[0] != ':') {
        bad("expected ':' after 'expect'");
        continue;
      }
      rest.remove_prefix(1);
      while (!rest.empty() && rest[0] == ' ')
        rest.remove_prefix(1);
      std::size_t codeEnd = 0;
      while (codeEnd < rest.size() && rest[codeEnd] != ' ' && rest[codeEnd] != '{')
        ++codeEnd;
      e.code = std::string(rest.substr(0, codeEnd));
      if (e.code.empty()) {
        bad("missing finding code");
        continue;
      }
      rest.remove_prefix(codeEnd);
      if (std::size_t open = rest.find("{{"); open != std::string_view::npos) {
        std::size_t close = rest.find("}}", open);
        if (close == std::string_view::npos) {
          bad("unterminated {{");
          continue;
        }
        e.messageSubstring = std::string(rest.substr(open + 2, close - open - 2));
      }
      out.push_back(std::move(e));
    }
  }
  return out;
}

std::vector<std::string> verifyExpectations(std::vector<Expectation> expectations,
                                            const std::vector<Diagnostic>& diags,
                                            const SourceManager& sources, FileId file,
                                            bool blockingOnly) {
  std::vector<std::string> problems;
  for (const Diagnostic& d : diags) {
    std::uint32_t line = d.range.file == file ? sources.lineColumn(file, d.range.begin).line : 0;
    bool found = false;
    for (Expectation& e : expectations) {
      if (e.matched || e.line != line || e.code != d.code)
        continue;
      if (e.severity && *e.severity != d.severity)
        continue;
      if (!e.messageSubstring.empty() && d.message.find(e.messageSubstring) == std::string::npos)
        continue;
      e.matched = true;
      found = true;
      break;
    }
    if (!found && !(blockingOnly && d.severity != Severity::Blocking))
      problems.push_back("unexpected finding at line " + std::to_string(line) + ": [" + d.code +
                         "] " + d.message);
  }
  for (const Expectation& e : expectations)
    if (!e.matched)
      problems.push_back(
          "expected " + (e.severity ? std::string(toString(*e.severity)) + " " : std::string()) +
          "finding [" + e.code + "] at line " + std::to_string(e.line) +
          (e.messageSubstring.empty() ? "" : " {{" + e.messageSubstring + "}}") +
          " was not reported (annotation on line " + std::to_string(e.annotationLine) + ")");
  return problems;
}

} // namespace cake::driver
