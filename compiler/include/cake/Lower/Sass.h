// SASS of a lowered kernel: the cubin (ptxas on the LLVM path's PTX, or nvcc -lineinfo on the
// CUDA export) disassembled by nvdisasm -c -g, the disassembler located at run time (it is not
// part of every CUDA toolkit) and its `//## File "...", line N` line info parsed.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Lower/Toolchain.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cake::lower {

/// Where nvdisasm was looked for and what was found.
struct SassToolSearch {
  std::optional<std::string> path;   ///< the executable, when found
  std::vector<std::string> searched; ///< the places looked at, in order (for the message)
  std::string problem;               ///< a CAKE_NVDISASM that names no executable (empty otherwise)
};

/// Finds nvdisasm, in this order: $CAKE_NVDISASM (the binary or its folder; when set, nothing
/// else is searched), PATH, $CUDA_HOME/bin, /usr/local/cuda/bin, then the `nvidia/cu*/bin`
/// folders of the PyPI package `nvidia-cuda-nvdisasm` in the site-packages of $VIRTUAL_ENV,
/// ~/.venv, ~/.local, /opt/cake/venv, /usr/local and /usr.
SassToolSearch findSassTool();

/// The one-paragraph message for a missing disassembler: what was searched and what to install.
std::string sassToolMissingMessage(const SassToolSearch& search);

/// The source locations nvdisasm -g printed before the instruction on each line of `sass`
/// (0-based lines; empty for lines that are no instruction): the `"file", line N` pairs of the
/// latest `//## File` comment, innermost first (then the `inlined at` ones).
std::vector<std::vector<std::pair<std::string, int>>> parseSassLineInfo(const std::string& sass);

/// The .cake line of each line (0-based) of the CUDA export: its `// L<n>: <op>` provenance
/// comments start an operation's code, which runs to the next such comment or to the end of
/// the enclosing block (less indentation); 0 for lines of no operation.
std::vector<int> cudaIrLines(const std::string& cuda);

/// The .cake line of each line (0-based) of nvdisasm -g output: the first location (innermost
/// first) in the file named `sourcePath` (or with its file name), or in a `.cu` file mapped
/// through `cudaLines` (cudaIrLines of the export that was compiled); 0 when none.
std::vector<int> sassIrLines(const std::string& sass, const std::string& sourcePath,
                             const std::vector<int>* cudaLines = nullptr);

/// What sassEvidence produced.
struct SassResult {
  Evidence compile;          ///< ptxas (LLVM path) or nvcc -lineinfo (CUDA path), resources
  bool disassembled = false; ///< `sass` holds nvdisasm's output
  bool toolMissing = false;  ///< no nvdisasm (the finding says what to install)
  std::string tool;          ///< the disassembler's command line
  std::string sass;
  std::vector<Diagnostic> findings; ///< hw-toolchain-missing / hw-toolchain-error of nvdisasm
  double seconds = 0.0;             ///< compile + disassembly, wall clock
};

/// Compiles `code` (PTX, or CUDA C++ when `viaCuda`) for `target` to a cubin in a private
/// temporary folder and disassembles it with `nvdisasm -c -g`. The compile's report is judged
/// against the IR as ptxasEvidence / nvccEvidence do; tools are killed on ctx.cancel / timeout.
SassResult sassEvidence(const std::string& code, bool viaCuda, const std::string& target,
                        const EvidenceContext& ctx);

} // namespace cake::lower
