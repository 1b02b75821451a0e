// Deterministic lowering of a checked Cake IR kernel to a thread-level device program plus
// its derived metadata. Lowering refuses what it cannot emit with located findings
// (hw-lowering-unsupported) instead of guessing.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/IR/Kernel.h"
#include "cake/Lower/Metadata.h"
#include "cake/Lower/ThreadProgram.h"
#include "cake/Registry/Registry.h"
#include "cake/Sema/KernelModel.h"
#include "cake/Support/Diagnostic.h"

#include <string>
#include <vector>

namespace cake::lower {

/// Ids of the lowering finding codes (see cake/Support/LowerCodes.def).
enum class LowerId : std::uint16_t {
#define CAKE_LOWER_CODE(id, code, family, severity, title) id,
#include "cake/Support/LowerCodes.def"
#undef CAKE_LOWER_CODE
};

/// Builds a finding of a lowering code with its default family and severity.
Diagnostic makeFinding(LowerId id, SourceRange range, std::string message);
std::string_view code(LowerId id);

struct LoweredKernel {
  Metadata metadata;
  Program program;
  /// Located findings (into the kernel's file) of what lowering could not emit.
  std::vector<Diagnostic> findings;
  /// No blocking finding: `program` is complete.
  bool ok = false;
};

/// The names of the builtin lowering patterns this library implements (its one table), in
/// table order; the registry's reg::builtinPatterns() must list exactly these.
std::vector<std::string> implementedLoweringPatterns();

/// Lowers one kernel. `module` and `model` must come from a check without blocking findings.
/// Pure function of its inputs: the same kernel gives byte-identical programs.
LoweredKernel lowerKernel(const ir::Module& module, const sema::KernelModel& model,
                          const reg::Registry& registry, const SourceManager& sources,
                          const std::string& sourcePath);

} // namespace cake::lower
