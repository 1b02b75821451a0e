// Semantic alignment of two kernels: declarations by keyword and name, operations by role,
// primitive, operands and position among their role's same-primitive operations, findings by
// code and the item they sit on. Never by line number: moving text changes nothing.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Diff/Diff.h"

#include "cake/IR/Printer.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string_view>
#include <utility>

namespace cake::diff {

namespace {

/// One declaration, operation or loop of one side, flattened with its identity and fields.
struct Item {
  std::string group;    ///< what must be equal for two items to be the same thing
  std::string exactKey; ///< group plus the fields that identify it first (operands)
  std::string summary;
  std::vector<std::pair<std::string, std::string>> fields; ///< field name -> canonical text
  SourceRange range;
  int line = 0;
  ir::NodeId node = 0;
};

std::string printIndex(const ir::Index& ix) {
  switch (ix.kind) {
  case ir::Index::Kind::Full:
    return ":";
  case ir::Index::Kind::Slice:
    return (ix.start ? ir::print(*ix.start) : std::string()) +
           " +: " + (ix.size ? ir::print(*ix.size) : std::string());
  case ir::Index::Kind::Point:
    break;
  }
  return ix.start ? ir::print(*ix.start) : std::string();
}

std::string printOperand(const ir::Operand& op) {
  std::string s = op.name.name;
  if (op.subscripted) {
    s += '[';
    for (std::size_t i = 0; i < op.indices.size(); ++i)
      s += (i ? ", " : "") + printIndex(op.indices[i]);
    s += ']';
  }
  return s;
}

std::string printValue(const ir::ExprPtr& e) {
  return e ? ir::print(*e) : std::string();
}

std::string printType(const ir::TypeSpec& t) {
  std::string s = t.dtype.name;
  if (t.hasShape) {
    s += '[';
    for (std::size_t i = 0; i < t.shape.size(); ++i)
      s += (i ? ", " : "") + printValue(t.shape[i]);
    s += ']';
  }
  return s;
}

void addAttributes(Item& item, const std::vector<ir::Attribute>& attrs, std::string& summary) {
  for (const ir::Attribute& a : attrs) {
    std::string v = printValue(a.value);
    item.fields.emplace_back("attr " + a.key.name, v);
    summary += " " + a.key.name + "=" + v;
  }
}

class Flattener {
public:
  Flattener(const ir::Module& module, const SourceManager& sources)
      : m_module(module), m_sources(sources) {}

  void run(std::vector<Item>& decls, std::vector<Item>& ops) {
    if (!m_module.kernel)
      return;
    const ir::Kernel& k = *m_module.kernel;
    std::map<std::string, int> seen;
    {
      // The kernel line itself: its attributes (target, ...) are one item.
      Item item;
      item.group = item.exactKey = "kernel";
      std::string summary = "kernel " + k.name.name;
      item.fields.emplace_back("name", k.name.name);
      addAttributes(item, k.attributes, summary);
      item.summary = summary;
      locate(item, k.id);
      decls.push_back(std::move(item));
    }
    for (const ir::Decl& d : k.decls) {
      Item item;
      std::string kw(ir::keyword(d.kind));
      std::string id = ir::declHasName(d.kind) ? kw + " " + d.name.name : kw;
      // A name declared twice (a refused kernel) stays two items.
      int n = seen[id]++;
      item.group = item.exactKey = n ? id + "#" + std::to_string(n) : id;
      std::string summary = id;
      if (d.type) {
        item.fields.emplace_back("type", printType(*d.type));
        summary += ": " + printType(*d.type);
      }
      if (d.value) {
        item.fields.emplace_back("value", printValue(d.value));
        summary += " = " + printValue(d.value);
      }
      addAttributes(item, d.attributes, summary);
      item.summary = summary;
      locate(item, d.id);
      decls.push_back(std::move(item));
    }
    std::vector<std::string> loops;
    for (const ir::StmtPtr& s : k.body)
      if (s)
        walk(*s, "*", loops, ops);
  }

private:
  void locate(Item& item, ir::NodeId id) {
    item.node = id;
    item.range = m_module.sourceMap.range(id);
    if (item.range.valid() && m_sources.contains(item.range.file))
      item.line = int(m_sources.lineColumn(item.range.file, item.range.begin).line);
  }

