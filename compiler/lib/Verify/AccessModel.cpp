// The hardware access models of the performance analysis: concrete evaluation of index
// expressions, operand tiles as byte addresses, and the bank, swizzle and sector arithmetic.
//
// Bank model: 32 banks of 4 bytes, bank = (byte address / 4) % 32; in one phase, accesses to
// the same 4-byte word are broadcast, and the degree ("N-way") is the largest number of
// distinct words mapping to one bank, i.e. the number of wavefronts that phase needs.
//
// Swizzle: shared-memory addresses are swizzled on their absolute byte address (hardware TMA and
// MMA descriptors do so, and lowering uses the same function so that both sides agree; the
// hw-swizzle-alignment rule keeps buffers aligned to the swizzle atom). The modes are CUTLASS'
// Swizzle<B, 4, 3> on byte addresses: 16-byte chunk bits [4, 4+B) are XORed with bits
// [7, 7+B), B = 3 / 2 / 1 for 128B / 64B / 32B (cute::GMMA::Layout_K_SW{128,64,32}_Atom_Bits =
// Swizzle<{3,2,1},4,3>, cute/atom/mma_traits_sm90_gmma.hpp; the same patterns as the TMA
// swizzle modes CU_TENSOR_MAP_SWIZZLE_{128B,64B,32B}, PTX ISA "Tensor swizzling modes": the
// 16-byte chunk index within a 128-byte row is XORed with the row index modulo 8 / 4 / 2, the
// pattern repeating every 1024 / 512 / 256 bytes).
//
// Global model: 32-byte sectors; an access is uncoalesced when the sectors its warp touches
// exceed twice the minimal number for the distinct bytes it moves. Parameters are assumed to
// start 256-byte aligned (cudaMalloc).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "AccessModel.h"

#include "cake/Verify/BankModel.h"

#include <algorithm>
#include <limits>

