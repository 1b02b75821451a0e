// libFuzzer target: arbitrary bytes as one data document of the compiler.
//  - as a primitive definition through cake::reg::Registry::parse (validated against the real
//    targets of compiler/targets, loaded once);
//  - as a target definition through cake::target::TargetSet::parse;
//  - when the primitive loads and has the name of a shipped one, it replaces that one in a copy
//    of the registry and a corpus kernel using it is checked and lowered (PTX through LLVM where
//    the target allows, CUDA always): the emitted PTX must have exactly one kernel entry.
// Malformed input must only produce located def-* findings: no crash, hang or sanitizer report.
// A custom mutator (registry-template mutator) edits the "ptx" template lines and enum "values"
// of a JSON document structurally: braces, operand references, directives, labels, slots and
// statement breaks, JSON-escaped so the document stays loadable and reaches the lowering.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Driver/Compiler.h"
#include "cake/Lower/CudaEmitter.h"
#include "cake/Lower/Lowering.h"
#include "cake/LowerLLVM/LlvmBackend.h"
#include "cake/Registry/InlinePtx.h"
#include "cake/Registry/Registry.h"
#include "cake/Support/Diagnostic.h"
#include "cake/Support/Json.h"
#include "cake/Support/SourceManager.h"
#include "cake/Target/Target.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t maxSize);

namespace fs = std::filesystem;

