// Performance reports and hints: shared-memory bank conflicts of each access pattern (with the
// swizzle mode that would remove them), uncoalesced global accesses, vector widths.
//
// Every (operation, operand) is analysed once, statically: the operand's index expressions are
// evaluated with concrete values for the builtins (tid, lane, warp, wg), the loop variables,
// tile coordinates and pipeline members, and the resulting per-thread (or per-warp) addresses
// are fed to a model of how the hardware serves them. Nothing here walks the unrolled steps.
// Loops are sampled at their first and second iteration (tile coordinates 0 and 1, pipeline
// counters 0 and 1); tiles and phases that repeat modulo the model's period are analysed once.
//
// Access patterns, chosen by primitive name (anything else is not modelled and never reported):
//
//  - ldmatrix / stmatrix (issued by a warp): the operand tile [R, C] of 16-bit elements is
//    (R/8)*(C/8) 8x8 matrices; matrix (i, j) is rows 8i..8i+7, 16-byte column chunk j. Each lane
//    supplies one 16-byte row address and the hardware serves one matrix (8 rows, 128 bytes)
//    per phase; .x1/.x2/.x4 only batch phases, so a matrix is the unit of the model.
//  - ld.shared / st.shared / ld.global / st.global (issued by every thread): each thread moves
//    its slice (the operand's subscript evaluated for its tid/lane/warp) in contiguous runs,
//    one instruction per aligned vector of min(16 bytes, run) as the lowering emits
//    (.v4/.v2/.b32/...). Threads of a warp are lanes 0..31 of one warp (tid = 32 * warp +
//    lane within the role); the lanes of warp 0 are evaluated at every loop sample, and those
//    of the role's last warp at the first. Shared memory serves 128 bytes per phase: 8 threads x 16 B,
//    16 x 8 B or 32 x 4 B (and all 32 threads for narrower accesses). Only register tiles of
//    scope=thread are modelled: a warp/warpgroup/role-scoped tile is distributed over the
//    threads by lowering, so its per-thread addresses are not written in the kernel.
//  - cp.async (the whole role cooperates): the tile splits into `chunk`-byte pieces in row-major
//    order and thread i of the role copies pieces i, i + T, i + 2T, ... (T = threads of the
//    role), as documented by the primitive's lowering. Shared-memory side: 128 / chunk threads
//    per phase; global side: 32-byte sectors per warp instruction.
//  - Not modelled, by design: wgmma / tcgen05.mma shared-memory operands and TMA (tma.load,
//    tma.store) go through matrix descriptors / the async proxy, which read and write the
//    swizzled layouts in whole swizzle atoms; there is no per-thread address pattern to
//    conflict (their layout legality is checked by the hardware-conformance rules).
//    epilogue.store writes a register fragment whose thread layout is known only to lowering
//    (from the producing MMA); for the documented mma.sync / wgmma / tcgen05.ld 32x32b layouts
//    every warp store touches exactly twice the minimal sectors, which never exceeds the
//    threshold below, so modelling it could only add guesswork. reduce.cta and other derived
//    shared-memory uses are lowering's choice of addresses.
//
// The bank, swizzle and sector models and the evaluation of index expressions are in
// AccessModel.cpp.
//
// Pipeline depth (whether the stages hide the producer's latency) is not judged here: it needs
// the cost model's latencies and calibration, not the static facts of the target files; with
// only peak bandwidths every byte is charged to DRAM and the expert GEMMs would look unable to
// hide their loads at any depth that fits in shared memory.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "AccessModel.h"
#include "Analyses.h"
#include "cake/Verify/BankModel.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <cstdio>
#include <limits>
#include <optional>
#include <unordered_map>

