// SASS through nvdisasm: locating the disassembler, compiling to a cubin, parsing line info.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Lower/Sass.h"

#include "cake/Lower/Lowering.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <unistd.h>

namespace cake::lower {

namespace fs = std::filesystem;

namespace {

bool executable(const fs::path& p) {
  std::error_code ec;
  return ::access(p.c_str(), X_OK) == 0 && fs::is_regular_file(p, ec);
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

/// `root`/lib/python3*/site-packages/nvidia/cu*/bin/nvdisasm, newest CUDA major first.
std::optional<std::string> inSitePackages(const fs::path& root) {
  std::error_code ec;
  std::vector<fs::path> found;
  for (const fs::path& libDir : {root / "lib", root / "lib64"}) {
    if (!fs::is_directory(libDir, ec))
      continue;
    for (const auto& py : fs::directory_iterator(libDir, ec)) {
      if (py.path().filename().string().rfind("python3", 0) != 0)
        continue;
      for (const char* sp : {"site-packages", "dist-packages"}) {
        fs::path nvidia = py.path() / sp / "nvidia";
        if (!fs::is_directory(nvidia, ec))
          continue;
        for (const auto& cu : fs::directory_iterator(nvidia, ec))
          if (cu.path().filename().string().rfind("cu", 0) == 0)
            if (fs::path p = cu.path() / "bin" / "nvdisasm"; executable(p))
              found.push_back(p);
      }
    }
  }
  if (found.empty())
    return std::nullopt;
  std::sort(found.begin(), found.end());
  return found.back().string();
}

std::string tempBase(const EvidenceContext& ctx) {
  if (!ctx.workDir.empty())
    return ctx.workDir;
  std::string t = env("TMPDIR");
  return t.empty() ? "/tmp" : t;
}

} // namespace

SassToolSearch findSassTool() {
  SassToolSearch s;
  if (std::string explicitTool = env("CAKE_NVDISASM"); !explicitTool.empty()) {
    // An explicit choice is never second-guessed by a search elsewhere.
    fs::path p(explicitTool);
    std::error_code ec;
    if (fs::is_directory(p, ec))
      p /= "nvdisasm";
    s.searched.push_back("$CAKE_NVDISASM (" + explicitTool + ")");
    if (executable(p))
      s.path = p.string();
    else
      s.problem = "CAKE_NVDISASM=" + explicitTool + " names no executable nvdisasm";
    return s;
  }
  s.searched.push_back("PATH");
  std::stringstream ss(env("PATH"));
  for (std::string dir; std::getline(ss, dir, ':');)
    if (!dir.empty())
      if (fs::path p = fs::path(dir) / "nvdisasm"; executable(p)) {
        s.path = p.string();
        return s;
      }
  std::vector<fs::path> cuda;
  if (std::string home = env("CUDA_HOME"); !home.empty())
    cuda.push_back((fs::path(home) / "bin").lexically_normal());
  if (cuda.empty() || cuda.front() != fs::path("/usr/local/cuda/bin"))
    cuda.push_back("/usr/local/cuda/bin");
  for (const fs::path& dir : cuda) {
    s.searched.push_back(dir.string());
    if (fs::path p = dir / "nvdisasm"; executable(p)) {
      s.path = p.string();
      return s;
    }
  }
  std::vector<std::pair<std::string, fs::path>> roots;
  if (std::string v = env("VIRTUAL_ENV"); !v.empty())
    roots.push_back({"$VIRTUAL_ENV", v});
  if (std::string home = env("HOME"); !home.empty()) {
    roots.push_back({"~/.venv", fs::path(home) / ".venv"});
    roots.push_back({"~/.local", fs::path(home) / ".local"});
  }
  roots.push_back({"/opt/cake/venv", "/opt/cake/venv"});
  roots.push_back({"/usr/local", "/usr/local"});
  roots.push_back({"/usr", "/usr"});
  for (const auto& [label, root] : roots) {
    s.searched.push_back(label + "/lib/python3*/site-packages/nvidia/cu*/bin");
    if (auto p = inSitePackages(root)) {
      s.path = *p;
      return s;
    }
  }
  return s;
}

std::string sassToolMissingMessage(const SassToolSearch& search) {
  std::string where;
  for (const std::string& s : search.searched)
    where += (where.empty() ? "" : ", ") + s;
  return (search.problem.empty() ? "nvdisasm was not found" : search.problem) +
         " (looked in: " + where +
         "). The SASS disassembler is not part of every CUDA toolkit: install it with `python3 -m "
         "venv ~/.venv && ~/.venv/bin/pip install nvidia-cuda-nvdisasm`, or set CAKE_NVDISASM "
         "to the nvdisasm binary";
}

std::vector<std::vector<std::pair<std::string, int>>> parseSassLineInfo(const std::string& sass) {
  static const std::regex fileRe(R"(^\s*//## File )");
  static const std::regex locRe(R"re("([^"]*)", line (\d+))re");
  static const std::regex insnRe(R"(^\s*/\*[0-9a-fA-F]{4,}\*/)");
  std::vector<std::vector<std::pair<std::string, int>>> out;
  std::vector<std::pair<std::string, int>> cur;
  std::stringstream ss(sass);
  for (std::string line; std::getline(ss, line);) {
    if (std::regex_search(line, fileRe)) {
      cur.clear();
      for (auto it = std::sregex_iterator(line.begin(), line.end(), locRe);
           it != std::sregex_iterator(); ++it)
        cur.push_back({(*it)[1].str(), std::stoi((*it)[2].str())});
      out.emplace_back();
      continue;
    }
    // A new function (its label or section header) starts without line info.
    if (line.rfind(".text.", 0) == 0 || line.rfind("//----", 0) == 0)
      cur.clear();
    out.push_back(std::regex_search(line, insnRe) ? cur
                                                  : std::vector<std::pair<std::string, int>>{});
  }
  return out;
}

std::vector<int> cudaIrLines(const std::string& cuda) {
  static const std::regex provRe(R"(^\s*// L(\d+):)");
  auto indentOf = [](const std::string& l) {
    std::size_t i = 0;
    while (i < l.size() && (l[i] == ' ' || l[i] == '\t'))
      ++i;
    return i;
  };
  auto blank = [](const std::string& l) {
    return l.find_first_not_of(" \t\r") == std::string::npos;
  };
  std::vector<int> out;
  int cur = 0;
  std::size_t indent = 0;
  std::stringstream ss(cuda);
  for (std::string l; std::getline(ss, l);) {
    std::smatch m;
    if (std::regex_search(l, m, provRe)) {
      cur = std::stoi(m[1].str());
      indent = indentOf(l);
    } else if (cur > 0 && !blank(l) && indentOf(l) < indent) {
      cur = 0;
    }
    out.push_back(blank(l) ? 0 : cur);
  }
  return out;
}

std::vector<int> sassIrLines(const std::string& sass, const std::string& sourcePath,
                             const std::vector<int>* cudaLines) {
  const std::string wanted = fs::path(sourcePath).filename().string();
  auto info = parseSassLineInfo(sass);
  std::vector<int> out(info.size(), 0);
  for (std::size_t i = 0; i < info.size(); ++i)
    for (const auto& [file, line] : info[i]) {
      int l = 0;
      if (file == sourcePath || fs::path(file).filename().string() == wanted)
        l = line;
      else if (cudaLines && file.size() > 3 && file.compare(file.size() - 3, 3, ".cu") == 0 &&
               line >= 1 && line <= int(cudaLines->size()))
        l = (*cudaLines)[std::size_t(line - 1)];
      if (l > 0) {
        out[i] = l;
        break;
      }
    }
  return out;
}

SassResult sassEvidence(const std::string& code, bool viaCuda, const std::string& target,
                        const EvidenceContext& ctx) {
  auto t0 = std::chrono::steady_clock::now();
  SassResult r;
  auto finish = [&] {
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  };
  std::string templ = tempBase(ctx) + "/cake-sass-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) {
    r.findings.push_back(makeFinding(LowerId::ToolchainError, evidenceKernelRange(ctx),
                                     "cannot create a temporary folder under '" + tempBase(ctx) +
                                         "' for the cubin"));
    return finish();
  }
  struct Remove {
    std::string dir;
    ~Remove() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } remove{buf.data()};
  std::string cubin = remove.dir + "/kernel.cubin";
  EvidenceContext cc = ctx;
  cc.lineInfo = true;
  r.compile =
      viaCuda ? nvccEvidence(code, target, cc, cubin) : ptxasEvidence(code, target, cc, cubin);
  // Still look for the disassembler: its absence is worth saying even when the compile failed.
  SassToolSearch tool = findSassTool();
  if (!tool.path) {
    r.toolMissing = true;
    r.findings.push_back(makeFinding(LowerId::ToolchainMissing, evidenceKernelRange(ctx),
                                     sassToolMissingMessage(tool)));
    return finish();
  }
  r.tool = *tool.path + " -c -g";
  if (!r.compile.ok)
    return finish();
  ToolRun run = runTool({*tool.path, "-c", "-g", cubin}, ctx.timeoutSeconds, ctx.cancel);
  if (!run.started || run.timedOut || run.cancelled || run.exitCode != 0) {
    std::string first = run.output.substr(0, run.output.find('\n'));
    r.findings.push_back(
        makeFinding(LowerId::ToolchainError, evidenceKernelRange(ctx),
                    !run.started    ? "nvdisasm could not be started (" + *tool.path + ")"
                    : run.cancelled ? std::string("nvdisasm was stopped: its job was cancelled")
                    : run.timedOut  ? std::string("nvdisasm did not finish within the time limit")
                                    : "nvdisasm failed on the cubin (exit " +
                                         std::to_string(run.exitCode) + "): " + first));
    return finish();
  }
  r.disassembled = true;
  r.sass = std::move(run.output);
  return finish();
}

} // namespace cake::lower
