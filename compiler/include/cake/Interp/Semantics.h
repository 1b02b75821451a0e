// Which primitives the CPU interpreter can execute, and from where their semantics come: C++
// (the built-in operations), a template primitive's semantic form, or an expansion's steps.
// Shown by `cake primitives`, the proposal review and the workbench's Proposals dock.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Registry/Primitive.h"

#include <set>
#include <string>
#include <string_view>

namespace cake::interp {

enum class CpuSemantics : std::uint8_t {
  Builtin,      ///< executed by the interpreter's C++ (MachineOps.cpp)
  SemanticForm, ///< the primitive's "semantics" section, evaluated per element
  Expansion,    ///< its expansion's steps, each with CPU semantics of its own
  None,         ///< a run reaching it stops with hw-no-cpu-semantics
};
/// "builtin", "semantic form", "expansion", "none".
std::string_view toString(CpuSemantics kind);

struct CpuSemanticsInfo {
  CpuSemantics kind = CpuSemantics::None;
  /// None for an expansion: the (possibly nested) step primitive that has no semantics.
  std::string missing;
  /// A one-line description: "semantic form: dst = exp2(src) (f32)", "expansion: ew.binary,
  /// frag.exp2", "none: step 'frag.foo' has no CPU semantics".
  std::string text;
};

/// The names the interpreter's C++ executes (memory ordering no-ops included).
const std::set<std::string, std::less<>>& builtinCpuSemantics();

/// How the interpreter runs `prim` (attribute-dependent refusals such as `ldmatrix trans=true`
/// aside, which are findings at run time).
CpuSemanticsInfo cpuSemantics(const reg::Primitive& prim);

} // namespace cake::interp
