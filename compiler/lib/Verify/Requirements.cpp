// Hardware requirements of the primitives (the "requirements" tables of compiler/primitives/):
// a coverage finding where a kernel relies on one that no rule checks, and the built-in checks
// that close the gaps a kernel engineer hits first (tensor-map global layout, cp.async chunk
// alignment, bulk-copy shared-memory alignment, cluster shape against the grid).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Analyses.h"

#include <algorithm>
#include <set>

namespace cake::verify::detail {

namespace {

constexpr std::int64_t kMaxGlobalDim = std::int64_t(1) << 32;    // cuTensorMapEncodeTiled
constexpr std::int64_t kMaxGlobalStride = std::int64_t(1) << 40; // cuTensorMapEncodeTiled
constexpr std::size_t kMaxTensorRank = 5;

std::string shapeText(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

/// Byte stride of dimension `dim` of a row-major tensor (the product of the inner extents),
/// saturated at 2^62 so a huge tensor cannot overflow.
std::int64_t strideBytes(const std::vector<std::int64_t>& shape, std::size_t dim,
                         std::int64_t bits) {
  constexpr std::int64_t kCap = std::int64_t(1) << 62;
  std::int64_t elems = 1;
  for (std::size_t i = dim + 1; i < shape.size(); ++i) {
    if (shape[i] > 0 && elems > kCap / shape[i])
      return kCap;
    elems *= shape[i];
  }
  if (elems > kCap / bits)
    return kCap;
  return elems * bits / 8;
}

/// cuTensorMapEncodeTiled: rank 1..5, every global dimension at most 2^32, every global
/// stride (bytes between consecutive indices of each dimension but the innermost) a multiple of
/// 16 and below 2^40. The tensor map's source param fixes all of them.
void checkTensorMapGlobalLayout(Context& ctx) {
  for (const sema::TensorMapInfo& t : ctx.model.tensorMaps) {
    const sema::BufferInfo* src = ctx.model.buffer(t.source);
    if (!src || src->shape.empty())
      continue;
    const std::vector<std::int64_t>& shape = src->shape;
    std::int64_t bits = ir::info(src->dtype).bits;
    std::string what = "'" + t.name + "' maps '" + src->name + "' (" +
                       std::string(ir::toString(src->dtype)) + shapeText(shape) + ")";
    std::string problem;
    if (shape.size() > kMaxTensorRank) {
      problem = what + ", a rank-" + std::to_string(shape.size()) +
                " tensor; cuTensorMapEncodeTiled encodes at most 5 dimensions";
    } else {
      for (std::size_t d = 0; d < shape.size() && problem.empty(); ++d)
        if (shape[d] > kMaxGlobalDim)
          problem = what + ": dimension " + std::to_string(d) + " has " + std::to_string(shape[d]) +
                    " elements; a tensor map allows at most 2^32";
      // Outer dimensions only: the innermost dimension is contiguous and has no stride.
      for (std::size_t d = 0; d + 1 < shape.size() && problem.empty(); ++d) {
        std::int64_t stride = strideBytes(shape, d, bits);
        if (stride % 16 != 0)
          problem = what + ": the global stride of dimension " + std::to_string(d) + " is " +
                    std::to_string(stride) + " bytes, not a multiple of 16 (" +
                    std::to_string(stride % 16) + " bytes over)";
        else if (stride >= kMaxGlobalStride)
          problem = what + ": the global stride of dimension " + std::to_string(d) + " is " +
                    std::to_string(stride) + " bytes; a tensor map allows less than 2^40";
      }
    }
    if (problem.empty())
      continue;
    Diagnostic* d = ctx.reporter.report(VerifyId::TmaGlobalLayout, ctx.declRange(t.decl),
                                        problem + ": the tensor map cannot be encoded");
    addNote(d, ctx.declRange(src->decl), "'" + src->name + "' declared here");
  }
}

/// Whether the operand's buffer has dimensions outside its rows, so that the row pitch enters
/// the address of every row but the first.
bool outerDims(const Context& ctx, const sema::OperandInfo& o) {
  return o.entity == sema::EntityKind::Buffer && o.entityIndex < ctx.model.buffers.size() &&
         ctx.model.buffers[o.entityIndex].shape.size() > 1;
}

/// cp.async moves `chunk` bytes per instruction; both addresses must be aligned to the chunk
/// (PTX ISA, cp.async; "Addresses as Operands") and a chunk must not straddle two rows of a
/// tile whose rows are not contiguous. The operand facts give every possible start modulo the
/// chunk: the row pitch of the underlying buffer, the start within its row and, in shared
/// memory, the buffer and stage offsets.
void checkCpAsyncAlignment(Context& ctx) {
  for (const sema::OpInfo& op : ctx.model.ops) {
    const reg::Primitive& p = *op.primitive;
    if (p.name != "cp.async" || op.operands.size() < 2)
      continue;
    auto idx = p.attributeIndex("chunk");
    if (!idx || *idx >= op.attributes.size() ||
        op.attributes[*idx].kind != reg::DefValue::Kind::Int)
      continue;
    std::int64_t chunk = op.attributes[*idx].i;
    if (chunk <= 0)
      continue;
    for (std::size_t i = 0; i < 2; ++i) {
      const reg::OperandFacts& f = op.operands[i].facts;
      if (!f.present || !f.isBuffer || f.shape.empty())
        continue;
      std::int64_t bits = ir::info(f.dtype).bits;
      std::int64_t rowBytes = (f.shape.back() * bits + 7) / 8;
      // The kernel's name for the operand, with the primitive's role for it: "E (src)".
      std::string label =
          "'" +
          (i < op.stmt->operands.size() ? op.stmt->operands[i].name.name : p.operands[i].name) +
          "' (" + p.operands[i].name + ")";
      std::string problem;
      // Lowering copies chunk by chunk within a row (LowerOps.cpp, opCpAsync): a row that is
      // not whole chunks would lose its tail.
      if (f.shape.size() > 1 && rowBytes % chunk != 0)
        problem = "each row of " + label + " is " + std::to_string(rowBytes) +
                  " bytes, not a whole number of " + std::to_string(chunk) + "-byte chunks";
      else if (outerDims(ctx, op.operands[i]) && f.bufferRowBytes % chunk != 0)
        problem = "rows of " + label + " start every " + std::to_string(f.bufferRowBytes) +
                  " bytes, which is not a multiple of the " + std::to_string(chunk) + "-byte chunk";
      else if (f.rowOffset % chunk != 0)
        problem = "the start of " + label + " within its row is only known to be a multiple of " +
                  std::to_string(f.rowOffset) + " byte(s), not of the " + std::to_string(chunk) +
                  "-byte chunk";
      else if (f.baseOffset >= 0 && f.baseOffset % chunk != 0)
        problem = label + " lives at shared-memory byte " + std::to_string(f.baseOffset) +
                  ", not a multiple of the " + std::to_string(chunk) + "-byte chunk";
      else if (f.stages > 1 && f.stageBytes % chunk != 0)
        problem = "stages of " + label + " are " + std::to_string(f.stageBytes) +
                  " bytes apart, not a multiple of the " + std::to_string(chunk) + "-byte chunk";
      if (problem.empty())
        continue;
      Diagnostic* d =
          ctx.reporter.report(VerifyId::CpAsyncAlignment, ctx.operandRange(op, i),
                              "cp.async with chunk=" + std::to_string(chunk) + ": " + problem +
                                  "; every chunk address must be aligned to the chunk size");
      addNote(d, ctx.operandRange(op, i), "the view is " + reg::describe(f));
      if (outerDims(ctx, op.operands[i])) {
        const sema::BufferInfo& b = ctx.model.buffers[op.operands[i].entityIndex];
        addNote(d, ctx.declRange(b.decl),
                "'" + b.name + "' declared here: " + std::string(ir::toString(b.dtype)) +
                    shapeText(b.shape) + ", rows " + std::to_string(f.bufferRowBytes) +
                    " bytes apart");
      }
    }
  }
}

/// Bulk tensor copies (cp.async.bulk.tensor, both directions) address shared memory at
/// 128-byte aligned boundaries. The pattern rule hw-tma-smem-alignment (data) covers the
/// primitives it lists; every other primitive lowered to a bulk tensor copy is checked here, so
/// a new TMA primitive is covered the day it is added.
void checkBulkCopySmemAlignment(Context& ctx) {
  constexpr std::int64_t kAlign = 128;
  std::vector<std::string> covered;
  if (const Rule* r = ctx.rules.find("hw-tma-smem-alignment"); r && r->pattern)
    covered = r->pattern->primitives;
  for (const sema::OpInfo& op : ctx.model.ops) {
    const reg::Primitive& p = *op.primitive;
    if (!p.hardware.ptx.starts_with("cp.async.bulk.tensor") ||
        std::find(covered.begin(), covered.end(), p.name) != covered.end())
      continue;
    for (std::size_t i = 0; i < op.operands.size() && i < p.operands.size(); ++i) {
      const reg::OperandFacts& f = op.operands[i].facts;
      if (!f.present || !f.isBuffer || f.space != ir::Space::Smem || f.baseOffset < 0)
        continue;
      std::string label = "'" +
                          (i < op.stmt->operands.size() ? op.stmt->operands[i].name.name
                                                        : p.operands[i].name) +
                          "' (" + p.operands[i].name + ")",
                  problem;
      if (f.baseOffset % kAlign != 0)
        problem = label + " lives at shared-memory byte " + std::to_string(f.baseOffset) + " (" +
                  std::to_string(f.baseOffset % kAlign) + " bytes past a 128-byte boundary)";
      else if (f.stages > 1 && f.stageBytes % kAlign != 0)
        problem = "stages of " + label + " are " + std::to_string(f.stageBytes) +
                  " bytes apart, so stage 1 starts " + std::to_string(f.stageBytes % kAlign) +
                  " bytes past a 128-byte boundary";
      if (problem.empty())
        continue;
      Diagnostic* d = ctx.reporter.report(VerifyId::BulkCopySmemAlignment, ctx.operandRange(op, i),
                                          "'" + p.name + "' is a bulk tensor copy: " + problem +
                                              "; its shared-memory address must be 128-byte "
                                              "aligned");
      addNote(d, ctx.operandRange(op, i), "the operand is " + reg::describe(f));
    }
  }
}

/// A cluster tiles the grid: every grid dimension must be a multiple of the cluster's
/// (cudaLaunchKernelEx refuses the launch otherwise). Only a static grid's CTA count is known.
void checkClusterGrid(Context& ctx) {
  const std::optional<sema::GridInfo>& g = ctx.model.grid;
  if (!g || g->persistent)
    return;
  for (std::size_t d = 0; d < g->cluster.size() && d < 3; ++d) {
    std::int64_t c = g->cluster[d];
    std::int64_t tiles = d < g->tiles.size() ? g->tiles[d] : 1;
    if (c <= 1 || tiles % c == 0)
      continue;
    static constexpr const char* kAxis[] = {"x", "y", "z"};
    ctx.reporter.report(VerifyId::ClusterGridShape, ctx.declRange(g->decl),
                        "the grid has " + std::to_string(tiles) + " CTA(s) along " + kAxis[d] +
                            " but the cluster " + std::to_string(c) + ", which does not divide " +
                            "it (" + std::to_string(tiles % c) +
                            " CTA(s) left over): the launch fails");
  }
}

/// One coverage finding per unchecked requirement a kernel relies on, at the first operation
/// that relies on it. Primitives that share a gap (the same requirement id and reason, such as
/// the base alignment of global tensors) report it once.
void reportUnchecked(Context& ctx) {
  std::set<std::pair<std::string, std::string>> seen;
  for (const sema::OpInfo& op : ctx.model.ops) {
    for (const reg::RequirementDef& req : op.primitive->requirements) {
      if (req.status != reg::RequirementStatus::Unchecked || seen.count({req.id, req.reason}))
        continue;
      if (req.when) {
        reg::DefValue v = reg::evaluate(*req.when, sema::OpDefContext(op));
        // Unknown (a run-time attribute): the operation may rely on it.
        if (v.kind == reg::DefValue::Kind::Bool && !v.b)
          continue;
      }
      seen.insert({req.id, req.reason});
      Diagnostic* d = ctx.reporter.report(VerifyId::UncheckedRequirement, ctx.opRange(op),
                                          "'" + op.primitive->name + "' relies on '" + req.id +
                                              "', which no rule checks: " + req.text +
                                              "; not checked because " + req.reason,
                                          req.id);
      addNote(d, req.range,
              "requirement '" + req.id + "' of '" + op.primitive->name + "'" +
                  (req.whenText.empty() ? "" : ", relied on when " + req.whenText) + " (" +
                  req.ref + ")");
    }
  }
}

} // namespace

void checkRequirements(Context& ctx) {
  checkTensorMapGlobalLayout(ctx);
  checkCpAsyncAlignment(ctx);
  checkBulkCopySmemAlignment(ctx);
  checkClusterGrid(ctx);
  reportUnchecked(ctx);
}

} // namespace cake::verify::detail