namespace cake::verify::detail {

namespace {

using namespace perf;

constexpr std::int64_t kMaxWarps = 32;
constexpr std::int64_t kMaxInstructions = 64; ///< per thread and sample
constexpr std::int64_t kMaxCooperativeChunks = 1 << 16;
/// Uncoalesced: more than this many times the minimal number of 32-byte sectors.
constexpr double kUncoalescedRatio = 2.0;

class Analysis {
public:
  explicit Analysis(Context& ctx) : m_ctx(ctx), m(ctx.model), rep(ctx.reporter) {
    for (const sema::ConstInfo& c : m.consts)
      m_consts.emplace(c.name, c.value);
    for (const sema::ScalarInfo& sc : m.scalars)
      m_consts.emplace(sc.name, sc.value);
  }

  void run() {
    for (std::size_t i = 0; i < m.ops.size(); ++i) {
      const sema::OpInfo& op = m.ops[i];
      if (!op.primitive || !op.stmt)
        continue;
      Pattern p = patternOf(op.primitive->name);
      if (p == Pattern::None)
        continue;
      for (const std::string& roleName : op.roles) {
        const sema::RoleInfo* role = m.role(roleName);
        if (!role || role->warps() <= 0)
          continue;
        switch (p) {
        case Pattern::Matrix:
          matrix(i, *role);
          break;
        case Pattern::PerThread:
          perThread(i, *role);
          break;
        case Pattern::Cooperative:
          cooperative(i, *role);
          break;
        case Pattern::None:
          break;
        }
      }
    }
    reportConflicts();
    reportSwizzleHints();
  }

private:
  /// Samples of the loop state around an operation: every loop at its first value, then every
  /// loop at its second value (tile coordinates, pipeline counters likewise); one sample for an
  /// operation outside loops.
  std::vector<Env> samples(const sema::OpInfo& op) const {
    std::vector<Env> out;
    for (std::int64_t s = 0; s < (op.loops.empty() ? 1 : 2); ++s) {
      Env env;
      env.consts = &m_consts;
      for (std::size_t li : op.loops) {
        const sema::LoopInfo& l = m.loops[li];
        if (l.overTiles) {
          std::array<std::int64_t, 3> c{0, 0, 0};
          if (m.grid)
            for (std::size_t d = 0; d < 3 && d < m.grid->tiles.size(); ++d)
              c[d] = std::min(s, m.grid->tiles[d] - 1);
          env.tiles[l.var] = c;
        } else {
          env.vars[l.var] = l.begin + std::min(s, std::max<std::int64_t>(0, l.end - l.begin - 1));
        }
      }
      for (const sema::PipelineInfo& p : m.pipelines)
        env.pipes[p.name] = {s % std::max<std::int64_t>(1, p.stages),
                             (s / std::max<std::int64_t>(1, p.stages)) & 1};
      out.push_back(std::move(env));
    }
    return out;
  }

  static void setThread(Env& env, std::int64_t warp, std::int64_t lane) {
    env.warp = warp;
    env.lane = lane;
    env.tid = warp * 32 + lane;
    env.wg = warp / 4;
  }

  const sema::BufferInfo* bufferOperand(const sema::OpInfo& op, std::size_t i) const {
    if (i >= op.operands.size() || i >= op.stmt->operands.size())
      return nullptr;
    const sema::OperandInfo& o = op.operands[i];
    if (!o.facts.present || o.entity != sema::EntityKind::Buffer)
      return nullptr;
    return &m.buffers[o.entityIndex];
  }

  /// Operand indices of `op` in `space` with a read or write effect.
  std::vector<std::size_t> accessed(const sema::OpInfo& op, ir::Space space) const {
    std::vector<std::size_t> out;
    for (const reg::EffectDef& e : op.primitive->effects) {
      if ((e.kind != reg::EffectKind::Read && e.kind != reg::EffectKind::Write) || !e.operandIndex)
        continue;
      const sema::BufferInfo* b = bufferOperand(op, *e.operandIndex);
      if (b && b->space == space &&
          std::find(out.begin(), out.end(), *e.operandIndex) == out.end())
        out.push_back(*e.operandIndex);
    }
    return out;
  }

  SmemAccess access(std::size_t op, std::size_t operand, const sema::BufferInfo& b,
                    std::int64_t width, std::string unit) const {
    SmemAccess a;
    a.op = op;
    a.operand = operand;
    a.buffer = static_cast<std::size_t>(&b - m.buffers.data());
    a.width = width;
    a.unit = std::move(unit);
    return a;
  }