  void walk(const ir::Stmt& s, const std::string& roles, std::vector<std::string>& loops,
            std::vector<Item>& ops) {
    switch (s.kind) {
    case ir::StmtKind::On: {
      std::string r;
      for (const ir::Ident& id : s.block().roles)
        r += (r.empty() ? "" : ",") + id.name;
      // `cta=leader` changes who executes the block: its operations are other items.
      for (const ir::Attribute& a : s.attributes)
        r += " " + a.key.name + "=" + printValue(a.value);
      for (const ir::StmtPtr& c : s.body)
        if (c)
          walk(*c, r, loops, ops);
      return;
    }
    case ir::StmtKind::For: {
      const ir::StmtBlock& b = s.block();
      Item item;
      item.group = roles + "/for " + b.loopVar.name;
      item.exactKey = item.group + join(loops);
      std::string range = printValue(b.loopRange);
      std::string summary = "for " + b.loopVar.name + " in " + range;
      item.fields.emplace_back("range", range);
      addAttributes(item, s.attributes, summary);
      item.fields.emplace_back("loops", join(loops));
      item.summary = summary;
      locate(item, s.id);
      ops.push_back(std::move(item));
      loops.push_back(b.loopVar.name);
      for (const ir::StmtPtr& c : s.body)
        if (c)
          walk(*c, roles, loops, ops);
      loops.pop_back();
      return;
    }
    case ir::StmtKind::Op:
      break;
    }
    Item item;
    item.group = roles + "/" + s.opName.name;
    std::string summary = s.opName.name;
    std::string operands;
    for (std::size_t i = 0; i < s.operands.size(); ++i) {
      std::string o = printOperand(s.operands[i]);
      item.fields.emplace_back("operand " + std::to_string(i + 1), o);
      summary += (i ? ", " : " ") + o;
      // Names only: a changed subscript is a change of the same operation, a different buffer
      // or barrier first looks for an operation that uses it.
      operands += (i ? "," : "") + s.operands[i].name.name;
    }
    // The enclosing loops belong to the first pass's key too: an operation added at another
    // loop depth must not take the place of an unchanged one.
    item.exactKey = item.group + "(" + operands + ")" + join(loops);
    addAttributes(item, s.attributes, summary);
    item.fields.emplace_back("loops", join(loops));
    item.summary = summary;
    locate(item, s.id);
    ops.push_back(std::move(item));
  }

  static std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v)
      s += (s.empty() ? "" : " > ") + std::string("for ") + x;
    return s;
  }

  const ir::Module& m_module;
  const SourceManager& m_sources;
};

std::vector<FieldChange> fieldChanges(const Item& a, const Item& b) {
  // Fields keep their order on each side; a field written on one side only shows as absent.
  std::vector<FieldChange> out;
  std::map<std::string, std::string> before(a.fields.begin(), a.fields.end());
  std::map<std::string, std::string> after(b.fields.begin(), b.fields.end());
  std::vector<std::string> order;
  std::set<std::string> listed;
  for (const auto& f : a.fields)
    if (listed.insert(f.first).second)
      order.push_back(f.first);
  for (const auto& f : b.fields)
    if (listed.insert(f.first).second)
      order.push_back(f.first);
  for (const std::string& name : order) {
    auto x = before.find(name), y = after.find(name);
    std::string vx = x == before.end() ? std::string() : x->second;
    std::string vy = y == after.end() ? std::string() : y->second;
    if (x == before.end() || y == after.end() || vx != vy)
      out.push_back({name, vx, vy});
  }
  return out;
}

/// Pairs items of both sides: first by exact key and occurrence, then what is left of each
/// group in order. Result: (index before or -1, index after or -1), in the newer side's order
/// with removed items where they were.
std::vector<std::pair<int, int>> align(const std::vector<Item>& a, const std::vector<Item>& b) {
  std::vector<int> matchA(a.size(), -1), matchB(b.size(), -1);
  auto pass = [&](auto keyOf) {
    std::map<std::string, std::vector<int>> freeA;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (matchA[i] < 0)
        freeA[keyOf(a[i])].push_back(int(i));
    std::map<std::string, std::size_t> next;
    for (std::size_t j = 0; j < b.size(); ++j) {
      if (matchB[j] >= 0)
        continue;
      auto it = freeA.find(keyOf(b[j]));
      if (it == freeA.end())
        continue;
      std::size_t& n = next[it->first];
      if (n < it->second.size()) {
        int i = it->second[n++];
        matchA[i] = int(j);
        matchB[j] = i;
      }
    }
  };
  pass([](const Item& x) -> const std::string& { return x.exactKey; });
  pass([](const Item& x) -> const std::string& { return x.group; });
  std::vector<std::pair<int, int>> out;
  std::size_t i = 0;
  for (std::size_t j = 0; j < b.size(); ++j) {
    // Removed items before the next matched one of the older side keep their place.
    if (matchB[j] >= 0)
      for (; i < a.size() && int(i) <= matchB[j]; ++i)
        if (matchA[i] < 0)
          out.emplace_back(int(i), -1);
    out.emplace_back(matchB[j], int(j));
  }
  for (; i < a.size(); ++i)
    if (matchA[i] < 0)
      out.emplace_back(int(i), -1);
  return out;
}

