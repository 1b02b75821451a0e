// Element data types and memory spaces of Cake IR.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace cake::ir {

/// Element types. Sub-byte and 8-bit float formats follow PTX naming (e4m3 = f8e4m3).
enum class DType : std::uint8_t {
  F64,
  F32,
  TF32,
  F16,
  BF16,
  F8E4M3,
  F8E5M2,
  F6E2M3,
  F6E3M2,
  F4E2M1,
  I64,
  I32,
  I16,
  I8,
  U64,
  U32,
  U16,
  U8,
  Pred,
};

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  /// Storage size in bits (tf32 is stored in 32 bits; pred in 1).
  unsigned bits;
  bool isFloat;
};

std::span<const DTypeInfo> allDTypes();
const DTypeInfo& info(DType dtype);
std::string_view toString(DType dtype);
std::optional<DType> parseDType(std::string_view name);

/// Where a value lives.
enum class Space : std::uint8_t { Global, Smem, Tmem, Reg };
std::string_view toString(Space space);
std::optional<Space> parseSpace(std::string_view name);

} // namespace cake::ir
