// Prints the thread-level program as CUDA C++ with inline PTX, plus the host launch wrapper.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Lower/CudaEmitter.h"

#include "cake/Lower/Naming.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>
#include <sstream>

namespace cake::lower {

std::string nvccGencode(const std::string& target) {
  std::string num = target.substr(3); // "90a"
  return "-gencode arch=compute_" + num + ",code=sm_" + num;
}

namespace {

std::string cType(Ty ty) {
  switch (ty) {
  case Ty::Pred:
    return "bool";
  case Ty::I32:
    return "int";
  case Ty::U32:
    return "uint32_t";
  case Ty::I64:
    return "int64_t";
  case Ty::U64:
    return "uint64_t";
  case Ty::F32:
    return "float";
  }
  return "int";
}

std::string storageType(ir::DType t) {
  switch (t) {
  case ir::DType::F32:
  case ir::DType::TF32:
    return "float";
  case ir::DType::F64:
    return "double";
  case ir::DType::BF16:
    return "cake_bf16";
  case ir::DType::F16:
    return "cake_f16";
  case ir::DType::I32:
    return "int32_t";
  case ir::DType::U32:
    return "uint32_t";
  case ir::DType::I64:
    return "int64_t";
  case ir::DType::U64:
    return "uint64_t";
  case ir::DType::I16:
    return "int16_t";
  case ir::DType::U16:
    return "uint16_t";
  case ir::DType::I8:
    return "int8_t";
  default:
    return "uint8_t";
  }
}

std::string tensorMapType(ir::DType t) {
  switch (t) {
  case ir::DType::BF16:
    return "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16";
  case ir::DType::F16:
    return "CU_TENSOR_MAP_DATA_TYPE_FLOAT16";
  case ir::DType::F32:
    return "CU_TENSOR_MAP_DATA_TYPE_FLOAT32";
  case ir::DType::TF32:
    return "CU_TENSOR_MAP_DATA_TYPE_TFLOAT32";
  case ir::DType::I32:
    return "CU_TENSOR_MAP_DATA_TYPE_INT32";
  case ir::DType::U32:
    return "CU_TENSOR_MAP_DATA_TYPE_UINT32";
  case ir::DType::I64:
    return "CU_TENSOR_MAP_DATA_TYPE_INT64";
  case ir::DType::U16:
    return "CU_TENSOR_MAP_DATA_TYPE_UINT16";
  default:
    return "CU_TENSOR_MAP_DATA_TYPE_UINT8";
  }
}

std::string floatLiteral(float f) {
  if (std::isinf(f))
    return f > 0 ? "__int_as_float(0x7f800000)" : "__int_as_float(0xff800000)";
  if (std::isnan(f))
    return "__int_as_float(0x7fffffff)";
  char buf[64];
  for (int prec = 6; prec <= 9; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, static_cast<double>(f));
    if (std::strtof(buf, nullptr) == f)
      break;
  }
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s + "f";
}

class Printer {
public:
  /// `vars`, `params`: the names of variables and parameters (cudaVariableNames).
  Printer(const Program& p, std::vector<std::string> vars, std::vector<std::string> params)
      : m_p(p), m_vars(std::move(vars)), m_params(std::move(params)) {}

