// `cake lower --emit sass` (CliSass.cpp), called by `cake lower` once the kernel is lowered.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "CliSupport.h"

#include "cake/Lower/CudaEmitter.h"
#include "cake/Lower/Lowering.h"
#include "cake/Lower/Toolchain.h"
#include "cake/Support/Json.h"

#include <string>
#include <vector>

namespace cake::cli {

/// What `cake lower --emit sass` has decided by the time it disassembles.
struct SassRequest {
  const driver::CheckResult* check = nullptr;
  const lower::LoweredKernel* lowered = nullptr;
  const lower::Provenance* provenance = nullptr;
  const lower::EvidenceContext* context = nullptr;
  SourceRange targetRange; ///< where tool findings are located
  std::string path, revision, format, output;
  bool viaCuda = false; ///< nvcc -lineinfo on the CUDA export instead of the LLVM path
  int optLevel = 3;
};

/// Compiles, disassembles and writes the SASS (text or JSON); returns the exit code: 0, 1 when
/// a tool is missing or fails (located findings on standard error, or in the JSON), 2 when the
/// output cannot be written.
int emitSass(const SassRequest& request);

/// ptxas's per-entry resource report as JSON objects (name, target, registers, barriers,
/// smem, stack frame, spills), the array `cake lower --evidence` and `--emit sass` share.
void writePtxasEntries(json::Writer& w, const std::vector<lower::PtxasEntry>& entries);

} // namespace cake::cli
