// libFuzzer target: arbitrary bytes as a .cake file.
//  1. The whole front end (parse + type check) through Compiler::check must not crash, hang or
//     trip a sanitizer, and every finding it returns must be located in a registered buffer.
//  2. When the file parses without any finding, the canonical printer must round-trip:
//     print(parse(print(x))) == print(x), the reprinted text parses cleanly, and the reparsed
//     kernel is structurally equal to the first one (the contract of cake/IR/Printer.h).
// Linked with CakeMutator.cpp, a structure-aware LLVMFuzzerCustomMutator (operator chains of
// thousands of terms, deep nesting, huge literals, shuffled statements, renamed identifiers).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Driver/Compiler.h"
#include "cake/IR/Printer.h"
#include "cake/Parse/Parser.h"
#include "cake/Support/Diagnostic.h"
#include "cake/Support/SourceManager.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

namespace {

const cake::driver::Compiler* g_compiler = nullptr;

[[noreturn]] void fail(const char* what, const std::string& a, const std::string& b = {}) {
  std::fprintf(stderr, "\n==== fuzz_parse: %s ====\n", what);
  if (!a.empty())
    std::fprintf(stderr, "---- first ----\n%s\n", a.c_str());
  if (!b.empty())
    std::fprintf(stderr, "---- second ----\n%s\n", b.c_str());
  std::abort();
}

std::string firstFinding(const cake::SourceManager& sources,
                         const std::vector<cake::Diagnostic>& diags) {
  if (diags.empty())
    return {};
  const cake::Diagnostic& d = diags.front();
  std::string where;
  if (d.range.valid() && sources.contains(d.range.file)) {
    cake::LineColumn lc = sources.lineColumn(d.range.file, d.range.begin);
    where = std::to_string(lc.line) + ":" + std::to_string(lc.column) + ": ";
  }
  return where + d.code + ": " + d.message;
}

struct Parsed {
  std::unique_ptr<cake::SourceManager> sources;
  cake::ir::Module module;
  std::vector<cake::Diagnostic> diagnostics;
};

Parsed parseText(const std::string& text) {
  Parsed p;
  p.sources = std::make_unique<cake::SourceManager>();
  cake::FileId file = p.sources->addBuffer("fuzz.cake", text);
  cake::DiagnosticEngine diags;
  p.module = cake::parseModule(*p.sources, file, diags);
  p.diagnostics = diags.take();
  return p;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Empty executable path: the data of the source tree this binary was built from.
  static std::unique_ptr<cake::driver::Compiler> compiler =
      cake::driver::Compiler::load(cake::driver::defaultDataPaths(""));
  if (!compiler->ok()) {
    std::fprintf(stderr, "fuzz_parse: the compiler data does not load (primitives: %s)\n",
                 compiler->paths().primitives.c_str());
    for (const cake::Diagnostic& d : compiler->loadDiagnostics())
      std::fprintf(stderr, "  %s: %s\n", d.code.c_str(), d.message.c_str());
    std::abort();
  }
  g_compiler = compiler.get();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);

  // 1. The full front end.
  cake::driver::CheckResult result = g_compiler->check("fuzz.cake", text);
  for (const cake::Diagnostic& d : result.diagnostics) {
    if (d.range.valid() && !result.sources->contains(d.range.file))
      fail("finding located in an unknown buffer", d.code + ": " + d.message);
    if (d.range.valid() && d.range.end < d.range.begin)
      fail("finding with an inverted range", d.code + ": " + d.message);
  }
  if (result.accepted && !result.module.kernel)
    fail("a file without a kernel was accepted", text);

  // 2. Printer round trip on cleanly parsed input.
  Parsed first = parseText(text);
  if (!first.module.kernel || !first.diagnostics.empty())
    return 0;
  const std::string printed = cake::ir::print(first.module);
  Parsed second = parseText(printed);
  if (!second.diagnostics.empty())
    fail(("printed text does not parse: " + firstFinding(*second.sources, second.diagnostics))
             .c_str(),
         text, printed);
  if (!second.module.kernel)
    fail("printed text lost the kernel", text, printed);
  const std::string reprinted = cake::ir::print(second.module);
  if (reprinted != printed)
    fail("printing is not idempotent: print(parse(print(x))) != print(x)", printed, reprinted);
  if (!cake::ir::equal(*first.module.kernel, *second.module.kernel))
    fail("parse(print(m)) is not structurally equal to m", text, printed);
  return 0;
}
