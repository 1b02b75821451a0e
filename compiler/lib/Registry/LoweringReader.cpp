// Reading and validation of a primitive's "lowering" section: the strategy (template,
// expansion, builtin), templates with typed slots, variants, refusals, the intrinsic and
// expansion steps as written (resolved in Expansions.cpp once every file is loaded).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "LoweringReader.h"
#include "cake/Registry/InlinePtx.h"
#include "cake/Support/StringUtil.h"

#include <algorithm>

namespace cake::reg::detail {
namespace {

constexpr std::string_view kFacets[] = {"addr",  "coords", "desc",  "reg",   "regs", "elem",
                                        "rank",  "bytes",  "dtype", "count", "id",   "cols",
                                        "lanes", "phase",  "map",   "mask"};
constexpr std::string_view kStrategies[] = {"template", "expansion", "builtin"};
constexpr std::string_view kRepeats[] = {"instance", "element", "register"};

class LoweringReader {
public:
  LoweringReader(Primitive& prim, const DefScope& scope, std::string_view text,
                 DiagnosticEngine& diags)
      : m_prim(&prim), m_scope(scope), m_text(text), m_diags(diags) {}

  bool run(const json::Value& v) {
    json::ObjectReader l(v, m_diags, "\"lowering\"");
    if (!l.isObject())
      return false;
    LoweringDef& low = m_prim->lowering;
    low.range = v.range;
    low.note = l.string("note", false).value_or("");
    const json::Value* strategy = l.field("strategy", json::Kind::String, false);
    const json::Value* lines = l.field("ptx", json::Kind::Array, false);
    const json::Value* steps = l.field("steps", json::Kind::Array, false);
    const json::Value* builtin = l.field("builtin", json::Kind::String, false);
    if (const json::Value* d = v.get("derived")) {
      l.allow("derived");
      l.invalid(*d, "\"derived\" was replaced by \"strategy\": \"builtin\" with the C++ pattern "
                    "named in \"builtin\" (docs/lowering.md)");
      return false;
    }
    if (strategy) {
      if (auto s = l.oneOf("strategy", kStrategies, false)) {
        if (*s == "expansion")
          low.strategy = LoweringStrategy::Expansion;
        else if (*s == "builtin")
          low.strategy = LoweringStrategy::Builtin;
      }
    } else if (steps) {
      low.strategy = LoweringStrategy::Expansion;
    } else if (builtin) {
      low.strategy = LoweringStrategy::Builtin;
    } else if (!lines) {
      m_diags.report(DiagId::DefMissingField, json::headRange(v),
                     "\"lowering\" needs a \"strategy\": a \"ptx\" template, an expansion "
                     "(\"steps\") or a \"builtin\" pattern");
      l.fail();
    }
    if (auto r = l.oneOf("per", kRepeats, false)) {
      low.repeat = *r == "element"    ? TemplateRepeat::Element
                   : *r == "register" ? TemplateRepeat::Register
                                      : TemplateRepeat::Instance;
      if (low.strategy != LoweringStrategy::Template)
        l.invalid(*v.get("per"), "\"per\" applies to template lowerings only");
    }
    bool ok = true;
    switch (low.strategy) {
    case LoweringStrategy::Template:
      if (!lines) {
        m_diags.report(DiagId::DefMissingField, json::headRange(v),
                       "a template lowering needs \"ptx\" lines");
        ok = false;
      }
      if (builtin)
        l.invalid(*builtin, "\"builtin\" needs \"strategy\": \"builtin\"");
      if (steps)
        l.invalid(*steps, "\"steps\" needs \"strategy\": \"expansion\"");
      break;
    case LoweringStrategy::Builtin:
      if (!builtin) {
        m_diags.report(DiagId::DefMissingField, json::headRange(v),
                       "a builtin lowering names its C++ pattern in \"builtin\"");
        ok = false;
      } else {
        ok = checkBuiltin(*builtin, lines != nullptr) && ok;
      }
      if (steps)
        l.invalid(*steps, "\"steps\" needs \"strategy\": \"expansion\"");
      break;
    case LoweringStrategy::Expansion:
      if (lines)
        l.invalid(*lines, "an expansion has no template of its own (its steps are lowered)");
      if (builtin)
        l.invalid(*builtin, "\"builtin\" needs \"strategy\": \"builtin\"");
      if (!steps) {
        m_diags.report(DiagId::DefMissingField, json::headRange(v),
                       "an expansion lists its \"steps\"");
        ok = false;
      } else {
        ok = readSteps(*steps) && ok;
      }
      break;
    }
    if (lines) {
      TemplateDef main;
      if (readTemplate(*lines, main) && checkRepeat(main, *lines)) {
        low.ptx = std::move(main.ptx);
        low.templateSlots = std::move(main.templateSlots);
        low.pieces = std::move(main.pieces);
      } else {
        ok = false;
      }
    }
    if (const json::Value* vs = l.field("variants", json::Kind::Array, false)) {
      if (low.strategy != LoweringStrategy::Template || !lines)
        l.invalid(*vs, "\"variants\" replace the main \"ptx\" template of a template lowering");
      else
        ok = readVariants(*vs) && ok;
    }
    if (const json::Value* rs = l.field("unsupported", json::Kind::Array, false)) {
      if (low.strategy == LoweringStrategy::Expansion)
        l.invalid(*rs, "an expansion refuses what its steps refuse");
      else
        ok = readRefusals(*rs) && ok;
    }
    if (const json::Value* in = l.field("intrinsic", json::Kind::Object, false)) {
      if (low.strategy != LoweringStrategy::Template || low.repeat != TemplateRepeat::Instance)
        l.invalid(*in, "\"intrinsic\" applies to instance templates only");
      else
        ok = readIntrinsic(*in) && ok;
    }
    low.derived = low.strategy == LoweringStrategy::Builtin && low.pieces.empty();
    l.finish();
    return l.ok() && ok && !m_failed;
  }

private:
  bool checkBuiltin(const json::Value& name, bool hasTemplate) {
    m_prim->lowering.builtin = name.string;
    const auto& patterns = builtinPatterns();
    auto it = std::find_if(patterns.begin(), patterns.end(),
                           [&](const BuiltinPattern& p) { return p.name == name.string; });
    if (it == patterns.end()) {
      std::vector<std::string> names;
      for (const BuiltinPattern& p : patterns)
        names.emplace_back(p.name);
      Diagnostic* d = m_diags.report(
          DiagId::DefUnknownBuiltin, name.range,
          "builtin lowering pattern '" + name.string +
              "' does not exist in this compiler; a new C++ pattern is a compiler change (use a "
              "\"template\" or an \"expansion\" to lower without one)");
      if (auto guess = closestMatch(name.string, names))
        setFix(d, "did you mean '" + *guess + "'?", name.range, "\"" + *guess + "\"");
      return false;
    }
    // The primitive's operands in the pattern's notation: one token per operand, the spaces of
    // a buffer (g s t r) or the kind of anything else (T M N).
    std::vector<std::string> have;
    for (const OperandDef& o : m_prim->operands) {
      std::string t;
      if (o.kind == OperandKind::Buffer)
        for (ir::Space sp : o.spaces)
          t += sp == ir::Space::Global ? 'g' : sp == ir::Space::Smem ? 's'
                                           : sp == ir::Space::Tmem   ? 't'
                                                                     : 'r';
      else
        t = o.kind == OperandKind::TensorMap ? "T" : o.kind == OperandKind::MBarrier ? "M" : "N";
      have.push_back(t);
    }
    std::vector<std::string> want(1);
    for (char c : it->operands)
      if (c == ' ')
        want.emplace_back();
      else
        want.back() += c;
    bool fits = have.size() == want.size();
    for (std::size_t k = 0; fits && k < have.size(); ++k) {
      fits = !have[k].empty();
      for (char c : have[k]) // case matters: t tmem, T tensor map
        fits = fits && want[k].find(c) != std::string::npos;
    }
    if (!fits) {
      m_diags.report(DiagId::DefInvalidValue, name.range,
                     "builtin pattern '" + name.string + "' lowers operands '" +
                         std::string(it->operands) + "'; this primitive has '" + join(have, " ") +
                         "' (per operand: the spaces of a buffer, g global, s smem, t tmem, "
                         "r reg, or T tensor map, M mbarrier, N nbarrier)");
      return false;
    }
    if (it->needsTemplate && !hasTemplate) {
      m_diags.report(DiagId::DefMissingField, name.range,
                     "builtin pattern '" + name.string +
                         "' expands the primitive's \"ptx\" "
                         "template, which is missing");
      return false;
    }
    return true;
  }

