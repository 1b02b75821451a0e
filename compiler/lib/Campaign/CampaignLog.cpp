// Reading a campaign folder: campaign.json, then candidates.jsonl line by line with limits,
// field checks, kernel paths confined to the folder, and the lineage (unknown parents, cycles,
// parents that are themselves invalid) — each problem located at its line and column.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "CampaignInternal.h"

#include "cake/Support/Json.h"
#include "cake/Support/Sha256.h"
#include "cake/Support/SourceManager.h"
#include "cake/Support/StringUtil.h"

#include <algorithm>
#include <filesystem>
#include <set>

namespace cake::campaign::detail {

namespace fs = std::filesystem;

namespace {

bool validId(const std::string& id) {
  if (id.empty() || id.size() > 128)
    return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-' || c == ':';
  });
}

/// The compact JSON text of a parsed value (fields stored as given, minus layout).
std::string compact(const json::Value& v) {
  json::Writer w(false);
  w.value(v);
  return w.take();
}

/// One line of the log with its buffer (for columns) and parsed value.
struct Line {
  std::uint32_t no = 0;
  FileId file = 0;
  std::string sha;
  std::optional<json::Value> value;
  std::string id; ///< set when the line names a valid id
  SourceRange idRange;
  std::vector<std::pair<std::string, SourceRange>> parents;
  bool bad = false;    ///< has an error of its own (or inherited from a parent)
  bool stored = false; ///< already imported (skipped)
  ws::CandidateRecord record;
};

class LogReader {
public:
  LogReader(std::string file, std::vector<LogError>& errors)
      : m_file(std::move(file)), m_errors(errors) {}

  void error(Line& l, SourceRange at, std::string code, std::string message) {
    std::uint32_t col = 1;
    if (at.valid())
      col = m_sources.lineColumn(at.file, at.begin).column;
    m_errors.push_back({m_file, l.no, col, std::move(code), std::move(message)});
    l.bad = true;
  }
  SourceManager& sources() { return m_sources; }

private:
  std::string m_file;
  std::vector<LogError>& m_errors;
  SourceManager m_sources;
};

/// Checks the kernel path of a line and reads the file; false after reporting.
bool readKernel(LogReader& r, Line& l, const fs::path& dir, const fs::path& realDir,
                const json::Value& v) {
  const std::string& path = v.string;
  auto outside = [&](const std::string& why) {
    r.error(l, v.range, "campaign-kernel-outside",
            "kernel path '" + path + "' " + why + "; kernels lie inside the campaign folder");
    return false;
  };
  if (path.empty() || path.size() > 1024)
    return outside("must have 1 to 1024 characters");
  if (path.front() == '/')
    return outside("is absolute");
  for (char c : path)
    if (static_cast<unsigned char>(c) < 0x20 || c == '\\' || c == 0x7f)
      return outside("has a backslash or a control character");
  for (const auto& part : fs::path(path))
    if (part == "..")
      return outside("has a '..' part");
  fs::path full = dir / path;
  std::error_code ec;
  fs::path real = fs::canonical(full, ec);
  if (ec) {
    r.error(l, v.range, "campaign-kernel-missing",
            "kernel file '" + path + "' cannot be found: " + ec.message());
    return false;
  }
  // A symbolic link (of the file or a folder on the way) must not lead out of the folder.
  auto rel = real.lexically_relative(realDir);
  if (rel.empty() || *rel.begin() == "..")
    return outside("leads outside the folder through a symbolic link (to '" + real.string() + "')");
  if (!fs::is_regular_file(real, ec)) {
    r.error(l, v.range, "campaign-kernel-missing", "kernel '" + path + "' is not a regular file");
    return false;
  }
  auto size = fs::file_size(real, ec);
  if (!ec && size > kMaxKernelBytes) {
    r.error(l, v.range, "campaign-kernel-too-large",
            "kernel file '" + path + "' has " + std::to_string(size) + " bytes, more than " +
                std::to_string(kMaxKernelBytes));
    return false;
  }
  std::string why;
  auto text = readFile(real.string(), why, kMaxKernelBytes);
  if (!text) {
    r.error(l, v.range,
            why.find("larger") != std::string::npos ? "campaign-kernel-too-large"
                                                    : "campaign-kernel-missing",
            "cannot read kernel '" + path + "': " + why);
    return false;
  }
  l.record.kernel = path;
  l.record.kernelText = std::move(*text);
  return true;
}

