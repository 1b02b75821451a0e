// The in-process LLVM path: builds an NVPTX module (ptx_kernel, NVVM intrinsics where LLVM 19
// has them, inline PTX otherwise) from the thread-level program, optimises it at O3 and emits
// PTX with `.loc` lines that point into the `.cake` source. A plain C++ API: LLVM headers stay
// inside this library. One LLVMContext and TargetMachine per call, the NVPTX target initialised
// once, no global cl::opt changes: safe to run concurrently in background jobs.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Lower/ThreadProgram.h"

#include <string>

namespace cake::lower {

struct LlvmOptions {
  int optLevel = 3;
  bool debugInfo = true; ///< `.loc` / `.file` directives mapping PTX back to the .cake source
  bool wantIr = false;   ///< keep the (optimised) LLVM IR text
  bool wantPtx = true;
};

struct LlvmResult {
  bool ok = false;
  std::string error;
  std::string ir;
  std::string ptx;
  double buildSeconds = 0, optSeconds = 0, codegenSeconds = 0;
};

/// Targets LLVM 19's NVPTX back end can emit for this compiler: sm_80 and sm_90a.
bool llvmSupportsTarget(const std::string& target);
/// The PTX ISA version this path asks LLVM for on `target` (e.g. "8.0").
std::string llvmPtxVersion(const std::string& target);
/// LLVM's version string.
std::string llvmVersion();

LlvmResult emitLlvm(const Program& program, const LlvmOptions& options);

} // namespace cake::lower
