// CUDA C++ export of a lowered kernel: readable device code with inline PTX, a provenance
// header, named constants for the derived metadata and a fail-closed host launch function that
// builds the TMA tensor maps. Works for every target (including sm_100a, which the LLVM path
// cannot emit).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Lower/Metadata.h"
#include "cake/Lower/ThreadProgram.h"

#include <string>

namespace cake::lower {

/// Where the generated file comes from (printed in its header).
struct Provenance {
  std::string sourcePath;
  std::string compilerVersion;
  std::string compilerRevision;
};

/// The complete `.cu` file. Deterministic: equal inputs give byte-identical text.
std::string emitCuda(const Program& program, const Metadata& metadata, const Provenance& prov);

/// nvcc architecture flags for an exact target, e.g. `-gencode arch=compute_90a,code=sm_90a`.
std::string nvccGencode(const std::string& target);

} // namespace cake::lower