  /// Per-element and per-register templates: the slots that repeat, and what may not.
  bool checkRepeat(const TemplateDef& t, const json::Value& lines) {
    TemplateRepeat rep = m_prim->lowering.repeat;
    bool ok = true, repeated = false;
    for (const TemplateSlot& ts : t.templateSlots) {
      if (!ts.isOperand)
        continue;
      bool elem = ts.facet == "elem", reg = ts.facet == "reg", regs = ts.facet == "regs";
      auto fail = [&](const std::string& msg) {
        // Located at the slot's first occurrence in the template lines.
        std::string text = "{" + ts.name + "." + ts.facet + "}";
        SourceRange at = lines.range;
        for (const json::Value& line : lines.elements)
          if (std::size_t p = line.isString() ? line.string.find(text) : std::string::npos;
              p != std::string::npos) {
            at = templateRange(line, p, p + text.size());
            break;
          }
        m_diags.report(DiagId::DefInvalidTemplate, at, "slot '" + text + "': " + msg);
        ok = false;
      };
      if (rep == TemplateRepeat::Instance && elem)
        fail("facet 'elem' needs \"per\": \"element\"");
      if (rep == TemplateRepeat::Element && (reg || regs))
        fail("a per-element template binds one element per slot: use {" + ts.name + ".elem}");
      if (rep == TemplateRepeat::Register && (elem || regs))
        fail("a per-register template binds one register per slot: use {" + ts.name + ".reg}");
      if (rep != TemplateRepeat::Instance && (elem || reg)) {
        const OperandDef& od = m_prim->operands[ts.index];
        if (std::find(od.spaces.begin(), od.spaces.end(), ir::Space::Reg) == od.spaces.end())
          fail("operand '" + od.name + "' is not a register operand (its spaces lack reg)");
        repeated = true;
      }
    }
    if (rep != TemplateRepeat::Instance && !repeated && ok) {
      m_diags.report(DiagId::DefInvalidTemplate, lines.range,
                     std::string("a per-") +
                         (rep == TemplateRepeat::Element ? "element" : "register") +
                         " template needs a register operand slot ({x." +
                         (rep == TemplateRepeat::Element ? "elem" : "reg") + "})");
      ok = false;
    }
    return ok;
  }

