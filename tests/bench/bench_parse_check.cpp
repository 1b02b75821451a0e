// Front-end benchmarks: parse + type check (cake::driver::Compiler::check) of
//  (a) the Hopper GEMM corpus kernel (corpus/hopper_gemm/gemm_ws.cake), and
//  (b) generated warp-specialized GEMM kernels with ~500 / 2,000 / 8,000 operations, plus the
//      parse alone of the 2,000-op one, and
//  (c) lowering (thread program + CUDA export) of generated kernels with 10k / 40k operations.
// The compiler (targets + primitives) is loaded once, outside every timing loop.
//
//   cake-bench [--dump-generated FILE [OPS]] [benchmark flags...]
// --dump-generated writes a generated kernel of about OPS operations (default 2,000) to FILE and
// exits (for inspection: `cake check FILE`, `cake fmt FILE`; for speed and memory figures of
// large inputs: 320,000 operations are a 5 MB kernel, 3,200,000 a 50 MB one).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Driver/Compiler.h"
#include "cake/Lower/CudaEmitter.h"
#include "cake/Lower/Lowering.h"
#include "cake/Parse/Parser.h"
#include "cake/Support/Diagnostic.h"
#include "cake/Support/SourceManager.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#ifndef CAKE_CORPUS_DIR
#define CAKE_CORPUS_DIR "corpus"
#endif

