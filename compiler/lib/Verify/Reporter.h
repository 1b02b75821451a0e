// Emits verifier findings with the family and severity of their rule (data), once per
// location: unrolled analyses visit an operation many times but report it once.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/IR/Kernel.h"
#include "cake/Verify/Rules.h"

#include <set>
#include <string>
#include <tuple>

namespace cake::verify::detail {

class Reporter {
public:
  Reporter(const RuleSet& rules, DiagnosticEngine& diags, const ir::SourceMap& map)
      : m_rules(rules), m_diags(diags), m_map(map) {}

  /// Reports unless the same code was already reported at the same place with the same key.
  Diagnostic* report(VerifyId id, SourceRange range, std::string message, std::string key = {}) {
    std::string_view code = info(id).code;
    auto k = std::make_tuple(std::string(code), range.file, range.begin, std::move(key));
    if (!m_seen.insert(k).second)
      return nullptr;
    Diagnostic d;
    d.code = std::string(code);
    if (const Rule* rule = m_rules.find(code)) {
      d.family = rule->family;
      d.severity = rule->severity;
    } else {
      d.family = Family::ProgramSafety;
      d.severity = Severity::Blocking;
    }
    d.range = range;
    d.message = std::move(message);
    return withBinding(m_diags.report(std::move(d)));
  }
  /// Reports a finding of a data rule (pattern rules carry their own code).
  Diagnostic* reportRule(const Rule& rule, SourceRange range, std::string message,
                         std::string key = {}) {
    auto k = std::make_tuple(rule.code, range.file, range.begin, std::move(key));
    if (!m_seen.insert(k).second)
      return nullptr;
    Diagnostic d;
    d.code = rule.code;
    d.family = rule.family;
    d.severity = rule.severity;
    d.range = range;
    d.message = std::move(message);
    return withBinding(m_diags.report(std::move(d)));
  }
  Diagnostic* report(VerifyId id, ir::NodeId node, std::string message, std::string key = {}) {
    return report(id, m_map.range(node), std::move(message), std::move(key));
  }
  bool reportedCode(VerifyId id) const {
    std::string code(info(id).code);
    for (const auto& k : m_seen)
      if (std::get<0>(k) == code)
        return true;
    return false;
  }
  const ir::SourceMap& map() const { return m_map; }
  SourceRange range(ir::NodeId node) const { return m_map.range(node); }
  const RuleSet& rules() const { return m_rules; }
  DiagnosticEngine& diags() { return m_diags; }
  /// Run-time scalar parameters: while the verifier simulates a value other than the bound
  /// one, every finding says which ("with kv_len = 65") in its message and in a note at the
  /// parameter's declaration (docs/ir.md "Run-time scalar parameters"). Empty text: none.
  void setBinding(std::string text, SourceRange decl) {
    m_binding = std::move(text);
    m_bindingDecl = decl;
  }

private:
  Diagnostic* withBinding(Diagnostic* d) {
    if (d && !m_binding.empty()) {
      d->message += " (with " + m_binding + ")";
      addNote(d, m_bindingDecl,
              "found with " + m_binding +
                  ": one of the values of the launch contract range the verifier simulates");
    }
    return d;
  }
  std::string m_binding;
  SourceRange m_bindingDecl;
  const RuleSet& m_rules;
  DiagnosticEngine& m_diags;
  const ir::SourceMap& m_map;
  std::set<std::tuple<std::string, FileId, std::uint32_t, std::string>> m_seen;
};

} // namespace cake::verify::detail