  /// Identity of a tile for the models: its shape, strides and base address modulo `period`
  /// (1024 bytes in shared memory: every swizzle and bank pattern repeats; 32-byte sectors in
  /// global memory).
  static std::vector<std::int64_t> viewKey(const TileView& v, std::int64_t period) {
    std::vector<std::int64_t> key{((v.base % period) + period) % period};
    key.insert(key.end(), v.extents.begin(), v.extents.end());
    key.insert(key.end(), v.strides.begin(), v.strides.end());
    return key;
  }

  // --- ldmatrix / stmatrix ------------------------------------------------------------------
  void matrix(std::size_t opIndex, const sema::RoleInfo& role) {
    const sema::OpInfo& op = m.ops[opIndex];
    for (std::size_t i : accessed(op, ir::Space::Smem)) {
      const sema::BufferInfo& b = *bufferOperand(op, i);
      const ir::Operand& ref = op.stmt->operands[i];
      if (operandMentions(ref, {"tid", "lane"}))
        continue; // not warp-uniform: the lanes' addresses are the lowering's
      SmemAccess acc = access(opIndex, i, b, 16, "8x8 matrix");
      std::set<std::vector<std::int64_t>> views; // warps and samples that select the same tile
      bool ok = true;
      for (Env& env : samples(op)) {
        for (std::int64_t w = 0; w < std::min(role.warps(), kMaxWarps) && ok; ++w) {
          setThread(env, w, 0);
          auto v = viewOf(ref, b, env);
          if (!v || v->elemBytes != 2 || v->extents.empty() || v->strides.back() != 2) {
            ok = false;
            break;
          }
          if (!views.insert(viewKey(*v, 1024)).second)
            continue;
          std::int64_t cols = v->extents.back();
          std::int64_t rows = v->elements() / cols;
          if (rows % 8 != 0 || cols % 8 != 0) {
            ok = false;
            break;
          }
          // Start address of flattened tile row r.
          TileView rowsView = *v;
          rowsView.extents.back() = 1;
          for (std::int64_t i8 = 0; i8 < rows / 8; ++i8)
            for (std::int64_t j = 0; j < cols / 8; ++j) {
              std::vector<std::int64_t> phase;
              for (std::int64_t q = 0; q < 8; ++q)
                phase.push_back(rowsView.address(i8 * 8 + q) + j * 16);
              acc.add(std::move(phase));
            }
        }
      }
      if (ok)
        addSmem(std::move(acc));
    }
  }

  // --- per-thread accesses -------------------------------------------------------------------
  struct ThreadAccesses {
    std::int64_t width = 0;                   ///< bytes per instruction and thread
    std::int64_t runBytes = 0;                ///< contiguous bytes of one thread's slice
    std::int64_t runs = 0;                    ///< runs per thread
    std::int64_t kept = 0;                    ///< runs analysed per thread
    std::vector<std::int64_t> starts;         ///< [lane * kept + run]: start byte addresses
    std::int64_t at(std::size_t lane, std::size_t run) const {
      return starts[lane * static_cast<std::size_t>(kept) + run];
    }
  };

  /// Per-lane run starts of warp `w` for the operand, or nullopt when not evaluable.
  std::optional<ThreadAccesses> lanes(const ir::Operand& ref, const sema::BufferInfo& b, Env& env,
                                      std::int64_t w) const {
    ThreadAccesses t;
    for (std::int64_t lane = 0; lane < 32; ++lane) {
      setThread(env, w, lane);
      auto v = viewOf(ref, b, env);
      if (!v)
        return std::nullopt;
      std::int64_t run = v->runElements();
      std::int64_t runs = v->elements() / run;
      if (lane == 0) {
        t.runBytes = run * v->elemBytes;
        t.runs = runs;
      } else if (t.runBytes != run * v->elemBytes || t.runs != runs) {
        return std::nullopt;
      }
      t.kept = std::min(runs, kMaxInstructions);
      for (std::int64_t r = 0; r < t.kept; ++r)
        t.starts.push_back(v->address(r * run));
    }
    return t;
  }