namespace {

std::string g_argv0;

const cake::driver::Compiler& compiler() {
  static std::unique_ptr<cake::driver::Compiler> c = [] {
    auto loaded = cake::driver::Compiler::load(cake::driver::defaultDataPaths(g_argv0));
    if (!loaded->ok()) {
      std::fprintf(stderr, "cake-bench: compiler data does not load cleanly (%s):\n",
                   loaded->paths().primitives.c_str());
      for (const cake::Diagnostic& d : loaded->loadDiagnostics())
        std::fprintf(stderr, "  %s: %s\n", d.code.c_str(), d.message.c_str());
    }
    return loaded;
  }();
  return *c;
}

// ------------------------------------------------------------------------------ generator

/// One line of the generated kernel.
struct Line {
  enum Kind { Op, Open, Close, Text } kind;
  int indent;
  std::string text;
};

/// Builds a valid Cake IR kernel with about `targetOps` operations: the warp-specialized Hopper
/// GEMM of the corpus (TMA producer warpgroup, two wgmma consumer warpgroups, 4-stage full/empty
/// mbarrier ring, persistent tile loop, TMA-store epilogue) whose K loop is split into many
/// sequential loops bound to the ring pipeline (the documented "peeling" form: the ring count
/// continues across them), each covering two K steps. Operations whose primitive the registry
/// lacks (`available` returns false) are left out, and blocks left empty are dropped, so the
/// kernel tracks the registry while primitives are being added.
std::string generateKernel(int targetOps, const std::function<bool(std::string_view)>& available,
                           int* opCount = nullptr) {
  constexpr int kStepsPerChunk = 2;
  constexpr int kBK = 64;
  using Lines = std::vector<Line>;

  auto op = [&](Lines& out, int indent, const std::string& prim, const std::string& rest) {
    if (available(prim))
      out.push_back({Line::Op, indent, rest.empty() ? prim : prim + " " + rest});
  };
  auto open = [](Lines& out, int indent, std::string header) {
    out.push_back({Line::Open, indent, std::move(header) + " {"});
  };
  auto close = [](Lines& out, int indent) { out.push_back({Line::Close, indent, "}"}); };
  auto append = [](Lines& out, const Lines& more) { out.insert(out.end(), more.begin(), more.end()); };
  auto count = [](const Lines& lines) {
    return static_cast<int>(
        std::count_if(lines.begin(), lines.end(), [](const Line& l) { return l.kind == Line::Op; }));
  };

  // One chunk of the K loop per role, without the loop header.
  Lines producerStep, consumerStep;
  op(producerStep, 4, "mbarrier.try_wait", "empty[ring.slot] parity=ring.phase ^ 1");
  op(producerStep, 4, "mbarrier.arrive_expect_tx", "full[ring.slot] bytes=32768");
  op(producerStep, 4, "tma.load", "a_s[ring.slot], tA[t.x * BM, k * BK], full[ring.slot]");
  op(producerStep, 4, "tma.load", "b_s[ring.slot], tB[t.y * BN, k * BK], full[ring.slot]");
  op(consumerStep, 4, "mbarrier.try_wait", "full[ring.slot] parity=ring.phase");
  op(consumerStep, 4, "wgmma.fence", "");
  op(consumerStep, 4, "wgmma.mma", "acc, a_s[ring.slot, wg * 64 +: 64, :], b_s[ring.slot]");
  op(consumerStep, 4, "wgmma.commit", "");
  op(consumerStep, 4, "wgmma.wait", "pending=0");
  op(consumerStep, 4, "mbarrier.arrive", "empty[ring.slot] scope=warpgroup");
  const int perChunk = count(producerStep) + count(consumerStep);

  auto kLoops = [&](Lines& out, const Lines& step, int chunks) {
    for (int c = 0; c < chunks; ++c) {
      const long long lo = static_cast<long long>(c) * kStepsPerChunk;
      open(out, 3, "for k in " + std::to_string(lo) + ".." + std::to_string(lo + kStepsPerChunk) +
                       " pipeline=ring");
      append(out, step);
      close(out, 3);
    }
  };

  auto body = [&](int chunks) {
    Lines out;
    open(out, 1, "on producer");
    op(out, 2, "mbarrier.init", "full");
    op(out, 2, "mbarrier.init", "empty");
    op(out, 2, "fence.mbarrier_init", "");
    close(out, 1);
    open(out, 1, "on all");
    op(out, 2, "cta.sync", "");
    close(out, 1);
    open(out, 1, "on producer");
    open(out, 2, "for t in tiles");
    kLoops(out, producerStep, chunks);
    close(out, 2);
    close(out, 1);
    open(out, 1, "on consumer");
    open(out, 2, "for t in tiles");
    op(out, 3, "ew.fill", "acc value=0.0");
    kLoops(out, consumerStep, chunks);
    op(out, 3, "cast", "acc_bf, acc");
    op(out, 3, "bulk.wait_group", "pending=0 read=true");
    op(out, 3, "bar.sync", "epi");
    open(out, 3, "for h in 0..2");
    op(out, 4, "stmatrix", "c_s[h, wg * 64 +: 64, :], acc_bf[:, h * 64 +: 64]");
    close(out, 3);
    op(out, 3, "fence.proxy.async", "");
    op(out, 3, "bar.sync", "epi");
    open(out, 3, "for h in 0..2");
    op(out, 4, "tma.store", "tC[t.x * BM, t.y * BN + h * 64], c_s[h]");
    close(out, 3);
    op(out, 3, "bulk.commit_group", "");
    close(out, 2);
    op(out, 2, "bulk.wait_group", "pending=0");
    close(out, 1);
    // Drop blocks that ended up empty (innermost first).
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t i = 0; i + 1 < out.size(); ++i)
        if (out[i].kind == Line::Open && out[i + 1].kind == Line::Close) {
          out.erase(out.begin() + static_cast<std::ptrdiff_t>(i),
                    out.begin() + static_cast<std::ptrdiff_t>(i) + 2);
          changed = true;
          break;
        }
    }
    return out;
  };

  const int fixedOps = count(body(0));
  const int chunks =
      std::max(1, perChunk == 0 ? 1 : (targetOps - fixedOps + perChunk / 2) / perChunk);
  const Lines lines = body(chunks);
  const long long kSteps = static_cast<long long>(chunks) * kStepsPerChunk;

  std::ostringstream s;
  s << "// Generated by cake-bench: warp-specialized Hopper GEMM with the K loop split into "
    << chunks << " sequential\n// pipelined loops of " << kStepsPerChunk
    << " K steps each. SPDX-License-Identifier: GPL-3.0-or-later\n";
  s << "kernel gemm_generated target=sm_90a {\n"
       "  const M = 4096\n"
       "  const N = 4096\n"
       "  const K = " << kSteps * kBK << "\n"
       "  const BM = 128\n"
       "  const BN = 128\n"
       "  const BK = " << kBK << "\n"
       "  param A : bf16[M, K] role=input\n"
       "  param B : bf16[N, K] role=input\n"
       "  param C : bf16[M, N] role=output\n"
       "  tensormap tA : bf16[BM, BK] source=A swizzle=128B\n"
       "  tensormap tB : bf16[BN, BK] source=B swizzle=128B\n"
       "  tensormap tC : bf16[BM, 64] source=C swizzle=128B\n"
       "  grid tiles=[M / BM, N / BN] schedule=persistent\n"
       "  role producer warps=0..4 regs=40\n"
       "  role consumer warps=4..12 regs=232\n"
       "  pipeline ring stages=4\n"
       "  smem a_s : bf16[BM, BK] offset=0 stages=4 swizzle=128B pipeline=ring\n"
       "  smem b_s : bf16[BN, BK] offset=65536 stages=4 swizzle=128B pipeline=ring\n"
       "  smem c_s : bf16[BM, 64] offset=131072 stages=2 swizzle=128B\n"
       "  mbarrier full count=1 producers=[producer] consumers=[consumer] pipeline=ring\n"
       "  mbarrier empty count=2 producers=[consumer] consumers=[producer] pipeline=ring\n"
       "  nbarrier epi roles=[consumer]\n"
       "  reg acc : f32[64, BN] scope=warpgroup\n"
       "  reg acc_bf : bf16[64, BN] scope=warpgroup\n\n";
  for (const Line& l : lines)
    s << std::string(2 * static_cast<std::size_t>(l.indent), ' ') << l.text << '\n';
  s << "}\n";
  if (opCount)
    *opCount = count(lines);
  return s.str();
}

