// Accessors of the resolved kernel model.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Sema/KernelModel.h"

#include <algorithm>
#include <limits>

namespace cake::sema {

namespace {
/// a * b, saturated to the int64 range: extents come from the kernel text, and an absurd one
/// (fuzz_parse: grid tiles=[16, 9223372036854775807]) must give a huge figure that later checks
/// refuse, not signed overflow.
std::int64_t saturatingMul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (!__builtin_mul_overflow(a, b, &r))
    return r;
  return (a < 0) != (b < 0) ? std::numeric_limits<std::int64_t>::min()
                            : std::numeric_limits<std::int64_t>::max();
}
} // namespace

std::int64_t GridInfo::tileCount() const {
  std::int64_t n = 1;
  for (std::int64_t t : tiles)
    n = saturatingMul(n, t);
  return n;
}

std::int64_t BufferInfo::elements() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape)
    n = saturatingMul(n, d);
  return n;
}

std::int64_t BufferInfo::stageBytes() const {
  std::int64_t bits = saturatingMul(elements(), ir::info(dtype).bits);
  return bits > std::numeric_limits<std::int64_t>::max() - 7 ? bits / 8 + 1 : (bits + 7) / 8;
}

const RoleInfo* KernelModel::role(std::string_view n) const {
  for (const RoleInfo& r : roles)
    if (r.name == n)
      return &r;
  return nullptr;
}

const BufferInfo* KernelModel::buffer(std::string_view n) const {
  for (const BufferInfo& b : buffers)
    if (b.name == n)
      return &b;
  return nullptr;
}

const ScalarInfo* KernelModel::scalar(std::string_view n) const {
  for (const ScalarInfo& s : scalars)
    if (s.name == n)
      return &s;
  return nullptr;
}

std::vector<std::int64_t> KernelModel::scalarValues() const {
  std::vector<std::int64_t> out;
  for (const ScalarInfo& s : scalars)
    out.push_back(s.value);
  return out;
}

const BarrierInfo* KernelModel::barrier(std::string_view n) const {
  for (const BarrierInfo& b : barriers)
    if (b.name == n)
      return &b;
  return nullptr;
}

const PipelineInfo* KernelModel::pipeline(std::string_view n) const {
  for (const PipelineInfo& p : pipelines)
    if (p.name == n)
      return &p;
  return nullptr;
}

std::int64_t KernelModel::warpsPerCta() const {
  std::int64_t w = 0;
  for (const RoleInfo& r : roles)
    w = std::max(w, r.warpEnd);
  return w;
}

std::int64_t KernelModel::smemBytes() const {
  std::int64_t top = 0;
  for (const BufferInfo& b : buffers)
    if (b.space == ir::Space::Smem && b.offset >= 0)
      top = std::max(top, b.offset + b.totalBytes());
  for (const PoolInfo& p : pools)
    top = std::max(top, p.offset + p.bytes);
  return top;
}

std::int64_t KernelModel::derivedSmemBytes() const {
  std::int64_t bytes = 0;
  for (const BarrierInfo& b : barriers)
    if (!b.named)
      bytes += 8 * b.size;
  // One 32-bit word per tensor-memory buffer receives its tcgen05.alloc address, in 8-byte
  // units (lowering's layout, docs/lowering.md).
  auto tmem = std::count_if(buffers.begin(), buffers.end(),
                            [](const BufferInfo& b) { return b.space == ir::Space::Tmem; });
  return bytes + 8 * ((tmem + 1) / 2);
}

} // namespace cake::sema