  static std::int64_t vectorWidth(const ThreadAccesses& t) {
    std::int64_t w = 16;
    while (w > 1 && t.runBytes % w != 0)
      w /= 2;
    for (std::int64_t s : t.starts)
      while (w > 1 && s % w != 0)
        w /= 2;
    return w;
  }

  void perThread(std::size_t opIndex, const sema::RoleInfo& role) {
    const sema::OpInfo& op = m.ops[opIndex];
    // The register side must be one tile per thread; otherwise lowering distributes it.
    for (std::size_t i = 0; i < op.operands.size(); ++i) {
      const sema::BufferInfo* b = bufferOperand(op, i);
      if (b && b->space == ir::Space::Reg && b->scope != "thread")
        return;
    }
    for (ir::Space space : {ir::Space::Smem, ir::Space::Global})
      for (std::size_t i : accessed(op, space)) {
        const sema::BufferInfo& b = *bufferOperand(op, i);
        const ir::Operand& ref = op.stmt->operands[i];
        // The 32 lanes of warp 0 at both loop samples, and of the role's last warp at the
        // first sample (warps normally repeat the pattern at another base address).
        std::vector<ThreadAccesses> warps;
        bool ok = true;
        std::vector<Env> envs = samples(op);
        for (std::size_t si = 0; si < envs.size(); ++si) {
          Env& env = envs[si];
          std::vector<std::int64_t> which{0};
          if (si == 0 && role.warps() > 1)
            which.push_back(role.warps() - 1);
          for (std::int64_t w : which) {
            auto t = lanes(ref, b, env, w);
            if (!t || (!warps.empty() && (t->runBytes != warps[0].runBytes || t->runs != warps[0].runs))) {
              ok = false;
              break;
            }
            warps.push_back(std::move(*t));
          }
          if (!ok)
            break;
        }
        if (!ok || warps.empty())
          continue;
        std::int64_t width = 16;
        bool dense = true, uniformStride = true;
        std::int64_t laneStride = warps[0].at(1, 0) - warps[0].at(0, 0);
        for (const ThreadAccesses& t : warps) {
          width = std::min(width, vectorWidth(t));
          for (std::size_t l = 1; l < 32; ++l) {
            std::int64_t d = t.at(l, 0) - t.at(l - 1, 0);
            uniformStride = uniformStride && d == laneStride;
            dense = dense && d == t.runBytes;
          }
        }
        std::int64_t runBytes = warps[0].runBytes;
        if (space == ir::Space::Smem) {
          std::int64_t per = width >= 4 ? 128 / width : 32;
          SmemAccess acc = access(opIndex, i, b, width,
                                  "phase of " + std::to_string(per) + " threads x " +
                                      std::to_string(width) + " B");
          for (const ThreadAccesses& t : warps)
            smemPhases(t, width, acc);
          addSmem(std::move(acc));
          continue;
        }
        GlobalFinding worst;
        worst.op = opIndex;
        worst.operand = i;
        worst.width = width;
        worst.laneStride = uniformStride ? laneStride : 0;
        worst.threads = true;
        for (const ThreadAccesses& t : warps) {
          SectorStats stats = sectors(t, width);
          if (worst.stats.minimal == 0 || stats.ratio() > worst.stats.ratio())
            worst.stats = stats;
        }
        reportGlobal(worst);
        // Vector width: a thread moves fewer than 16 contiguous bytes while the lanes move
        // adjacent slices, so giving each thread a wider slice keeps the access dense.
        if (warps[0].runs == 1 && runBytes < 16 && 16 % runBytes == 0 && dense &&
            worst.stats.ratio() <= kUncoalescedRatio) {
          std::int64_t factor = 16 / runBytes;
          std::int64_t eb = elementBytes(b.dtype);
          Diagnostic* d = rep.report(
              VerifyId::VectorWidth, m_ctx.operandRange(op, i),
              "each thread of '" + op.primitive->name + "' moves " + std::to_string(runBytes) +
                  " contiguous bytes of '" + b.name + "' (" + std::to_string(runBytes / eb) + " x " +
                  std::string(ir::toString(b.dtype)) +
                  ") and consecutive lanes move adjacent slices: " + std::to_string(factor) +
                  "x the instructions of 16-byte vector accesses");
          setFix(d, "give each thread " + std::to_string(16 / eb) +
                        " consecutive elements (16 bytes) and " + std::to_string(factor) +
                        "x fewer threads or iterations");
        }
      }
  }

