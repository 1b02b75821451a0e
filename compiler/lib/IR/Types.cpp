// Data type and memory space tables.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/IR/Types.h"

namespace cake::ir {

namespace {
constexpr DTypeInfo kDTypes[] = {
    {DType::F64, "f64", 64, true},      {DType::F32, "f32", 32, true},
    {DType::TF32, "tf32", 32, true},    {DType::F16, "f16", 16, true},
    {DType::BF16, "bf16", 16, true},    {DType::F8E4M3, "f8e4m3", 8, true},
    {DType::F8E5M2, "f8e5m2", 8, true}, {DType::F6E2M3, "f6e2m3", 6, true},
    {DType::F6E3M2, "f6e3m2", 6, true}, {DType::F4E2M1, "f4e2m1", 4, true},
    {DType::I64, "i64", 64, false},     {DType::I32, "i32", 32, false},
    {DType::I16, "i16", 16, false},     {DType::I8, "i8", 8, false},
    {DType::U64, "u64", 64, false},     {DType::U32, "u32", 32, false},
    {DType::U16, "u16", 16, false},     {DType::U8, "u8", 8, false},
    {DType::Pred, "pred", 1, false},
};
} // namespace

std::span<const DTypeInfo> allDTypes() { return kDTypes; }

const DTypeInfo& info(DType dtype) { return kDTypes[static_cast<std::size_t>(dtype)]; }

std::string_view toString(DType dtype) { return info(dtype).name; }

std::optional<DType> parseDType(std::string_view name) {
  for (const DTypeInfo& d : kDTypes)
    if (d.name == name)
      return d.dtype;
  return std::nullopt;
}

std::string_view toString(Space space) {
  switch (space) {
  case Space::Global:
    return "global";
  case Space::Smem:
    return "smem";
  case Space::Tmem:
    return "tmem";
  case Space::Reg:
    return "reg";
  }
  return "?";
}

std::optional<Space> parseSpace(std::string_view name) {
  for (Space s : {Space::Global, Space::Smem, Space::Tmem, Space::Reg})
    if (toString(s) == name)
      return s;
  return std::nullopt;
}

} // namespace cake::ir
