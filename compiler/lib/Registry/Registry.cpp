// Loading and validation of primitive definition files.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Registry/Registry.h"
#include "LoweringReader.h"
#include "Requirements.h"
#include "cake/Registry/InlinePtx.h"
#include "cake/Registry/Semantics.h"
#include "cake/Support/DataFiles.h"

#include "cake/Support/JsonSchema.h"
#include "cake/Support/StringUtil.h"

#include <algorithm>
#include <array>
#include <filesystem>

namespace cake::reg {

std::string_view toString(OperandKind kind) {
  switch (kind) {
  case OperandKind::Buffer:
    return "buffer";
  case OperandKind::TensorMap:
    return "tensormap";
  case OperandKind::MBarrier:
    return "mbarrier";
  case OperandKind::NBarrier:
    return "nbarrier";
  }
  return "?";
}

std::string_view toString(Access access) {
  switch (access) {
  case Access::None:
    return "none";
  case Access::Read:
    return "read";
  case Access::Write:
    return "write";
  case Access::ReadWrite:
    return "readwrite";
  }
  return "?";
}

std::string_view toString(IssueScope scope) {
  switch (scope) {
  case IssueScope::Thread:
    return "thread";
  case IssueScope::Warp:
    return "warp";
  case IssueScope::Warpgroup:
    return "warpgroup";
  case IssueScope::Role:
    return "role";
  case IssueScope::Elected:
    return "elected";
  }
  return "?";
}

std::optional<IssueScope> parseIssueScope(std::string_view text) {
  for (IssueScope s : {IssueScope::Thread, IssueScope::Warp, IssueScope::Warpgroup,
                       IssueScope::Role, IssueScope::Elected})
    if (toString(s) == text)
      return s;
  return std::nullopt;
}

std::string_view toString(AttrType type) {
  switch (type) {
  case AttrType::Int:
    return "int";
  case AttrType::Float:
    return "float";
  case AttrType::Bool:
    return "bool";
  case AttrType::Enum:
    return "enum";
  case AttrType::DType:
    return "dtype";
  case AttrType::IntList:
    return "int_list";
  case AttrType::Expr:
    return "expr";
  case AttrType::String:
    return "string";
  }
  return "?";
}

namespace {
constexpr std::array<std::pair<EffectKind, std::string_view>, 15> kEffectNames = {{
    {EffectKind::Read, "read"},
    {EffectKind::Write, "write"},
    {EffectKind::Init, "init"},
    {EffectKind::Arrive, "arrive"},
    {EffectKind::ExpectTx, "expect_tx"},
    {EffectKind::CompleteTx, "complete_tx"},
    {EffectKind::Wait, "wait"},
    {EffectKind::Sync, "sync"},
    {EffectKind::Fence, "fence"},
    {EffectKind::CommitGroup, "commit_group"},
    {EffectKind::WaitGroup, "wait_group"},
    {EffectKind::Alloc, "alloc"},
    {EffectKind::Dealloc, "dealloc"},
    {EffectKind::Registers, "registers"},
    {EffectKind::Commit, "commit"},
}};

constexpr std::string_view kCategories[] = {"movement", "compute", "elementwise", "reduction",
                                            "sync",     "memory",  "control"};
constexpr std::string_view kOperandKinds[] = {"buffer", "tensormap", "mbarrier", "nbarrier"};
constexpr std::string_view kArrayModes[] = {"element", "whole"};
constexpr std::string_view kAccess[] = {"none", "read", "write", "readwrite"};
constexpr std::string_view kAttrTypes[] = {"int",   "float",    "bool", "enum",
                                           "dtype", "int_list", "expr", "string"};
constexpr std::string_view kProxies[] = {"generic", "async"};
constexpr std::string_view kFenceKinds[] = {
    "async", "generic", "mbarrier_init", "tcgen05_before", "tcgen05_after", "acq_rel", "wgmma"};
constexpr std::string_view kFenceScopes[] = {"cta", "cluster", "gpu"};
constexpr std::string_view kSyncScopes[] = {"cta", "role"};
constexpr std::string_view kSyncModes[] = {"sync", "arrive"};
constexpr std::string_view kGroups[] = {"cp.async", "bulk",       "wgmma",
                                        "tcgen05",  "tcgen05.ld", "tcgen05.st"};
constexpr std::string_view kCostClasses[] = {
    "tensor", "tma", "global_memory", "shared_memory", "tmem", "alu", "sfu", "sync", "control"};
constexpr std::string_view kCostUnits[] = {"flop", "byte", "instr"};

bool validPrimitiveName(std::string_view n) {
  if (n.empty() || !(n[0] >= 'a' && n[0] <= 'z'))
    return false;
  bool prevDot = false;
  for (char c : n) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
    if (!ok || (c == '.' && prevDot))
      return false;
    prevDot = c == '.';
  }
  return !prevDot;
}

/// `s` for a message: control and non-ASCII bytes as \xNN, at most 60 characters.
std::string printable(std::string_view s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (out.size() >= 60) {
      out += "...";
      break;
    }
    auto u = static_cast<unsigned char>(s[i]);
    if (u < 0x20 || u >= 0x7f) {
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += s[i];
    }
  }
  return out;
}