bool inRegistry(std::string_view name) { return compiler().registry().find(name) != nullptr; }

std::string describe(const cake::driver::CheckResult& r, const cake::Diagnostic& d) {
  std::string where = "?";
  if (d.range.valid() && r.sources->contains(d.range.file)) {
    cake::LineColumn lc = r.sources->lineColumn(d.range.file, d.range.begin);
    where = std::to_string(lc.line) + ":" + std::to_string(lc.column);
  }
  return where + ": " + d.code + ": " + d.message;
}

/// First blocking finding, or empty when the kernel is accepted.
std::string firstBlocking(const cake::driver::CheckResult& r) {
  for (const cake::Diagnostic& d : r.diagnostics)
    if (d.severity == cake::Severity::Blocking)
      return describe(r, d);
  return r.accepted ? std::string() : "kernel refused";
}

bool readFile(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::ostringstream s;
  s << in.rdbuf();
  out = s.str();
  return true;
}

// ------------------------------------------------------------------------------ benchmarks

void BM_CheckCorpusHopperGemm(benchmark::State& state) {
  const std::string path = std::string(CAKE_CORPUS_DIR) + "/hopper_gemm/gemm_ws.cake";
  std::string text;
  if (!readFile(path, text)) {
    state.SkipWithError(("cannot read " + path).c_str());
    return;
  }
  const cake::driver::Compiler& c = compiler();
  cake::driver::CheckResult first = c.check(path, text);
  std::size_t blocking = 0;
  for (const cake::Diagnostic& d : first.diagnostics)
    blocking += d.severity == cake::Severity::Blocking;
  state.SetLabel(blocking == 0 ? "accepted"
                               : std::to_string(blocking) + " blocking, first " +
                                     firstBlocking(first));
  for (auto _ : state) {
    cake::driver::CheckResult r = c.check(path, text);
    benchmark::DoNotOptimize(r.accepted);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
  state.counters["ops"] = static_cast<double>(first.model.ops.size());
}
BENCHMARK(BM_CheckCorpusHopperGemm)->Unit(benchmark::kMicrosecond);

/// Parse + type check only (the verifier's analyses off), as `cake check --stop-after sema`.
void BM_TypeCheckHopperGemm(benchmark::State& state) {
  const std::string path = std::string(CAKE_CORPUS_DIR) + "/hopper_gemm/gemm_ws.cake";
  std::string text;
  if (!readFile(path, text)) {
    state.SkipWithError(("cannot read " + path).c_str());
    return;
  }
  cake::verify::VerifyOptions options;
  options.analyses = false;
  const cake::driver::Compiler& c = compiler();
  for (auto _ : state) {
    cake::driver::CheckResult r = c.check(path, text, options);
    benchmark::DoNotOptimize(r.accepted);
  }
}
BENCHMARK(BM_TypeCheckHopperGemm)->Unit(benchmark::kMicrosecond);

/// Every kernel of the bundled corpus (positive and negative), checked in one process.
void BM_CheckWholeCorpus(benchmark::State& state) {
  std::vector<std::pair<std::string, std::string>> kernels;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(CAKE_CORPUS_DIR)) {
    if (entry.path().extension() != ".cake" ||
        entry.path().generic_string().find("/proposals/") != std::string::npos)
      continue;
    std::string text;
    if (!readFile(entry.path().string(), text)) {
      state.SkipWithError(("cannot read " + entry.path().string()).c_str());
      return;
    }
    kernels.emplace_back(entry.path().string(), std::move(text));
  }
  std::sort(kernels.begin(), kernels.end());
  const cake::driver::Compiler& c = compiler();
  std::size_t findings = 0;
  for (auto _ : state) {
    findings = 0;
    for (const auto& [path, text] : kernels) {
      cake::driver::CheckResult r = c.check(path, text);
      findings += r.diagnostics.size();
      benchmark::DoNotOptimize(r.accepted);
    }
  }
  state.counters["kernels"] = static_cast<double>(kernels.size());
  state.counters["findings"] = static_cast<double>(findings);
}
BENCHMARK(BM_CheckWholeCorpus)->Unit(benchmark::kMillisecond);

