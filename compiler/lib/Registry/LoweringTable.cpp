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
  // these). `operands` is the operand signature each pattern indexes (b buffer, t tensor map,
  // m mbarrier, n nbarrier): a primitive naming the pattern must have exactly these operands.
  static const std::vector<BuiltinPattern> patterns = {
      {"tcgen05.alloc", "tensor-core", "b",
       "the destination is the shared-memory word lowering reserves for the TMEM base address and "
       "the column count is the allocation rounded to a power of two (metadata)",
       true},
      {"tcgen05.dealloc", "tensor-core", "b",
       "the address is the TMEM base read back from its shared-memory word; the column count is "
       "the allocation's",
       true},
      {"wgmma", "tensor-core", "bbb",
       "shared-memory matrix descriptors derived from swizzle and majorness, advanced per K step, "
       "register-A fragments, all K steps merged into one asm statement",
       true},
      {"mma.sync", "tensor-core", "bbb",
       "the m16n8k16 fragment registers of each (M, N) tile of the operands", true},
      {"tcgen05.mma", "tensor-core", "bbb",
       "shared-memory and instruction descriptors per K step, the TMEM accumulator address", true},
      {"tcgen05.ld", "tensor-core", "bb",
       "the destination fragment's column count and the 32x32b shape check", true},
      {"ldmatrix", "memory", "bb",
       "per-lane row addresses of each 16-row block in the swizzled source", true},
      {"stmatrix", "memory", "bb",
       "per-lane row addresses of each 16x16 block in the swizzled destination", true},
      {"cp.async", "memory", "bb",
       "chunks distributed round-robin over the role's threads, swizzled destination addresses",
       true},
      {"ld.global", "memory", "bb",
       "vector width chosen from the run length and the alignment the indices guarantee, per "
       "fragment run",
       true},
      {"st.global", "memory", "bb",
       "vector width chosen from the run length and the alignment the indices guarantee, per "
       "fragment run",
       true},
      {"ld.shared", "memory", "bb",
       "per-run swizzled addresses and vector widths, wgmma column vectors", true},
      {"epilogue.store", "memory", "bb",
       "per-layout (row, column) of each element pair, conversion and packing before the store",
       false},
      {"ew.fill", "elementwise", "b",
       "generated as register assignments of the value's bit pattern (packed pairs for 16-bit "
       "types), which the LLVM path folds",
       false},
      {"cast", "elementwise", "bb",
       "generated as arithmetic conversions of element pairs the evaluator of tst_lower_eval runs",
       false},
      {"ew.unary", "elementwise", "bb",
       "each fn is an instruction sequence over f32 (exp through ex2, gelu's erf polynomial) that "
       "LLVM optimises and tst_lower_eval checks against a reference",
       false},
      {"ew.binary", "elementwise", "bbb",
       "row / column / scalar broadcasts between fragment layouts, generated as arithmetic", false},
      {"ew.fma", "elementwise", "bbbb", "generated as fma arithmetic over the fragment layouts",
       false},
      {"softmax.rescale", "elementwise", "bbb",
       "one factor per accumulator row held by the thread, then a row-broadcast multiply", false},
      {"reduce.warp", "elementwise", "bb",
       "in-thread combine, then shuffles over the lanes that share a row of the layout", false},
      {"reduce.cta", "elementwise", "bbb",
       "warp reduction, shared-memory partials and the role barrier between two phases", false},
      {"reduce.argmin", "elementwise", "bbb",
       "compare/select of value and index with the first-occurrence tie rule, then shuffles",
       false},
      {"reduce.argmax", "elementwise", "bbb",
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