bool validIdentifier(std::string_view n) {
  if (n.empty() || !((n[0] >= 'a' && n[0] <= 'z') || (n[0] >= 'A' && n[0] <= 'Z') || n[0] == '_'))
    return false;
  return std::all_of(n.begin(), n.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

class PrimitiveReader {
public:
  PrimitiveReader(const std::string& path, FileId file, const target::TargetSet& targets,
                  SourceManager& sources, DiagnosticEngine& diags)
      : m_path(path), m_file(file), m_targets(targets), m_sources(sources), m_diags(diags) {}

  std::unique_ptr<Primitive> run() {
    auto doc = json::parse(m_sources.text(m_file), m_file, m_diags);
    if (!doc)
      return nullptr;
    m_prim = std::make_unique<Primitive>();
    m_prim->path = m_path;
    m_prim->file = m_file;
    json::ObjectReader r(*doc, m_diags, "primitive definition");
    if (!r.isObject())
      return nullptr;
    r.allow("$comment");
    if (auto name = r.string("name", true)) {
      m_prim->name = *name;
      m_prim->nameRange = doc->get("name")->range;
      if (!validPrimitiveName(*name))
        r.invalid(*doc->get("name"),
                  "primitive names are lower-case dotted words (tma.load), found \"" + *name + "\"");
    }
    std::string context = "primitive '" + m_prim->name + "'";
    m_prim->category = r.oneOf("category", kCategories, true).value_or("");
    m_prim->summary = r.string("summary", true).value_or("");
    if (const json::Value* s = doc->get("summary"); s && s->isString() && s->string.empty())
      r.invalid(*s, "\"summary\" must not be empty");
    readTargets(r, *doc);
    std::string issueFromAttr;
    if (const json::Value* issue = r.field("issue", json::Kind::String, true)) {
      if (issue->string.rfind("attr:", 0) == 0)
        issueFromAttr = issue->string.substr(5);
      else if (auto scope = parseIssueScope(issue->string))
        m_prim->issue = *scope;
      else
        r.invalid(*issue, "\"issue\" is thread, warp, warpgroup, role, elected or attr:NAME, "
                          "found \"" + issue->string + "\"");
    }
    m_prim->implicit = r.boolean("implicit", false).value_or(false);
    m_prim->implicitHint = r.string("implicit_hint", false).value_or("");
    if (m_prim->implicit && m_prim->implicitHint.empty())
      r.invalid(*doc, context + " is implicit and needs \"implicit_hint\" telling authors what to "
                                "write instead");
    if (const json::Value* ops = r.field("operands", json::Kind::Array, true))
      readOperands(r, *ops);
    if (const json::Value* attrs = r.field("attributes", json::Kind::Array, false))
      readAttributes(r, *attrs);
    if (!issueFromAttr.empty()) {
      const json::Value* at = doc->get("issue");
      auto idx = m_prim->attributeIndex(issueFromAttr);
      if (!idx || m_prim->attributes[*idx].type != AttrType::Enum) {
        r.invalid(*at, "\"issue\": \"attr:" + issueFromAttr +
                           "\" needs an enum attribute of that name");
      } else {
        for (const std::string& v : m_prim->attributes[*idx].values)
          if (!parseIssueScope(v))
            r.invalid(*at, "attribute '" + issueFromAttr + "' has value '" + v +
                               "', which is not an issue scope");
        m_prim->issueAttribute = idx;
      }
    }
    buildScope();
    if (const json::Value* cs = r.field("constraints", json::Kind::Array, false))
      readConstraints(r, *cs);
    if (const json::Value* es = r.field("effects", json::Kind::Array, true))
      readEffects(r, *es);
    if (const json::Value* reqs = r.field("requirements", json::Kind::Array, false))
      if (!detail::readRequirements(*reqs, *m_prim, m_scope, m_sources.text(m_file), m_diags))
        r.fail();
    if (const json::Value* hw = r.field("hardware", json::Kind::Object, true))
      readHardware(r, *hw);
    if (const json::Value* cost = r.field("cost", json::Kind::Object, true))
      readCost(r, *cost);
    if (const json::Value* low = r.field("lowering", json::Kind::Object, true))
      readLowering(r, *low);
    if (const json::Value* sem = r.field("semantics", json::Kind::Object, false)) {
      if (auto def = readSemantics(*sem, *m_prim, m_sources.text(m_file), m_diags))
        m_prim->semantics = std::make_shared<const SemanticsDef>(std::move(*def));
      else
        r.fail();
    }
    r.finish();
    if (!r.ok() || m_failed)
      return nullptr;
    return std::move(m_prim);
  }

private:
  void readTargets(json::ObjectReader& r, const json::Value& doc) {
    m_prim->targets = r.stringList("targets", true);
    const json::Value* list = doc.get("targets");
    if (!list || !list->isArray())
      return;
    if (list->elements.empty())
      r.invalid(*list, "\"targets\" must name at least one target");
    for (const json::Value& t : list->elements) {
      if (!t.isString())
        continue;
      if (!m_targets.find(t.string)) {
        auto names = m_targets.names();
        Diagnostic* d = m_diags.report(DiagId::DefUnknownTarget, t.range,
                                       "target '" + t.string + "' has no target file (known: " +
                                           join(names, ", ") + ")");
        if (auto guess = closestMatch(t.string, names))
          setFix(d, "did you mean '" + *guess + "'?", t.range, "\"" + *guess + "\"");
        r.fail();
      }
    }
  }

  void readOperands(json::ObjectReader& r, const json::Value& list) {
    bool seenOptional = false;
    for (std::size_t i = 0; i < list.elements.size(); ++i) {
      const json::Value& v = list.elements[i];
      json::ObjectReader o(v, m_diags, "operand #" + std::to_string(i + 1));
      if (!o.isObject()) {
        r.fail();
        continue;
      }
      OperandDef def;
      def.range = v.range;
      def.name = o.string("name", true).value_or("");
      if (const json::Value* n = v.get("name"); n && n->isString() && !validIdentifier(n->string))
        o.invalid(*n, "operand names are identifiers");
      if (auto kind = o.oneOf("kind", kOperandKinds, true)) {
        for (OperandKind k : {OperandKind::Buffer, OperandKind::TensorMap, OperandKind::MBarrier,
                              OperandKind::NBarrier})
          if (toString(k) == *kind)
            def.kind = k;
      }
      if (const json::Value* spaces = o.field("spaces", json::Kind::Array, false)) {
        if (def.kind != OperandKind::Buffer)
          o.invalid(*spaces, "only buffer operands have \"spaces\"");
        for (const json::Value& s : spaces->elements) {
          auto sp = s.isString() ? ir::parseSpace(s.string) : std::nullopt;
          if (!sp)
            o.invalid(s, "unknown memory space; expected global, smem, tmem or reg");
          else
            def.spaces.push_back(*sp);
        }
      } else if (def.kind == OperandKind::Buffer) {
        m_diags.report(DiagId::DefMissingField, json::headRange(v),
                       "buffer operand '" + def.name + "' must list its \"spaces\"");
        o.fail();
      }
      if (const json::Value* dts = o.field("dtypes", json::Kind::Array, false)) {
        for (const json::Value& s : dts->elements) {
          auto dt = s.isString() ? ir::parseDType(s.string) : std::nullopt;
          if (!dt)
            o.invalid(s, "unknown data type");
          else
            def.dtypes.push_back(*dt);
        }
      }
      if (auto rank = o.integer("rank", false, 0, 8))
        def.rank = static_cast<int>(*rank);
      if (auto access = o.oneOf("access", kAccess, true)) {
        for (Access a : {Access::None, Access::Read, Access::Write, Access::ReadWrite})
          if (toString(a) == *access)
            def.access = a;
      }
      def.optional = o.boolean("optional", false).value_or(false);
      if (auto array = o.oneOf("array", kArrayModes, false)) {
        def.wholeArray = *array == "whole";
        if (def.kind != OperandKind::MBarrier)
          o.invalid(*v.get("array"), "only mbarrier operands have \"array\"");
      }
      def.doc = o.string("doc", true).value_or("");
      if (def.optional)
        seenOptional = true;
      else if (seenOptional)
        o.invalid(v, "a required operand cannot follow an optional one");
      for (const OperandDef& prev : m_prim->operands) {
        if (prev.name == def.name) {
          Diagnostic* d = m_diags.report(DiagId::DefDuplicate, v.range,
                                         "operand '" + def.name + "' is defined twice");
          addNote(d, prev.range, "first definition");
          o.fail();
        }
      }
      o.finish();
      if (!o.ok())
        r.fail();
      m_prim->operands.push_back(std::move(def));
    }
  }

  bool defaultMatches(const AttrDef& def, const json::Value& v) {
    switch (def.type) {
    case AttrType::Int:
      return v.isNumber() && v.integer.has_value();
    case AttrType::Float:
      return v.isNumber();
    case AttrType::Bool:
      return v.isBool();
    case AttrType::Enum:
      return v.isString() &&
             std::find(def.values.begin(), def.values.end(), v.string) != def.values.end();
    case AttrType::DType:
      return v.isString() && ir::parseDType(v.string).has_value();
    case AttrType::IntList:
      return v.isArray() && std::all_of(v.elements.begin(), v.elements.end(), [](const auto& e) {
               return e.isNumber() && e.integer.has_value();
             });
    case AttrType::Expr:
      return v.isNumber() && v.integer.has_value();
    case AttrType::String:
      return v.isString();
    }
    return false;
  }

  void readAttributes(json::ObjectReader& r, const json::Value& list) {
    for (std::size_t i = 0; i < list.elements.size(); ++i) {
      const json::Value& v = list.elements[i];
      json::ObjectReader a(v, m_diags, "attribute #" + std::to_string(i + 1));
      if (!a.isObject()) {
        r.fail();
        continue;
      }
      AttrDef def;
      def.range = v.range;
      def.name = a.string("name", true).value_or("");
      if (const json::Value* n = v.get("name"); n && n->isString() && !validIdentifier(n->string))
        a.invalid(*n, "attribute names are identifiers");
      if (auto type = a.oneOf("type", kAttrTypes, true)) {
        for (AttrType t : {AttrType::Int, AttrType::Float, AttrType::Bool, AttrType::Enum,
                           AttrType::DType, AttrType::IntList, AttrType::Expr, AttrType::String})
          if (toString(t) == *type)
            def.type = t;
      }
      def.required = a.boolean("required", false).value_or(false);
      def.values = a.stringList("values", false);
      if (const json::Value* vals = v.get("values"); vals && vals->isArray())
        for (const json::Value& e : vals->elements)
          if (e.isString() && !isPtxTokenWord(e.string)) {
            // Enum values are substituted into PTX as they are: a value must be one token.
            m_diags.report(DiagId::DefEnumToken, e.range,
                           "enum value \"" + printable(e.string) +
                               "\" is not a PTX token (words of letters, digits and '_' joined "
                               "by '.' or '::', such as ca, 32x32b or kind::f16)");
            a.fail();
          }
      if (def.type == AttrType::Enum && def.values.empty())
        a.invalid(v, "enum attribute '" + def.name + "' needs a non-empty \"values\" list");
      if (def.type != AttrType::Enum && v.get("values"))
        a.invalid(*v.get("values"), "only enum attributes have \"values\"");
      def.min = a.integer("min", false);
      def.max = a.integer("max", false);
      def.doc = a.string("doc", true).value_or("");
      if (const json::Value* d = v.get("default")) {
        a.allow("default");
        if (def.required)
          a.invalid(*d, "a required attribute has no default");
        else if (!defaultMatches(def, *d))
          a.invalid(*d, "default does not match the attribute type '" +
                            std::string(toString(def.type)) + "'");
        else
          def.defaultValue = *d;
      } else if (!def.required) {
        m_diags.report(DiagId::DefMissingField, json::headRange(v),
                       "optional attribute '" + def.name + "' needs a \"default\"");
        a.fail();
      }
      for (const OperandDef& op : m_prim->operands) {
        if (op.name == def.name) {
          Diagnostic* d = m_diags.report(DiagId::DefDuplicate, v.range,
                                         "attribute '" + def.name +
                                             "' has the name of an operand");
          addNote(d, op.range, "operand defined here");
          a.fail();
        }
      }
      for (const AttrDef& prev : m_prim->attributes) {
        if (prev.name == def.name) {
          Diagnostic* d = m_diags.report(DiagId::DefDuplicate, v.range,
                                         "attribute '" + def.name + "' is defined twice");
          addNote(d, prev.range, "first definition");
          a.fail();
        }
      }
      a.finish();
      if (!a.ok())
        r.fail();
      m_prim->attributes.push_back(std::move(def));
    }
  }

  void buildScope() {
    for (const OperandDef& o : m_prim->operands)
      m_scope.operands.push_back(o.name);
    for (const AttrDef& a : m_prim->attributes) {
      m_scope.attributes.push_back(a.name);
      m_scope.attributeIsDynamic.push_back(a.type == AttrType::Expr);
      for (const std::string& v : a.values)
        m_scope.symbols.push_back(v);
    }
  }

  std::optional<DefExpr> expr(const json::Value& v, bool allowDynamic) {
    auto e = parseDefExprString(m_sources.text(m_file), v, m_scope, m_diags, allowDynamic);
    if (!e)
      m_failed = true;
    return e;
  }

  void readConstraints(json::ObjectReader& r, const json::Value& list) {
    for (std::size_t i = 0; i < list.elements.size(); ++i) {
      const json::Value& v = list.elements[i];
      json::ObjectReader c(v, m_diags, "constraint #" + std::to_string(i + 1));
      if (!c.isObject()) {
        r.fail();
        continue;
      }
      ConstraintDef def;
      def.range = v.range;
      if (const json::Value* check = c.field("check", json::Kind::String, true)) {
        def.text = check->string;
        if (auto e = expr(*check, false))
          def.check = std::move(*e);
      }
      def.code = c.string("code", false).value_or(std::string(diagInfo(DiagId::SemConstraint).code));
      if (const json::Value* code = v.get("code"); code && code->isString() &&
                                                    !isValidCode(code->string))
        c.invalid(*code, "finding codes are lower-case words joined by '-' (dc-mma-shape)");
      const DiagCodeInfo* known = findDiagCode(def.code);
      def.family = known ? known->family : Family::ScheduleSemantics;
      if (auto fam = c.string("family", false)) {
        auto parsed = parseFamily(*fam);
        if (!parsed || *parsed == Family::Syntax || *parsed == Family::Definition)
          c.invalid(*v.get("family"), "family must be schedule-semantics, hardware-conformance, "
                                      "data-consistency or program-safety");
        else if (known && known->family != *parsed)
          c.invalid(*v.get("family"), "code '" + def.code + "' belongs to family '" +
                                          std::string(toString(known->family)) + "'");
        else
          def.family = *parsed;
      }
      def.message = c.string("message", true).value_or("");
      c.finish();
      if (!c.ok())
        r.fail();
      m_prim->constraints.push_back(std::move(def));
    }
  }

  std::optional<std::size_t> operandIndex(const std::string& name) const {
    for (std::size_t i = 0; i < m_prim->operands.size(); ++i)
      if (m_prim->operands[i].name == name)
        return i;
    return std::nullopt;
  }

  void readEffects(json::ObjectReader& r, const json::Value& list) {
    for (std::size_t i = 0; i < list.elements.size(); ++i) {
      const json::Value& v = list.elements[i];
      json::ObjectReader e(v, m_diags, "effect #" + std::to_string(i + 1));
      if (!e.isObject()) {
        r.fail();
        continue;
      }
      EffectDef def;
      def.range = v.range;
      std::vector<std::string_view> kinds;
      for (const auto& [k, n] : kEffectNames)
        kinds.push_back(n);
      // An effect kind the analyses do not model cannot be approved as data: the verifier,
      // the cost model and lowering would silently ignore it.
      if (const json::Value* k = v.get("kind");
          k && k->isString() && std::find(kinds.begin(), kinds.end(), k->string) == kinds.end()) {
        std::vector<std::string> kindNames(kinds.begin(), kinds.end());
        Diagnostic* d = m_diags.report(
            DiagId::DefNeedsCompilerChange, k->range,
            "effect kind '" + printable(k->string) +
                "' is not known to the analyses (known: " + join(kindNames, ", ") +
                "): this primitive needs a compiler change before it can be accepted");
        if (auto guess = closestMatch(k->string, kindNames))
          addNote(d, k->range, "the closest known kind is '" + *guess + "'");
        r.fail();
        continue;
      }
      auto kind = e.oneOf("kind", kinds, true);
      if (!kind) {
        r.fail();
        continue;
      }
      for (const auto& [k, n] : kEffectNames)
        if (n == *kind)
          def.kind = k;
      using EK = EffectKind;
      auto needsOperand = [&](std::optional<OperandKind> want, bool required) {
        auto name = e.string("operand", required);
        if (!name)
          return;
        def.operand = *name;
        def.operandIndex = operandIndex(*name);
        const json::Value* at = v.get("operand");
        if (!def.operandIndex) {
          e.invalid(*at, "effect names operand '" + *name + "', which the primitive lacks");
          return;
        }
        const OperandDef& op = m_prim->operands[*def.operandIndex];
        if (want && op.kind != *want)
          e.invalid(*at, "a '" + std::string(*kind) + "' effect needs a " +
                             std::string(toString(*want)) + " operand; '" + op.name + "' is a " +
                             std::string(toString(op.kind)));
      };
      auto quantity = [&](std::string_view key, bool required, bool dynamic) {
        std::optional<DefExpr> out;
        if (const json::Value* q = e.field(key, json::Kind::String, required))
          out = expr(*q, dynamic);
        return out;
      };
      switch (def.kind) {
      case EK::Read:
      case EK::Write: {
        needsOperand(std::nullopt, true);
        def.proxy = e.oneOf("proxy", kProxies, false).value_or("generic");
        def.completion = e.string("completion", false).value_or("sync");
        def.bytes = quantity("bytes", false, false);
        validateCompletion(e, v);
        if (def.operandIndex) {
          Access acc = m_prim->operands[*def.operandIndex].access;
          bool wantRead = def.kind == EK::Read;
          bool ok = acc == Access::ReadWrite || (wantRead ? acc == Access::Read
                                                          : acc == Access::Write);
          if (!ok)
            e.invalid(v, "effect '" + std::string(*kind) + "' on operand '" + def.operand +
                             "' contradicts its access '" + std::string(toString(acc)) + "'");
        }
        break;
      }
      case EK::Init:
        needsOperand(OperandKind::MBarrier, true);
        break;
      case EK::Arrive:
        needsOperand(OperandKind::MBarrier, true);
        def.count = quantity("count", false, false);
        break;
      case EK::ExpectTx:
      case EK::CompleteTx:
        needsOperand(OperandKind::MBarrier, true);
        def.bytes = quantity("bytes", true, false);
        break;
      case EK::Wait:
        needsOperand(OperandKind::MBarrier, true);
        def.parity = quantity("parity", true, true);
        break;
      case EK::Sync:
        needsOperand(OperandKind::NBarrier, false);
        def.syncScope = e.oneOf("scope", kSyncScopes, false).value_or("cta");
        if (!def.operand.empty() && v.get("scope"))
          e.invalid(*v.get("scope"), "a sync on a named barrier takes its scope from the barrier");
        def.syncArrive = e.oneOf("mode", kSyncModes, false).value_or("sync") == "arrive";
        if (def.syncArrive && def.operand.empty())
          e.invalid(*v.get("mode"), "only a named barrier can be arrived on without waiting");
        break;
      case EK::Fence:
        def.proxy = e.oneOf("proxy", kFenceKinds, true).value_or("");
        def.fenceScope = e.oneOf("scope", kFenceScopes, false).value_or("cta");
        break;
      case EK::CommitGroup:
        def.group = e.oneOf("group", kGroups, true).value_or("");
        break;
      case EK::WaitGroup:
        def.group = e.oneOf("group", kGroups, true).value_or("");
        def.pending = quantity("pending", true, false);
        break;
      case EK::Alloc:
      case EK::Dealloc:
        needsOperand(OperandKind::Buffer, true);
        break;
      case EK::Registers:
        def.registers = quantity("registers", true, false);
        break;
      case EK::Commit:
        needsOperand(OperandKind::MBarrier, true);
        def.group = e.oneOf("group", kGroups, true).value_or("");
        break;
      }
      e.finish();
      if (!e.ok())
        r.fail();
      m_prim->effects.push_back(std::move(def));
    }
  }

  void validateCompletion(json::ObjectReader& e, const json::Value& v) {
    const json::Value* c = v.get("completion");
    if (!c || !c->isString())
      return;
    const std::string& s = c->string;
    if (s == "sync")
      return;
    if (s.rfind("group:", 0) == 0) {
      std::string g = s.substr(6);
      if (std::find(std::begin(kGroups), std::end(kGroups), g) == std::end(kGroups))
        e.invalid(*c, "unknown completion group '" + g + "'");
      return;
    }
    if (s.rfind("barrier:", 0) == 0) {
      auto idx = operandIndex(s.substr(8));
      if (!idx || m_prim->operands[*idx].kind != OperandKind::MBarrier)
        e.invalid(*c, "completion 'barrier:X' needs an mbarrier operand X");
      return;
    }
    e.invalid(*c, "completion is 'sync', 'group:NAME' or 'barrier:OPERAND'");
  }

  void readHardware(json::ObjectReader& r, const json::Value& v) {
    json::ObjectReader h(v, m_diags, "\"hardware\"");
    m_prim->hardware.ptx = h.string("ptx", true).value_or("");
    m_prim->hardware.minPtx = h.string("min_ptx", true).value_or("");
    m_prim->hardware.note = h.string("note", true).value_or("");
    m_prim->hardware.requires_ = h.stringList("requires", true);
    auto features = target::featureKeys();
    if (const json::Value* list = v.get("requires"); list && list->isArray()) {
      for (const json::Value& f : list->elements) {
        if (!f.isString())
          continue;
        if (std::find(features.begin(), features.end(), f.string) == features.end()) {
          h.invalid(f, "unknown target feature '" + f.string + "'");
          continue;
        }
        // A primitive may only claim targets that have what it relies on.
        for (const std::string& tname : m_prim->targets) {
          const target::Target* t = m_targets.find(tname);
          if (t && !t->hasFeature(f.string)) {
            Diagnostic* d = m_diags.report(DiagId::DefInvalidValue, f.range,
                                           "primitive claims target '" + tname +
                                               "' but that target lacks feature '" + f.string +
                                               "'");
            addNote(d, t->features.count(f.string) ? t->features.find(f.string)->second.range
                                                   : t->nameRange,
                    "feature stated here");
            h.fail();
          }
        }
      }
    }
    h.finish();
    if (!h.ok())
      r.fail();
  }

  void readCost(json::ObjectReader& r, const json::Value& v) {
    json::ObjectReader c(v, m_diags, "\"cost\"");
    m_prim->cost.cls = c.oneOf("class", kCostClasses, true).value_or("");
    m_prim->cost.unit = c.oneOf("unit", kCostUnits, true).value_or("");
    if (const json::Value* w = c.field("work", json::Kind::String, true))
      m_prim->cost.work = expr(*w, false);
    m_prim->cost.params = c.stringList("params", false);
    m_prim->cost.note = c.string("note", false).value_or("");
    c.finish();
    if (!c.ok())
      r.fail();
  }

  void readLowering(json::ObjectReader& r, const json::Value& v) {
    if (!detail::readLowering(v, *m_prim, m_scope, m_sources.text(m_file), m_diags))
      r.fail();
  }

  const std::string& m_path;
  FileId m_file;
  const target::TargetSet& m_targets;
  SourceManager& m_sources;
  DiagnosticEngine& m_diags;
  std::unique_ptr<Primitive> m_prim;
  DefScope m_scope;
  bool m_failed = false;
};

} // namespace

std::string_view toString(EffectKind kind) {
  for (const auto& [k, n] : kEffectNames)
    if (k == kind)
      return n;
  return "?";
}

const OperandDef* Primitive::operand(std::string_view n) const {
  for (const OperandDef& o : operands)
    if (o.name == n)
      return &o;
  return nullptr;
}

const AttrDef* Primitive::attribute(std::string_view n) const {
  for (const AttrDef& a : attributes)
    if (a.name == n)
      return &a;
  return nullptr;
}

std::optional<std::size_t> Primitive::attributeIndex(std::string_view n) const {
  for (std::size_t i = 0; i < attributes.size(); ++i)
    if (attributes[i].name == n)
      return i;
  return std::nullopt;
}

bool Primitive::availableOn(std::string_view target) const {
  return std::find(targets.begin(), targets.end(), target) != targets.end();
}

std::size_t Primitive::requiredOperandCount() const {
  return static_cast<std::size_t>(std::count_if(operands.begin(), operands.end(),
                                                [](const OperandDef& o) { return !o.optional; }));
}

std::unique_ptr<Primitive> Registry::parse(const std::string& path, FileId file,
                                           const target::TargetSet& targets,
                                           SourceManager& sources, DiagnosticEngine& diags) {
  return PrimitiveReader(path, file, targets, sources, diags).run();
}

Registry Registry::load(const std::string& dir, const target::TargetSet& targets,
                        SourceManager& sources, DiagnosticEngine& diags,
                        const std::vector<OverlayFile>& overlay) {
  Registry reg;
  auto files = loadDataFiles(dir, "primitive", true, 1u << 20, sources, diags, overlay);
  if (!files)
    return reg;
  for (const DataFile& file : *files) {
    const std::filesystem::path& p = file.path;
    reg.m_sources.emplace_back(file.name, std::string(sources.text(file.file)));
    auto prim = parse(p.string(), file.file, targets, sources, diags);
    if (!prim)
      continue;
    if (p.stem().string() != prim->name) {
      diags.report(DiagId::DefInvalidValue, prim->nameRange,
                   "primitive '" + prim->name + "' must live in '" + prim->name +
                       ".json', not '" + p.filename().string() + "'");
      continue;
    }
    if (const Primitive* existing = reg.find(prim->name)) {
      Diagnostic* d = diags.report(DiagId::DefDuplicate, prim->nameRange,
                                   "primitive '" + prim->name + "' is defined twice");
      addNote(d, existing->nameRange, "first definition");
      continue;
    }
    reg.m_primitives.push_back(std::move(prim));
  }
  // Expansions name other primitives: resolved once all are loaded. A refused expansion is left
  // out, and then again any expansion that named it, until nothing changes.
  for (;;) {
    std::vector<std::string> bad = detail::resolveExpansions(reg.m_primitives, diags);
    if (bad.empty())
      break;
    std::erase_if(reg.m_primitives, [&](const std::unique_ptr<Primitive>& p) {
      return std::find(bad.begin(), bad.end(), p->name) != bad.end();
    });
  }
  return reg;
}

const Primitive* Registry::find(std::string_view name) const {
  for (const auto& p : m_primitives)
    if (p->name == name)
      return p.get();
  return nullptr;
}

std::optional<std::string> Registry::suggest(std::string_view name) const {
  return closestMatch(name, names());
}

std::vector<std::string> Registry::names() const {
  std::vector<std::string> out;
  for (const auto& p : m_primitives)
    out.push_back(p->name);
  return out;
}

} // namespace cake::reg