  std::optional<DefExpr> expr(const json::Value& v) {
    auto e = parseDefExprString(m_text, v, m_scope, m_diags, false);
    if (!e)
      m_failed = true;
    return e;
  }

  bool readVariants(const json::Value& list) {
    bool ok = true;
    for (std::size_t i = 0; i < list.elements.size(); ++i) {
      const json::Value& v = list.elements[i];
      json::ObjectReader o(v, m_diags, "lowering variant #" + std::to_string(i + 1));
      if (!o.isObject()) {
        ok = false;
        continue;
      }
      TemplateVariant var;
      var.range = v.range;
      if (const json::Value* w = o.field("when", json::Kind::String, true)) {
        var.whenText = w->string;
        if (auto e = expr(*w))
          var.when = std::move(*e);
      }
      if (const json::Value* lines = o.field("ptx", json::Kind::Array, true))
        if (!readTemplate(*lines, var.body) || !checkRepeat(var.body, *lines))
          o.fail();
      o.finish();
      ok = o.ok() && ok;
      m_prim->lowering.variants.push_back(std::move(var));
    }
    return ok;
  }

  bool readRefusals(const json::Value& list) {
    bool ok = true;
    for (std::size_t i = 0; i < list.elements.size(); ++i) {
      const json::Value& v = list.elements[i];
      json::ObjectReader o(v, m_diags, "lowering refusal #" + std::to_string(i + 1));
      if (!o.isObject()) {
        ok = false;
        continue;
      }
      LoweringRefusal r;
      r.range = v.range;
      if (const json::Value* w = o.field("when", json::Kind::String, true)) {
        r.whenText = w->string;
        if (auto e = expr(*w))
          r.when = std::move(*e);
      }
      r.message = o.string("message", true).value_or("");
      o.finish();
      ok = o.ok() && ok;
      m_prim->lowering.refusals.push_back(std::move(r));
    }
    return ok;
  }