/// The fields of a parsed line object; false after reporting the first problem.
bool readFields(LogReader& r, Line& l, const fs::path& dir, const fs::path& realDir) {
  const json::Value& o = *l.value;
  for (const char* key : {"id", "parents", "kernel", "author"})
    if (!o.get(key)) {
      r.error(l, o.range, "campaign-missing-field", std::string("a candidate needs '") + key + "'");
      return false;
    }
  auto bad = [&](const json::Value& v, const std::string& message) {
    r.error(l, v.range, "campaign-bad-field", message);
    return false;
  };
  const json::Value& id = *o.get("id");
  if (!id.isString() || !validId(id.string))
    return bad(id, "'id' is a string of 1 to 128 letters, digits, '.', '_', '-' or ':'");
  l.id = id.string;
  l.idRange = id.range;
  l.record.id = id.string;
  const json::Value& parents = *o.get("parents");
  if (!parents.isArray())
    return bad(parents, "'parents' is an array of candidate ids");
  for (const json::Value& p : parents.elements) {
    if (!p.isString() || !validId(p.string))
      return bad(p, "a parent is a candidate id (a string)");
    l.parents.emplace_back(p.string, p.range);
    l.record.parents.push_back(p.string);
  }
  const json::Value& author = *o.get("author");
  if (!author.isObject())
    return bad(author, "'author' is an object {kind, name, model?, run?}");
  const json::Value* kind = author.get("kind");
  if (!kind || !kind->isString() ||
      (kind->string != "agent" && kind->string != "human" && kind->string != "search"))
    return bad(kind ? *kind : author, "'author.kind' is \"agent\", \"human\" or \"search\"");
  const json::Value* name = author.get("name");
  if (!name || !name->isString() || name->string.empty())
    return bad(name ? *name : author, "'author.name' is a non-empty string");
  for (const char* key : {"model", "run"})
    if (const json::Value* v = author.get(key); v && !v->isString())
      return bad(*v, std::string("'author.") + key + "' is a string");
  l.record.author = compact(author);
  l.record.budget = "{\"tokens\":0,\"wall_s\":0}";
  if (const json::Value* b = o.get("budget")) {
    if (!b->isObject())
      return bad(*b, "'budget' is an object {tokens, wall_s}");
    for (const char* key : {"tokens", "wall_s"})
      if (const json::Value* v = b->get(key); v && (!v->isNumber() || v->number < 0))
        return bad(*v, std::string("'budget.") + key + "' is a number >= 0");
    l.record.budget = compact(*b);
  }
  for (const char* key : {"timestamp", "rationale", "arm"}) {
    const json::Value* v = o.get(key);
    if (!v)
      continue;
    if (!v->isString() || v->string.size() > (64u << 10))
      return bad(*v, std::string("'") + key + "' is a string");
    (key[0] == 't'   ? l.record.timestamp
     : key[0] == 'r' ? l.record.rationale
                     : l.record.arm) = v->string;
  }
  if (const json::Value* m = o.get("measurements")) {
    if (!m->isArray())
      return bad(*m, "'measurements' is an array of records {us, ...}");
    for (const json::Value& rec : m->elements) {
      const json::Value* us = rec.isObject() ? rec.get("us") : nullptr;
      if (!us || !us->isNumber() || !(us->number > 0))
        return bad(us ? *us : rec, "a measurement record has 'us', a time > 0");
      // The best observed run: timing noise only ever adds time.
      if (!l.record.measuredUs || us->number < *l.record.measuredUs)
        l.record.measuredUs = us->number;
    }
    l.record.measurements = compact(*m);
  }
  const json::Value& kernel = *o.get("kernel");
  if (!kernel.isString())
    return bad(kernel, "'kernel' is the relative path of the candidate's .cake file");
  return readKernel(r, l, dir, realDir, kernel);
}

} // namespace

