// Resolution of expansion lowerings once every primitive file is loaded: each step names a known
// primitive available on every target, with operands and attributes that fit, effects the
// expanded primitive states, and no cycle.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "LoweringReader.h"
#include "cake/Support/StringUtil.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace cake::reg::detail {

namespace {

/// Whether literal `v` is a value of attribute `def`'s type (and within its bounds).
std::optional<std::string> literalProblem(const AttrDef& def, const json::Value& v) {
  switch (def.type) {
  case AttrType::Int:
    if (!v.integer)
      return "an integer";
    if ((def.min && *v.integer < *def.min) || (def.max && *v.integer > *def.max))
      return "an integer within the attribute's bounds";
    return std::nullopt;
  case AttrType::Float:
    return v.isNumber() ? std::nullopt : std::optional<std::string>("a number");
  case AttrType::Bool:
    return v.isBool() ? std::nullopt : std::optional<std::string>("true or false");
  case AttrType::Enum:
    if (v.isString() &&
        std::find(def.values.begin(), def.values.end(), v.string) != def.values.end())
      return std::nullopt;
    return "one of " + join(def.values, ", ");
  case AttrType::DType:
    return v.isString() && ir::parseDType(v.string) ? std::nullopt
                                                    : std::optional<std::string>("a data type");
  case AttrType::IntList:
    return v.isArray() ? std::nullopt : std::optional<std::string>("a list of integers");
  case AttrType::Expr:
    return v.integer ? std::nullopt
                     : std::optional<std::string>("an integer or the expanded primitive's "
                                                  "expression attribute");
  case AttrType::String:
    return v.isString() ? std::nullopt : std::optional<std::string>("a string");
  }
  return std::nullopt;
}

/// Resolves one step; `written` holds the operands earlier steps wrote (an expansion may read
/// back its own intermediate result from a write-only operand).
bool resolveStep(const Primitive& prim, ExpansionStep& step,
                 const std::vector<std::unique_ptr<Primitive>>& prims,
                 std::set<std::size_t>& written, DiagnosticEngine& diags) {
  step.resolved = nullptr;
  step.attributes.clear();
  const Primitive* target = nullptr;
  std::vector<std::string> names;
  for (const auto& p : prims) {
    names.push_back(p->name);
    if (p->name == step.primitive)
      target = p.get();
  }
  if (!target) {
    Diagnostic* d = diags.report(DiagId::DefInvalidValue, step.range,
                                 "expansion step names primitive '" + step.primitive +
                                     "', which the registry lacks");
    if (auto guess = closestMatch(step.primitive, names))
      setFix(d, "did you mean '" + *guess + "'?");
    return false;
  }
  bool ok = true;
  auto fail = [&](const std::string& msg) {
    Diagnostic* d = diags.report(DiagId::DefInvalidValue, step.range,
                                 "expansion step '" + step.primitive + "': " + msg);
    addNote(d, target->nameRange, "'" + target->name + "' is defined here");
    ok = false;
  };
  for (const std::string& t : prim.targets)
    if (!target->availableOn(t))
      fail("'" + target->name + "' does not exist on " + t + ", a target of '" + prim.name + "'");
  if (step.operands.size() < target->requiredOperandCount() ||
      step.operands.size() > target->operands.size())
    fail("'" + target->name + "' takes " + std::to_string(target->requiredOperandCount()) +
         (target->requiredOperandCount() == target->operands.size()
              ? std::string()
              : " to " + std::to_string(target->operands.size())) +
         " operands, the step passes " + std::to_string(step.operands.size()));
  for (std::size_t k = 0; k < step.operands.size() && k < target->operands.size(); ++k) {
    const OperandDef& outer = prim.operands[step.operands[k]];
    const OperandDef& inner = target->operands[k];
    if (outer.kind != inner.kind) {
      fail("operand '" + outer.name + "' is a " + std::string(toString(outer.kind)) + ", '" +
           inner.name + "' of '" + target->name + "' a " + std::string(toString(inner.kind)));
      continue;
    }
    for (ir::Space sp : outer.spaces)
      if (std::find(inner.spaces.begin(), inner.spaces.end(), sp) == inner.spaces.end())
        fail("operand '" + outer.name + "' may be in " + std::string(ir::toString(sp)) +
             ", which '" + inner.name + "' of '" + target->name + "' does not accept");
    bool innerWrites = inner.access == Access::Write || inner.access == Access::ReadWrite;
    bool outerWrites = outer.access == Access::Write || outer.access == Access::ReadWrite;
    bool innerReads = inner.access == Access::Read || inner.access == Access::ReadWrite;
    bool outerReads = outer.access == Access::Read || outer.access == Access::ReadWrite;
    if ((innerWrites && !outerWrites) ||
        (innerReads && !outerReads && !written.count(step.operands[k])))
      fail("'" + inner.name + "' of '" + target->name + "' is " +
           std::string(toString(inner.access)) + ", but '" + outer.name + "' is declared " +
           std::string(toString(outer.access)) + " (the analyses would not see the access)");
  }
  // The analyses read the expanded primitive's own effects: they must state everything the
  // steps do (a read of the expansion's own intermediate result aside).
  for (const EffectDef& e : target->effects) {
    std::optional<std::size_t> outer;
    if (e.operandIndex) {
      if (*e.operandIndex >= step.operands.size())
        continue; // an optional operand the step does not pass
      outer = step.operands[*e.operandIndex];
    }
    if (e.kind == EffectKind::Read && outer && written.count(*outer))
      continue;
    bool stated = std::any_of(prim.effects.begin(), prim.effects.end(), [&](const EffectDef& o) {
      return o.kind == e.kind && o.operandIndex == outer && o.group == e.group &&
             (e.kind != EffectKind::Fence || o.proxy == e.proxy);
    });
    if (!stated)
      fail("its effect '" + std::string(toString(e.kind)) + "'" +
           (outer ? " on '" + prim.operands[*outer].name + "'" : std::string()) +
           (e.group.empty() ? std::string() : " (group " + e.group + ")") +
           " is not among the "
           "effects of '" +
           prim.name + "', which the analyses read");
  }
  for (std::size_t k = 0; k < step.operands.size() && k < target->operands.size(); ++k)
    if (target->operands[k].access == Access::Write ||
        target->operands[k].access == Access::ReadWrite)
      written.insert(step.operands[k]);
  std::vector<bool> given(target->attributes.size(), false);
  for (const auto& [key, value] : step.attributesWritten) {
    auto idx = target->attributeIndex(key);
    if (!idx) {
      std::vector<std::string> known;
      for (const AttrDef& a : target->attributes)
        known.push_back(a.name);
      fail("'" + target->name + "' has no attribute '" + key + "'" +
           (known.empty() ? std::string() : " (known: " + join(known, ", ") + ")"));
      continue;
    }
    given[*idx] = true;
    const AttrDef& def = target->attributes[*idx];
    ExpansionStep::Attr a;
    a.index = *idx;
    if (value.isString() && value.string.size() > 2 && value.string.front() == '{' &&
        value.string.back() == '}') {
      std::string from = value.string.substr(1, value.string.size() - 2);
      auto outer = prim.attributeIndex(from);
      if (!outer) {
        fail("attribute '" + key + "' substitutes '" + from + "', which '" + prim.name +
             "' does not have");
        continue;
      }
      const AttrDef& od = prim.attributes[*outer];
      bool values = def.type != AttrType::Enum ||
                    std::all_of(od.values.begin(), od.values.end(), [&](const std::string& x) {
                      return std::find(def.values.begin(), def.values.end(), x) != def.values.end();
                    });
      if (od.type != def.type || !values) {
        fail("attribute '" + key + "' of type " + std::string(toString(def.type)) +
             " cannot take '" + from + "' (" + std::string(toString(od.type)) +
             (values ? "" : " with other values") + ")");
        continue;
      }
      a.fromAttr = *outer;
    } else if (auto problem = literalProblem(def, value)) {
      fail("attribute '" + key + "' must be " + *problem);
      continue;
    } else {
      a.literal = value;
    }
    step.attributes.push_back(std::move(a));
  }
  for (std::size_t i = 0; i < target->attributes.size(); ++i)
    if (target->attributes[i].required && !given[i])
      fail("required attribute '" + target->attributes[i].name + "' of '" + target->name +
           "' is not given");
  if (target->implicit)
    fail("'" + target->name + "' is implicit (derived by lowering, never written)");
  if (ok)
    step.resolved = target;
  return ok;
}

} // namespace

