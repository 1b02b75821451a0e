// Loading and cross-checking of the rule registry (compiler/rules/**.json).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Verify/Rules.h"
#include "cake/Support/DataFiles.h"

#include "cake/Support/JsonSchema.h"
#include "cake/Support/StringUtil.h"

#include <algorithm>
#include <filesystem>
#include <set>

namespace cake::verify {

namespace {
constexpr VerifyCodeInfo kVerifyCodes[] = {
#define CAKE_VERIFY_CODE(id, code, analysis) {VerifyId::id, code, analysis},
#include "cake/Verify/VerifyCodes.def"
#undef CAKE_VERIFY_CODE
};

constexpr std::string_view kFamilies[] = {"syntax",          "schedule-semantics",
                                          "hardware-conformance", "data-consistency",
                                          "program-safety",  "definition", "performance"};
constexpr std::string_view kSeverities[] = {"blocking", "report", "hint"};
constexpr std::string_view kKinds[] = {"builtin", "constraint", "pattern"};
constexpr std::string_view kAnalyses[] = {
    "syntax",         "type-check",       "definition", "primitive-constraints",
    "barrier-protocol", "async-completion", "hazards",  "coverage",
    "resources",      "layout",           "usage",      "bank-conflicts",
    "coalescing",     "latency",          "lowering",   "toolchain-evidence",
    "cpu-run"};
constexpr std::string_view kDeclarations[] = {"smem", "tmem", "reg", "param", "tensormap"};

class RuleReader {
public:
  RuleReader(FileId file, const reg::Registry& registry, SourceManager& sources,
             DiagnosticEngine& diags)
      : m_file(file), m_registry(registry), m_sources(sources), m_diags(diags) {}

  std::unique_ptr<Rule> run(const std::string& path) {
    auto doc = json::parse(m_sources.text(m_file), m_file, m_diags);
    if (!doc)
      return nullptr;
    auto rule = std::make_unique<Rule>();
    rule->path = path;
    rule->file = m_file;
    json::ObjectReader r(*doc, m_diags, "rule");
    if (!r.isObject())
      return nullptr;
    r.allow("$comment");
    if (auto code = r.string("code", true)) {
      rule->code = *code;
      rule->codeRange = doc->get("code")->range;
      if (!isValidCode(*code))
        r.invalid(*doc->get("code"), "rule codes are lower-case words joined by '-'");
    }
    if (auto f = r.oneOf("family", kFamilies, true)) {
      rule->family = *parseFamily(*f);
      std::string_view prefix = familyPrefix(rule->family);
      if (!rule->code.empty() && !rule->code.starts_with(prefix))
        r.invalid(*doc->get("code"), "codes of the " + *f + " family start with '" +
                                         std::string(prefix) + "'");
    }
    if (auto s = r.oneOf("severity", kSeverities, true))
      rule->severity = *parseSeverity(*s);
    rule->title = r.string("title", true).value_or("");
    rule->doc = r.string("doc", true).value_or("");
    rule->bad = r.string("bad", true).value_or("");
    rule->good = r.string("good", true).value_or("");
    rule->analysis = r.oneOf("analysis", kAnalyses, true).value_or("");
    for (const char* key : {"title", "doc", "bad", "good"})
      if (const json::Value* v = doc->get(key); v && v->isString() && v->string.empty())
        r.invalid(*v, std::string("\"") + key + "\" must not be empty");
    if (auto kind = r.oneOf("kind", kKinds, true)) {
      rule->kind = *kind == "builtin"      ? RuleKind::Builtin
                   : *kind == "constraint" ? RuleKind::Constraint
                                           : RuleKind::Pattern;
    }
    if (rule->kind == RuleKind::Pattern) {
      rule->pattern = readPattern(r, *doc);
    } else {
      for (const char* key : {"match", "require", "message"})
        if (const json::Value* v = doc->get(key)) {
          r.allow(key);
          r.invalid(*v, std::string("only pattern rules have \"") + key + "\"");
        }
    }
    r.finish();
    if (!r.ok() || m_failed)
      return nullptr;
    return rule;
  }

private:
  std::optional<PatternRule> readPattern(json::ObjectReader& r, const json::Value& doc) {
    PatternRule p;
    p.message = r.string("message", true).value_or("");
    const json::Value* require = r.field("require", json::Kind::String, true);
    const json::Value* match = r.field("match", json::Kind::Object, true);
    if (!require || !match)
      return std::nullopt;
    p.require = require->string;
    json::ObjectReader m(*match, m_diags, "\"match\"");
    std::size_t targets = 0;
    if (const json::Value* prims = m.field("primitives", json::Kind::Array, false)) {
      ++targets;
      p.target = MatchTarget::Primitives;
      for (const json::Value& v : prims->elements) {
        if (!v.isString()) {
          m.invalid(v, "primitive names are strings");
          continue;
        }
        const reg::Primitive* prim = m_registry.find(v.string);
        if (!prim) {
          Diagnostic* d = m_diags.report(DiagId::DefInvalidValue, v.range,
                                         "no primitive named '" + v.string + "'");
          if (auto guess = m_registry.suggest(v.string))
            setFix(d, "did you mean '" + *guess + "'?", v.range, "\"" + *guess + "\"");
          m_failed = true;
          continue;
        }
        p.primitives.push_back(v.string);
        // The condition must make sense for every listed primitive.
        reg::DefScope scope;
        for (const reg::OperandDef& o : prim->operands)
          scope.operands.push_back(o.name);
        for (const reg::AttrDef& a : prim->attributes) {
          scope.attributes.push_back(a.name);
          scope.attributeIsDynamic.push_back(a.type == reg::AttrType::Expr);
          for (const std::string& value : a.values)
            scope.symbols.push_back(value);
        }
        std::size_t before = m_diags.diagnostics().size();
        auto e = reg::parseDefExprString(m_sources.text(m_file), *require, scope, m_diags, false);
        if (!e) {
          if (m_diags.diagnostics().size() > before)
            addNote(m_diags.last(), v.range,
                    "while checking the condition against '" + v.string + "'");
          m_failed = true;
          continue;
        }
        p.perPrimitive.emplace(v.string, std::move(*e));
      }
      if (prims->elements.empty())
        m.invalid(*prims, "\"primitives\" must name at least one primitive");
    }
    if (const json::Value* op = m.field("operand", json::Kind::Object, false)) {
      ++targets;
      p.target = MatchTarget::Operand;
      json::ObjectReader o(*op, m_diags, "\"operand\"");
      if (const json::Value* spaces = o.field("spaces", json::Kind::Array, false))
        for (const json::Value& s : spaces->elements) {
          auto sp = s.isString() ? ir::parseSpace(s.string) : std::nullopt;
          if (!sp)
            o.invalid(s, "unknown memory space");
          else
            p.spaces.push_back(*sp);
        }
      p.swizzledOnly = o.boolean("swizzled", false).value_or(false);
      o.finish();
      if (!o.ok())
        m_failed = true;
    }
    if (auto decl = m.oneOf("declaration", kDeclarations, false)) {
      ++targets;
      p.target = MatchTarget::Declaration;
      p.declaration = *decl;
    }
    m.finish();
    if (!m.ok())
      m_failed = true;
    if (targets != 1) {
      m_diags.report(DiagId::DefInvalidValue, json::headRange(*match),
                     "\"match\" needs exactly one of \"primitives\", \"operand\", \"declaration\"");
      m_failed = true;
      return std::nullopt;
    }
    if (p.target != MatchTarget::Primitives) {
      reg::DefScope scope;
      scope.operands = {"x"};
      p.condition = reg::parseDefExprString(m_sources.text(m_file), *require, scope, m_diags, false);
      if (!p.condition)
        m_failed = true;
    }
    (void)doc;
    return p;
  }

