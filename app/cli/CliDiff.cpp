// `cake diff A B`: the semantic diff of two kernels (compiler/include/cake/Diff/Diff.h).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "CliSupport.h"

#include "cake/Diff/Diff.h"
#include "cake/Driver/Output.h"
#include "cake/Support/StringUtil.h"

#include <cstdio>
#include <iostream>

namespace cake::cli {

namespace {

constexpr std::size_t kMaxKernelBytes = 64u << 20;

/// The kernel text with its `target=` attribute set to `target` (inserted after the name when
/// absent); nullopt when the kernel line cannot be found (a syntax error reports that).
std::optional<std::string> retarget(const driver::Compiler& compiler, const std::string& path,
                                    const std::string& text, const std::string& target) {
  driver::CheckResult r = compiler.check(path, text);
  if (!r.module.kernel)
    return std::nullopt;
  const ir::Kernel& k = *r.module.kernel;
  if (const ir::Attribute* a = k.attribute("target"); a && a->value) {
    SourceRange range = r.module.sourceMap.range(a->value->id);
    if (!range.valid())
      return std::nullopt;
    return text.substr(0, range.begin) + target + text.substr(range.end);
  }
  SourceRange name = r.module.sourceMap.range(k.name.id);
  if (!name.valid())
    return std::nullopt;
  return text.substr(0, name.end) + " target=" + target + text.substr(name.end);
}

} // namespace

int cmdDiff(const std::string& argv0, const std::vector<std::string>& all) {
  Args a = parseArgs(all, 1,
                     {"--format", "--registry", "--targets", "--rules", "--workspace", "--target"},
                     {"--no-ptx", "--help"});
  if (!a.error.empty())
    return usageError("diff", a.error);
  std::string format = a.get("--format", "text");
  int code = 0;
  if (!checkFormat("diff", format, {"text", "json"}, code))
    return code;
  if (a.positional.size() != 2)
    return usageError("diff", "two kernel files are needed (got " +
                                  std::to_string(a.positional.size()) + ")");
  std::string target = a.get("--target");
  if (a.options.count("--target") && target.empty())
    return usageError("diff", "--target needs a target name");
  auto compiler = loadCompiler(argv0, a, format);
  if (!compiler)
    return 2;
  if (!target.empty() && !compiler->targets().find(target)) {
    std::fprintf(stderr, "cake diff: unknown target '%s' (see 'cake targets')\n", target.c_str());
    return 2;
  }
  diff::AssessOptions options;
  options.ptx = !a.has("--no-ptx");
  std::optional<diff::Assessment> sides[2];
  bool bad = false;
  for (int i = 0; i < 2; ++i) {
    const std::string& path = a.positional[i];
    std::string error;
    auto text = readFile(path, error, kMaxKernelBytes);
    if (!text) {
      std::fprintf(stderr, "cake: error: cannot read '%s': %s\n", path.c_str(), error.c_str());
      bad = true;
      continue;
    }
    if (!target.empty())
      if (auto moved = retarget(*compiler, path, *text, target))
        text = std::move(moved);
    sides[i] = diff::assess(*compiler, path, std::move(*text), options);
    const driver::CheckResult& r = sides[i]->check;
    if (r.module.syntaxErrors || !r.module.kernel) {
      // Aligning half-parsed kernels would report the parser's recovery as changes.
      for (const Diagnostic& d : r.diagnostics)
        if (d.family == Family::Syntax)
          std::fputs(driver::renderText(d, *r.sources).c_str(), stderr);
      std::fprintf(stderr, "cake diff: '%s' does not parse; nothing compared\n", path.c_str());
      bad = true;
    }
  }
  if (bad)
    return 2;
  diff::KernelDiff d = diff::compare(*sides[0], *sides[1]);
  if (format == "json") {
    json::Writer w;
    w.beginObject().key("compiler_revision").value(compiler->revision()).key("diff");
    diff::writeJson(w, d);
    w.endObject();
    std::cout << w.str() << "\n";
  } else {
    std::fputs(diff::renderText(d).c_str(), stdout);
  }
  return d.different() ? 1 : 0;
}

} // namespace cake::cli