/// One corpus kernel checked (parse, type check, every analysis incl. the cluster model), per
/// kernel of the corpus folders (negative cases and proposals left out): which kernels cost the
/// most to check (`--benchmark_filter=CheckCorpusKernel`). Label: accepted or the first
/// blocking code; counter: operations.
void BM_CheckCorpusKernel(benchmark::State& state, const std::string& path) {
  std::string text;
  if (!readFile(path, text)) {
    state.SkipWithError(("cannot read " + path).c_str());
    return;
  }
  const cake::driver::Compiler& c = compiler();
  cake::driver::CheckResult first = c.check(path, text);
  state.SetLabel(first.accepted ? "accepted" : "refused: " + firstBlocking(first));
  for (auto _ : state) {
    cake::driver::CheckResult r = c.check(path, text);
    benchmark::DoNotOptimize(r.accepted);
  }
  state.counters["ops"] = static_cast<double>(first.model.ops.size());
}

void registerCorpusKernels() {
  std::vector<std::string> paths;
  std::error_code ec;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(CAKE_CORPUS_DIR, ec)) {
    const std::string p = entry.path().generic_string();
    if (entry.path().extension() == ".cake" && p.find("/proposals/") == std::string::npos &&
        p.find("/negative/") == std::string::npos && p.find("/campaigns/") == std::string::npos)
      paths.push_back(p);
  }
  std::sort(paths.begin(), paths.end());
  const std::string root = std::string(CAKE_CORPUS_DIR) + "/";
  for (const std::string& p : paths) {
    std::string name = p.rfind(root, 0) == 0 ? p.substr(root.size()) : p;
    benchmark::RegisterBenchmark(("BM_CheckCorpusKernel/" + name).c_str(), BM_CheckCorpusKernel, p)
        ->Unit(benchmark::kMillisecond);
  }
}

void BM_CheckGenerated(benchmark::State& state) {
  const cake::driver::Compiler& c = compiler();
  int ops = 0;
  const std::string text = generateKernel(static_cast<int>(state.range(0)), inRegistry, &ops);
  cake::driver::CheckResult first = c.check("generated.cake", text);
  if (!first.accepted) {
    state.SkipWithError(("generated kernel refused: " + firstBlocking(first)).c_str());
    return;
  }
  for (auto _ : state) {
    cake::driver::CheckResult r = c.check("generated.cake", text);
    benchmark::DoNotOptimize(r.accepted);
  }
  state.SetItemsProcessed(state.iterations() * ops);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
  state.counters["ops"] = ops;
  state.counters["lines"] =
      static_cast<double>(std::count(text.begin(), text.end(), '\n'));
}
BENCHMARK(BM_CheckGenerated)->Arg(500)->Arg(2000)->Arg(8000)->Unit(benchmark::kMicrosecond);