/// Display key: the group and the item's position among its group on its side.
std::vector<std::string> displayKeys(const std::vector<Item>& items) {
  std::map<std::string, int> count;
  std::vector<std::string> keys;
  keys.reserve(items.size());
  for (const Item& it : items) {
    if (it.group.find('/') == std::string::npos) {
      keys.push_back(it.group);
      continue;
    }
    int n = count[it.group]++;
    keys.push_back(it.group + "#" + std::to_string(n));
  }
  return keys;
}

std::vector<ItemChange> changes(const std::vector<Item>& a, const std::vector<Item>& b,
                                std::vector<std::pair<ir::NodeId, ir::NodeId>>* matched = nullptr) {
  std::vector<std::string> keysA = displayKeys(a), keysB = displayKeys(b);
  std::vector<ItemChange> out;
  for (auto [i, j] : align(a, b)) {
    ItemChange c;
    if (i >= 0)
      c.nodeBefore = a[i].node;
    if (j >= 0)
      c.nodeAfter = b[j].node;
    if (matched && i >= 0 && j >= 0)
      matched->emplace_back(a[i].node, b[j].node);
    if (i < 0) {
      c.kind = ChangeKind::Added;
      c.key = keysB[j];
      c.summary = b[j].summary;
      c.lineAfter = b[j].line;
    } else if (j < 0) {
      c.kind = ChangeKind::Removed;
      c.key = keysA[i];
      c.summary = a[i].summary;
      c.lineBefore = a[i].line;
    } else {
      c.fields = fieldChanges(a[i], b[j]);
      if (c.fields.empty())
        continue;
      c.kind = ChangeKind::Changed;
      c.key = keysB[j];
      c.summary = b[j].summary;
      c.lineBefore = a[i].line;
      c.lineAfter = b[j].line;
    }
    out.push_back(std::move(c));
  }
  return out;
}

/// The key of the innermost item whose range holds `range`, or "kernel".
std::string anchorOf(const SourceRange& range, const std::vector<Item>& items,
                     const std::vector<std::string>& keys) {
  std::string best = "kernel";
  std::uint32_t bestSize = ~0u;
  if (!range.valid())
    return best;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const SourceRange& r = items[i].range;
    if (r.file != range.file || r.begin > range.begin ||
        range.begin >= std::max(r.end, r.begin + 1))
      continue;
    if (r.end - r.begin < bestSize) {
      bestSize = r.end - r.begin;
      best = keys[i];
    }
  }
  return best;
}

struct Finding {
  std::string key; ///< code @ anchor
  FindingChange change;
};