  FileId m_file;
  const reg::Registry& m_registry;
  SourceManager& m_sources;
  DiagnosticEngine& m_diags;
  bool m_failed = false;
};

} // namespace

const VerifyCodeInfo& info(VerifyId id) { return kVerifyCodes[static_cast<std::size_t>(id)]; }
std::span<const VerifyCodeInfo> allVerifyCodes() { return kVerifyCodes; }

std::string_view toString(RuleKind kind) {
  switch (kind) {
  case RuleKind::Builtin:
    return "builtin";
  case RuleKind::Constraint:
    return "constraint";
  case RuleKind::Pattern:
    return "pattern";
  }
  return "?";
}

RuleSet RuleSet::load(const std::string& dir, const reg::Registry& registry, SourceManager& sources,
                      DiagnosticEngine& diags, const std::vector<OverlayFile>& overlay) {
  RuleSet set;
  auto files = loadDataFiles(dir, "rule", true, 1u << 20, sources, diags, overlay);
  if (!files)
    return set;
  for (const DataFile& file : *files) {
    const std::filesystem::path& p = file.path;
    set.m_sources.emplace_back(file.name, std::string(sources.text(file.file)));
    auto rule = RuleReader(file.file, registry, sources, diags).run(p.string());
    if (!rule)
      continue;
    if (p.stem().string() != rule->code) {
      diags.report(DiagId::DefInvalidValue, rule->codeRange,
                   "rule '" + rule->code + "' must live in '" + rule->code + ".json'");
      continue;
    }
    if (p.parent_path().filename().string() != toString(rule->family)) {
      diags.report(DiagId::DefInvalidValue, rule->codeRange,
                   "rule '" + rule->code + "' of the " + std::string(toString(rule->family)) +
                       " family must live in '" + std::string(toString(rule->family)) + "/'");
      continue;
    }
    if (const Rule* existing = set.find(rule->code)) {
      Diagnostic* d = diags.report(DiagId::DefDuplicate, rule->codeRange,
                                   "rule '" + rule->code + "' is defined twice");
      addNote(d, existing->codeRange, "first definition");
      continue;
    }
    set.m_index.emplace(rule->code, set.m_rules.size());
    set.m_rules.push_back(std::move(rule));
  }

  // Cross-checks: documentation and implementation must cover each other exactly.
  std::set<std::string, std::less<>> implemented;
  for (const DiagCodeInfo& c : allDiagCodes())
    implemented.emplace(c.code);
  for (const VerifyCodeInfo& c : allVerifyCodes())
    implemented.emplace(c.code);
  // Lowering and toolchain-evidence codes (cake_lower reports them; the list is plain data so
  // this library does not depend on the lowering library).
  static constexpr std::string_view kLowerCodes[] = {
#define CAKE_LOWER_CODE(id, code, family, severity, title) code,
#include "cake/Support/LowerCodes.def"
#undef CAKE_LOWER_CODE
  };
  for (std::string_view c : kLowerCodes)
    implemented.emplace(c);
  std::map<std::string, const reg::ConstraintDef*, std::less<>> constraintCodes;
  for (const auto& prim : registry.all())
    for (const reg::ConstraintDef& c : prim->constraints)
      constraintCodes.emplace(c.code, &c);
  FileId dirFile = 0;
  auto dirRange = [&]() -> SourceRange {
    if (!dirFile)
      dirFile = sources.addBuffer(dir.ends_with('/') ? dir : dir + "/", "");
    return {dirFile, 0, 0};
  };
  for (const std::string& code : implemented) {
    const Rule* rule = set.find(code);
    if (!rule) {
      diags.report(DiagId::DefUndocumentedRule, dirRange(),
                   "finding code '" + code + "' has no rule file (" + code + ".json) in '" + dir +
                       "'");
      continue;
    }
    if (rule->kind != RuleKind::Builtin)
      diags.report(DiagId::DefInvalidValue, rule->codeRange,
                   "'" + code + "' is reported by the compiler itself: its kind is \"builtin\"");
    if (const DiagCodeInfo* info = findDiagCode(code)) {
      if (info->family != rule->family || info->severity != rule->severity)
        diags.report(DiagId::DefInvalidValue, rule->codeRange,
                     "'" + code + "' is " + std::string(toString(info->family)) + "/" +
                         std::string(toString(info->severity)) +
                         " in the compiler; the rule file must agree");
    }
  }
  for (const auto& rule : set.m_rules) {
    switch (rule->kind) {
    case RuleKind::Builtin:
      if (!implemented.count(rule->code))
        diags.report(DiagId::DefUnimplementedRule, rule->codeRange,
                     "rule '" + rule->code + "' is \"builtin\" but no analysis reports it");
      break;
    case RuleKind::Constraint:
      if (!constraintCodes.count(rule->code))
        diags.report(DiagId::DefUnimplementedRule, rule->codeRange,
                     "rule '" + rule->code + "' is \"constraint\" but no primitive constraint "
                     "reports it");
      break;
    case RuleKind::Pattern:
      if (implemented.count(rule->code) || constraintCodes.count(rule->code))
        diags.report(DiagId::DefDuplicate, rule->codeRange,
                     "pattern rule '" + rule->code + "' reuses a code reported elsewhere");
      break;
    }
  }
  for (const auto& [code, c] : constraintCodes) {
    const Rule* rule = set.find(code);
    if (!rule) {
      diags.report(DiagId::DefUndocumentedRule, c->range,
                   "constraint code '" + code + "' has no rule file (" + code + ".json)");
    } else if (rule->family != c->family) {
      Diagnostic* d = diags.report(DiagId::DefInvalidValue, c->range,
                                   "constraint reports '" + code + "' as " +
                                       std::string(toString(c->family)) +
                                       " but its rule says " + std::string(toString(rule->family)));
      addNote(d, rule->codeRange, "rule defined here");
    }
  }
  // Requirement tables of the primitives: every rule a requirement names must exist, or the
  // table would claim a check nobody performs.
  std::vector<std::string> ruleCodes;
  for (const auto& rule : set.m_rules)
    ruleCodes.push_back(rule->code);
  for (const auto& prim : registry.all())
    for (const reg::RequirementDef& req : prim->requirements)
      for (std::size_t i = 0; i < req.checkedBy.size(); ++i) {
        const std::string& code = req.checkedBy[i];
        if (set.find(code))
          continue;
        Diagnostic* d =
            diags.report(DiagId::DefInvalidValue, req.checkedByRanges[i],
                         "requirement '" + req.id + "' of '" + prim->name + "' is checked by '" +
                             code + "', but no rule has that code");
        if (auto guess = closestMatch(code, ruleCodes))
          setFix(d, "did you mean '" + *guess + "'?", req.checkedByRanges[i], "\"" + *guess + "\"");
      }
  return set;
}

const Rule* RuleSet::find(std::string_view code) const {
  auto it = m_index.find(code);
  return it == m_index.end() ? nullptr : m_rules[it->second].get();
}

std::vector<const Rule*> RuleSet::patterns() const {
  std::vector<const Rule*> out;
  for (const auto& r : m_rules)
    if (r->kind == RuleKind::Pattern)
      out.push_back(r.get());
  return out;
}

} // namespace cake::verify
