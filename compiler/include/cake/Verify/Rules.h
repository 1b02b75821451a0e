// The rule registry: every finding code with its family, default severity, documentation (a
// paragraph, a bad and a good example) and the analysis behind it, loaded from
// compiler/rules/**.json. Pattern rules are executable data: a match over operations or
// declarations and a required condition, so an approved rule needs no rebuild.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/IR/Kernel.h"
#include "cake/Registry/Registry.h"
#include "cake/Support/Diagnostic.h"

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace cake::verify {

/// Codes implemented by the verifier (see VerifyCodes.def).
enum class VerifyId : std::uint16_t {
#define CAKE_VERIFY_CODE(id, code, analysis) id,
#include "cake/Verify/VerifyCodes.def"
#undef CAKE_VERIFY_CODE
};

struct VerifyCodeInfo {
  VerifyId id;
  std::string_view code;
  std::string_view analysis;
};
const VerifyCodeInfo& info(VerifyId id);
std::span<const VerifyCodeInfo> allVerifyCodes();

enum class RuleKind : std::uint8_t {
  Builtin,    ///< reported by compiler code (parser, checker, an analysis)
  Constraint, ///< reported by primitive constraints of the registry
  Pattern,    ///< executable data: match + require
};
std::string_view toString(RuleKind kind);

enum class MatchTarget : std::uint8_t {
  Primitives,  ///< each operation of the listed primitives; operands/attributes by name
  Operand,     ///< each operand (bound to `x`) of any operation, filtered by space
  Declaration, ///< each declaration of one kind (bound to `x`; staged buffers: one stage)
};

struct PatternRule {
  MatchTarget target = MatchTarget::Primitives;
  std::vector<std::string> primitives;
  std::vector<ir::Space> spaces;
  bool swizzledOnly = false;
  std::string declaration; ///< smem | tmem | reg | param | tensormap
  std::string require;     ///< the condition as written
  std::map<std::string, reg::DefExpr, std::less<>> perPrimitive;
  std::optional<reg::DefExpr> condition; ///< Operand and Declaration targets (scope: x)
  std::string message;
};

struct Rule {
  std::string code;
  Family family = Family::ProgramSafety;
  Severity severity = Severity::Blocking;
  std::string title;
  std::string doc;
  std::string bad;
  std::string good;
  std::string analysis;
  RuleKind kind = RuleKind::Builtin;
  std::optional<PatternRule> pattern;
  std::string path;
  FileId file = 0;
  SourceRange codeRange;
};

class RuleSet {
public:
  /// Loads every rule file under `dir` and cross-checks them against the codes the compiler
  /// implements and the constraint codes of `registry`: a reportable code without
  /// documentation, or a builtin rule nobody reports, is a def-* finding.
  /// `overlay` (a workspace's approved rules) replaces or adds files (applyOverlay).
  static RuleSet load(const std::string& dir, const reg::Registry& registry, SourceManager& sources,
                      DiagnosticEngine& diags, const std::vector<OverlayFile>& overlay = {});

  const Rule* find(std::string_view code) const;
  const std::vector<std::unique_ptr<Rule>>& all() const { return m_rules; }
  std::vector<const Rule*> patterns() const;
  const std::vector<std::pair<std::string, std::string>>& sources() const { return m_sources; }

private:
  std::vector<std::unique_ptr<Rule>> m_rules;
  std::map<std::string, std::size_t, std::less<>> m_index;
  std::vector<std::pair<std::string, std::string>> m_sources;
};

} // namespace cake::verify
