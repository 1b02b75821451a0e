// libFuzzer target: arbitrary bytes as one data document of the compiler.
//  - as a primitive definition through cake::reg::Registry::parse (validated against the real
//    targets of compiler/targets, loaded once);
//  - as a target definition through cake::target::TargetSet::parse.
// Malformed input must only produce located def-* findings: no crash, hang or sanitizer report.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Driver/Compiler.h"
#include "cake/Registry/Registry.h"
#include "cake/Support/Diagnostic.h"
#include "cake/Support/SourceManager.h"
#include "cake/Target/Target.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

namespace {

const cake::SourceManager* g_baseSources = nullptr;
const cake::target::TargetSet* g_targets = nullptr;

void checkFindings(const char* what, const cake::SourceManager& sources,
                   const cake::DiagnosticEngine& diags, bool parsed) {
  for (const cake::Diagnostic& d : diags.diagnostics()) {
    if (d.range.valid() && !sources.contains(d.range.file)) {
      std::fprintf(stderr, "fuzz_registry: %s finding in an unknown buffer: %s: %s\n", what,
                   d.code.c_str(), d.message.c_str());
      std::abort();
    }
  }
  // A refused document must say why.
  if (!parsed && diags.diagnostics().empty() && diags.dropped() == 0) {
    std::fprintf(stderr, "fuzz_registry: %s document refused without a finding\n", what);
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  static cake::SourceManager base;
  static cake::target::TargetSet targets;
  cake::DiagnosticEngine diags;
  const cake::driver::DataPaths paths = cake::driver::defaultDataPaths("");
  targets = cake::target::TargetSet::load(paths.targets, base, diags);
  if (targets.all().empty() || diags.hasBlocking()) {
    std::fprintf(stderr, "fuzz_registry: the targets in %s do not load\n", paths.targets.c_str());
    for (const cake::Diagnostic& d : diags.diagnostics())
      std::fprintf(stderr, "  %s: %s\n", d.code.c_str(), d.message.c_str());
    std::abort();
  }
  g_baseSources = &base;
  g_targets = &targets;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  {
    cake::SourceManager sources(g_baseSources);
    cake::FileId file = sources.addBuffer("fuzz/primitive.json", text);
    cake::DiagnosticEngine diags;
    auto prim = cake::reg::Registry::parse("fuzz/primitive.json", file, *g_targets, sources, diags);
    checkFindings("primitive", sources, diags, prim != nullptr);
  }
  {
    cake::SourceManager sources(g_baseSources);
    cake::FileId file = sources.addBuffer("fuzz/target.json", text);
    cake::DiagnosticEngine diags;
    auto target = cake::target::TargetSet::parse("fuzz/target.json", file, sources, diags);
    checkFindings("target", sources, diags, target != nullptr);
  }
  return 0;
}