  bool readIntrinsic(const json::Value& v) {
    json::ObjectReader o(v, m_diags, "\"intrinsic\"");
    IntrinsicDef def;
    const json::Value* name = o.field("name", json::Kind::String, true);
    std::vector<std::string> args = o.stringList("args", false);
    if (name) {
      def.name = name->string;
      const auto& known = knownIntrinsics();
      auto it = std::find_if(known.begin(), known.end(),
                             [&](const auto& k) { return k.first == name->string; });
      if (it == known.end()) {
        std::vector<std::string> names;
        for (const auto& k : known)
          names.emplace_back(k.first);
        o.invalid(*name, "intrinsic '" + name->string +
                             "' is not one lowering may call (known: " + join(names, ", ") + ")");
      } else if (it->second != args.size()) {
        o.invalid(*name, "intrinsic '" + name->string + "' takes " + std::to_string(it->second) +
                             " immediate arguments");
      }
    }
    const json::Value* list = v.get("args");
    for (std::size_t i = 0; i < args.size(); ++i) {
      const json::Value& at = list->elements[i];
      TemplateSlot ts;
      std::string_view a = args[i];
      auto dot = a.find('.');
      ts.name = std::string(a.substr(0, dot));
      if (dot != std::string_view::npos)
        ts.facet = std::string(a.substr(dot + 1));
      if (auto idx = operandIndex(ts.name)) {
        ts.isOperand = true;
        ts.index = *idx;
      } else if (auto aidx = m_prim->attributeIndex(ts.name)) {
        ts.index = *aidx;
      } else {
        o.invalid(at, "intrinsic argument '" + args[i] + "' names no operand or attribute");
        continue;
      }
      if (ts.isOperand ? ts.facet.empty() || !slotTyped(ts) : !ts.facet.empty() && !slotTyped(ts))
        o.invalid(at, "intrinsic argument '" + args[i] + "' is not a typed slot");
      def.args.push_back(std::move(ts));
    }
    o.finish();
    if (!o.ok())
      return false;
    m_prim->lowering.intrinsic = std::move(def);
    return true;
  }

  bool readSteps(const json::Value& list) {
    bool ok = true;
    if (list.elements.empty()) {
      m_diags.report(DiagId::DefInvalidValue, list.range, "an expansion needs at least one step");
      return false;
    }
    for (std::size_t i = 0; i < list.elements.size(); ++i) {
      const json::Value& v = list.elements[i];
      json::ObjectReader o(v, m_diags, "expansion step #" + std::to_string(i + 1));
      if (!o.isObject()) {
        ok = false;
        continue;
      }
      ExpansionStep step;
      step.range = v.range;
      step.primitive = o.string("primitive", true).value_or("");
      step.operandNames = o.stringList("operands", true);
      if (const json::Value* ops = v.get("operands"); ops && ops->isArray())
        for (std::size_t k = 0; k < step.operandNames.size() && k < ops->elements.size(); ++k) {
          auto idx = operandIndex(step.operandNames[k]);
          if (!idx) {
            Diagnostic* d = m_diags.report(DiagId::DefInvalidValue, ops->elements[k].range,
                                           "expansion step operand '" + step.operandNames[k] +
                                               "' is no operand of '" + m_prim->name + "'");
            if (auto guess = closestMatch(step.operandNames[k], m_scope.operands))
              setFix(d, "did you mean '" + *guess + "'?");
            o.fail();
            continue;
          }
          step.operands.push_back(*idx);
        }
      if (const json::Value* attrs = o.field("attributes", json::Kind::Object, false))
        for (const json::Member& m : attrs->members)
          step.attributesWritten.emplace_back(m.key, m.value);
      o.finish();
      ok = o.ok() && ok;
      m_prim->lowering.steps.push_back(std::move(step));
    }
    return ok;
  }

  std::optional<std::size_t> operandIndex(std::string_view name) const {
    for (std::size_t i = 0; i < m_prim->operands.size(); ++i)
      if (m_prim->operands[i].name == name)
        return i;
    return std::nullopt;
  }

