// The primitive registry: every primitive file of a directory, validated at load time.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Registry/Primitive.h"
#include "cake/Target/Target.h"

#include <memory>
#include <string>
#include <vector>

namespace cake::reg {

/// One requirement of one primitive (see Primitive::requirements).
struct RequirementRef {
  const Primitive* primitive = nullptr;
  const RequirementDef* requirement = nullptr;
};

class Registry {
public:
  /// Loads `dir/**/*.json` (sorted). A malformed definition gets located def-* findings and is
  /// left out; the others load. `targets` validates every target a primitive names.
  /// `overlay` (a workspace's approved primitives) replaces or adds files (applyOverlay).
  static Registry load(const std::string& dir, const target::TargetSet& targets,
                       SourceManager& sources, DiagnosticEngine& diags,
                       const std::vector<OverlayFile>& overlay = {});
  /// Parses one primitive document (used by load and by tests).
  static std::unique_ptr<Primitive> parse(const std::string& path, FileId file,
                                          const target::TargetSet& targets,
                                          SourceManager& sources, DiagnosticEngine& diags);

  const Primitive* find(std::string_view name) const;
  /// Closest primitive name for "did you mean".
  std::optional<std::string> suggest(std::string_view name) const;
  std::vector<std::string> names() const;
  const std::vector<std::unique_ptr<Primitive>>& all() const { return m_primitives; }
  /// Requirements whose "checked_by" names `code`, in registry order.
  std::vector<RequirementRef> requirementsCheckedBy(std::string_view code) const;
  /// Requirements with the given status, in registry order.
  std::vector<RequirementRef> requirementsWith(RequirementStatus status) const;
  const std::vector<std::pair<std::string, std::string>>& sources() const { return m_sources; }

private:
  std::vector<std::unique_ptr<Primitive>> m_primitives;
  std::vector<std::pair<std::string, std::string>> m_sources;
};

} // namespace cake::reg
