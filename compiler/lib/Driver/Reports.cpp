// Check-result JSON and rule documentation shared by `cake check`, `cake explain` and the
// workbench's findings panel (copy as JSON, Explain).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Driver/Reports.h"

#include "cake/Driver/Output.h"
#include "cake/Support/StringUtil.h"

#include <algorithm>

namespace cake::driver {

void writeCheckFileJson(json::Writer& w, const std::string& path, const CheckResult& r,
                        std::size_t omitted, const std::vector<std::size_t>* findings) {
  w.beginObject();
  w.key("path").value(path);
  w.key("kernel").value(r.module.kernel ? r.module.kernel->name.name : std::string());
  w.key("target").value(r.module.kernel ? r.module.kernel->target() : std::string());
  w.key("accepted").value(r.accepted);
  w.key("findings").beginArray();
  if (findings) {
    for (std::size_t i : *findings)
      if (i < r.diagnostics.size())
        writeJson(w, r.diagnostics[i], *r.sources);
  } else {
    for (const Diagnostic& d : r.diagnostics)
      writeJson(w, d, *r.sources);
  }
  w.endArray();
  w.key("omitted").value(static_cast<std::uint64_t>(omitted));
  w.endObject();
}

std::string checkJson(const Compiler& compiler, const std::string& path, const CheckResult& result,
                      const std::vector<std::size_t>* findings) {
  json::Writer w;
  w.beginObject();
  w.key("compiler_revision").value(compiler.revision());
  w.key("files").beginArray();
  writeCheckFileJson(w, path, result, result.dropped, findings);
  w.endArray();
  w.endObject();
  return w.take();
}

std::vector<reg::RequirementRef> requirementsOf(const reg::Registry& registry,
                                                const verify::Rule& rule) {
  if (rule.code == verify::info(verify::VerifyId::UncheckedRequirement).code)
    return registry.requirementsWith(reg::RequirementStatus::Unchecked);
  return registry.requirementsCheckedBy(rule.code);
}

void writeRuleJson(json::Writer& w, const verify::Rule& r, const reg::Registry* registry) {
  w.beginObject();
  w.key("code").value(r.code);
  w.key("family").value(toString(r.family));
  w.key("severity").value(toString(r.severity));
  w.key("title").value(r.title);
  w.key("doc").value(r.doc);
  w.key("bad").value(r.bad);
  w.key("good").value(r.good);
  w.key("analysis").value(r.analysis);
  w.key("kind").value(verify::toString(r.kind));
  if (r.pattern) {
    w.key("require").value(r.pattern->require);
    w.key("message").value(r.pattern->message);
  }
  if (registry) {
    w.key("requirements").beginArray();
    for (const reg::RequirementRef& ref : requirementsOf(*registry, r)) {
      w.beginObject();
      w.key("primitive").value(ref.primitive->name);
      w.key("id").value(ref.requirement->id);
      w.key("kind").value(ref.requirement->kind);
      w.key("status").value(reg::toString(ref.requirement->status));
      w.key("text").value(ref.requirement->text);
      w.key("ref").value(ref.requirement->ref);
      if (!ref.requirement->reason.empty())
        w.key("reason").value(ref.requirement->reason);
      w.endObject();
    }
    w.endArray();
  }
  w.key("path").value(r.path);
  w.endObject();
}

namespace {
void indent(std::string& out, const std::string& text, const char* prefix) {
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string::npos)
      eol = text.size();
    out += prefix;
    out += text.substr(pos, eol - pos);
    out += '\n';
    pos = eol + 1;
  }
}
} // namespace

std::string explainText(const Compiler& compiler, const verify::Rule& rule) {
  std::string out = rule.code + "  (" + std::string(toString(rule.family)) + ", " +
                    std::string(toString(rule.severity)) + "; analysis: " + rule.analysis + "; " +
                    std::string(verify::toString(rule.kind)) + " rule)\n  " + rule.title + "\n\n";
  indent(out, rule.doc, "  ");
  out += "\n  Bad:\n";
  indent(out, rule.bad, "    ");
  out += "\n  Good:\n";
  indent(out, rule.good, "    ");
  if (rule.pattern)
    out += "\n  Pattern: " + rule.pattern->require + "\n";
  // Primitive constraints that report this code.
  std::vector<std::string> prims;
  for (const auto& p : compiler.registry().all())
    for (const reg::ConstraintDef& c : p->constraints)
      if (c.code == rule.code && std::find(prims.begin(), prims.end(), p->name) == prims.end())
        prims.push_back(p->name);
  if (!prims.empty())
    out += "\n  Reported by primitive constraints of: " + join(prims, ", ") + "\n";
  // Hardware requirements of primitives this rule accounts for (their "requirements" tables).
  std::vector<reg::RequirementRef> reqs = requirementsOf(compiler.registry(), rule);
  if (!reqs.empty()) {
    bool gaps = reqs.front().requirement->status == reg::RequirementStatus::Unchecked;
    out += "\n  " +
           std::string(gaps ? "Requirements no rule checks" : "Checks these requirements") + " (" +
           std::to_string(reqs.size()) + "):\n";
    for (const reg::RequirementRef& ref : reqs) {
      out += "    " + ref.primitive->name + "/" + ref.requirement->id + ": " +
             ref.requirement->text + "\n";
      if (gaps)
        out +=
            "      not checked: " + ref.requirement->reason +
            (ref.requirement->whenText.empty() ? "" : " (when " + ref.requirement->whenText + ")") +
            "\n";
    }
  }
  return out;
}

} // namespace cake::driver