  /// Whether a facet applies to the slot's operand kind (or attribute type).
  bool slotTyped(const TemplateSlot& ts) const {
    if (!ts.isOperand) {
      if (ts.index >= m_prim->attributes.size())
        return true; // reported as an unknown name already
      return ts.facet == "id" && m_prim->attributes[ts.index].type == AttrType::Enum;
    }
    if (ts.index >= m_prim->operands.size())
      return true;
    static constexpr std::string_view buffer[] = {"addr",  "desc",  "reg",   "regs", "elem", "rank",
                                                  "bytes", "dtype", "count", "cols", "lanes"};
    static constexpr std::string_view tensormap[] = {"map", "coords", "rank", "dtype"};
    static constexpr std::string_view mbarrier[] = {"addr", "count", "phase", "mask"};
    static constexpr std::string_view nbarrier[] = {"id", "count"};
    auto in = [&](auto& list) {
      return std::find(std::begin(list), std::end(list), ts.facet) != std::end(list);
    };
    switch (m_prim->operands[ts.index].kind) {
    case OperandKind::Buffer:
      return in(buffer);
    case OperandKind::TensorMap:
      return in(tensormap);
    case OperandKind::MBarrier:
      return in(mbarrier);
    case OperandKind::NBarrier:
      return in(nbarrier);
    }
    return true;
  }

  /// The source range of bytes [b, e) of a template line's string value (the whole string when
  /// it contains escapes, whose offsets do not map 1:1).
  SourceRange templateRange(const json::Value& line, std::size_t b, std::size_t e) const {
    std::string_view raw =
        m_text.substr(line.range.begin + 1, line.range.end - line.range.begin - 2);
    if (raw != line.string)
      return line.range;
    e = std::min(std::max(e, b + 1), line.string.size());
    b = std::min(b, e);
    return {m_prim->file, static_cast<std::uint32_t>(line.range.begin + 1 + b),
            static_cast<std::uint32_t>(line.range.begin + 1 + e)};
  }

  /// Parses the template lines into LoweringDef::pieces and checks them: typed slots
  /// (validateTemplate) and, for the whole template with its slots blanked out, the inline-PTX
  /// rules (balanced braces, no directive, label, raw operand reference or escaping character),
  /// so that no definition can put code outside its own instruction into the emitted kernel.
  bool readTemplate(const json::Value& lines, TemplateDef& out) {
    bool ok = true;
    std::string skeleton;
    std::vector<std::pair<std::size_t, const json::Value*>> starts; // skeleton offset, line
    std::vector<TemplatePiece>& pieces = out.pieces;
    for (const json::Value& line : lines.elements) {
      if (!line.isString()) {
        m_diags.report(DiagId::DefInvalidValue, line.range, "template lines are strings");
        ok = false;
        continue;
      }
      if (!starts.empty()) {
        skeleton += '\n';
        if (pieces.empty() || pieces.back().slot >= 0)
          pieces.push_back({});
        pieces.back().text += '\n';
      }
      starts.emplace_back(skeleton.size(), &line);
      ok = validateTemplate(line, skeleton, out) && ok;
      out.ptx.push_back(line.string);
    }
    if (!ok)
      return false;
    SourceRange last;
    for (const InlinePtxIssue& is : checkInlinePtx(skeleton, std::nullopt)) {
      std::size_t k = starts.size();
      while (k > 1 && starts[k - 1].first > is.begin)
        --k;
      const auto& [start, line] = starts[k - 1];
      SourceRange at = templateRange(*line, is.begin - start, is.end - start);
      ok = false;
      if (at == last) // a line with escapes is located as a whole: say so once
        continue;
      m_diags.report(DiagId::DefTemplateInjection, at, "lowering template: " + is.message);
      last = at;
    }
    return ok;
  }