  struct GlobalFinding {
    std::size_t op = 0, operand = 0;
    SectorStats stats;
    std::int64_t width = 0;
    std::int64_t laneStride = 0;
    bool threads = true; ///< per-thread accesses (else cooperative chunks)
  };

  /// Shared-memory phases of one warp's instructions.
  static void smemPhases(const ThreadAccesses& t, std::int64_t width, SmemAccess& acc) {
    std::int64_t pieces = t.runBytes / width;
    std::int64_t perPhase = width >= 4 ? 128 / width : 32;
    std::int64_t instructions = 0;
    for (std::size_t r = 0; r < static_cast<std::size_t>(t.kept); ++r)
      for (std::int64_t p = 0; p < pieces && instructions < kMaxInstructions; ++p, ++instructions)
        for (std::int64_t first = 0; first < 32; first += perPhase) {
          std::vector<std::int64_t> phase;
          for (std::int64_t l = first; l < first + perPhase; ++l)
            phase.push_back(t.at(static_cast<std::size_t>(l), r) + p * width);
          acc.add(std::move(phase));
        }
  }

  /// Global sectors of one warp's instructions.
  static SectorStats sectors(const ThreadAccesses& t, std::int64_t width) {
    std::int64_t pieces = t.runBytes / width;
    std::int64_t instructions = 0;
    SectorStats stats;
    std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
    for (std::size_t r = 0; r < static_cast<std::size_t>(t.kept); ++r)
      for (std::int64_t p = 0; p < pieces && instructions < kMaxInstructions; ++p, ++instructions) {
        ranges.clear();
        for (std::size_t l = 0; l < 32; ++l)
          ranges.emplace_back(t.at(l, r) + p * width, t.at(l, r) + (p + 1) * width);
        addInstruction(stats, ranges);
      }
    return stats;
  }

  /// Records an analysed shared-memory access; an operation executed by several roles adds its
  /// phases to the same (operation, operand).
  void addSmem(SmemAccess acc) {
    if (acc.phases.empty())
      return;
    for (SmemAccess& a : m_smem)
      if (a.op == acc.op && a.operand == acc.operand && a.width == acc.width) {
        a.merge(std::move(acc));
        return;
      }
    m_smem.push_back(std::move(acc));
  }

