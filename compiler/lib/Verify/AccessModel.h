// The hardware access models behind the performance analysis (Performance.cpp): index
// expressions evaluated with concrete values, operand tiles as byte addresses, shared-memory
// phases against the 32 banks under a swizzle mode, and global accesses as 32-byte sectors.
// Private to the verifier.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Sema/KernelModel.h"

#include <array>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace cake::verify::detail::perf {

/// Values of everything an index expression can name, for one sample of the program.
struct Env {
  const std::unordered_map<std::string, std::int64_t>* consts = nullptr;
  std::unordered_map<std::string, std::int64_t> vars;
  std::unordered_map<std::string, std::array<std::int64_t, 3>> tiles;
  std::unordered_map<std::string, std::pair<std::int64_t, std::int64_t>> pipes; ///< slot, phase
  std::int64_t tid = 0, lane = 0, warp = 0, wg = 0;
  /// Resolved names (by node): a value, or which builtin (-1 tid, -2 lane, -3 warp, -4 wg);
  /// evaluating the same operand for 32 lanes then hashes pointers, not strings.
  mutable std::unordered_map<const ir::Expr*, std::pair<int, std::int64_t>> resolved;
};

/// The value of an index expression in `env`, or nothing when it names an unknown value.
std::optional<std::int64_t> eval(const ir::Expr& e, const Env& env);
/// Whether an expression names one of the thread-varying builtins.
bool mentions(const ir::Expr& e, std::initializer_list<std::string_view> names);
/// Whether any subscript of an operand names one of `names`.
bool operandMentions(const ir::Operand& o, std::initializer_list<std::string_view> names);

/// Bytes of one element; 0 for sub-byte types (not modelled).
std::int64_t elementBytes(ir::DType t);

/// The region an operand selects: byte address of its first element and, per remaining
/// (non-point) dimension, extent and byte stride. Addresses are absolute in shared memory and
/// relative to the (256-byte aligned) parameter base in global memory.
struct TileView {
  std::int64_t base = 0;
  std::vector<std::int64_t> extents;
  std::vector<std::int64_t> strides;
  std::int64_t elemBytes = 1;

  std::int64_t elements() const {
    std::int64_t n = 1;
    for (std::int64_t e : extents)
      n *= e;
    return n;
  }
  /// Address of the element with row-major index `e` inside the tile.
  std::int64_t address(std::int64_t e) const {
    std::int64_t a = base;
    for (std::size_t d = extents.size(); d-- > 0;) {
      a += (e % extents[d]) * strides[d];
      e /= extents[d];
    }
    return a;
  }
  /// Elements of the innermost contiguous run (trailing dimensions that are dense in memory).
  std::int64_t runElements() const;
};

/// The tile an operand of buffer `b` selects in `env`; nothing when a subscript is unknown or
/// out of bounds (reported elsewhere).
std::optional<TileView> viewOf(const ir::Operand& o, const sema::BufferInfo& b, const Env& env);

/// Swizzle<B, 4, 3> on a byte address; `mode` is the span in bytes.
std::int64_t swizzle(std::int64_t addr, int mode);
/// The span in bytes of a swizzle attribute ("128B" -> 128, "none" -> 0).
int swizzleBytes(const std::string& s);
/// Bytes of the innermost dimension of a buffer (its "rows").
std::int64_t rowBytes(const sema::BufferInfo& b);
std::string swizzleName(int mode);
/// Distinct 4-byte words of one phase (after swizzling) and its degree.
int phaseDegree(const std::vector<std::int64_t>& addrs, std::int64_t width, int mode,
                std::vector<std::int64_t>& words);

/// One analysed shared-memory access: its distinct phases of unswizzled absolute byte
/// addresses. Phases that differ by a multiple of 1024 bytes (the period of every swizzle mode
/// and a multiple of the 128-byte bank period) have the same degree, so only one is kept.
struct SmemAccess {
  std::size_t op = 0, operand = 0, buffer = 0;
  std::int64_t width = 16; ///< bytes per address
  std::string unit;        ///< "8x8 matrix", "phase of 8 threads x 16 B", ...
  std::vector<std::vector<std::int64_t>> phases;
  std::vector<std::int64_t> counts;                      ///< occurrences of each phase
  std::map<std::vector<std::int64_t>, std::size_t> seen; ///< normalised phase -> index

  void add(std::vector<std::int64_t> phase);
  void merge(SmemAccess&& other);

  struct Result {
    int degree = 1; ///< worst phase
    std::int64_t wavefronts = 0;
    std::size_t worstPhase = 0;
  };
  /// Degree and wavefronts of every phase under swizzle `mode`.
  Result evaluate(int mode) const;
};

/// Sector statistics of one global access (one warp, all its instructions).
struct SectorStats {
  std::int64_t sectors = 0;
  std::int64_t minimal = 0;
  std::int64_t bytes = 0;
  double ratio() const { return minimal ? double(sectors) / double(minimal) : 1.0; }
};

/// Adds one warp instruction, given as the [begin, end) byte ranges of its lanes (sorted here).
void addInstruction(SectorStats& s, std::vector<std::pair<std::int64_t, std::int64_t>>& ranges);

/// The access pattern a primitive follows (cake/Verify/BankModel.h), in this analysis' terms.
enum class Pattern : std::uint8_t { None, Matrix, PerThread, Cooperative };
Pattern patternOf(const std::string& name);

/// "1, 2, 3, ..." (at most `limit` values).
std::string joinInts(const std::vector<std::int64_t>& v, std::size_t limit = 8);

} // namespace cake::verify::detail::perf