std::vector<Finding> findingsOf(const Assessment& s, const std::vector<Item>& decls,
                                const std::vector<Item>& ops) {
  std::vector<Item> all(decls);
  all.insert(all.end(), ops.begin(), ops.end());
  std::vector<std::string> keys = displayKeys(all);
  std::vector<Finding> out;
  for (const Diagnostic& d : s.check.diagnostics) {
    Finding f;
    f.change.code = d.code;
    f.change.anchor = anchorOf(d.range, all, keys);
    f.change.severity = std::string(toString(d.severity));
    f.change.message = d.message;
    if (d.range.valid() && s.check.sources && s.check.sources->contains(d.range.file))
      f.change.line = int(s.check.sources->lineColumn(d.range.file, d.range.begin).line);
    f.key = d.code + "@" + f.change.anchor;
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<FindingChange> findingChanges(const std::vector<Finding>& a,
                                          const std::vector<Finding>& b) {
  // Multisets: the n-th finding of a key on one side pairs with the n-th on the other.
  std::map<std::string, int> countA, countB;
  for (const Finding& f : a)
    ++countA[f.key];
  for (const Finding& f : b)
    ++countB[f.key];
  std::vector<FindingChange> out;
  std::map<std::string, int> used;
  for (const Finding& f : a)
    if (++used["-" + f.key] > countB[f.key])
      out.push_back(f.change);
  for (const Finding& f : b)
    if (++used["+" + f.key] > countA[f.key]) {
      FindingChange c = f.change;
      c.appeared = true;
      out.push_back(std::move(c));
    }
  return out;
}

std::string bottleneckOf(const Assessment& s) {
  if (!s.estimate || !s.estimate->ok)
    return {};
  std::string b = s.estimate->bottleneck;
  if (!s.estimate->bottleneckResource.empty())
    b += " (" + s.estimate->bottleneckResource + ")";
  return b;
}

template <typename Map> std::map<std::string, Quantity> quantities(const Map& a, const Map& b) {
  std::map<std::string, Quantity> out;
  for (const auto& [k, v] : a)
    out[k].before = double(v);
  for (const auto& [k, v] : b)
    out[k].after = double(v);
  return out;
}

} // namespace

const char* changeKindName(ChangeKind kind) {
  switch (kind) {
  case ChangeKind::Added:
    return "added";
  case ChangeKind::Removed:
    return "removed";
  case ChangeKind::Changed:
    return "changed";
  }
  return "";
}

bool Quantity::differs() const {
  if (before.has_value() != after.has_value())
    return true;
  if (!before)
    return false;
  // The cost model is deterministic; the tolerance only absorbs another build's last bit.
  double scale = std::max({std::fabs(*before), std::fabs(*after), 1e-300});
  return std::fabs(*after - *before) / scale > 1e-9;
}

bool KernelDiff::different() const {
  if (!decls.empty() || !ops.empty() || !findings.empty() || predictedUs.differs() ||
      smemBytes.differs() || acceptedBefore != acceptedAfter || targetBefore != targetAfter)
    return true;
  for (const auto& [k, q] : registers)
    if (q.differs())
      return true;
  for (const auto& [k, q] : stages)
    if (q.differs())
      return true;
  return ptx && (ptx->added || ptx->removed);
}

KernelDiff compare(const Assessment& before, const Assessment& after) {
  KernelDiff d;
  d.pathBefore = before.path;
  d.pathAfter = after.path;
  d.targetBefore = before.check.model.targetName;
  d.targetAfter = after.check.model.targetName;
  if (d.targetBefore.empty() && before.check.module.kernel)
    d.targetBefore = before.check.module.kernel->target();
  if (d.targetAfter.empty() && after.check.module.kernel)
    d.targetAfter = after.check.module.kernel->target();
  d.acceptedBefore = before.check.accepted;
  d.acceptedAfter = after.check.accepted;

  std::vector<Item> declsA, opsA, declsB, opsB;
  if (before.check.sources)
    Flattener(before.check.module, *before.check.sources).run(declsA, opsA);
  if (after.check.sources)
    Flattener(after.check.module, *after.check.sources).run(declsB, opsB);
  d.decls = changes(declsA, declsB);
  d.ops = changes(opsA, opsB, &d.matchedOps);
  d.findings = findingChanges(findingsOf(before, declsA, opsA), findingsOf(after, declsB, opsB));

  if (before.estimate && before.estimate->ok)
    d.predictedUs.before = before.estimate->predictedUs;
  if (after.estimate && after.estimate->ok)
    d.predictedUs.after = after.estimate->predictedUs;
  d.bottleneckBefore = bottleneckOf(before);
  d.bottleneckAfter = bottleneckOf(after);
  if (before.smemBytes)
    d.smemBytes.before = double(*before.smemBytes);
  if (after.smemBytes)
    d.smemBytes.after = double(*after.smemBytes);
  d.registers = quantities(before.roleRegisters, after.roleRegisters);
  d.stages = quantities(before.pipelineStages, after.pipelineStages);

  auto textOf = [](const Assessment& s) {
    return s.check.sources && s.check.sources->contains(s.check.file)
               ? std::string(s.check.sources->text(s.check.file))
               : std::string();
  };
  d.ir = diffLines(textOf(before), textOf(after));
  if (before.ptxAsked && after.ptxAsked) {
    if (!before.ptx.empty() && !after.ptx.empty())
      d.ptx = diffLines(before.ptx, after.ptx);
    else
      d.ptxNote = !before.ptx.empty() ? "after: " + after.ptxUnavailable
                  : !after.ptx.empty()
                      ? "before: " + before.ptxUnavailable
                      : "before: " + before.ptxUnavailable + "; after: " + after.ptxUnavailable;
  }
  return d;
}

} // namespace cake::diff