  // --- cp.async ------------------------------------------------------------------------------
  void cooperative(std::size_t opIndex, const sema::RoleInfo& role) {
    const sema::OpInfo& op = m.ops[opIndex];
    std::int64_t chunk = 16;
    if (auto ai = op.primitive->attributeIndex("chunk"))
      if (*ai < op.attributes.size() && op.attributes[*ai].kind == reg::DefValue::Kind::Int)
        chunk = op.attributes[*ai].i;
    if (chunk != 4 && chunk != 8 && chunk != 16)
      return;
    std::int64_t threads = role.threads();
    for (ir::Space space : {ir::Space::Smem, ir::Space::Global})
      for (std::size_t i : accessed(op, space)) {
        const sema::BufferInfo& b = *bufferOperand(op, i);
        const ir::Operand& ref = op.stmt->operands[i];
        if (operandMentions(ref, {"tid", "lane", "warp", "wg"}))
          continue; // the role copies one tile together
        SmemAccess acc = access(opIndex, i, b, chunk,
                                "phase of " + std::to_string(128 / chunk) + " threads x " +
                                    std::to_string(chunk) + "-byte chunks");
        GlobalFinding worst;
        std::set<std::vector<std::int64_t>> views; // samples that select the same tile
        bool ok = true;
        for (Env& env : samples(op)) {
          auto v = viewOf(ref, b, env);
          if (!v || (v->runElements() * v->elemBytes) % chunk != 0) {
            ok = false;
            break;
          }
          if (!views.insert(viewKey(*v, space == ir::Space::Smem ? 1024 : 32)).second)
            continue;
          std::int64_t total = v->elements() * v->elemBytes / chunk;
          if (total > kMaxCooperativeChunks) {
            ok = false;
            break;
          }
          std::int64_t chunkElems = chunk / v->elemBytes;
          std::int64_t perPhase = 128 / chunk;
          for (std::int64_t w = 0; w < std::min(role.warps(), kMaxWarps); ++w) {
            SectorStats stats;
            for (std::int64_t j = 0; j * threads + w * 32 < total; ++j) {
              std::int64_t first = j * threads + w * 32;
              std::int64_t last = std::min(first + 32, total);
              if (space == ir::Space::Smem) {
                for (std::int64_t p = first; p < last; p += perPhase) {
                  std::vector<std::int64_t> phase;
                  for (std::int64_t k = p; k < std::min(p + perPhase, last); ++k)
                    phase.push_back(v->address(k * chunkElems));
                  acc.add(std::move(phase));
                }
              } else {
                std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
                for (std::int64_t k = first; k < last; ++k) {
                  std::int64_t a = v->address(k * chunkElems);
                  ranges.emplace_back(a, a + chunk);
                }
                addInstruction(stats, ranges);
              }
            }
            if (space == ir::Space::Global &&
                (worst.stats.minimal == 0 || stats.ratio() > worst.stats.ratio()))
              worst.stats = stats;
          }
        }
        if (!ok)
          continue;
        if (space == ir::Space::Smem) {
          addSmem(std::move(acc));
        } else {
          worst.op = opIndex;
          worst.operand = i;
          worst.width = chunk;
          worst.threads = false;
          reportGlobal(worst);
        }
      }
  }

  // --- reports -------------------------------------------------------------------------------
  void reportGlobal(const GlobalFinding& f) {
    if (f.stats.minimal == 0 || f.stats.ratio() <= kUncoalescedRatio)
      return;
    const sema::OpInfo& op = m.ops[f.op];
    const sema::BufferInfo& b = *bufferOperand(op, f.operand);
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.1f", f.stats.ratio());
    std::string how = f.threads ? std::to_string(f.width) + "-byte accesses" +
                                      (f.laneStride ? ", consecutive lanes " +
                                                          std::to_string(f.laneStride) + " bytes apart"
                                                    : std::string())
                                : std::to_string(f.width) + "-byte chunks";
    Diagnostic* d = rep.report(
        VerifyId::Uncoalesced, m_ctx.operandRange(op, f.operand),
        "'" + op.primitive->name + "' on '" + b.name + "' is uncoalesced: a warp touches " +
            std::to_string(f.stats.sectors) + " 32-byte sectors for " + std::to_string(f.stats.bytes) +
            " bytes (" + std::to_string(f.stats.minimal) + " needed, " + ratio + "x) with " + how);
    addNote(d, m_ctx.declRange(b.decl), "'" + b.name + "' is row-major " +
                                            std::string(ir::toString(b.dtype)) + "[" +
                                            joinInts(b.shape, 8) + "]");
    setFix(d, "let consecutive lanes access consecutive elements of the innermost dimension "
              "(index it with tid or lane), or stage the tile through shared memory");
  }

  /// Hands the analysed access to the views (VerifyResult::smemAccesses); read-only data.
  void exportPattern(const SmemAccess& a, const SmemAccess::Result& r) {
    SmemAccessPattern p;
    p.op = a.op;
    p.operand = a.operand;
    p.buffer = a.buffer;
    p.width = a.width;
    p.unit = a.unit;
    p.phases = a.phases;
    p.counts = a.counts;
    p.degree = r.degree;
    p.worstPhase = r.worstPhase;
    p.wavefronts = r.wavefronts;
    m_ctx.result.smemAccesses.push_back(std::move(p));
  }