namespace cake::verify::detail::perf {

// ----------------------------------------------------------------------------------------------
// Concrete evaluation of index expressions.

namespace {

/// Resolution of a name: {0, value}, {builtin id, 0} or {1, 0} when unknown.
std::pair<int, std::int64_t> resolve(const ir::Expr& e, const Env& env) {
  if (auto it = env.vars.find(std::string(e.text())); it != env.vars.end())
    return {0, it->second};
  if (auto it = env.consts->find(std::string(e.text())); it != env.consts->end())
    return {0, it->second};
  if (e.text() == "tid")
    return {-1, 0};
  if (e.text() == "lane")
    return {-2, 0};
  if (e.text() == "warp")
    return {-3, 0};
  if (e.text() == "wg")
    return {-4, 0};
  return {1, 0};
}

} // namespace

std::optional<std::int64_t> eval(const ir::Expr& e, const Env& env) {
  switch (e.kind) {
  case ir::ExprKind::Int:
    return e.intValue;
  case ir::ExprKind::Name: {
    auto it = env.resolved.find(&e);
    if (it == env.resolved.end())
      it = env.resolved.emplace(&e, resolve(e, env)).first;
    switch (it->second.first) {
    case 0:
      return it->second.second;
    case -1:
      return env.tid;
    case -2:
      return env.lane;
    case -3:
      return env.warp;
    case -4:
      return env.wg;
    default:
      return std::nullopt;
    }
  }
  case ir::ExprKind::Member: {
    const ir::Expr& base = *e.children[0];
    if (base.kind != ir::ExprKind::Name)
      return std::nullopt;
    if (auto it = env.tiles.find(std::string(base.text())); it != env.tiles.end()) {
      if (e.text() == "x")
        return it->second[0];
      if (e.text() == "y")
        return it->second[1];
      if (e.text() == "z")
        return it->second[2];
      return std::nullopt;
    }
    if (auto it = env.pipes.find(std::string(base.text())); it != env.pipes.end()) {
      if (e.text() == "slot")
        return it->second.first;
      if (e.text() == "phase")
        return it->second.second;
    }
    return std::nullopt;
  }
  case ir::ExprKind::Unary: {
    auto a = eval(*e.children[0], env);
    return a ? ir::fold(e.unaryOp, *a) : std::nullopt;
  }
  case ir::ExprKind::Binary: {
    auto a = eval(*e.children[0], env);
    auto b = a ? eval(*e.children[1], env) : std::nullopt;
    return b ? ir::fold(e.binaryOp, *a, *b) : std::nullopt;
  }
  default:
    return std::nullopt;
  }
}

bool mentions(const ir::Expr& e, std::initializer_list<std::string_view> names) {
  if (e.kind == ir::ExprKind::Name)
    for (std::string_view n : names)
      if (e.text() == n)
        return true;
  for (const ir::ExprPtr& c : e.children)
    if (c && mentions(*c, names))
      return true;
  return false;
}

bool operandMentions(const ir::Operand& o, std::initializer_list<std::string_view> names) {
  for (const ir::Index& i : o.indices)
    if ((i.start && mentions(*i.start, names)) || (i.size && mentions(*i.size, names)))
      return true;
  return false;
}

// ----------------------------------------------------------------------------------------------
// Tiles of buffers as byte addresses.

std::int64_t elementBytes(ir::DType t) {
  unsigned bits = ir::info(t).bits;
  return bits % 8 == 0 ? bits / 8 : 0; // sub-byte types are not modelled
}

std::int64_t TileView::runElements() const {
  if (extents.empty())
    return 1;
  if (strides.back() != elemBytes)
    return 1;
  std::int64_t run = extents.back();
  for (std::size_t d = extents.size() - 1; d-- > 0;) {
    if (strides[d] != run * elemBytes)
      break;
    run *= extents[d];
  }
  return run;
}

std::optional<TileView> viewOf(const ir::Operand& o, const sema::BufferInfo& b, const Env& env) {
  TileView v;
  v.elemBytes = elementBytes(b.dtype);
  if (v.elemBytes == 0)
    return std::nullopt;
  std::size_t rank = b.shape.size();
  std::vector<std::int64_t> strides(rank, v.elemBytes);
  for (std::size_t d = rank; d-- > 1;)
    strides[d - 1] = strides[d] * b.shape[d];
  v.base = b.space == ir::Space::Smem ? b.offset : 0;
  std::size_t first = 0;
  if (b.stages > 1) {
    if (!o.subscripted || o.indices.empty() || !o.indices[0].start)
      return std::nullopt;
    auto s = eval(*o.indices[0].start, env);
    if (!s || *s < 0 || *s >= b.stages)
      return std::nullopt;
    v.base += *s * b.stageBytes();
    first = 1;
  }
  std::size_t given = o.subscripted && o.indices.size() > first ? o.indices.size() - first : 0;
  if (given != 0 && given != rank)
    return std::nullopt;
  for (std::size_t d = 0; d < rank; ++d) {
    if (given == 0) {
      v.extents.push_back(b.shape[d]);
      v.strides.push_back(strides[d]);
      continue;
    }
    const ir::Index& idx = o.indices[first + d];
    if (idx.kind == ir::Index::Kind::Full) {
      v.extents.push_back(b.shape[d]);
      v.strides.push_back(strides[d]);
      continue;
    }
    auto start = eval(*idx.start, env);
    if (!start)
      return std::nullopt;
    std::int64_t size = 1;
    if (idx.kind == ir::Index::Kind::Slice) {
      auto sz = idx.size ? eval(*idx.size, env) : std::nullopt;
      if (!sz || *sz <= 0)
        return std::nullopt;
      size = *sz;
    }
    if (*start < 0 || *start + size > b.shape[d])
      return std::nullopt; // out of bounds is reported elsewhere
    v.base += *start * strides[d];
    if (idx.kind == ir::Index::Kind::Slice) {
      v.extents.push_back(size);
      v.strides.push_back(strides[d]);
    }
  }
  return v;
}

// ----------------------------------------------------------------------------------------------
// Bank and sector arithmetic.

/// Swizzle<B, 4, 3> on a byte address (see the header comment); `mode` is the span in bytes.
/// The definition is public (cake/Verify/BankModel.h) so the layout view draws the same map.
std::int64_t swizzle(std::int64_t addr, int mode) {
  return swizzleAddress(addr, mode);
}

int swizzleBytes(const std::string& s) {
  return swizzleModeBytes(s);
}
/// Bytes of the innermost dimension of a buffer (its "rows").
std::int64_t rowBytes(const sema::BufferInfo& b) {
  return (b.shape.empty() ? 1 : b.shape.back()) * elementBytes(b.dtype);
}

std::string swizzleName(int mode) {
  return mode == 0 ? "none" : std::to_string(mode) + "B";
}

/// Distinct 4-byte words of one phase (after swizzling) and its degree.
int phaseDegree(const std::vector<std::int64_t>& addrs, std::int64_t width, int mode,
                std::vector<std::int64_t>& words) {
  words.clear();
  for (std::int64_t a : addrs)
    for (std::int64_t w = a / 4; w <= (a + width - 1) / 4; ++w)
      words.push_back(swizzle(w * 4, mode) / 4);
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());
  std::array<int, 32> perBank{};
  int worst = 0;
  for (std::int64_t w : words)
    worst = std::max(worst, ++perBank[static_cast<std::size_t>(w % 32)]);
  return worst;
}