std::optional<ws::CampaignRecord> readSpec(const std::string& dir, std::vector<LogError>& errors) {
  std::string file = (fs::path(dir) / kSpecFile).string();
  auto fail = [&](std::uint32_t line, std::uint32_t col, const std::string& message) {
    errors.push_back({file, line, col, "campaign-spec", message});
    return std::nullopt;
  };
  std::string why;
  auto text = readFile(file, why, kMaxSpecBytes);
  if (!text)
    return fail(0, 0, "cannot read " + std::string(kSpecFile) + ": " + why);
  SourceManager sources;
  FileId f = sources.addBuffer(file, *text);
  DiagnosticEngine diags(1);
  auto v = json::parse(sources.text(f), f, diags);
  auto at = [&](SourceRange r) { return sources.lineColumn(f, r.begin); };
  if (!v) {
    const Diagnostic& d = diags.diagnostics().front();
    LineColumn lc = at(d.range);
    return fail(lc.line, lc.column, d.message);
  }
  if (!v->isObject())
    return fail(1, 1, "campaign.json is an object {name, workload, target, arms}");
  const json::Value* name = v->get("name");
  if (!name || !name->isString() || !validId(name->string)) {
    LineColumn lc = at(name ? name->range : v->range);
    return fail(lc.line, lc.column,
                "'name' is a string of 1 to 128 letters, digits, '.', '_', '-' or ':'");
  }
  if (const json::Value* arms = v->get("arms"); arms && !arms->isArray()) {
    LineColumn lc = at(arms->range);
    return fail(lc.line, lc.column, "'arms' is an array of {name, ...}");
  }
  ws::CampaignRecord c;
  c.name = name->string;
  std::error_code ec;
  fs::path abs = fs::absolute(dir, ec);
  c.folder = (ec ? fs::path(dir) : abs).lexically_normal().string();
  c.spec = compact(*v);
  return c;
}

