// Rendering of the primitive registry for `cake primitives`.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "CliPrimitives.h"

#include "cake/Interp/Semantics.h"
#include "cake/Registry/Semantics.h"
#include "cake/Support/Json.h"
#include "cake/Support/StringUtil.h"

#include <cstdio>
#include <map>
#include <iostream>

namespace cake::cli {

namespace {

std::string spaces(const reg::OperandDef& o, std::string_view sep = "|") {
  std::vector<std::string> s;
  for (ir::Space sp : o.spaces)
    s.emplace_back(ir::toString(sp));
  return join(s, sep);
}

std::string dtypes(const reg::OperandDef& o, std::string_view sep = "|") {
  std::vector<std::string> s;
  for (ir::DType d : o.dtypes)
    s.emplace_back(ir::toString(d));
  return join(s, sep);
}

std::string issueText(const reg::Primitive& p) {
  if (p.issueAttribute)
    return "attr:" + p.attributes[*p.issueAttribute].name;
  return std::string(reg::toString(p.issue));
}

std::string defaultText(const reg::AttrDef& a) {
  if (!a.defaultValue)
    return a.required ? "required" : "";
  json::Writer w(false);
  w.value(*a.defaultValue);
  return "default " + w.str();
}

std::string effectText(const reg::EffectDef& e) {
  std::string s(reg::toString(e.kind));
  if (!e.operand.empty())
    s += "(" + e.operand + ")";
  std::vector<std::string> parts;
  if (!e.proxy.empty() && e.proxy != "generic")
    parts.push_back("proxy=" + e.proxy);
  if (!e.completion.empty() && e.completion != "sync")
    parts.push_back("completion=" + e.completion);
  if (!e.group.empty())
    parts.push_back("group=" + e.group);
  if (e.bytes)
    parts.push_back("bytes=" + reg::print(*e.bytes));
  if (e.count)
    parts.push_back("count=" + reg::print(*e.count));
  if (e.parity)
    parts.push_back("parity=" + reg::print(*e.parity));
  if (e.pending)
    parts.push_back("pending=" + reg::print(*e.pending));
  if (e.registers)
    parts.push_back("registers=" + reg::print(*e.registers));
  if (e.kind == reg::EffectKind::Fence)
    parts.push_back("scope=" + e.fenceScope);
  if (!parts.empty())
    s += " " + join(parts, " ");
  return s;
}

/// "checked by hw-a, hw-b" / "guaranteed: why" / "NOT CHECKED: why (when ...)".
std::string requirementStatusText(const reg::RequirementDef& r) {
  switch (r.status) {
  case reg::RequirementStatus::Checked:
    return "checked by " + join(r.checkedBy, ", ");
  case reg::RequirementStatus::Guaranteed:
    return "guaranteed: " + r.reason;
  case reg::RequirementStatus::Unchecked:
    return "NOT CHECKED" +
           (r.whenText.empty() ? std::string() : " (relied on when " + r.whenText + ")") + ": " +
           r.reason;
  }
  return {};
}

/// "14 requirements: 10 checked, 2 guaranteed, 2 unchecked".
std::string requirementCounts(const reg::Primitive& p) {
  std::size_t n[3] = {0, 0, 0};
  for (const reg::RequirementDef& r : p.requirements)
    ++n[static_cast<std::size_t>(r.status)];
  return std::to_string(p.requirements.size()) + " requirement(s): " + std::to_string(n[0]) +
         " checked, " + std::to_string(n[1]) + " guaranteed, " + std::to_string(n[2]) +
         " unchecked";
}

void writeTemplate(json::Writer& w, const std::vector<std::string>& lines) {
  w.beginArray();
  for (const std::string& l : lines)
    w.value(l);
  w.endArray();
}

const reg::BuiltinPattern* builtinOf(const reg::Primitive& p) {
  for (const reg::BuiltinPattern& b : reg::builtinPatterns())
    if (p.lowering.strategy == reg::LoweringStrategy::Builtin && b.name == p.lowering.builtin)
      return &b;
  return nullptr;
}

void writeLoweringDetail(json::Writer& w, const reg::Primitive& p) {
  const reg::LoweringDef& low = p.lowering;
  w.key("lowering_detail").beginObject();
  w.key("strategy").value(reg::toString(low.strategy));
  if (const reg::BuiltinPattern* b = builtinOf(p)) {
    w.key("builtin").value(b->name).key("family").value(b->family);
    w.key("why_cxx").value(b->why);
    w.key("uses_template").value(b->needsTemplate);
  }
  if (low.strategy == reg::LoweringStrategy::Template)
    w.key("per").value(reg::toString(low.repeat));
  w.key("ptx");
  writeTemplate(w, low.ptx);
  if (!low.variants.empty()) {
    w.key("variants").beginArray();
    for (const reg::TemplateVariant& v : low.variants) {
      w.beginObject().key("when").value(v.whenText).key("ptx");
      writeTemplate(w, v.body.ptx);
      w.endObject();
    }
    w.endArray();
  }
  if (!low.refusals.empty()) {
    w.key("unsupported").beginArray();
    for (const reg::LoweringRefusal& r : low.refusals)
      w.beginObject().key("when").value(r.whenText).key("message").value(r.message).endObject();
    w.endArray();
  }
  if (low.intrinsic)
    w.key("intrinsic").value(low.intrinsic->name);
  if (!low.steps.empty()) {
    w.key("steps").beginArray();
    for (const reg::ExpansionStep& st : low.steps) {
      w.beginObject().key("primitive").value(st.primitive).key("operands").beginArray();
      for (const std::string& o : st.operandNames)
        w.value(o);
      w.endArray().key("attributes").beginObject();
      for (const auto& [k, v] : st.attributesWritten)
        w.key(k).value(v);
      w.endObject().endObject();
    }
    w.endArray();
  }
  w.key("note").value(low.note);
  w.endObject();
}

std::string loweringText(const reg::Primitive& p) {
  std::string s(reg::toString(p.lowering.strategy));
  if (const reg::BuiltinPattern* b = builtinOf(p))
    s += " '" + std::string(b->name) + "' (" + std::string(b->family) + "): " + std::string(b->why);
  else if (p.lowering.strategy == reg::LoweringStrategy::Template)
    s += " per " + std::string(reg::toString(p.lowering.repeat));
  else
    for (const reg::ExpansionStep& st : p.lowering.steps)
      s += (&st == &p.lowering.steps.front() ? ": " : "; ") + st.primitive + " " +
           join(st.operandNames, ", ");
  return s;
}

void writeJson(json::Writer& w, const reg::Primitive& p) {
  w.beginObject();
  w.key("name").value(p.name);
  w.key("category").value(p.category);
  w.key("summary").value(p.summary);
  w.key("targets").beginArray();
  for (const std::string& t : p.targets)
    w.value(t);
  w.endArray();
  w.key("issue").value(issueText(p));
  w.key("implicit").value(p.implicit);
  w.key("operands").beginArray();
  for (const reg::OperandDef& o : p.operands) {
    w.beginObject();
    w.key("name").value(o.name).key("kind").value(reg::toString(o.kind));
    w.key("spaces").beginArray();
    for (ir::Space sp : o.spaces)
      w.value(ir::toString(sp));
    w.endArray();
    w.key("dtypes").beginArray();
    for (ir::DType d : o.dtypes)
      w.value(ir::toString(d));
    w.endArray();
    w.key("rank");
    if (o.rank)
      w.value(*o.rank);
    else
      w.null();
    w.key("access").value(reg::toString(o.access));
    w.key("optional").value(o.optional);
    w.key("doc").value(o.doc);
    w.endObject();
  }
  w.endArray();
  w.key("attributes").beginArray();
  for (const reg::AttrDef& a : p.attributes) {
    w.beginObject();
    w.key("name").value(a.name).key("type").value(reg::toString(a.type));
    w.key("required").value(a.required);
    w.key("default");
    if (a.defaultValue)
      w.value(*a.defaultValue);
    else
      w.null();
    if (!a.values.empty()) {
      w.key("values").beginArray();
      for (const std::string& v : a.values)
        w.value(v);
      w.endArray();
    }
    if (a.min)
      w.key("min").value(*a.min);
    if (a.max)
      w.key("max").value(*a.max);
    w.key("doc").value(a.doc);
    w.endObject();
  }
  w.endArray();
  w.key("constraints").beginArray();
  for (const reg::ConstraintDef& c : p.constraints) {
    w.beginObject();
    w.key("check").value(c.text).key("code").value(c.code);
    w.key("family").value(toString(c.family)).key("message").value(c.message);
    w.endObject();
  }
  w.endArray();
  w.key("effects").beginArray();
  for (const reg::EffectDef& e : p.effects) {
    w.beginObject();
    w.key("kind").value(reg::toString(e.kind));
    if (!e.operand.empty())
      w.key("operand").value(e.operand);
    if (!e.proxy.empty())
      w.key("proxy").value(e.proxy);
    if (!e.completion.empty())
      w.key("completion").value(e.completion);
    if (!e.group.empty())
      w.key("group").value(e.group);
    if (e.bytes)
      w.key("bytes").value(reg::print(*e.bytes));
    if (e.count)
      w.key("count").value(reg::print(*e.count));
    if (e.parity)
      w.key("parity").value(reg::print(*e.parity));
    if (e.pending)
      w.key("pending").value(reg::print(*e.pending));
    if (e.registers)
      w.key("registers").value(reg::print(*e.registers));
    if (e.kind == reg::EffectKind::Fence)
      w.key("scope").value(e.fenceScope);
    w.endObject();
  }
  w.endArray();
  w.key("requirements").beginArray();
  for (const reg::RequirementDef& r : p.requirements) {
    w.beginObject();
    w.key("id").value(r.id).key("kind").value(r.kind).key("text").value(r.text);
    w.key("ref").value(r.ref).key("status").value(reg::toString(r.status));
    if (r.status == reg::RequirementStatus::Checked) {
      w.key("checked_by").beginArray();
      for (const std::string& c : r.checkedBy)
        w.value(c);
      w.endArray();
    } else {
      w.key("reason").value(r.reason);
    }
    if (!r.whenText.empty())
      w.key("when").value(r.whenText);
    w.endObject();
  }
  w.endArray();
  w.key("hardware").beginObject();
  w.key("ptx").value(p.hardware.ptx).key("min_ptx").value(p.hardware.minPtx);
  w.key("requires").beginArray();
  for (const std::string& f : p.hardware.requires_)
    w.value(f);
  w.endArray();
  w.key("note").value(p.hardware.note);
  w.endObject();
  w.key("cost").beginObject();
  w.key("class").value(p.cost.cls).key("unit").value(p.cost.unit);
  w.key("work").value(p.cost.work ? reg::print(*p.cost.work) : std::string());
  w.key("params").beginArray();
  for (const std::string& s : p.cost.params)
    w.value(s);
  w.endArray();
  w.endObject();
  // The strategy as one word (what a reviewer asks first: does it need C++?), the details apart.
  w.key("lowering").value(reg::toString(p.lowering.strategy));
  writeLoweringDetail(w, p);
  interp::CpuSemanticsInfo cpu = interp::cpuSemantics(p);
  w.key("cpu_semantics").value(interp::toString(cpu.kind));
  if (p.semantics) {
    w.key("semantics").beginObject();
    w.key("elementwise").value(p.semantics->text);
    w.key("dtype").value(ir::toString(p.semantics->dtype));
    w.endObject();
  }
  w.key("path").value(p.path);
  w.endObject();
}

void printText(const reg::Primitive& p, bool detail) {
  std::printf("%-26s %-11s %-9s %s\n", p.name.c_str(), p.category.c_str(), issueText(p).c_str(),
              join(p.targets, ",").c_str());
  if (!detail)
    return;
  std::printf("  %s\n", p.summary.c_str());
  for (const reg::OperandDef& o : p.operands)
    std::printf("  operand %-10s %-9s %-14s %-9s%s%s\n", o.name.c_str(),
                std::string(reg::toString(o.kind)).c_str(), spaces(o).c_str(),
                std::string(reg::toString(o.access)).c_str(), o.optional ? " optional" : "",
                o.dtypes.empty() ? "" : (" dtypes " + dtypes(o)).c_str());
  for (const reg::AttrDef& a : p.attributes)
    std::printf("  attr    %-10s %-9s %s%s\n", a.name.c_str(),
                std::string(reg::toString(a.type)).c_str(), defaultText(a).c_str(),
                a.values.empty() ? "" : (" {" + join(a.values, ", ") + "}").c_str());
  for (const reg::ConstraintDef& c : p.constraints)
    std::printf("  check   %s  [%s]\n", c.text.c_str(), c.code.c_str());
  for (const reg::EffectDef& e : p.effects)
    std::printf("  effect  %s\n", effectText(e).c_str());
  if (!p.requirements.empty()) {
    std::printf("  %s\n", requirementCounts(p).c_str());
    for (const reg::RequirementDef& r : p.requirements) {
      std::printf("  require %-26s %-13s %s\n", r.id.c_str(), r.kind.c_str(), r.text.c_str());
      std::printf("          %s\n          ref: %s\n", requirementStatusText(r).c_str(),
                  r.ref.c_str());
    }
  }
  std::printf("  ptx     %s (PTX ISA %s; needs %s)\n", p.hardware.ptx.c_str(),
              p.hardware.minPtx.c_str(),
              p.hardware.requires_.empty() ? "-" : join(p.hardware.requires_, ", ").c_str());
  std::printf("  cost    %s per %s%s\n", p.cost.cls.c_str(), p.cost.unit.c_str(),
              p.cost.work ? (", work " + reg::print(*p.cost.work)).c_str() : "");
  std::printf("  lower   %s\n", loweringText(p).c_str());
  std::printf("  cpu     %s\n", interp::cpuSemantics(p).text.c_str());
  std::printf("  file    %s\n", p.path.c_str());
}

void printMarkdown(const reg::Primitive& p) {
  std::printf("### `%s`\n\n%s\n\n", p.name.c_str(), p.summary.c_str());
  std::printf("- category: %s; issued per %s; targets: %s%s\n", p.category.c_str(),
              issueText(p).c_str(), join(p.targets, ", ").c_str(),
              p.implicit ? "; **implicit** (derived by lowering)" : "");
  std::printf("- hardware: `%s` (PTX ISA %s). %s\n", p.hardware.ptx.c_str(),
              p.hardware.minPtx.c_str(), p.hardware.note.c_str());
  std::printf("- lowering: %s\n", loweringText(p).c_str());
  if (!p.operands.empty()) {
    std::printf("\n| operand | kind | spaces | dtypes | access | |\n|---|---|---|---|---|---|\n");
    for (const reg::OperandDef& o : p.operands)
      std::printf("| `%s`%s | %s | %s | %s | %s | %s |\n", o.name.c_str(),
                  o.optional ? " (optional)" : "", std::string(reg::toString(o.kind)).c_str(),
                  spaces(o, ", ").c_str(), o.dtypes.empty() ? "any" : dtypes(o, ", ").c_str(),
                  std::string(reg::toString(o.access)).c_str(), o.doc.c_str());
  }
  if (!p.attributes.empty()) {
    std::printf("\n| attribute | type | default | |\n|---|---|---|---|\n");
    for (const reg::AttrDef& a : p.attributes)
      std::printf("| `%s` | %s%s | %s | %s |\n", a.name.c_str(),
                  std::string(reg::toString(a.type)).c_str(),
                  a.values.empty() ? "" : (" {" + join(a.values, ", ") + "}").c_str(),
                  defaultText(a).c_str(), a.doc.c_str());
  }
  if (!p.constraints.empty()) {
    std::printf("\nConstraints:\n");
    for (const reg::ConstraintDef& c : p.constraints)
      std::printf("- `%s` — %s (`%s`)\n", c.text.c_str(), c.message.c_str(), c.code.c_str());
  }
  std::printf("\nEffects:\n");
  for (const reg::EffectDef& e : p.effects)
    std::printf("- `%s`\n", effectText(e).c_str());
  if (!p.requirements.empty()) {
    std::printf(
        "\nHardware requirements (%s):\n\n| requirement | kind | what | enforced | source |\n"
        "|---|---|---|---|---|\n",
        requirementCounts(p).c_str());
    for (const reg::RequirementDef& r : p.requirements)
      std::printf("| `%s` | %s | %s | %s | %s |\n", r.id.c_str(), r.kind.c_str(), r.text.c_str(),
                  requirementStatusText(r).c_str(), r.ref.c_str());
  }
  std::printf("\n");
}

} // namespace

int cmdPrimitives(const std::string& argv0, const std::vector<std::string>& args) {
  std::vector<std::string> names;
  std::string format, target;
  int exitCode = 0;
  auto compiler = loadCompilerFor(argv0, args, names, format, target, exitCode);
  if (!compiler)
    return exitCode;
  std::vector<const reg::Primitive*> selected;
  for (const auto& p : compiler->registry().all())
    if ((names.empty() ||
         std::find(names.begin(), names.end(), p->name) != names.end()) &&
        (target.empty() || p->availableOn(target)))
      selected.push_back(p.get());
  for (const std::string& n : names) {
    if (!compiler->registry().find(n)) {
      std::string msg = "cake primitives: no primitive named '" + n + "'";
      if (auto guess = compiler->registry().suggest(n))
        msg += "; did you mean '" + *guess + "'?";
      std::fprintf(stderr, "%s\n", msg.c_str());
      return 2;
    }
  }
  if (!target.empty() && !compiler->targets().find(target)) {
    std::fprintf(stderr, "cake primitives: unknown target '%s' (known: %s)\n", target.c_str(),
                 join(compiler->targets().names(), ", ").c_str());
    return 2;
  }
  if (format == "json") {
    json::Writer w;
    w.beginObject();
    w.key("compiler_revision").value(compiler->revision());
    w.key("primitives").beginArray();
    std::map<std::string, int> counts{{"template", 0}, {"expansion", 0}, {"builtin", 0}};
    for (const reg::Primitive* p : selected) {
      writeJson(w, *p);
      ++counts[std::string(reg::toString(p->lowering.strategy))];
    }
    w.endArray();
    w.key("lowering_counts").beginObject();
    for (const auto& [k, n] : counts)
      w.key(k).value(static_cast<std::int64_t>(n));
    w.endObject();
    // The explicit list of what still needs C++, and why.
    w.key("builtin_patterns").beginArray();
    for (const reg::BuiltinPattern& b : reg::builtinPatterns())
      w.beginObject()
          .key("name")
          .value(b.name)
          .key("family")
          .value(b.family)
          .key("why_cxx")
          .value(b.why)
          .endObject();
    w.endArray();
    w.endObject();
    std::cout << w.str() << "\n";
    return 0;
  }
  if (format == "md") {
    std::printf("# Cake IR primitives\n\nGenerated by `cake primitives --format md` from the "
                "registry files (compiler revision `%s`).\n\n",
                compiler->revision().c_str());
    for (const reg::Primitive* p : selected)
      printMarkdown(*p);
    return 0;
  }
  if (names.empty())
    std::printf("%-26s %-11s %-9s %s\n", "PRIMITIVE", "CATEGORY", "ISSUE", "TARGETS");
  for (const reg::Primitive* p : selected)
    printText(*p, !names.empty());
  if (names.empty())
    std::printf("%zu primitive(s); 'cake primitives NAME' shows operands, effects, "
                "constraints and hardware requirements\n",
                selected.size());
  return 0;
}

} // namespace cake::cli