namespace {

const cake::SourceManager* g_baseSources = nullptr;
const cake::target::TargetSet* g_targets = nullptr;

/// The lowering oracle's data: a private copy of the registry, and per primitive the file it
/// lives in and a corpus kernel that uses it.
struct LowerSetup {
  cake::driver::DataPaths paths;
  struct Entry {
    fs::path file;
    std::string original;
    std::string kernelPath, kernelText;
  };
  std::map<std::string, Entry> primitives;
};
LowerSetup* g_lower = nullptr;

std::string readAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

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

/// Copies the shipped registry to a private directory and picks, for each primitive, the first
/// positive corpus kernel (sm_80 / sm_90a first: those reach LLVM) whose text uses it.
void setUpLowering(const cake::driver::DataPaths& shipped) {
  static LowerSetup setup;
  setup.paths = shipped;
  fs::path dir = fs::temp_directory_path() / ("cake-fuzz-registry-" + std::to_string(getpid()));
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::copy(shipped.primitives, dir, fs::copy_options::recursive, ec);
  if (ec) {
    std::fprintf(stderr, "fuzz_registry: cannot copy the registry (%s); lowering is not fuzzed\n",
                 ec.message().c_str());
    return;
  }
  setup.paths.primitives = dir.string();
  std::vector<std::pair<std::string, std::string>> kernels; // path, text
  fs::path corpus = fs::path(shipped.primitives).parent_path().parent_path() / "corpus";
  for (const auto& e : fs::recursive_directory_iterator(corpus, ec)) {
    if (e.path().extension() != ".cake" || e.path().string().find("negative") != std::string::npos)
      continue;
    std::string text = readAll(e.path());
    bool llvm = text.find("target=sm_100a") == std::string::npos;
    kernels.insert(llvm ? kernels.begin() : kernels.end(), {e.path().string(), text});
  }
  for (const auto& e : fs::recursive_directory_iterator(dir, ec)) {
    if (e.path().extension() != ".json")
      continue;
    LowerSetup::Entry entry;
    entry.file = e.path();
    entry.original = readAll(e.path());
    std::string name = e.path().stem().string();
    for (const auto& [path, text] : kernels)
      if (text.find(" " + name + " ") != std::string::npos) {
        entry.kernelPath = path;
        entry.kernelText = text;
        break;
      }
    if (!entry.kernelPath.empty())
      setup.primitives.emplace(name, std::move(entry));
  }
  g_lower = &setup;
}

/// Lowers a corpus kernel with `doc` in place of the shipped definition of `name`.
void lowerWith(const std::string& name, const std::string& doc) {
  auto it = g_lower->primitives.find(name);
  if (it == g_lower->primitives.end())
    return;
  LowerSetup::Entry& entry = it->second;
  std::ofstream(entry.file, std::ios::binary | std::ios::trunc) << doc;
  auto compiler = cake::driver::Compiler::load(g_lower->paths);
  std::ofstream(entry.file, std::ios::binary | std::ios::trunc) << entry.original;
  if (!compiler->ok())
    return; // refused with findings, as the parse above already checked
  cake::driver::CheckResult r = compiler->check(entry.kernelPath, entry.kernelText);
  if (!r.accepted)
    return;
  cake::lower::LoweredKernel lk = cake::lower::lowerKernel(r.module, r.model, compiler->registry(),
                                                           *r.sources, entry.kernelPath);
  if (!lk.ok)
    return;
  std::string cuda = cake::lower::emitCuda(lk.program, lk.metadata, {entry.kernelPath, "", ""});
  if (cuda.empty()) {
    std::fprintf(stderr, "fuzz_registry: lowering '%s' gave an empty CUDA file\n", name.c_str());
    std::abort();
  }
  if (!cake::lower::llvmSupportsTarget(lk.program.target))
    return;
  cake::lower::LlvmOptions options;
  options.optLevel = 1;
  options.debugInfo = false;
  cake::lower::LlvmResult res = cake::lower::emitLlvm(lk.program, options);
  // The LLVM path's own entry check is the last line of defence; reaching it means the
  // registry and lowering let inline PTX out of its statement.
  std::size_t entries = res.ok ? cake::reg::countPtxEntries(res.ptx) : 1;
  if (entries != 1 || res.error.find("kernel entries") != std::string::npos) {
    std::fprintf(stderr, "fuzz_registry: '%s' from the registry put %zu kernel entries into the "
                         "PTX of %s (%s)\n", name.c_str(), entries, entry.kernelPath.c_str(),
                 res.error.c_str());
    std::abort();
  }
}

// --- registry-template mutator ----------------------------------------------------------------

/// A JSON string literal's content [begin, end) in the document.
struct Span {
  std::size_t begin, end;
  bool enumValue;
};

/// The string literals inside `"ptx": [...]` and `"values": [...]` arrays.
std::vector<Span> templateSpans(const std::string& doc) {
  std::vector<Span> out;
  for (std::string_view key : {"\"ptx\"", "\"values\""}) {
    for (std::size_t at = doc.find(key); at != std::string::npos; at = doc.find(key, at + 1)) {
      std::size_t i = doc.find_first_not_of(" \t\r\n:", at + key.size());
      if (i == std::string::npos || doc[i] != '[')
        continue;
      for (++i; i < doc.size() && doc[i] != ']';) {
        if (doc[i] != '"') {
          ++i;
          continue;
        }
        std::size_t b = ++i;
        while (i < doc.size() && doc[i] != '"')
          i += doc[i] == '\\' ? 2 : 1;
        if (i >= doc.size())
          break;
        out.push_back({b, i, key == "\"values\""});
        ++i;
      }
    }
  }
  return out;
}

/// Names declared in the document ("name": "x"), for well-formed slots.
std::vector<std::string> declaredNames(const std::string& doc) {
  std::vector<std::string> out;
  const std::string key = "\"name\"";
  for (std::size_t at = doc.find(key); at != std::string::npos; at = doc.find(key, at + 1)) {
    std::size_t q = doc.find('"', doc.find_first_not_of(" \t:", at + key.size()));
    if (q == std::string::npos)
      break;
    std::size_t e = doc.find('"', q + 1);
    if (e == std::string::npos || e - q > 40)
      continue;
    out.push_back(doc.substr(q + 1, e - q - 1));
  }
  return out;
}

/// The content of a JSON string literal for `s` (the project's own escaping, without quotes).
std::string jsonEscape(const std::string& s) {
  std::string quoted = cake::json::quote(s);
  return quoted.substr(1, quoted.size() - 2);
}

/// One structural edit of template text (unescaped; the caller escapes it).
std::string templateFragment(std::mt19937& rng, const std::vector<std::string>& names) {
  static const char* kFragments[] = {
      "{{",           "}}",          "}}\n{{",       "{",           "}",
      ";",            "\n",          ".visible .entry cake_evil()\n{{\n", "}}\n.visible .entry cake_evil()\n{{",
      ".func f()",    ".reg .b32 r;", "{{\n.reg .pred p;\n", "\n}}", ".global .u32 g;",
      ".loc 1 1 1",   ".section .x", ".extern .shared .b8 s[];", "L0: ",      "L0:\n@!p bra L0;",
      "\"",           "\\",           "\"); asm(\"",  "//",          "/*",          "*/",
      "$0",           "$$",          "%laneid",      "%",           "@p ",         "::",
      "\x01",         "\xff",        "ret;",        "exit;",       "trap;",       "bar.sync 0;",
  };
  static const char* kFacets[] = {"addr", "coords", "desc", "reg",  "regs",  "rank", "bytes",
                                  "dtype", "count", "id",   "cols", "lanes", "phase", "map", "mask"};
  static const char* kNumbers[] = {"0", "1", "2", "7", "31", "99", "9999999", "4294967296",
                                   "18446744073709551616", "00"};
  switch (rng() % 4) {
  case 0:
    return "%" + std::string(kNumbers[rng() % std::size(kNumbers)]);
  case 1:
    if (!names.empty()) {
      std::string slot = "{" + names[rng() % names.size()];
      if (rng() % 3)
        slot += "." + std::string(kFacets[rng() % std::size(kFacets)]);
      return slot + "}";
    }
    [[fallthrough]];
  default:
    return kFragments[rng() % std::size(kFragments)];
  }
}

/// A hostile enum value: one that ends the instruction, or a near-token.
std::string enumFragment(std::mt19937& rng) {
  static const char* kValues[] = {
      "cg;\n}\n.visible .entry cake_evil()\n{\ncp.async.cg", "ca;", "a b", "a}", "{a}", ".entry",
      "a.", "a..b", "a:b", "a::b", "%7", "x\"y", "ca\\", "", "default", "none", "32x32b"};
  return kValues[rng() % std::size(kValues)];
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
  if (!std::getenv("CAKE_FUZZ_NO_LOWERING"))
    setUpLowering(paths);
  return 0;
}

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t maxSize, unsigned seed) {
  std::mt19937 rng(seed);
  std::string doc(reinterpret_cast<const char*>(data), size);
  std::vector<Span> spans = templateSpans(doc);
  // Byte-level mutation half of the time and whenever there is no template to edit.
  if (spans.empty() || rng() % 2 == 0)
    return LLVMFuzzerMutate(data, size, maxSize);
  const Span& s = spans[rng() % spans.size()];
  std::string replacement = doc.substr(s.begin, s.end - s.begin);
  std::size_t pos = replacement.empty() ? 0 : rng() % (replacement.size() + 1);
  while (pos > 0 && replacement[pos - 1] == '\\') // never split an escape sequence
    --pos;
  switch (rng() % 5) {
  case 0: // replace the whole value
    replacement = jsonEscape(s.enumValue ? enumFragment(rng) : templateFragment(rng, declaredNames(doc)));
    break;
  case 1: { // delete a run
    std::size_t n = replacement.empty() ? 0 : rng() % (replacement.size() - pos + 1);
    replacement.erase(pos, n);
    while (!replacement.empty() && replacement.back() == '\\' &&
           (replacement.size() < 2 || replacement[replacement.size() - 2] != '\\'))
      replacement.pop_back();
    break;
  }
  default: // insert one or more fragments
    for (unsigned k = 1 + rng() % 3; k > 0; --k)
      replacement.insert(pos, jsonEscape(s.enumValue ? enumFragment(rng)
                                                     : templateFragment(rng, declaredNames(doc))));
    break;
  }
  std::string out = doc.substr(0, s.begin) + replacement + doc.substr(s.end);
  // Sometimes add a whole template line after the edited one.
  if (!s.enumValue && rng() % 4 == 0) {
    std::size_t after = s.begin + replacement.size() + 1; // past the closing quote
    out.insert(after, ", \"" + jsonEscape(templateFragment(rng, declaredNames(doc))) + "\"");
  }
  if (out.size() > maxSize)
    return LLVMFuzzerMutate(data, size, maxSize);
  std::copy(out.begin(), out.end(), data);
  return out.size();
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  {
    cake::SourceManager sources(g_baseSources);
    cake::FileId file = sources.addBuffer("fuzz/primitive.json", text);
    cake::DiagnosticEngine diags;
    auto prim = cake::reg::Registry::parse("fuzz/primitive.json", file, *g_targets, sources, diags);
    checkFindings("primitive", sources, diags, prim != nullptr);
    if (prim && g_lower)
      lowerWith(prim->name, text);
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
