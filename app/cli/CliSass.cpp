// `cake lower FILE --emit sass`: the cubin of the LLVM path (ptxas) or of the CUDA export
// (nvcc -lineinfo, --via cuda) disassembled by nvdisasm, as text or JSON with the SASS → IR line
// links; a missing disassembler is the located finding hw-toolchain-missing.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "CliSass.h"

#include "cake/Driver/Output.h"
#include "cake/Lower/CudaEmitter.h"
#include "cake/Lower/Sass.h"
#include "cake/LowerLLVM/LlvmBackend.h"

#include <cstdio>
#include <iostream>

namespace cake::cli {

int emitSass(const SassRequest& q) {
  const driver::CheckResult& r = *q.check;
  const lower::LoweredKernel& lk = *q.lowered;
  const std::string& target = lk.program.target;
  std::string code;
  if (q.viaCuda) {
    code = lower::emitCuda(lk.program, lk.metadata, *q.provenance);
  } else {
    lower::LlvmOptions lo;
    lo.optLevel = q.optLevel;
    lo.wantPtx = true;
    lower::LlvmResult res = lower::emitLlvm(lk.program, lo);
    if (!res.ok) {
      Diagnostic d = lower::makeFinding(lower::LowerId::LoweringUnsupported, q.targetRange,
                                        "LLVM path: " + res.error);
      std::fputs(driver::renderText(d, *r.sources).c_str(), stderr);
      return 1;
    }
    code = std::move(res.ptx);
  }
  lower::SassResult sr = lower::sassEvidence(code, q.viaCuda, target, *q.context);
  std::vector<Diagnostic> findings = sr.compile.findings;
  findings.insert(findings.end(), sr.findings.begin(), sr.findings.end());
  std::vector<int> cudaLines = q.viaCuda ? lower::cudaIrLines(code) : std::vector<int>{};
  std::vector<int> irLines =
      sr.disassembled ? lower::sassIrLines(sr.sass, q.path, q.viaCuda ? &cudaLines : nullptr)
                      : std::vector<int>{};
  bool ok = sr.disassembled && sr.compile.ok;
  if (q.format == "json") {
    json::Writer w;
    w.beginObject();
    w.key("compiler_revision").value(q.revision);
    w.key("path").value(q.path);
    w.key("kernel").value(lk.program.name);
    w.key("target").value(target);
    w.key("via").value(q.viaCuda ? "nvcc" : "llvm");
    w.key("compile_tool").value(sr.compile.tool);
    w.key("disassembler");
    if (sr.tool.empty())
      w.null();
    else
      w.value(sr.tool);
    w.key("ok").value(ok);
    w.key("sass");
    if (sr.disassembled)
      w.value(sr.sass);
    else
      w.null();
    // [SASS line, IR line] pairs, 1-based, for the lines that carry line info.
    w.key("lines").beginArray();
    for (std::size_t i = 0; i < irLines.size(); ++i)
      if (irLines[i] > 0) {
        w.beginArray();
        w.value(static_cast<std::int64_t>(i + 1));
        w.value(static_cast<std::int64_t>(irLines[i]));
        w.endArray();
      }
    w.endArray();
    w.key("entries").beginArray();
    writePtxasEntries(w, sr.compile.report.entries);
    w.endArray();
    w.key("findings").beginArray();
    for (const Diagnostic& d : findings)
      driver::writeJson(w, d, *r.sources);
    w.endArray();
    w.endObject();
    std::cout << w.str() << "\n";
    return ok ? 0 : 1;
  }
  for (const Diagnostic& d : findings)
    std::fputs(driver::renderText(d, *r.sources).c_str(), stderr);
  if (!ok) {
    std::fprintf(stderr, "cake lower: no SASS for '%s' (see above)\n", q.path.c_str());
    return 1;
  }
  if (q.output.empty() || q.output == "-") {
    std::cout << sr.sass;
    return 0;
  }
  std::string error;
  if (!writeFile(q.output, sr.sass, error)) {
    std::fprintf(stderr, "cake lower: %s\n", error.c_str());
    return 2;
  }
  return 0;
}

void writePtxasEntries(json::Writer& w, const std::vector<lower::PtxasEntry>& entries) {
  for (const lower::PtxasEntry& e : entries) {
    w.beginObject();
    w.key("name").value(e.name);
    w.key("target").value(e.target);
    w.key("registers").value(e.registers);
    w.key("barriers").value(e.barriers);
    w.key("smem_bytes").value(e.smemBytes);
    w.key("stack_frame_bytes").value(e.stackFrame);
    w.key("spill_store_bytes").value(e.spillStores);
    w.key("spill_load_bytes").value(e.spillLoads);
    w.endObject();
  }
}

} // namespace cake::cli