void SmemAccess::add(std::vector<std::int64_t> phase) {
  if (phase.empty())
    return;
  std::int64_t lo = *std::min_element(phase.begin(), phase.end());
  std::int64_t shift = (lo >= 0 ? lo / 1024 : (lo - 1023) / 1024) * 1024;
  std::vector<std::int64_t> key(phase);
  for (std::int64_t& x : key)
    x -= shift;
  auto [it, fresh] = seen.try_emplace(std::move(key), phases.size());
  if (fresh) {
    phases.push_back(std::move(phase));
    counts.push_back(1);
  } else {
    ++counts[it->second];
  }
}

void SmemAccess::merge(SmemAccess&& other) {
  for (std::size_t i = 0; i < other.phases.size(); ++i)
    for (std::int64_t n = 0; n < other.counts[i]; ++n)
      add(other.phases[i]);
}

SmemAccess::Result SmemAccess::evaluate(int mode) const {
  Result r;
  std::vector<std::int64_t> words;
  for (std::size_t i = 0; i < phases.size(); ++i) {
    int d = phaseDegree(phases[i], width, mode, words);
    r.wavefronts += d * counts[i];
    if (d > r.degree) {
      r.degree = d;
      r.worstPhase = i;
    }
  }
  return r;
}

void addInstruction(SectorStats& s, std::vector<std::pair<std::int64_t, std::int64_t>>& ranges) {
  // ranges: [begin, end) byte ranges of the lanes.
  std::sort(ranges.begin(), ranges.end());
  std::int64_t unique = 0, sectors = 0, lastSector = -1,
               coveredTo = std::numeric_limits<std::int64_t>::min();
  for (auto [b, e] : ranges) {
    std::int64_t from = std::max(b, coveredTo);
    if (e > from)
      unique += e - from;
    coveredTo = std::max(coveredTo, e);
    for (std::int64_t sct = b / 32; sct <= (e - 1) / 32; ++sct)
      if (sct > lastSector) {
        ++sectors;
        lastSector = sct;
      }
  }
  s.sectors += sectors;
  s.minimal += (unique + 31) / 32;
  s.bytes += unique;
}

Pattern patternOf(const std::string& name) {
  switch (smemAccessModel(name)) {
  case SmemAccessModel::Matrix:
    return Pattern::Matrix;
  case SmemAccessModel::PerThread:
    return Pattern::PerThread;
  case SmemAccessModel::Cooperative:
    return Pattern::Cooperative;
  case SmemAccessModel::None:
    break;
  }
  return Pattern::None;
}

std::string joinInts(const std::vector<std::int64_t>& v, std::size_t limit) {
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < limit; ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  if (v.size() > limit)
    s += ", ...";
  return s;
}

} // namespace cake::verify::detail::perf