std::vector<std::string> resolveExpansions(const std::vector<std::unique_ptr<Primitive>>& prims,
                                           DiagnosticEngine& diags) {
  std::set<std::string> bad;
  for (const auto& p : prims) {
    if (p->lowering.strategy != LoweringStrategy::Expansion)
      continue;
    std::set<std::size_t> written;
    for (ExpansionStep& step : p->lowering.steps)
      if (!resolveStep(*p, step, prims, written, diags))
        bad.insert(p->name);
  }
  // A cycle of expansions would never finish lowering: refuse every primitive on it.
  std::map<const Primitive*, int> state; // 1 visiting, 2 done
  std::function<bool(const Primitive*)> cyclic = [&](const Primitive* p) {
    int& s = state[p];
    if (s == 1)
      return true;
    if (s == 2)
      return false;
    s = 1;
    bool found = false;
    for (const ExpansionStep& step : p->lowering.steps)
      if (step.resolved && step.resolved->lowering.strategy == LoweringStrategy::Expansion &&
          cyclic(step.resolved))
        found = true;
    state[p] = 2;
    return found;
  };
  for (const auto& p : prims) {
    if (p->lowering.strategy != LoweringStrategy::Expansion || bad.count(p->name))
      continue;
    state.clear();
    if (cyclic(p.get())) {
      diags.report(DiagId::DefInvalidValue, p->lowering.range,
                   "the expansion of '" + p->name +
                       "' reaches itself again (a cycle of "
                       "expansions never finishes lowering)");
      bad.insert(p->name);
    }
  }
  // A step resolved to a primitive that is itself refused cannot be lowered either.
  return {bad.begin(), bad.end()};
}

} // namespace cake::reg::detail