  std::string describe(const SmemAccess& a) const {
    return "'" + m.ops[a.op].primitive->name + "'";
  }

  void reportConflicts() {
    for (const SmemAccess& a : m_smem) {
      const sema::BufferInfo& b = m.buffers[a.buffer];
      int mode = swizzleBytes(b.swizzle);
      SmemAccess::Result r = a.evaluate(mode);
      m_current.push_back(r);
      exportPattern(a, r);
      if (r.degree <= 1)
        continue;
      const sema::OpInfo& op = m.ops[a.op];
      std::string deg = std::to_string(r.degree);
      Diagnostic* d = rep.report(
          VerifyId::BankConflict, m_ctx.operandRange(op, a.operand),
          describe(a) + " on '" + b.name + "' has " + deg + "-way bank conflicts (" + deg +
              " wavefronts per " + a.unit + " instead of 1) under swizzle " + b.swizzle,
          std::to_string(a.operand));
      std::vector<std::int64_t> offsets, banks;
      for (std::int64_t addr : a.phases[r.worstPhase]) {
        std::int64_t s = swizzle(addr, mode);
        offsets.push_back(s - b.offset);
        banks.push_back((s / 4) % 32);
      }
      addNote(d, m_ctx.declRange(b.decl),
              "'" + b.name + "' has " + std::to_string(rowBytes(b)) +
                  "-byte rows and swizzle " + b.swizzle + "; one " + a.unit + " accesses bytes " +
                  joinInts(offsets) + " of it (first banks " + joinInts(banks) + ")");
    }
  }

  /// Whether the buffer is also accessed through descriptors/TMA, which need the swizzle span to
  /// equal the row (hw-mma-swizzle-span, hw-tma-inner-box-swizzle), and the tensor maps of the
  /// TMA copies that touch it.
  void descriptorUses(std::size_t buffer, bool& descriptors, std::vector<std::string>& maps) const {
    for (const sema::OpInfo& op : m.ops) {
      if (!op.primitive)
        continue;
      const std::string& n = op.primitive->name;
      bool tma = n.rfind("tma.", 0) == 0;
      bool mma = n == "wgmma.mma" || n == "tcgen05.mma";
      if (!tma && !mma)
        continue;
      bool touches = false;
      for (const sema::OperandInfo& o : op.operands)
        if (o.facts.present && o.entity == sema::EntityKind::Buffer && o.entityIndex == buffer)
          touches = true;
      if (!touches)
        continue;
      descriptors = true;
      if (tma)
        for (const sema::OperandInfo& o : op.operands)
          if (o.facts.present && o.entity == sema::EntityKind::TensorMap) {
            const std::string& t = m.tensorMaps[o.entityIndex].name;
            if (std::find(maps.begin(), maps.end(), t) == maps.end())
              maps.push_back(t);
          }
    }
  }