void BM_ParseGenerated(benchmark::State& state) {
  int ops = 0;
  const std::string text = generateKernel(static_cast<int>(state.range(0)), inRegistry, &ops);
  cake::SourceManager sources;
  const cake::FileId file = sources.addBuffer("generated.cake", text);
  {
    cake::DiagnosticEngine diags;
    cake::ir::Module m = cake::parseModule(sources, file, diags);
    if (!diags.diagnostics().empty() || !m.kernel) {
      state.SkipWithError(("generated kernel does not parse: " +
                           diags.diagnostics().front().message)
                              .c_str());
      return;
    }
  }
  for (auto _ : state) {
    cake::DiagnosticEngine diags;
    cake::ir::Module m = cake::parseModule(sources, file, diags);
    benchmark::DoNotOptimize(m.kernel.has_value());
  }
  state.SetItemsProcessed(state.iterations() * ops);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
  state.counters["ops"] = ops;
}
BENCHMARK(BM_ParseGenerated)->Arg(2000)->Unit(benchmark::kMicrosecond);

/// Lowering alone (thread program with dead-code removal and guard merging, then the CUDA
/// export) of a checked generated kernel: must grow linearly with the operation count.
void BM_LowerGenerated(benchmark::State& state) {
  const cake::driver::Compiler& c = compiler();
  int ops = 0;
  const std::string text = generateKernel(static_cast<int>(state.range(0)), inRegistry, &ops);
  cake::driver::CheckResult r = c.check("generated.cake", text);
  if (!r.accepted) {
    state.SkipWithError(("generated kernel refused: " + firstBlocking(r)).c_str());
    return;
  }
  std::size_t cudaBytes = 0;
  for (auto _ : state) {
    cake::lower::LoweredKernel lk =
        cake::lower::lowerKernel(r.module, r.model, c.registry(), *r.sources, "generated.cake");
    if (!lk.ok) {
      state.SkipWithError("generated kernel does not lower");
      return;
    }
    std::string cuda = cake::lower::emitCuda(lk.program, lk.metadata, cake::lower::Provenance{});
    cudaBytes = cuda.size();
    benchmark::DoNotOptimize(cuda.data());
  }
  state.SetItemsProcessed(state.iterations() * ops);
  state.counters["ops"] = ops;
  state.counters["cuda_bytes"] = static_cast<double>(cudaBytes);
}
BENCHMARK(BM_LowerGenerated)->Arg(10000)->Arg(40000)->Unit(benchmark::kMillisecond);

} // namespace

int main(int argc, char** argv) {
  g_argv0 = argc > 0 ? argv[0] : "";
  // Our own flag comes before the benchmark flags.
  if (argc >= 2 && std::strcmp(argv[1], "--dump-generated") == 0) {
    int target = 2000;
    if (argc == 4) {
      char* end = nullptr;
      const long v = std::strtol(argv[3], &end, 10);
      if (!end || *end != '\0' || v < 1 || v > 50'000'000) {
        std::fprintf(stderr, "cake-bench: OPS must be an integer in 1..50000000, not '%s'\n",
                     argv[3]);
        return 2;
      }
      target = static_cast<int>(v);
    }
    if (argc < 3 || argc > 4) {
      std::fprintf(stderr, "usage: %s --dump-generated FILE [OPS]\n", argv[0]);
      return 2;
    }
    int ops = 0;
    const std::string text = generateKernel(target, inRegistry, &ops);
    std::ofstream out(argv[2], std::ios::binary);
    out << text;
    out.close();
    if (!out) {
      std::fprintf(stderr, "cake-bench: cannot write %s\n", argv[2]);
      return 1;
    }
    cake::driver::CheckResult r = compiler().check(argv[2], text);
    std::printf("wrote %s: %d operations, %zu bytes, %s\n", argv[2], ops, text.size(),
                r.accepted ? "accepted" : ("REFUSED: " + firstBlocking(r)).c_str());
    return r.accepted ? 0 : 1;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  compiler(); // load the data before any timing
  registerCorpusKernels();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
