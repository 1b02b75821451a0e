// The CPU device of `cake-run` (the semantic interpreter, docs/workloads.md).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace cake::runner {

/// Makes CPU bundles run on the interpreter, with the data files found from `executable`
/// (`<prefix>/share/cake` when installed, else the source tree).
void installCpuDevice(const std::string& executable);

/// Makes GPU runs of workloads cuBLAS does not check judge their outputs against the contract's
/// reference operator on the host (interp::hostReference).
void installHostOracle(const std::string& executable);

} // namespace cake::runner
