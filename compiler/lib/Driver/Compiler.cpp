// Compiler façade: data loading, revision hash and the parse → check pipeline.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Driver/Compiler.h"

#include "cake/Parse/Parser.h"
#include "cake/Sema/Sema.h"
#include "cake/Support/Sha256.h"

#include <algorithm>
#include <filesystem>

#ifndef CAKE_DEFAULT_CORPUS_DIR
#define CAKE_DEFAULT_CORPUS_DIR ""
#endif
#ifndef CAKE_DEFAULT_DATA_DIR
#define CAKE_DEFAULT_DATA_DIR ""
#endif
#ifndef CAKE_VERSION
#define CAKE_VERSION "0.0.0"
#endif

namespace cake::driver {

namespace {

/// Where the binary lies. argv[0] without a '/' was found through PATH and says nothing about
/// the directory (resolving it against the working directory would pick the source tree's data
/// for an installed binary): the kernel's /proc/self/exe does.
std::filesystem::path executableFile(const std::string& executablePath) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (executablePath.find('/') == std::string::npos) {
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec)
      return self;
  }
  return fs::weakly_canonical(fs::path(executablePath), ec);
}

} // namespace

DataPaths defaultDataPaths(const std::string& executablePath) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path exe = executableFile(executablePath);
  fs::path share = exe.parent_path().parent_path() / "share" / "cake";
  if (!executablePath.empty() && fs::is_directory(share / "primitives", ec))
    return {(share / "primitives").string(), (share / "targets").string(),
            (share / "rules").string(), (share / "calibration").string()};
  fs::path src(CAKE_DEFAULT_DATA_DIR);
  return {(src / "primitives").string(), (src / "targets").string(), (src / "rules").string(),
          (src / "calibration").string()};
}

std::string defaultCorpusDir(const std::string& executablePath) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path exe = executableFile(executablePath);
  fs::path installed = exe.parent_path().parent_path() / "share" / "cake" / "corpus";
  if (!executablePath.empty() && fs::is_regular_file(installed / "manifest.json", ec))
    return installed.string();
  return CAKE_DEFAULT_CORPUS_DIR;
}

std::string Compiler::version() { return CAKE_VERSION; }

std::unique_ptr<Compiler> Compiler::load(const DataPaths& paths, DataOverlay overlay) {
  std::unique_ptr<Compiler> c(new Compiler());
  c->m_paths = paths;
  c->m_overlay = std::move(overlay);
  const DataOverlay& o = c->m_overlay;
  DiagnosticEngine diags(1000);
  c->m_targets = target::TargetSet::load(paths.targets, c->m_sources, diags, o.targets);
  c->m_targets.loadCalibrations(paths.calibration, c->m_sources, diags, o.calibration);
  c->m_registry =
      reg::Registry::load(paths.primitives, c->m_targets, c->m_sources, diags, o.primitives);
  if (!paths.rules.empty())
    c->m_rules = verify::RuleSet::load(paths.rules, c->m_registry, c->m_sources, diags, o.rules);
  c->m_loadDiagnostics = diags.take();
  // The revision covers exactly the data the compiler runs with, overlay files included (they
  // are among each set's sources, under their relative names: the same content gives the same
  // revision whichever workspace revision holds it).
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& [path, content] : c->m_targets.sources())
    files.emplace_back("targets/" + path, content);
  for (const auto& [path, content] : c->m_registry.sources())
    files.emplace_back("primitives/" + path, content);
  for (const auto& [path, content] : c->m_rules.sources())
    files.emplace_back("rules/" + path, content);
  for (const auto& [path, content] : c->m_targets.calibrationSources())
    files.emplace_back("calibration/" + path, content);
  std::sort(files.begin(), files.end());
  Sha256 h;
  h.update("cake-ir/1\n");
  h.update(CAKE_VERSION);
  h.update("\n");
  for (const auto& [path, content] : files) {
    h.update(path);
    h.update("\n" + std::to_string(content.size()) + "\n");
    h.update(content);
  }
  c->m_revision = h.hexDigest().substr(0, 12);
  return c;
}

bool Compiler::ok() const {
  return std::none_of(m_loadDiagnostics.begin(), m_loadDiagnostics.end(),
                      [](const Diagnostic& d) { return d.severity == Severity::Blocking; }) &&
         !m_targets.all().empty() && !m_registry.all().empty() &&
         (m_paths.rules.empty() || !m_rules.all().empty());
}

CheckResult Compiler::check(std::string name, std::string text,
                            const verify::VerifyOptions& options) const {
  CheckResult r;
  r.sources = std::make_unique<SourceManager>(&m_sources);
  r.file = r.sources->addBuffer(std::move(name), std::move(text));
  DiagnosticEngine diags(500);
  r.module = parseModule(*r.sources, r.file, diags);
  // The checker runs on whatever parsed: a syntax error in one line should not hide type errors
  // elsewhere. It only needs a kernel header.
  // A broken kernel line leaves nothing reliable to check against.
  if (r.module.kernel && !r.module.headerErrors)
    r.model = sema::check(r.module, m_registry, m_targets, diags, options.scalarValues);
  // Structure first: the analyses run only on kernels that parse and type-check cleanly.
  if (options.analyses && r.module.kernel && !diags.hasBlocking() && !m_rules.all().empty())
    r.verification = verify::verify(r.module, r.model, m_registry, m_rules, diags, options);
  diags.sortByLocation();
  r.accepted = !diags.hasBlocking();
  r.dropped = diags.dropped();
  r.diagnostics = diags.take();
  return r;
}

} // namespace cake::driver
