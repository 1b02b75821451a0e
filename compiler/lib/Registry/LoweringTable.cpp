// The lowering strategies' names, the one list of builtin C++ lowering patterns (with why each
// needs C++) and the NVVM intrinsics a template may name: what the loader checks definitions
// against, so an unknown pattern is a load error rather than a failed `cake lower`.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Registry/Primitive.h"

namespace cake::reg {

std::string_view toString(LoweringStrategy strategy) {
  switch (strategy) {
  case LoweringStrategy::Template:
    return "template";
  case LoweringStrategy::Expansion:
    return "expansion";
  case LoweringStrategy::Builtin:
    return "builtin";
  }
  return "?";
}

std::string_view toString(TemplateRepeat repeat) {
  switch (repeat) {
  case TemplateRepeat::Instance:
    return "instance";
  case TemplateRepeat::Element:
    return "element";
  case TemplateRepeat::Register:
    return "register";
  }
  return "?";
}

const std::vector<BuiltinPattern>& builtinPatterns() {
  // The one list of C++ lowering patterns (compiler/lib/Lower/Patterns.cpp implements exactly
  // these). `operands` is the operand signature each pattern was written for, one token per
  // operand: the memory spaces a buffer may be in (g global, s smem, t tmem, r reg) or T tensor
  // map, M mbarrier, N nbarrier. A primitive naming the pattern must have exactly that many
  // operands, each of that kind and only in those spaces: the pattern indexes them and computes
  // addresses by space.
  static const std::vector<BuiltinPattern> patterns = {
      {"tcgen05.alloc", "tensor-core", "t",
       "the destination is the shared-memory word lowering reserves for the TMEM base address and "
       "the column count is the allocation rounded to a power of two (metadata)",
       true},
      {"tcgen05.dealloc", "tensor-core", "t",
       "the address is the TMEM base read back from its shared-memory word; the column count is "
       "the allocation's",
       true},
      {"wgmma", "tensor-core", "r sr s",
       "shared-memory matrix descriptors derived from swizzle and majorness, advanced per K step, "
       "register-A fragments, all K steps merged into one asm statement",
       true},
      {"mma.sync", "tensor-core", "r r r",
       "the m16n8k16 fragment registers of each (M, N) tile of the operands", true},
      {"tcgen05.mma", "tensor-core", "t st s",
       "shared-memory and instruction descriptors per K step, the TMEM accumulator address", true},
      {"tcgen05.ld", "tensor-core", "r t",
       "the destination fragment's column count and the 32x32b shape check", true},
      {"tcgen05.st", "tensor-core", "t r",
       "the source fragment's 32-bit column count (16-bit elements packed in pairs) and the "
       "32x32b shape check",
       true},
      {"ldmatrix", "memory", "r s",
       "per-lane row addresses of each 16-row block in the swizzled source", true},
      {"stmatrix", "memory", "s r",
       "per-lane row addresses of each 16x16 block in the swizzled destination", true},
      {"cp.async", "memory", "s g",
       "chunks distributed round-robin over the role's threads, swizzled destination addresses",
       true},
      {"ld.global", "memory", "r g",
       "vector width chosen from the run length and the alignment the indices guarantee, per "
       "fragment run",
       true},
      {"st.global", "memory", "g r",
       "vector width chosen from the run length and the alignment the indices guarantee, per "
       "fragment run",
       true},
      {"ld.shared", "memory", "r s",
       "per-run swizzled addresses and vector widths, wgmma column vectors", true},
      {"st.shared", "memory", "s r",
       "per-lane swizzled row addresses of 16-byte runs of a tcgen05.ld fragment (TMEM -> smem "
       "epilogue) and thread vectors",
       true},
      {"epilogue.store", "memory", "g r",
       "per-layout (row, column) of each element pair, conversion and packing before the store",
       false},
      {"ew.fill", "elementwise", "r",
       "generated as register assignments of the value's bit pattern (packed pairs for 16-bit "
       "types), which the LLVM path folds",
       false},
      {"cast", "elementwise", "r r",
       "generated as arithmetic conversions of element pairs the evaluator of tst_lower_eval runs",
       false},
      {"ew.unary", "elementwise", "r r",
       "each fn is an instruction sequence over f32 (exp through ex2, gelu's erf polynomial) that "
       "LLVM optimises and tst_lower_eval checks against a reference",
       false},
      {"ew.binary", "elementwise", "r r r",
       "row / column / scalar broadcasts between fragment layouts, generated as arithmetic", false},
      {"ew.fma", "elementwise", "r r r r", "generated as fma arithmetic over the fragment layouts",
       false},
      {"ew.mask", "elementwise", "r",
       "each element's query and key index from the fragment layout, compare and select", false},
      {"softmax.rescale", "elementwise", "r r r",
       "one factor per accumulator row held by the thread, then a row-broadcast multiply", false},
      {"reduce.warp", "elementwise", "r r",
       "in-thread combine, then shuffles over the lanes that share a row of the layout", false},
      {"reduce.cta", "elementwise", "r r s",
       "warp reduction, shared-memory partials and the role barrier between two phases", false},
      {"reduce.argmin", "elementwise", "r r r",
       "compare/select of value and index with the first-occurrence tie rule, then shuffles",
       false},
      {"reduce.argmax", "elementwise", "r r r",
       "compare/select of value and index with the first-occurrence tie rule, then shuffles",
       false},
  };
  return patterns;
}

const std::vector<std::pair<std::string_view, std::size_t>>& knownIntrinsics() {
  // NVVM intrinsics LLVM 19 has for instructions a template states; each takes only immediates.
  static const std::vector<std::pair<std::string_view, std::size_t>> list = {
      {"llvm.nvvm.barrier0", 0},
      {"llvm.nvvm.barrier.sync.cnt", 2},
      {"llvm.nvvm.cp.async.commit.group", 0},
      {"llvm.nvvm.cp.async.wait.group", 1},
  };
  return list;
}

DefValue defValueFromJson(const json::Value& v) {
  switch (v.kind) {
  case json::Kind::Bool:
    return DefValue::boolean(v.boolean);
  case json::Kind::Number:
    if (v.integer)
      return DefValue::integer(*v.integer);
    else {
      DefValue d;
      d.kind = DefValue::Kind::Float;
      d.f = v.number;
      return d;
    }
  case json::Kind::String:
    return DefValue::symbol(v.string);
  case json::Kind::Array: {
    DefValue d;
    d.kind = DefValue::Kind::List;
    for (const json::Value& e : v.elements)
      d.list.push_back(defValueFromJson(e));
    return d;
  }
  default:
    return {};
  }
}

} // namespace cake::reg