  /// Checks every `{slot}` of one line: a known operand or a typed attribute, with a known
  /// facet. Appends the line's pieces to LoweringDef::pieces and its skeleton (literal text with
  /// each doubled brace reduced and each slot replaced by '_', offsets kept) to `skeleton`.
  bool validateTemplate(const json::Value& line, std::string& skeleton, TemplateDef& out) {
    const std::string& s = line.string;
    auto at = [&](std::size_t b, std::size_t e) { return templateRange(line, b, e); };
    std::vector<TemplatePiece>& pieces = out.pieces;
    auto literal = [&](char c) {
      if (pieces.empty() || pieces.back().slot >= 0)
        pieces.push_back({});
      pieces.back().text += c;
    };
    bool ok = true;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if ((s[i] == '{' || s[i] == '}') && i + 1 < s.size() && s[i + 1] == s[i]) {
        literal(s[i]);
        skeleton += s[i];
        skeleton += ' ';
        ++i;
        continue;
      }
      if (s[i] == '}') {
        m_diags.report(DiagId::DefInvalidTemplate, at(i, i + 1),
                       "unmatched '}' in template (write '}}' for a literal brace)");
        ok = false;
        skeleton += ' ';
        continue;
      }
      if (s[i] != '{') {
        literal(s[i]);
        skeleton += s[i];
        continue;
      }
      std::size_t close = s.find('}', i);
      if (close == std::string::npos) {
        m_diags.report(DiagId::DefInvalidTemplate, at(i, s.size()),
                       "unclosed '{' in template (write '{{' for a literal brace)");
        return false;
      }
      std::string slot = s.substr(i + 1, close - i - 1);
      std::string name = slot, facet;
      if (auto dot = slot.find('.'); dot != std::string::npos) {
        name = slot.substr(0, dot);
        facet = slot.substr(dot + 1);
      }
      TemplateSlot ts;
      ts.name = name;
      ts.facet = facet;
      if (auto idx = operandIndex(name)) {
        ts.isOperand = true;
        ts.index = *idx;
        if (facet.empty()) {
          m_diags.report(DiagId::DefInvalidTemplate, at(i, close + 1),
                         "operand slot '{" + slot + "}' needs a facet such as {" + name + ".addr}");
          ok = false;
        }
      } else if (auto aidx = m_prim->attributeIndex(name)) {
        ts.index = *aidx;
        if (m_prim->attributes[*aidx].type == AttrType::String) {
          m_diags.report(DiagId::DefInvalidTemplate, at(i, close + 1),
                         "string attribute '" + name +
                             "' cannot be substituted into PTX (no free text injection)");
          ok = false;
        }
      } else {
        std::vector<std::string> names = m_scope.operands;
        names.insert(names.end(), m_scope.attributes.begin(), m_scope.attributes.end());
        Diagnostic* d =
            m_diags.report(DiagId::DefInvalidTemplate, at(i, close + 1),
                           "template slot '{" + slot + "}' names no operand or attribute");
        if (auto guess = closestMatch(name, names))
          setFix(d, "did you mean '" + *guess + "'?");
        ok = false;
      }
      if (!facet.empty() &&
          std::find(std::begin(kFacets), std::end(kFacets), facet) == std::end(kFacets)) {
        m_diags.report(DiagId::DefInvalidTemplate, at(i, close + 1),
                       "unknown slot facet '" + facet + "'");
        ok = false;
      } else if (!facet.empty() && !slotTyped(ts)) {
        // Typed slots: each facet has a meaning for some operand kinds only (lowering binds
        // it to a typed value), and an attribute takes no facet but `.id` of an enum.
        m_diags.report(
            DiagId::DefInvalidTemplate, at(i, close + 1),
            "slot '{" + slot + "}': facet '" + facet + "' does not apply to " +
                (ts.isOperand ? std::string(toString(m_prim->operands[ts.index].kind)) + " operands"
                              : "a non-enum attribute (only {enum.id} is allowed)"));
        ok = false;
      }
      pieces.push_back({{}, static_cast<int>(out.templateSlots.size())});
      skeleton.append(close + 1 - i, '_');
      out.templateSlots.push_back(std::move(ts));
      i = close;
    }
    return ok;
  }

  Primitive* m_prim;
  const DefScope& m_scope;
  std::string_view m_text;
  DiagnosticEngine& m_diags;
  bool m_failed = false;
};

} // namespace

bool readLowering(const json::Value& v, Primitive& prim, const DefScope& scope,
                  std::string_view fileText, DiagnosticEngine& diags) {
  return LoweringReader(prim, scope, fileText, diags).run(v);
}

} // namespace cake::reg::detail