  std::string expr(const Expr& e) {
    switch (e.kind) {
    case Expr::Kind::Const: {
      if (!e.name.empty())
        return e.name;
      switch (e.ty) {
      case Ty::U32:
        return std::to_string(static_cast<std::uint32_t>(e.value)) + "u";
      case Ty::U64:
        return std::to_string(static_cast<std::uint64_t>(e.value)) + "ull";
      case Ty::I64:
        return std::to_string(e.value) + "ll";
      case Ty::Pred:
        return e.value ? "true" : "false";
      default:
        if (e.value == INT32_MIN)
          return "(-2147483647 - 1)";
        return std::to_string(e.value);
      }
    }
    case Expr::Kind::FConst:
      return floatLiteral(e.fvalue);
    case Expr::Kind::Var: {
      std::string n = name(e.var);
      if (!e.args.empty())
        n += "[" + expr(*e.args[0]) + "]";
      return n;
    }
    case Expr::Kind::Param: {
      const Param& p = m_p.params[e.var];
      const std::string& n = m_params[e.var];
      if (p.kind == Param::Kind::TensorMap)
        return "reinterpret_cast<uint64_t>(&" + n + ")";
      return "reinterpret_cast<uint64_t>(" + n + ")";
    }
    case Expr::Kind::Special:
      switch (e.special) {
      case Special::ThreadIdx:
        return "static_cast<int>(threadIdx.x)";
      case Special::BlockIdx:
        return "static_cast<int>(blockIdx.x)";
      case Special::GridDim:
        return "static_cast<int>(gridDim.x)";
      case Special::SmemBase:
        return "static_cast<uint32_t>(__cvta_generic_to_shared(cake_smem))";
      }
      return "0";
    case Expr::Kind::Unary:
      if (e.op == Op::Not && e.ty == Ty::Pred)
        return "(!" + expr(*e.args[0]) + ")";
      return "(" + std::string(toString(e.op)) + expr(*e.args[0]) + ")";
    case Expr::Kind::Binary: {
      std::string a = expr(*e.args[0]), b = expr(*e.args[1]);
      if (e.op == Op::Min || e.op == Op::Max)
        return std::string(e.op == Op::Min ? "min(" : "max(") + a + ", " + b + ")";
      if (e.args[0]->ty == Ty::Pred && (e.op == Op::And || e.op == Op::Or))
        return "(" + a + (e.op == Op::And ? " && " : " || ") + b + ")";
      return "(" + a + " " + std::string(toString(e.op)) + " " + b + ")";
    }
    case Expr::Kind::Select:
      return "(" + expr(*e.args[0]) + " ? " + expr(*e.args[1]) + " : " + expr(*e.args[2]) + ")";
    case Expr::Kind::Convert:
      return "static_cast<" + cType(e.ty) + ">(" + expr(*e.args[0]) + ")";
    case Expr::Kind::Bitcast:
      if (e.ty == Ty::F32)
        return "__uint_as_float(" + expr(*e.args[0]) + ")";
      return "__float_as_uint(" + expr(*e.args[0]) + ")";
    case Expr::Kind::Call: {
      std::string args;
      for (std::size_t i = 0; i < e.args.size(); ++i)
        args += (i ? ", " : "") + expr(*e.args[i]);
      if (e.name == "shfl_bfly_f32" || e.name == "shfl_bfly_i32")
        return "__shfl_xor_sync(0xffffffffu, " + args + ")";
      if (e.name == "fmax")
        return "fmaxf(" + args + ")";
      if (e.name == "fmin")
        return "fminf(" + args + ")";
      if (e.name == "fma")
        return "fmaf(" + args + ")";
      if (e.name == "fabs")
        return "fabsf(" + args + ")";
      m_usedFns.insert(e.name);
      return "cake_" + e.name + "(" + args + ")";
    }
    }
    return "0";
  }

  std::string name(int v) const { return m_vars[static_cast<std::size_t>(v)]; }

  void line(int depth, const std::string& text) {
    m_out << std::string(static_cast<std::size_t>(depth) * 2, ' ') << text << "\n";
  }

  static std::string quoteAsm(const std::string& text, int depth) {
    // One C string per PTX line keeps long inline PTX readable.
    std::string out;
    std::string pad(static_cast<std::size_t>(depth) * 2 + 4, ' ');
    std::size_t start = 0;
    bool first = true;
    while (start <= text.size()) {
      std::size_t nl = text.find('\n', start);
      std::string part =
          text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
      std::string esc;
      for (char c : part) {
        if (c == '"' || c == '\\')
          esc += '\\';
        esc += c;
      }
      if (!first)
        out += "\n" + pad;
      out += "\"" + esc + (nl == std::string::npos ? "" : "\\n") + "\"";
      first = false;
      if (nl == std::string::npos)
        break;
      start = nl + 1;
    }
    return out;
  }

  std::string operand(const AsmOperand& a, bool output) {
    std::string c(1, a.constraint);
    if (output)
      c = std::string(1, a.mode == '+' ? '+' : '=') + c;
    std::string v;
    if (output) {
      v = name(a.var);
      if (a.index)
        v += "[" + expr(*a.index) + "]";
    } else {
      v = expr(*a.value);
    }
    return "\"" + c + "\"(" + v + ")";
  }

  void stmts(const Block& b, int depth) {
    for (const Stmt& s : b)
      stmt(s, depth);
  }

