// Shared set-up of the benchmarks: the compiler loaded once from the default data directories,
// and the bundled corpus manifest read once (both outside any timing).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Driver/Compiler.h"
#include "cake/Driver/Manifest.h"

#include <memory>
#include <optional>

#ifndef CAKE_CORPUS_DIR
#define CAKE_CORPUS_DIR "corpus"
#endif

namespace cake::bench {

/// The compiler with the default data (loaded on first use, then shared).
inline const driver::Compiler& compiler() {
  static std::unique_ptr<driver::Compiler> c = driver::Compiler::load(driver::defaultDataPaths(""));
  return *c;
}

/// The corpus manifest (CAKE_CORPUS_DIR, read on first use); null when it does not load.
inline const driver::Manifest* manifest() {
  static std::optional<driver::Manifest> m = [] {
    SourceManager sources;
    DiagnosticEngine diags;
    return driver::loadManifest(CAKE_CORPUS_DIR, sources, diags);
  }();
  return m ? &*m : nullptr;
}

} // namespace cake::bench
