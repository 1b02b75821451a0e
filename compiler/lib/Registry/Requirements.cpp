// The "requirements" table of a primitive definition: every "must" the PTX ISA or the CUDA
// driver API states for the primitive, mapped to the rules that check it, to the reason it
// cannot be violated, or to the reason it is not checked.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Requirements.h"
#include "cake/Registry/Registry.h"

#include "cake/Support/StringUtil.h"

#include <algorithm>
#include <array>

namespace cake::reg {

std::string_view toString(RequirementStatus status) {
  switch (status) {
  case RequirementStatus::Checked:
    return "checked";
  case RequirementStatus::Guaranteed:
    return "guaranteed";
  case RequirementStatus::Unchecked:
    return "unchecked";
  }
  return "?";
}

const RequirementDef* Primitive::requirement(std::string_view reqId) const {
  for (const RequirementDef& r : requirements)
    if (r.id == reqId)
      return &r;
  return nullptr;
}

std::vector<RequirementRef> Registry::requirementsCheckedBy(std::string_view code) const {
  std::vector<RequirementRef> out;
  for (const auto& p : m_primitives)
    for (const RequirementDef& r : p->requirements)
      if (std::find(r.checkedBy.begin(), r.checkedBy.end(), code) != r.checkedBy.end())
        out.push_back({p.get(), &r});
  return out;
}

std::vector<RequirementRef> Registry::requirementsWith(RequirementStatus status) const {
  std::vector<RequirementRef> out;
  for (const auto& p : m_primitives)
    for (const RequirementDef& r : p->requirements)
      if (r.status == status)
        out.push_back({p.get(), &r});
  return out;
}

namespace detail {

namespace {

constexpr std::array<std::string_view, 11> kKinds = {
    "alignment",   "limit",         "shape",     "state-space", "proxy",    "ordering",
    "async-group", "tmem-protocol", "registers", "cluster",     "execution"};

/// Lower-case words joined by single '-' ("global-stride-16").
bool validId(std::string_view id) {
  if (id.empty() || id.front() == '-' || id.back() == '-' || id.find("--") != id.npos)
    return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

} // namespace

std::span<const std::string_view> requirementKinds() {
  return kKinds;
}

bool readRequirements(const json::Value& list, Primitive& prim, const DefScope& scope,
                      std::string_view fileText, DiagnosticEngine& diags) {
  bool ok = true;
  for (std::size_t i = 0; i < list.elements.size(); ++i) {
    const json::Value& v = list.elements[i];
    json::ObjectReader r(v, diags, "requirement #" + std::to_string(i + 1));
    if (!r.isObject()) {
      r.invalid(v, "a requirement is an object with \"id\", \"kind\", \"text\", \"ref\" and one "
                   "of \"checked_by\", \"guaranteed\", \"unchecked\"");
      ok = false;
      continue;
    }
    RequirementDef def;
    def.range = v.range;
    if (auto id = r.string("id", true)) {
      def.id = *id;
      if (!validId(*id))
        r.invalid(*v.get("id"), "requirement ids are lower-case words joined by '-' "
                                "(global-stride-16), found \"" +
                                    *id + "\"");
      for (const RequirementDef& prev : prim.requirements)
        if (prev.id == def.id) {
          Diagnostic* d = diags.report(DiagId::DefDuplicate, v.get("id")->range,
                                       "requirement '" + def.id + "' is listed twice");
          addNote(d, prev.range, "first listed here");
          r.fail();
        }
    }
    def.kind = r.oneOf("kind", kKinds, true).value_or("");
    def.text = r.string("text", true).value_or("");
    def.ref = r.string("ref", true).value_or("");
    for (const char* key : {"text", "ref"})
      if (const json::Value* s = v.get(key); s && s->isString() && s->string.empty())
        r.invalid(*s, std::string("\"") + key + "\" must not be empty");

    const json::Value* checked = r.field("checked_by", json::Kind::Array, false);
    const json::Value* guaranteed = r.field("guaranteed", json::Kind::String, false);
    const json::Value* unchecked = r.field("unchecked", json::Kind::String, false);
    int statuses = (checked ? 1 : 0) + (guaranteed ? 1 : 0) + (unchecked ? 1 : 0);
    if (statuses != 1) {
      diags.report(statuses == 0 ? DiagId::DefMissingField : DiagId::DefInvalidValue,
                   json::headRange(v),
                   "requirement '" + def.id +
                       "' needs exactly one of \"checked_by\" (rule "
                       "codes), \"guaranteed\" (why it cannot be violated) or \"unchecked\" (why "
                       "it is not checked)");
      r.fail();
    } else if (checked) {
      def.status = RequirementStatus::Checked;
      if (checked->elements.empty())
        r.invalid(*checked, "\"checked_by\" must name at least one rule code");
      for (const json::Value& c : checked->elements) {
        if (!c.isString() || !isValidCode(c.string)) {
          r.invalid(c, "\"checked_by\" lists rule codes (hw-tma-box-limit)");
          continue;
        }
        def.checkedBy.push_back(c.string);
        def.checkedByRanges.push_back(c.range);
      }
    } else {
      const json::Value& why = guaranteed ? *guaranteed : *unchecked;
      def.status = guaranteed ? RequirementStatus::Guaranteed : RequirementStatus::Unchecked;
      def.reason = why.string;
      if (def.reason.empty())
        r.invalid(why, std::string("\"") + (guaranteed ? "guaranteed" : "unchecked") +
                           "\" must say why");
    }
    if (const json::Value* when = r.field("when", json::Kind::String, false)) {
      if (def.status != RequirementStatus::Unchecked || statuses != 1) {
        r.invalid(*when, "\"when\" says when an operation relies on an unchecked requirement; "
                         "only \"unchecked\" requirements take it");
      } else {
        def.whenText = when->string;
        def.when = parseDefExprString(fileText, *when, scope, diags, false);
        if (!def.when)
          r.fail();
      }
    }
    r.finish();
    if (!r.ok()) {
      ok = false;
      continue;
    }
    prim.requirements.push_back(std::move(def));
  }
  return ok;
}

} // namespace detail
} // namespace cake::reg