void readLog(const std::string& dir, const std::string& campaign, const Known& known,
             FolderRead& out) {
  (void)campaign;
  std::string file = (fs::path(dir) / kLogFile).string();
  std::error_code ec;
  if (!fs::exists(file, ec))
    return; // a campaign that has no candidate yet
  std::string why;
  auto text = readFile(file, why, kMaxLogBytes);
  if (!text) {
    out.errors.push_back({file, 0, 0, "campaign-malformed-line", "cannot read the log: " + why});
    return;
  }
  fs::path realDir = fs::canonical(dir, ec);
  LogReader r(file, out.errors);
  std::vector<Line> lines;
  std::size_t pos = 0;
  for (std::uint32_t no = 1; pos < text->size(); ++no) {
    std::size_t nl = text->find('\n', pos);
    if (nl == std::string::npos) {
      // No newline yet: the harness is still writing this line.
      if (text->find_first_not_of(" \t\r", pos) != std::string::npos)
        out.pending = 1;
      break;
    }
    std::string_view raw(text->data() + pos, nl - pos);
    pos = nl + 1;
    if (!raw.empty() && raw.back() == '\r')
      raw.remove_suffix(1);
    if (raw.find_first_not_of(" \t") == std::string_view::npos)
      continue;
    Line l;
    l.no = no;
    l.sha = sha256Hex(raw);
    l.record.line = no;
    l.record.entrySha256 = l.sha;
    if (raw.size() > kMaxLineBytes) {
      r.error(l, {}, "campaign-line-too-long",
              "a log line has at most " + std::to_string(kMaxLineBytes) + " bytes, this one " +
                  std::to_string(raw.size()));
      lines.push_back(std::move(l));
      continue;
    }
    l.file = r.sources().addBuffer(file, std::string(raw));
    DiagnosticEngine diags(1);
    json::ParseLimits limits;
    limits.maxDepth = 32;
    l.value = json::parse(r.sources().text(l.file), l.file, diags, limits);
    if (!l.value) {
      const Diagnostic& d = diags.diagnostics().front();
      r.error(l, d.range, "campaign-malformed-line", d.message);
    } else if (!l.value->isObject()) {
      r.error(l, l.value->range, "campaign-malformed-line", "a log line is one JSON object");
    } else {
      readFields(r, l, dir, realDir);
    }
    lines.push_back(std::move(l));
  }

  // Ids: stored ones skip (the same line, the same bytes) or collide; within the file the
  // first line with an id owns it.
  std::map<std::string, std::size_t> byId; // id -> index into lines
  for (std::size_t i = 0; i < lines.size(); ++i) {
    Line& l = lines[i];
    if (l.id.empty())
      continue;
    if (auto k = known.find(l.id); k != known.end()) {
      if (k->second.first == l.no && k->second.second == l.sha && !byId.count(l.id)) {
        l.stored = true;
        byId[l.id] = i;
        ++out.skipped;
        continue;
      }
      r.error(l, l.idRange, "campaign-duplicate-id",
              "candidate '" + l.id + "' was imported before from line " +
                  std::to_string(k->second.first) + " with other content");
      continue;
    }
    if (auto first = byId.find(l.id); first != byId.end()) {
      r.error(l, l.idRange, "campaign-duplicate-id",
              "candidate '" + l.id + "' is already defined on line " +
                  std::to_string(lines[first->second].no));
      continue;
    }
    byId[l.id] = i;
  }
  if (lines.empty())
    return;

  // Parents: known (stored or another line) and not a line with an error of its own.
  auto lineOf = [&](const std::string& id) -> Line* {
    auto it = byId.find(id);
    return it == byId.end() ? nullptr : &lines[it->second];
  };
  for (Line& l : lines) {
    if (l.bad || l.stored)
      continue;
    for (const auto& [p, range] : l.parents)
      if (!lineOf(p) && !known.count(p)) {
        r.error(l, range, "campaign-unknown-parent",
                "parent '" + p + "' of '" + l.id + "' is no candidate of the campaign");
        break;
      }
  }
  // Cycles among new lines (a stored candidate's ancestry is closed). Iterative colouring DFS;
  // every line on a cycle is reported at the parent that closes it.
  enum Colour : char { White, Grey, Black };
  std::vector<char> colour(lines.size(), White);
  std::set<std::size_t> onCycle;
  for (std::size_t start = 0; start < lines.size(); ++start) {
    if (colour[start] != White || lines[start].id.empty())
      continue;
    std::vector<std::pair<std::size_t, std::size_t>> stack{{start, 0}};
    colour[start] = Grey;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      Line& l = lines[node];
      if (l.stored || next >= l.parents.size()) {
        colour[node] = Black;
        stack.pop_back();
        continue;
      }
      const std::string& p = l.parents[next++].first;
      auto it = byId.find(p);
      if (it == byId.end())
        continue;
      std::size_t child = it->second;
      if (colour[child] == Grey) {
        // The stack from `child` to `node` is the cycle.
        bool in = false;
        for (auto& [n, unused] : stack) {
          (void)unused;
          in = in || n == child;
          if (in)
            onCycle.insert(n);
        }
      } else if (colour[child] == White) {
        colour[child] = Grey;
        stack.emplace_back(child, 0);
      }
    }
  }
  for (std::size_t i : onCycle) {
    Line& l = lines[i];
    if (l.bad)
      continue;
    for (const auto& [p, range] : l.parents)
      if (auto it = byId.find(p); it != byId.end() && onCycle.count(it->second)) {
        r.error(l, range, "campaign-lineage-cycle",
                "parent '" + p + "' of '" + l.id + "' descends from '" + l.id +
                    "': the lineage has a cycle");
        break;
      }
  }
  // A candidate derived from an invalid one is not imported either (it would hang in the air);
  // repeated until nothing changes, since invalidity travels down the lineage.
  for (bool changed = true; changed;) {
    changed = false;
    for (Line& l : lines) {
      if (l.bad || l.stored)
        continue;
      for (const auto& [p, range] : l.parents)
        if (Line* pl = lineOf(p); pl && pl->bad) {
          r.error(l, range, "campaign-parent-invalid",
                  "parent '" + p + "' (line " + std::to_string(pl->no) +
                      ") was not imported: see its error");
          changed = true;
          break;
        }
    }
  }
  // Topological order: parents first, otherwise the log's order (Kahn's algorithm with the
  // earliest ready line next; no recursion, so a long lineage cannot exhaust the stack).
  auto pending = [&](const Line& l) { return !l.bad && !l.stored; };
  std::vector<std::size_t> waiting(lines.size(), 0);
  std::vector<std::vector<std::size_t>> children(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!pending(lines[i]))
      continue;
    for (const auto& [p, unused] : lines[i].parents) {
      (void)unused;
      if (Line* pl = lineOf(p); pl && pending(*pl)) {
        auto pi = static_cast<std::size_t>(pl - lines.data());
        children[pi].push_back(i);
        ++waiting[i];
      }
    }
  }
  std::set<std::size_t> ready;
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (pending(lines[i]) && waiting[i] == 0)
      ready.insert(i);
  std::vector<std::size_t> order;
  while (!ready.empty()) {
    std::size_t i = *ready.begin();
    ready.erase(ready.begin());
    order.push_back(i);
    for (std::size_t c : children[i])
      if (--waiting[c] == 0)
        ready.insert(c);
  }
  for (std::size_t i : order)
    out.entries.push_back({std::move(lines[i].record)});
  std::sort(out.errors.begin(), out.errors.end(), [](const LogError& a, const LogError& b) {
    return std::tie(a.file, a.line, a.column) < std::tie(b.file, b.line, b.column);
  });
}

} // namespace cake::campaign::detail