  void reportSwizzleHints() {
    std::map<std::size_t, std::vector<std::size_t>> perBuffer;
    for (std::size_t i = 0; i < m_smem.size(); ++i)
      perBuffer[m_smem[i].buffer].push_back(i);
    for (const auto& [buffer, accesses] : perBuffer) {
      const sema::BufferInfo& b = m.buffers[buffer];
      int worstNow = 1;
      for (std::size_t i : accesses)
        worstNow = std::max(worstNow, m_current[i].degree);
      if (worstNow <= 1)
        continue;
      std::int64_t rows = rowBytes(b);
      bool descriptors = false;
      std::vector<std::string> maps;
      descriptorUses(buffer, descriptors, maps);
      int current = swizzleBytes(b.swizzle);
      struct Candidate {
        int mode = 0;
        int worst = 0;
        std::int64_t wavefronts = 0;
        std::vector<SmemAccess::Result> results;
      };
      std::optional<Candidate> best;
      for (int mode : {128, 64, 32, 0}) {
        if (mode == current)
          continue;
        if (mode != 0) {
          if (rows % mode != 0 || b.offset % (8 * mode) != 0 ||
              (b.stages > 1 && b.stageBytes() % (8 * mode) != 0))
            continue;
          if (descriptors && rows != mode)
            continue;
        }
        Candidate c;
        c.mode = mode;
        bool better = true;
        for (std::size_t i : accesses) {
          SmemAccess::Result r = m_smem[i].evaluate(mode);
          const SmemAccess::Result& now = m_current[i];
          if (r.degree > now.degree || (now.degree > 1 && r.degree >= now.degree))
            better = false;
          c.worst = std::max(c.worst, r.degree);
          c.wavefronts += r.wavefronts;
          c.results.push_back(r);
        }
        if (!better)
          continue;
        if (!best || c.worst < best->worst ||
            (c.worst == best->worst && c.wavefronts < best->wavefronts))
          best = std::move(c);
      }
      if (!best)
        continue;
      std::string mode = swizzleName(best->mode);
      std::vector<std::string> names;
      for (std::size_t i : accesses)
        if (m_current[i].degree > 1) {
          std::string n = describe(m_smem[i]);
          if (std::find(names.begin(), names.end(), n) == names.end())
            names.push_back(n);
        }
      std::string ops;
      for (std::size_t k = 0; k < names.size(); ++k)
        ops += (k ? (k + 1 == names.size() ? " and " : ", ") : "") + names[k];
      std::size_t conflicting = 0;
      for (std::size_t i : accesses)
        conflicting += m_current[i].degree > 1 ? 1 : 0;
      std::string what = "its " + ops + (conflicting > 1 ? " accesses" : " access");
      std::string message =
          "swizzle=" + mode + " on '" + b.name + "' " +
          (best->worst <= 1 ? "removes the " + std::to_string(worstNow) + "-way bank conflicts of " + what
                            : "reduces the " + std::to_string(worstNow) + "-way bank conflicts of " +
                                  what + " to " + std::to_string(best->worst) + "-way") +
          " (" + std::to_string(rows) + "-byte rows, declared with swizzle " + b.swizzle + ")";
      if (!maps.empty()) {
        std::string list;
        for (std::size_t k = 0; k < maps.size(); ++k)
          list += (k ? ", '" : "'") + maps[k] + "'";
        message += "; the tensor map" + std::string(maps.size() > 1 ? "s " : " ") + list +
                   " of the TMA copies of '" + b.name + "' must use swizzle=" + mode + " too";
      }
      Diagnostic* d = rep.report(VerifyId::SwizzleHint, m_ctx.declRange(b.decl), message);
      for (std::size_t k = 0; k < accesses.size(); ++k) {
        const SmemAccess& a = m_smem[accesses[k]];
        int before = m_current[accesses[k]].degree, after = best->results[k].degree;
        auto way = [](int n) { return n <= 1 ? std::string("conflict-free") : std::to_string(n) + "-way"; };
        addNote(d, m_ctx.operandRange(m.ops[a.op], a.operand),
                describe(a) + " here: " + way(before) + " now, " + way(after) + " with swizzle=" + mode);
      }
      const ir::Attribute* attr = b.decl ? b.decl->attribute("swizzle") : nullptr;
      if (attr && attr->value)
        setFix(d, "declare '" + b.name + "' with swizzle=" + mode, rep.range(attr->value->id), mode);
      else
        setFix(d, "add swizzle=" + mode + " to the declaration of '" + b.name + "'");
    }
  }

  Context& m_ctx;
  const sema::KernelModel& m;
  Reporter& rep;
  std::unordered_map<std::string, std::int64_t> m_consts;
  std::vector<SmemAccess> m_smem;
  std::vector<SmemAccess::Result> m_current; ///< per m_smem entry, under the declared swizzle
};

} // namespace

void checkPerformance(Context& ctx) { Analysis(ctx).run(); }

} // namespace cake::verify::detail