  void stmt(const Stmt& s, int depth) {
    switch (s.kind) {
    case Stmt::Kind::Comment:
      line(depth, "// " + s.comment);
      return;
    case Stmt::Kind::Assign: {
      std::string lhs = name(s.var);
      if (s.index)
        lhs += "[" + expr(*s.index) + "]";
      line(depth, lhs + " = " + expr(*s.value) + ";");
      return;
    }
    case Stmt::Kind::Asm:
    case Stmt::Kind::Intrin: {
      std::string text = "asm volatile(" + quoteAsm(s.text, depth);
      bool intrin = s.kind == Stmt::Kind::Intrin;
      std::string outs, ins;
      for (std::size_t i = 0; i < s.outputs.size(); ++i)
        outs += (i ? ", " : "") + operand(s.outputs[i], true);
      if (!intrin)
        for (std::size_t i = 0; i < s.inputs.size(); ++i)
          ins += (i ? ", " : "") + operand(s.inputs[i], false);
      std::string pad(static_cast<std::size_t>(depth) * 2 + 4, ' ');
      if (!outs.empty() || !ins.empty() || s.memory) {
        text += "\n" + pad + ": " + outs;
        if (!ins.empty() || s.memory)
          text += "\n" + pad + ": " + ins;
        if (s.memory)
          text += "\n" + pad + ": \"memory\"";
      }
      line(depth, text + ");");
      return;
    }
    case Stmt::Kind::For: {
      std::string v = name(s.loopVar);
      std::string step = s.step ? expr(*s.step) : "1";
      line(depth, "for (int " + v + " = " + expr(*s.begin) + "; " + v + " < " + expr(*s.end) +
                      "; " + (step == "1" ? "++" + v : v + " += " + step) + ") {");
      stmts(s.body, depth + 1);
      line(depth, "}");
      return;
    }
    case Stmt::Kind::Repeat: {
      std::string v = name(s.loopVar);
      line(depth, "#pragma unroll");
      line(depth,
           "for (int " + v + " = 0; " + v + " < " + std::to_string(s.count) + "; ++" + v + ") {");
      stmts(s.body, depth + 1);
      line(depth, "}");
      return;
    }
    case Stmt::Kind::If:
      line(depth, "if (" + expr(*s.cond) + ") {" + (s.comment.empty() ? "" : "  // " + s.comment));
      stmts(s.body, depth + 1);
      if (!s.elseBody.empty()) {
        line(depth, "} else {");
        stmts(s.elseBody, depth + 1);
      }
      line(depth, "}");
      return;
    case Stmt::Kind::Scope:
      line(depth, "{");
      for (int v : s.decls) {
        const Var& var = m_p.vars[v];
        if (var.loopVar)
          continue;
        line(depth + 1, cType(var.ty) + " " + name(v) +
                            (var.count ? "[" + std::to_string(var.count) + "]" : "") + ";");
      }
      stmts(s.body, depth + 1);
      line(depth, "}");
      return;
    }
  }

  std::string take() { return m_out.str(); }
  const std::set<std::string>& usedFns() const { return m_usedFns; }

private:
  const Program& m_p;
  std::vector<std::string> m_vars, m_params;
  std::ostringstream m_out;
  std::set<std::string> m_usedFns;
};

std::string archGuard(const std::string& target) {
  if (target == "sm_90a")
    return "__CUDA_ARCH__ == 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)";
  if (target == "sm_100a")
    return "__CUDA_ARCH__ == 1000 && defined(__CUDA_ARCH_FEAT_SM100_ALL)";
  if (target == "sm_103a")
    return "__CUDA_ARCH__ == 1030 && defined(__CUDA_ARCH_FEAT_SM103_ALL)";
  if (target == "sm_120a")
    return "__CUDA_ARCH__ == 1200 && defined(__CUDA_ARCH_FEAT_SM120_ALL)";
  std::string digits;
  for (char c : target.substr(3))
    if (std::isdigit(static_cast<unsigned char>(c)))
      digits += c;
  return "__CUDA_ARCH__ == " + digits + "0";
}

} // namespace

std::string emitCuda(const Program& p, const Metadata& md, const Provenance& prov) {
  std::ostringstream o;
  std::string ns = "cake_" + p.name;
  bool tensorMaps = false;
  for (const Param& prm : p.params)
    tensorMaps |= prm.kind == Param::Kind::TensorMap;

  // ---- provenance
  o << "// " << p.name << ".cu: CUDA C++ export of the Cake IR kernel '" << p.name << "'.\n";
  o << "// GENERATED FILE, DO NOT EDIT: regenerate with `cake lower " << prov.sourcePath
    << " --emit cuda`.\n//\n";
  o << "//   kernel             " << p.name << "\n";
  o << "//   source             " << prov.sourcePath << "\n";
  o << "//   target             " << p.target << " (exact; nvcc " << nvccGencode(p.target) << ")\n";
  o << "//   schedule hash      " << md.scheduleHash << "\n";
  o << "//   compiler           cake " << prov.compilerVersion << ", revision "
    << prov.compilerRevision << "\n";
  o << "//   CTA                " << md.threads << " threads, " << md.smemTotal
    << " bytes of dynamic shared memory\n";
  o << "//   grid               " << md.tileCount << " tiles, "
    << (md.persistent ? "persistent (one CTA per SM, at most " + std::to_string(md.tileCount) + ")"
                      : "one CTA per tile")
    << "\n";
  for (const RoleDispatch& r : md.roles)
    o << "//   role " << r.name << std::string(r.name.size() < 14 ? 14 - r.name.size() : 1, ' ')
      << "warps " << r.warpBegin << ".." << r.warpEnd
      << (r.registers ? ", setmaxnreg " + std::to_string(r.registers) : "") << "\n";
  o << "\n";

  // ---- preamble
  o << "#ifdef __CUDACC_RTC__\n"
       "typedef unsigned char uint8_t;\n"
       "typedef signed char int8_t;\n"
       "typedef unsigned short uint16_t;\n"
       "typedef short int16_t;\n"
       "typedef unsigned int uint32_t;\n"
       "typedef int int32_t;\n"
       "typedef unsigned long long uint64_t;\n"
       "typedef long long int64_t;\n"
       "#else\n"
       "#include <cstdint>\n"
       "#include <cuda.h>\n"
       "#include <cudaTypedefs.h>\n"
       "#include <cuda_runtime.h>\n"
       "#endif\n\n";
  o << "// Exact-target gating: this device code is only valid for " << p.target << ".\n";
  o << "#if defined(__CUDA_ARCH__) && !(" << archGuard(p.target) << ")\n";
  o << "#error \"" << p.name << " is generated for " << p.target << " only: compile with "
    << nvccGencode(p.target) << "\"\n#endif\n\n";
  o << "#ifndef CAKE_STORAGE_TYPES\n#define CAKE_STORAGE_TYPES\n"
       "typedef uint16_t cake_bf16; // bf16 storage\n"
       "typedef uint16_t cake_f16;  // f16 storage\n"
       "/// A TMA tensor map as a kernel parameter (same size and alignment as CUtensorMap).\n"
       "struct alignas(64) CakeTensorMap {\n  uint64_t opaque[16];\n};\n#endif\n\n";

  // ---- named constants of the derived metadata
  // Every file-level name the device code can see: no variable or parameter may take one.
  std::set<std::string> globals = {ns,           p.name,       "TILES",
                                   "TILE_COUNT", "PERSISTENT", "LAUNCH_REGISTERS"};
  for (const PureFunction& f : pureFunctions())
    globals.insert("cake_" + std::string(f.name));
  o << "namespace " << ns << " {\n";
  o << "// Derived metadata (cake lower --emit metadata shows the full table).\n";
  o << "inline constexpr int TILES[] = {";
  for (std::size_t i = 0; i < md.tiles.size(); ++i)
    o << (i ? ", " : "") << md.tiles[i];
  o << "};\n";
  o << "inline constexpr int TILE_COUNT = " << md.tileCount << ";\n";
  o << "inline constexpr bool PERSISTENT = " << (md.persistent ? "true" : "false") << ";\n";
  o << "inline constexpr int LAUNCH_REGISTERS = " << md.launchRegisters << ";\n";
  for (const auto& [name, stages] : md.pipelines) {
    o << "inline constexpr int PIPELINE_" << name << "_STAGES = " << stages << ";\n";
    globals.insert("PIPELINE_" + name + "_STAGES");
  }
  for (const BarrierGroup& b : md.barriers) {
    if (b.named) {
      o << "inline constexpr int NBAR_" << b.name << "_ID = " << b.hardwareId << ";   // "
        << b.initCount << " threads\n";
      globals.insert("NBAR_" + b.name + "_ID");
      continue;
    }
    o << "inline constexpr int MBAR_" << b.name << "_INIT_COUNT = " << b.initCount << ";\n";
    o << "inline constexpr int MBAR_" << b.name << "_ELEMENTS = " << b.elements << ";\n";
    if (b.expectTxBytes)
      o << "inline constexpr int MBAR_" << b.name << "_EXPECT_TX_BYTES = " << b.expectTxBytes
        << ";\n";
    for (const char* suffix : {"_INIT_COUNT", "_ELEMENTS", "_EXPECT_TX_BYTES"})
      globals.insert("MBAR_" + b.name + suffix);
  }
  for (const TmemAllocation& t : md.tmem) {
    o << "inline constexpr int TMEM_" << t.name << "_COLUMNS = " << t.allocColumns << ";\n";
    globals.insert("TMEM_" + t.name + "_COLUMNS");
  }
  std::set<std::string> emitted = {"TILE_COUNT", "LAUNCH_REGISTERS"};
  for (const auto& [name, value] : p.constants) {
    if (!emitted.insert(name).second)
      continue;
    globals.insert(name);
    bool wide = value > INT32_MAX || value < INT32_MIN || name.rfind("DESC_", 0) == 0;
    bool unsignedConst = name.rfind("IDESC_", 0) == 0;
    o << "inline constexpr "
      << (wide            ? "uint64_t "
          : unsignedConst ? "uint32_t "
                          : "int ")
      << name << " = "
      << (wide ? std::to_string(static_cast<std::uint64_t>(value)) + "ull"
               : std::to_string(value) + (unsignedConst ? "u" : ""))
      << ";\n";
  }
  o << "\n";

  // ---- names: parameters first (the host wrapper's locals are theirs to avoid too), then
  // the device code's variables scope by scope.
  static const std::set<std::string> hostLocals = {
      "device",  "major", "minor",          "sms",  "err",   "encode", "found", "r", "dims",
      "strides", "box",   "elementStrides", "grid", "stream"};
  ScopedNamer paramNamer([&](const std::string& n) {
    return isReservedCudaName(n) || globals.count(n) || hostLocals.count(n);
  });
  std::vector<std::string> paramNames;
  for (std::size_t i = 0; i < p.params.size(); ++i)
    paramNames.push_back(paramNamer.bind(static_cast<int>(i), p.params[i].name));
  std::vector<std::string> mapNames; // host locals of the encoded tensor maps
  for (std::size_t i = 0; i < md.tensorMaps.size(); ++i)
    mapNames.push_back(
        paramNamer.bind(static_cast<int>(p.params.size() + i), md.tensorMaps[i].name + "_map"));
  auto mapName = [&](const std::string& irName) {
    for (std::size_t i = 0; i < md.tensorMaps.size(); ++i)
      if (md.tensorMaps[i].name == irName)
        return mapNames[i];
    return ScopedNamer::sanitize(irName + "_map");
  };
  std::set<std::string> fileScope = globals;
  fileScope.insert(paramNames.begin(), paramNames.end());
  auto paramName = [&](const std::string& irName) {
    for (std::size_t i = 0; i < p.params.size(); ++i)
      if (p.params[i].name == irName)
        return paramNames[i];
    return ScopedNamer::sanitize(irName);
  };

  // ---- device code
  Printer pr(p, cudaVariableNames(p, [&](const std::string& n) { return fileScope.count(n) != 0; }),
             paramNames);
  pr.stmts(p.body, 1);
  std::string body = pr.take();
  for (const std::string& fn : pr.usedFns()) {
    const PureFunction* f = findPureFunction(fn);
    if (!f)
      continue;
    std::string params, ins, cons;
    for (std::size_t i = 0; i < f->args.size(); ++i) {
      params += (i ? ", " : "") + cType(f->args[i]) + " a" + std::to_string(i);
      char c = f->args[i] == Ty::F32 ? 'f' : 'r';
      ins += (i ? ", " : "") + std::string("\"") + c + "\"(a" + std::to_string(i) + ")";
    }
    char rc = f->result == Ty::F32 ? 'f' : 'r';
    std::string ptx;
    for (char c : f->ptx) {
      if (c == '\n')
        ptx += "\\n";
      else
        ptx += c;
    }
    o << "__device__ __forceinline__ " << cType(f->result) << " cake_" << fn << "(" << params
      << ") {\n  " << cType(f->result) << " r;\n  asm(\"" << ptx << "\" : \"=" << rc
      << "\"(r) : " << ins << ");\n  return r;\n}\n";
  }
  o << "} // namespace " << ns << "\n\n";

  o << "extern \"C\" __global__ void __launch_bounds__(" << p.threads << ", 1)\n";
  if (p.cluster[0] * p.cluster[1] * p.cluster[2] > 1)
    o << "__cluster_dims__(" << p.cluster[0] << ", " << p.cluster[1] << ", " << p.cluster[2]
      << ")\n";
  o << p.name << "(";
  for (std::size_t i = 0; i < p.params.size(); ++i) {
    const Param& prm = p.params[i];
    o << (i ? ",\n    " : "");
    if (prm.kind == Param::Kind::TensorMap)
      o << "const __grid_constant__ CakeTensorMap " << paramNames[i];
    else
      o << (prm.readOnly ? "const " : "") << storageType(prm.dtype) << "* __restrict__ "
        << paramNames[i];
  }
  o << ") {\n";
  o << "  using namespace " << ns << ";\n";
  o << "  extern __shared__ __align__(1024) uint8_t cake_smem[];\n";
  o << body;
  o << "}\n\n";

  // ---- host launch wrapper
  o << "#ifndef __CUDACC_RTC__\n";
  o << "/// Launches " << p.name
    << " on `stream`. Fails closed: returns cudaErrorInvalidDevice\n"
       "/// unless the current device is exactly "
    << p.target << "; builds the TMA tensor maps on the host.\n";
  o << "inline cudaError_t cake_launch_" << p.name << "(";
  bool first = true;
  for (std::size_t i = 0; i < p.params.size(); ++i) {
    const Param& prm = p.params[i];
    if (prm.kind == Param::Kind::TensorMap)
      continue;
    o << (first ? "" : ", ") << (prm.readOnly ? "const " : "") << storageType(prm.dtype) << "* "
      << paramNames[i];
    first = false;
  }
  o << (first ? "" : ", ") << "cudaStream_t stream = 0) {\n";
  o << "  using namespace " << ns << ";\n";
  std::string cc = p.target.substr(3);
  int major = std::stoi(
      cc.substr(0, cc.size() - (std::isalpha(static_cast<unsigned char>(cc.back())) ? 2 : 1)));
  int minor = cc[cc.size() - (std::isalpha(static_cast<unsigned char>(cc.back())) ? 2 : 1)] - '0';
  o << "  int device = 0, major = 0, minor = 0, sms = 0;\n"
       "  cudaError_t err = cudaGetDevice(&device);\n"
       "  if (err != cudaSuccess)\n    return err;\n"
       "  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);\n"
       "  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);\n"
       "  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);\n";
  o << "  if (major != " << major << " || minor != " << minor << ")\n"
    << "    return cudaErrorInvalidDevice; // exact target " << p.target << " only\n";
  if (tensorMaps) {
    o << "  // cuTensorMapEncodeTiled through the runtime: no link against libcuda.\n"
         "  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;\n"
         "  cudaDriverEntryPointQueryResult found;\n"
         "  err = cudaGetDriverEntryPointByVersion(\"cuTensorMapEncodeTiled\",\n"
         "                                         reinterpret_cast<void**>(&encode), 12000,\n"
         "                                         cudaEnableDefault, &found);\n"
         "  if (err != cudaSuccess || found != cudaDriverEntryPointSuccess || !encode)\n"
         "    return cudaErrorNotSupported;\n";
    for (std::size_t ti = 0; ti < md.tensorMaps.size(); ++ti) {
      const TensorMapInfo& t = md.tensorMaps[ti];
      ir::DType dt = ir::parseDType(t.dtype).value_or(ir::DType::U8);
      const std::string& m = mapNames[ti];
      o << "  CUtensorMap " << m << ";\n  {\n";
      o << "    const cuuint64_t dims[" << t.globalDims.size() << "] = {";
      for (std::size_t i = 0; i < t.globalDims.size(); ++i)
        o << (i ? ", " : "") << t.globalDims[i] << "ull";
      o << "};\n";
      o << "    const cuuint64_t strides[" << std::max<std::size_t>(1, t.globalStrides.size())
        << "] = {";
      for (std::size_t i = 0; i < t.globalStrides.size(); ++i)
        o << (i ? ", " : "") << t.globalStrides[i] << "ull";
      if (t.globalStrides.empty())
        o << "0ull";
      o << "};\n";
      o << "    const cuuint32_t box[" << t.box.size() << "] = {";
      for (std::size_t i = 0; i < t.box.size(); ++i)
        o << (i ? ", " : "") << t.box[i] << "u";
      o << "};\n";
      o << "    const cuuint32_t elementStrides[" << t.box.size() << "] = {";
      for (std::size_t i = 0; i < t.box.size(); ++i)
        o << (i ? ", " : "") << "1u";
      o << "};\n";
      std::string sw = t.swizzle == "128B"  ? "CU_TENSOR_MAP_SWIZZLE_128B"
                       : t.swizzle == "64B" ? "CU_TENSOR_MAP_SWIZZLE_64B"
                       : t.swizzle == "32B" ? "CU_TENSOR_MAP_SWIZZLE_32B"
                                            : "CU_TENSOR_MAP_SWIZZLE_NONE";
      o << "    CUresult r = encode(&" << m << ", " << tensorMapType(dt) << ", "
        << t.globalDims.size() << ", const_cast<void*>(static_cast<const void*>("
        << paramName(t.source) << ")), dims, strides, box, elementStrides,\n"
        << "                        CU_TENSOR_MAP_INTERLEAVE_NONE, " << sw
        << ", CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);\n";
      o << "    if (r != CUDA_SUCCESS)\n      return cudaErrorInvalidValue;\n  }\n";
    }
  }
  o << "  err = cudaFuncSetAttribute(" << p.name
    << ", cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_TOTAL);\n"
       "  if (err != cudaSuccess)\n    return err;\n";
  // A cluster launch needs a grid of whole clusters: the persistent grid (one CTA per SM)
  // rounds down to them. The cluster shape itself travels in the kernel (__cluster_dims__,
  // .reqnctapercluster), so both <<<>>> and cudaLaunchKernelEx launch clusters.
  std::int64_t clusterSize = p.cluster[0] * p.cluster[1] * p.cluster[2];
  if (clusterSize > 1)
    o << "  const int perCluster = " << clusterSize << ";\n"
      << "  const int grid = PERSISTENT ? ((TILE_COUNT < sms ? TILE_COUNT : sms) / perCluster > 0 "
         "? (TILE_COUNT < sms ? TILE_COUNT : sms) / perCluster * perCluster : perCluster) : "
         "TILE_COUNT;\n";
  else
    o << "  const int grid = PERSISTENT ? (TILE_COUNT < sms ? TILE_COUNT : sms) : TILE_COUNT;\n";
  auto arguments = [&] {
    for (std::size_t i = 0; i < p.params.size(); ++i) {
      const Param& prm = p.params[i];
      o << (i ? ", " : "");
      if (prm.kind == Param::Kind::TensorMap)
        o << "*reinterpret_cast<const CakeTensorMap*>(&" << mapName(prm.name) << ")";
      else
        o << paramNames[i];
    }
  };
  if (md.pdl) {
    // pdl=on: programmatic stream serialisation, so the kernel may start while the previous
    // one on the stream runs (its griddepcontrol.wait orders the global accesses).
    o << "  cudaLaunchAttribute attrs[1];\n"
         "  attrs[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;\n"
         "  attrs[0].val.programmaticStreamSerializationAllowed = 1;\n"
         "  cudaLaunchConfig_t config = {};\n"
         "  config.gridDim = dim3(grid);\n"
         "  config.blockDim = dim3(THREADS);\n"
         "  config.dynamicSmemBytes = SMEM_TOTAL;\n"
         "  config.stream = stream;\n"
         "  config.attrs = attrs;\n"
         "  config.numAttrs = 1;\n";
    o << "  return cudaLaunchKernelEx(&config, " << p.name << ", ";
    arguments();
    o << ");\n}\n#endif\n";
  } else {
    o << "  " << p.name << "<<<grid, THREADS, SMEM_TOTAL, stream>>>(";
    arguments();
    o << ");\n  return cudaGetLastError();\n}\n#endif\n";
  }
  return o.str();
}

} // namespace cake::lower
