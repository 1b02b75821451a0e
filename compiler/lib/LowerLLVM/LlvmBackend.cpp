// NVPTX module construction, O3 optimisation and PTX emission with LLVM 19. The only
// translation unit of the project that includes LLVM headers.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/LowerLLVM/LlvmBackend.h"
#include "cake/Registry/InlinePtx.h"

#include "cake/Lower/Naming.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Triple.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <unordered_map>

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

namespace cake::lower {

bool llvmSupportsTarget(const std::string& target) {
  return target == "sm_80" || target == "sm_90a";
}

std::string llvmPtxVersion(const std::string& target) {
  (void)target;
  // PTX ISA 8.0: elect.sync, setmaxnreg, mbarrier expect_tx and cp.async.bulk.tensor need it
  // on sm_90a; ptxas 13 accepts it for sm_80 too (L1 eviction hints need 7.4).
  return "8.0";
}

std::string llvmVersion() {
  return LLVM_VERSION_STRING;
}

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

void initTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

/// Register arrays LLVM only ever sees as opaque inline-PTX operands: every read of an element
/// is an inline-PTX operand, the argument of a PTX-only pure function assigned to a variable,
/// or a plain copy, and every write is an inline-PTX result, a constant, a PTX-only pure
/// function or a copy of another such array. Such an array (a wgmma accumulator and its packed bf16
/// copy) is declared as named PTX registers (`%cake_acc_0..63`) that the inline PTX references by
/// name, instead of SSA values threaded through every asm statement: no 64-operand tied asm calls,
/// no loop-carried phis and extractvalues LLVM cannot optimise anyway (ptxas allocates the
/// registers either way), and PTX that names the Cake fragment.
std::vector<char> ptxResidentArrays(const Program& p) {
  std::vector<char> resident(p.vars.size(), 0);
  for (std::size_t v = 0; v < p.vars.size(); ++v) {
    const Var& var = p.vars[v];
    resident[v] = var.count > 0 && !var.loopVar &&
                  (var.ty == Ty::F32 || var.ty == Ty::U32 || var.ty == Ty::I32);
  }
  // Marks arrays read anywhere in `e` (an LLVM computation) as not resident; `direct`: `e`
  // itself is in an operand position where a named register may stand.
  bool changed = false;
  std::function<void(const ExprRef&, bool)> reads = [&](const ExprRef& e, bool direct) {
    if (!e)
      return;
    if (e->kind == Expr::Kind::Var && e->var >= 0 && !direct &&
        resident[static_cast<std::size_t>(e->var)]) {
      resident[static_cast<std::size_t>(e->var)] = 0;
      changed = true;
    }
    for (const ExprRef& a : e->args)
      reads(a, false); // register indices and operands of LLVM arithmetic
  };
  std::function<void(const Block&)> walk = [&](const Block& b) {
    for (const Stmt& s : b) {
      switch (s.kind) {
      case Stmt::Kind::Assign: {
        reads(s.index, false);
        const Expr& v = *s.value;
        bool ptxOnly = false;
        if (v.kind == Expr::Kind::Call) {
          const PureFunction* f = findPureFunction(v.name);
          ptxOnly = f && f->nvvmIntrinsic.empty();
          for (const ExprRef& a : v.args)
            reads(a, ptxOnly);
        } else {
          reads(s.value, true);
        }
        // A value LLVM computes stays an SSA value (a named register would only add a move).
        bool ptxWrite =
            ptxOnly || v.kind == Expr::Kind::Const || v.kind == Expr::Kind::FConst ||
            (v.kind == Expr::Kind::Var && v.var >= 0 && resident[static_cast<std::size_t>(v.var)]);
        if (!ptxWrite && s.var >= 0 && resident[static_cast<std::size_t>(s.var)]) {
          resident[static_cast<std::size_t>(s.var)] = 0;
          changed = true;
        }
        break;
      }
      case Stmt::Kind::Asm:
        for (const AsmOperand& o : s.outputs)
          reads(o.index, false);
        for (const AsmOperand& in : s.inputs) {
          // A PTX-only function of elements is PTX in front of the statement (fuseCalls).
          const PureFunction* f = in.value && in.value->kind == Expr::Kind::Call
                                      ? findPureFunction(in.value->name)
                                      : nullptr;
          if (f && f->nvvmIntrinsic.empty() && in.constraint != 'n') {
            for (const ExprRef& a : in.value->args)
              reads(a, true);
            continue;
          }
          reads(in.value, in.constraint != 'n');
        }
        break;
      default:
        for (const AsmOperand& o : s.outputs)
          reads(o.index, false), reads(o.value, false);
        for (const AsmOperand& in : s.inputs)
          reads(in.value, false);
        break;
      }
      for (const ExprRef* e : {&s.cond, &s.begin, &s.end, &s.step})
        reads(*e, false);
      if (s.kind == Stmt::Kind::Intrin)
        for (const AsmOperand& o : s.outputs)
          if (resident[static_cast<std::size_t>(o.var)]) {
            resident[static_cast<std::size_t>(o.var)] = 0;
            changed = true;
          }
      walk(s.body);
      walk(s.elseBody);
    }
  };
  // Copies make residency depend on other arrays: iterate to the fixpoint.
  do {
    changed = false;
    walk(p.body);
  } while (changed);
  return resident;
}

class Builder {
public:
  Builder(const Program& p, llvm::LLVMContext& ctx, llvm::Module& mod, bool debug)
      : m_p(p), m_ctx(ctx), m_mod(mod), m_b(ctx), m_debug(debug) {}

  bool build(std::string& error) {
    llvm::Type* ptrTy = llvm::PointerType::get(m_ctx, 0);
    std::vector<llvm::Type*> params;
    for (const Param& prm : m_p.params)
      params.push_back(prm.kind == Param::Kind::Scalar ? m_b.getInt32Ty() : ptrTy);
    auto* fnTy = llvm::FunctionType::get(llvm::Type::getVoidTy(m_ctx), params, false);
    m_fn = llvm::Function::Create(fnTy, llvm::GlobalValue::ExternalLinkage, m_p.name, m_mod);
    m_fn->setCallingConv(llvm::CallingConv::PTX_Kernel);
    m_fn->addFnAttr(llvm::Attribute::NoUnwind);
    m_fn->addFnAttr(llvm::Attribute::Convergent);
    llvm::NamedMDNode* ann = m_mod.getOrInsertNamedMetadata("nvvm.annotations");
    auto annotate = [&](const char* key, std::int64_t value) {
      llvm::Metadata* md[] = {
          llvm::ValueAsMetadata::get(m_fn), llvm::MDString::get(m_ctx, key),
          llvm::ConstantAsMetadata::get(m_b.getInt32(static_cast<std::uint32_t>(value)))};
      ann->addOperand(llvm::MDNode::get(m_ctx, md));
    };
    annotate("maxntidx", m_p.threads);
    annotate("minctasm", 1);
    if (m_p.launchRegisters > 0)
      annotate("maxnreg", m_p.launchRegisters);
    std::vector<llvm::Metadata*> gridConstant;
    for (std::size_t i = 0; i < m_p.params.size(); ++i) {
      llvm::Argument* a = m_fn->getArg(static_cast<unsigned>(i));
      a->setName(m_p.params[i].name);
      if (m_p.params[i].kind == Param::Kind::TensorMap) {
        // A CUtensorMap passed by value (128 bytes, 64-byte aligned) and read in place: the
        // grid_constant annotation makes its address a generic pointer into the param space.
        auto* mapTy = llvm::ArrayType::get(m_b.getInt8Ty(), 128);
        a->addAttr(llvm::Attribute::getWithByValType(m_ctx, mapTy));
        a->addAttr(llvm::Attribute::getWithAlignment(m_ctx, llvm::Align(64)));
        gridConstant.push_back(
            llvm::ConstantAsMetadata::get(m_b.getInt32(static_cast<std::uint32_t>(i + 1))));
      } else if (m_p.params[i].readOnly && m_p.params[i].kind == Param::Kind::GlobalPtr) {
        a->addAttr(llvm::Attribute::NoAlias);
      }
    }
    if (!gridConstant.empty()) {
      llvm::Metadata* md[] = {llvm::ValueAsMetadata::get(m_fn),
                              llvm::MDString::get(m_ctx, "grid_constant"),
                              llvm::MDNode::get(m_ctx, gridConstant)};
      ann->addOperand(llvm::MDNode::get(m_ctx, md));
    }
    m_smem = new llvm::GlobalVariable(m_mod, llvm::ArrayType::get(m_b.getInt8Ty(), 0), false,
                                      llvm::GlobalValue::ExternalLinkage, nullptr, "cake_smem",
                                      nullptr, llvm::GlobalValue::NotThreadLocal, 3);
    m_smem->setAlignment(llvm::Align(1024));

    if (m_debug) {
      m_di = std::make_unique<llvm::DIBuilder>(m_mod);
      std::filesystem::path src(m_p.sourcePath.empty() ? m_p.name + ".cake" : m_p.sourcePath);
      llvm::DIFile* file = m_di->createFile(src.filename().string(), src.parent_path().string());
      llvm::DICompileUnit* cu =
          m_di->createCompileUnit(llvm::dwarf::DW_LANG_C, file, "cake", true, "", 0, "",
                                  llvm::DICompileUnit::DebugDirectivesOnly);
      llvm::DISubroutineType* st = m_di->createSubroutineType(m_di->getOrCreateTypeArray({}));
      m_sp = m_di->createFunction(cu, m_p.name, m_p.name, file, 1, st, 1, llvm::DINode::FlagZero,
                                  llvm::DISubprogram::SPFlagDefinition |
                                      llvm::DISubprogram::SPFlagOptimized);
      m_fn->setSubprogram(m_sp);
      m_mod.addModuleFlag(llvm::Module::Warning, "Debug Info Version",
                          llvm::DEBUG_METADATA_VERSION);
      m_mod.addModuleFlag(llvm::Module::Warning, "Dwarf Version", 4);
    }

    llvm::BasicBlock* entry = llvm::BasicBlock::Create(m_ctx, "entry", m_fn);
    m_b.SetInsertPoint(entry);
    // Variables are SSA values from the start (structured control flow makes the phi
    // placement trivial): no allocas for mem2reg to clean up, a smaller module for O3.
    m_vals.resize(m_p.vars.size());
    for (std::size_t v = 0; v < m_p.vars.size(); ++v) {
      const Var& var = m_p.vars[v];
      m_vals[v].assign(static_cast<std::size_t>(var.count ? var.count : 1),
                       Ref{llvm::Constant::getNullValue(type(var.ty)), -1});
    }
    declareResidentArrays();
    if (!block(m_p.body, error))
      return false;
    flushAsm();
    m_b.CreateRetVoid();
    if (m_di)
      m_di->finalize();
    return true;
  }

private:
  /// Declares the PTX-resident register arrays (ptxResidentArrays) once, at function scope:
  /// `.reg .f32 %cake_acc_<64>;` names %cake_acc_0 .. %cake_acc_63.
  void declareResidentArrays() {
    m_resident = ptxResidentArrays(m_p);
    m_regPrefix.assign(m_p.vars.size(), {});
    std::string decl;
    // PTX registers live at function scope: one namer scope for all of them. Element numbers
    // follow the last '_', so distinct bases never spell the same register.
    ScopedNamer namer(nullptr);
    for (std::size_t v = 0; v < m_p.vars.size(); ++v) {
      if (!m_resident[v])
        continue;
      const Var& var = m_p.vars[v];
      m_regPrefix[v] = "%" + namer.bind(static_cast<int>(v), "cake_" + var.name) + "_";
      decl += std::string(decl.empty() ? "" : "\n") + ".reg ." +
              (var.ty == Ty::F32 ? "f32" : "b32") + " " + m_regPrefix[v] + "<" +
              std::to_string(var.count) + ">;";
    }
    if (decl.empty())
      return;
    auto* fty = llvm::FunctionType::get(m_b.getVoidTy(), false);
    llvm::CallInst* c = m_b.CreateCall(fty, llvm::InlineAsm::get(fty, decl, "", true));
    // A second copy of the declarations would be a redefinition error in ptxas.
    c->addFnAttr(llvm::Attribute::NoDuplicate);
    c->setDoesNotThrow();
  }

  bool resident(int var) const { return var >= 0 && m_resident[static_cast<std::size_t>(var)]; }
  bool residentRead(const ExprRef& e) const {
    return e && e->kind == Expr::Kind::Var && resident(e->var);
  }
  /// The named PTX register of an element of a resident array ("" on error).
  std::string regName(int var, const ExprRef& index, std::string& error) {
    long el = element(var, index, error);
    return el < 0 ? std::string() : m_regPrefix[static_cast<std::size_t>(var)] + std::to_string(el);
  }

  llvm::Type* type(Ty ty) {
    switch (ty) {
    case Ty::Pred:
      return m_b.getInt1Ty();
    case Ty::I32:
    case Ty::U32:
      return m_b.getInt32Ty();
    case Ty::I64:
    case Ty::U64:
      return m_b.getInt64Ty();
    case Ty::F32:
      return m_b.getFloatTy();
    }
    return m_b.getInt32Ty();
  }

  static bool isSigned(Ty ty) { return ty == Ty::I32 || ty == Ty::I64; }

  /// The element a (possibly indexed) variable reference names; -1 on error.
  long element(int var, const ExprRef& index, std::string& error) {
    std::size_t i = 0;
    // The common case (a constant or an unrolled loop's index) without LLVM constants.
    std::optional<std::int64_t> folded;
    if (index)
      folded = ex::constantValue(*index, m_boundValues);
    if (folded && *folded >= 0) {
      i = static_cast<std::size_t>(*folded);
    } else if (index) {
      llvm::Value* v = expr(*index, error);
      auto* c = llvm::dyn_cast_or_null<llvm::ConstantInt>(v);
      if (!c) {
        error = "register index of '" + m_p.vars[var].name + "' is not a compile-time constant";
        return -1;
      }
      i = static_cast<std::size_t>(c->getZExtValue());
    }
    if (i >= m_vals[var].size()) {
      error =
          "register index " + std::to_string(i) + " out of range for '" + m_p.vars[var].name + "'";
      return -1;
    }
    return static_cast<long>(i);
  }

  llvm::Value* convertTo(llvm::Value* v, Ty from, Ty to) {
    llvm::Type* t = type(to);
    if (v->getType() == t)
      return v;
    if (from == Ty::Pred)
      return to == Ty::F32 ? m_b.CreateUIToFP(v, t) : m_b.CreateZExt(v, t);
    if (to == Ty::Pred)
      return from == Ty::F32 ? m_b.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0))
                             : m_b.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
    if (from == Ty::F32)
      return isSigned(to) ? m_b.CreateFPToSI(v, t) : m_b.CreateFPToUI(v, t);
    if (to == Ty::F32)
      return isSigned(from) ? m_b.CreateSIToFP(v, t) : m_b.CreateUIToFP(v, t);
    return isSigned(from) ? m_b.CreateSExtOrTrunc(v, t) : m_b.CreateZExtOrTrunc(v, t);
  }

  llvm::Value* special(Special s) {
    llvm::Intrinsic::ID id = llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x;
    switch (s) {
    case Special::ThreadIdx:
      id = llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x;
      break;
    case Special::BlockIdx:
      id = llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x;
      break;
    case Special::GridDim:
      id = llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x;
      break;
    case Special::SmemBase:
      return m_b.CreateTrunc(m_b.CreatePtrToInt(m_smem, m_b.getInt64Ty()), m_b.getInt32Ty());
    }
    return m_b.CreateCall(llvm::Intrinsic::getDeclaration(&m_mod, id));
  }

  llvm::Value* pureAsm(const PureFunction& f, std::vector<llvm::Value*> args) {
    std::vector<llvm::Type*> argTys;
    std::string cons = f.result == Ty::F32 ? "=f" : "=r";
    for (std::size_t i = 0; i < f.args.size(); ++i) {
      argTys.push_back(type(f.args[i]));
      cons += f.args[i] == Ty::F32 ? ",f" : ",r";
    }
    auto* fty = llvm::FunctionType::get(type(f.result), argTys, false);
    auto* ia = llvm::InlineAsm::get(fty, asmText(std::string(f.ptx)), cons, false);
    llvm::CallInst* c = m_b.CreateCall(fty, ia, args);
    // A pure register computation: no memory, no unwinding (CSE and hoisting may apply).
    c->setDoesNotThrow();
    c->setDoesNotAccessMemory();
    return c;
  }

  llvm::Value* call(const Expr& e, std::string& error) {
    const PureFunction* f = findPureFunction(e.name);
    if (!f) {
      error = "unknown pure function '" + e.name + "'";
      return nullptr;
    }
    std::vector<llvm::Value*> args;
    for (std::size_t i = 0; i < e.args.size(); ++i) {
      llvm::Value* a = expr(*e.args[i], error);
      if (!a)
        return nullptr;
      args.push_back(convertTo(a, e.args[i]->ty, f->args[i]));
    }
    if (e.name == "fma")
      return m_b.CreateIntrinsic(llvm::Intrinsic::fma, {m_b.getFloatTy()}, args);
    if (e.name == "fmax")
      return m_b.CreateIntrinsic(llvm::Intrinsic::maxnum, {m_b.getFloatTy()}, args);
    if (e.name == "fmin")
      return m_b.CreateIntrinsic(llvm::Intrinsic::minnum, {m_b.getFloatTy()}, args);
    if (e.name == "fabs")
      return m_b.CreateIntrinsic(llvm::Intrinsic::fabs, {m_b.getFloatTy()}, args);
    if (e.name == "shfl_bfly_f32" || e.name == "shfl_bfly_i32") {
      auto id = e.name == "shfl_bfly_f32" ? llvm::Intrinsic::nvvm_shfl_sync_bfly_f32
                                          : llvm::Intrinsic::nvvm_shfl_sync_bfly_i32;
      return m_b.CreateCall(llvm::Intrinsic::getDeclaration(&m_mod, id),
                            {m_b.getInt32(0xffffffffu), args[0], args[1], m_b.getInt32(0x1f)});
    }
    return pureAsm(*f, args);
  }

  /// Evaluates an expression, reusing the value of a shared subexpression (lowering builds
  /// DAGs: an address used twice by a swizzle, a lane term shared by several instructions)
  /// within one basic block while no variable changed.
  llvm::Value* expr(const Expr& e, std::string& error) {
    bool cacheable = e.kind == Expr::Kind::Binary || e.kind == Expr::Kind::Unary ||
                     e.kind == Expr::Kind::Convert || e.kind == Expr::Kind::Select ||
                     e.kind == Expr::Kind::Call || e.kind == Expr::Kind::Special ||
                     e.kind == Expr::Kind::Bitcast || e.kind == Expr::Kind::Param;
    if (!cacheable)
      return compute(e, error);
    if (m_b.GetInsertBlock() != m_cacheBlock) {
      m_cache.clear();
      m_atoms.clear();
      m_cacheBlock = m_b.GetInsertBlock();
    }
    if (auto it = m_cache.find(&e); it != m_cache.end()) {
      m_touchBound |= it->second.second;
      return it->second.first;
    }
    bool saved = m_touchBound;
    m_touchBound = false;
    llvm::Value* v = compute(e, error);
    bool mine = m_touchBound;
    m_touchBound = saved || mine;
    if (v)
      m_cache[&e] = {v, mine};
    return v;
  }

  void invalidate() {
    m_cache.clear();
    m_atoms.clear();
  }
  void invalidateBound() {
    for (auto it = m_cache.begin(); it != m_cache.end();)
      it = it->second.second ? m_cache.erase(it) : std::next(it);
  }

  llvm::Value* compute(const Expr& e, std::string& error) {
    switch (e.kind) {
    case Expr::Kind::Const:
      return llvm::ConstantInt::get(type(e.ty), static_cast<std::uint64_t>(e.value),
                                    isSigned(e.ty));
    case Expr::Kind::FConst:
      return llvm::ConstantFP::get(m_b.getFloatTy(), static_cast<double>(e.fvalue));
    case Expr::Kind::Var: {
      if (auto it = m_bound.find(e.var); it != m_bound.end() && e.args.empty()) {
        m_touchBound = true;
        return it->second;
      }
      if (resident(e.var)) {
        error = "internal: register array '" + m_p.vars[e.var].name +
                "' lives in named PTX registers but an LLVM expression reads it";
        return nullptr;
      }
      long i = element(e.var, e.args.empty() ? nullptr : e.args[0], error);
      if (i < 0)
        return nullptr;
      return resolve(static_cast<std::size_t>(e.var), static_cast<std::size_t>(i));
    }
    case Expr::Kind::Param:
      if (m_p.params[static_cast<std::size_t>(e.var)].kind == Param::Kind::Scalar)
        return m_fn->getArg(static_cast<unsigned>(e.var)); // an i32 passed by value
      return m_b.CreatePtrToInt(m_fn->getArg(static_cast<unsigned>(e.var)), m_b.getInt64Ty());
    case Expr::Kind::Special:
      return special(e.special);
    case Expr::Kind::Unary: {
      llvm::Value* a = expr(*e.args[0], error);
      if (!a)
        return nullptr;
      if (e.op == Op::Neg)
        return e.ty == Ty::F32 ? m_b.CreateFNeg(a) : m_b.CreateNeg(a);
      return m_b.CreateNot(a);
    }
    case Expr::Kind::Binary: {
      llvm::Value* a = expr(*e.args[0], error);
      llvm::Value* b = a ? expr(*e.args[1], error) : nullptr;
      if (!a || !b)
        return nullptr;
      Ty t = e.args[0]->ty;
      b = convertTo(b, e.args[1]->ty, t);
      bool s = isSigned(t);
      if (t == Ty::F32) {
        switch (e.op) {
        case Op::Add:
          return m_b.CreateFAdd(a, b);
        case Op::Sub:
          return m_b.CreateFSub(a, b);
        case Op::Mul:
          return m_b.CreateFMul(a, b);
        case Op::Div:
          return m_b.CreateFDiv(a, b);
        case Op::Min:
          return m_b.CreateIntrinsic(llvm::Intrinsic::minnum, {a->getType()}, {a, b});
        case Op::Max:
          return m_b.CreateIntrinsic(llvm::Intrinsic::maxnum, {a->getType()}, {a, b});
        case Op::Eq:
          return m_b.CreateFCmpOEQ(a, b);
        case Op::Ne:
          return m_b.CreateFCmpUNE(a, b);
        case Op::Lt:
          return m_b.CreateFCmpOLT(a, b);
        case Op::Le:
          return m_b.CreateFCmpOLE(a, b);
        case Op::Gt:
          return m_b.CreateFCmpOGT(a, b);
        case Op::Ge:
          return m_b.CreateFCmpOGE(a, b);
        default:
          error = "operator " + std::string(toString(e.op)) + " on f32";
          return nullptr;
        }
      }
      // Canonical forms up front (what InstCombine would rewrite first): identities and
      // multiplications by powers of two.
      auto* ca = llvm::dyn_cast<llvm::ConstantInt>(a);
      auto* cb = llvm::dyn_cast<llvm::ConstantInt>(b);
      if (cb && cb->isZero() &&
          (e.op == Op::Add || e.op == Op::Sub || e.op == Op::Or || e.op == Op::Xor ||
           e.op == Op::Shl || e.op == Op::Shr))
        return a;
      if (ca && ca->isZero() && (e.op == Op::Add || e.op == Op::Or || e.op == Op::Xor))
        return b;
      if (ca && !cb &&
          (e.op == Op::Add || e.op == Op::Mul || e.op == Op::And || e.op == Op::Or ||
           e.op == Op::Xor))
        std::swap(a, b), std::swap(ca, cb); // constants on the right
      if (cb && e.op == Op::Mul && cb->getValue().isPowerOf2())
        return m_b.CreateShl(a, cb->getValue().logBase2());
      if (cb && e.op == Op::Mul && cb->isOne())
        return a;
      switch (e.op) {
      case Op::Add:
        return m_b.CreateAdd(a, b);
      case Op::Sub:
        return m_b.CreateSub(a, b);
      case Op::Mul:
        return m_b.CreateMul(a, b);
      case Op::Div:
        return s ? m_b.CreateSDiv(a, b) : m_b.CreateUDiv(a, b);
      case Op::Rem:
        return s ? m_b.CreateSRem(a, b) : m_b.CreateURem(a, b);
      case Op::Shl:
        return m_b.CreateShl(a, b);
      case Op::Shr:
        return s ? m_b.CreateAShr(a, b) : m_b.CreateLShr(a, b);
      case Op::And:
        return m_b.CreateAnd(a, b);
      case Op::Or:
        return m_b.CreateOr(a, b);
      case Op::Xor:
        return m_b.CreateXor(a, b);
      case Op::Min:
        return m_b.CreateSelect(s ? m_b.CreateICmpSLT(a, b) : m_b.CreateICmpULT(a, b), a, b);
      case Op::Max:
        return m_b.CreateSelect(s ? m_b.CreateICmpSGT(a, b) : m_b.CreateICmpUGT(a, b), a, b);
      case Op::Eq:
        return m_b.CreateICmpEQ(a, b);
      case Op::Ne:
        return m_b.CreateICmpNE(a, b);
      case Op::Lt:
        return s ? m_b.CreateICmpSLT(a, b) : m_b.CreateICmpULT(a, b);
      case Op::Le:
        return s ? m_b.CreateICmpSLE(a, b) : m_b.CreateICmpULE(a, b);
      case Op::Gt:
        return s ? m_b.CreateICmpSGT(a, b) : m_b.CreateICmpUGT(a, b);
      case Op::Ge:
        return s ? m_b.CreateICmpSGE(a, b) : m_b.CreateICmpUGE(a, b);
      default:
        error = "unary operator used as binary";
        return nullptr;
      }
    }
    case Expr::Kind::Select: {
      llvm::Value* c = expr(*e.args[0], error);
      llvm::Value* a = c ? expr(*e.args[1], error) : nullptr;
      llvm::Value* b = a ? expr(*e.args[2], error) : nullptr;
      if (!b)
        return nullptr;
      c = convertTo(c, e.args[0]->ty, Ty::Pred);
      b = convertTo(b, e.args[2]->ty, e.args[1]->ty);
      return m_b.CreateSelect(c, a, b);
    }
    case Expr::Kind::Convert: {
      llvm::Value* a = expr(*e.args[0], error);
      return a ? convertTo(a, e.args[0]->ty, e.ty) : nullptr;
    }
    case Expr::Kind::Bitcast: {
      llvm::Value* a = expr(*e.args[0], error);
      return a ? m_b.CreateBitCast(a, type(e.ty)) : nullptr;
    }
    case Expr::Kind::Call:
      return call(e, error);
    }
    error = "unknown expression";
    return nullptr;
  }

  /// CUDA-style operand references (%0) become LLVM's ($0); a literal '$' is doubled.
  static std::string asmText(const std::string& text) {
    std::string out;
    out.reserve(text.size() + 8);
    for (std::size_t i = 0; i < text.size(); ++i) {
      char c = text[i];
      if (c == '$') {
        out += "$$";
      } else if (c == '%' && i + 1 < text.size() &&
                 std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
        out += '$';
      } else {
        out += c;
      }
    }
    return out;
  }

  /// `text` with every operand reference %k (k < subst.size()) replaced by subst[k].
  static std::string substituteOperands(const std::string& text,
                                        const std::vector<std::string>& subst) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '%' && i + 1 < text.size() &&
          std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
        std::size_t j = i + 1, k = 0;
        while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j])))
          k = k * 10 + static_cast<std::size_t>(text[j++] - '0');
        if (k < subst.size()) {
          out += subst[k];
          i = j - 1;
          continue;
        }
      }
      out += text[i];
    }
    return out;
  }

  /// A PTX-only pure function of at least one resident element, as an operand.
  const PureFunction* residentCall(const ExprRef& e) const {
    if (!e || e->kind != Expr::Kind::Call)
      return nullptr;
    const PureFunction* f = findPureFunction(e->name);
    if (!f || !f->nvvmIntrinsic.empty())
      return nullptr;
    for (const ExprRef& a : e->args)
      if (residentRead(a))
        return f;
    return nullptr;
  }

  /// Inline PTX with an operand that is a PTX-only function of resident elements (the packed
  /// bf16 pair an epilogue stores): the function's PTX is placed in front, into a scoped
  /// temporary register, and its arguments become operands.
  bool fuseCalls(const Stmt& s, std::string& error) {
    std::size_t nout = s.outputs.size();
    Stmt t;
    t.kind = Stmt::Kind::Asm;
    t.line = s.line;
    t.column = s.column;
    t.memory = s.memory;
    t.outputs = s.outputs;
    std::vector<std::string> subst(nout + s.inputs.size());
    for (std::size_t i = 0; i < nout; ++i)
      subst[i] = "%" + std::to_string(i);
    std::vector<std::size_t> fused;
    for (std::size_t j = 0; j < s.inputs.size(); ++j) {
      if (residentCall(s.inputs[j].value)) {
        fused.push_back(j);
        subst[nout + j] = "cake_t" + std::to_string(j);
        continue;
      }
      subst[nout + j] = "%" + std::to_string(nout + t.inputs.size());
      t.inputs.push_back(s.inputs[j]);
    }
    std::string pre = "{\n";
    for (std::size_t j : fused) {
      const Expr& call = *s.inputs[j].value;
      const PureFunction* f = findPureFunction(call.name);
      std::vector<std::string> fs(call.args.size() + 1);
      fs[0] = subst[nout + j];
      for (std::size_t a = 0; a < call.args.size(); ++a) {
        fs[a + 1] = "%" + std::to_string(nout + t.inputs.size());
        AsmOperand in;
        in.constraint = a < f->args.size() && f->args[a] == Ty::F32 ? 'f' : 'r';
        in.value = call.args[a];
        t.inputs.push_back(in);
      }
      pre += std::string(".reg .") + (f->result == Ty::F32 ? "f32 " : "b32 ") + fs[0] + ";\n" +
             substituteOperands(std::string(f->ptx), fs) + "\n";
    }
    t.text = pre + substituteOperands(s.text, subst) + "\n}";
    return asmStmt(t, error);
  }

  /// Inline PTX whose operands may name elements of resident arrays: those operands become the
  /// registers' names in the text, the others are renumbered.
  bool asmStmt(const Stmt& s, std::string& error) {
    for (const AsmOperand& in : s.inputs)
      if (residentCall(in.value))
        return fuseCalls(s, error);
    bool free = s.line != 0;
    for (const AsmOperand& o : s.outputs)
      free = free && resident(o.var);
    for (const AsmOperand& in : s.inputs)
      free = free && residentRead(in.value);
    if (!free)
      flushAsm();
    std::size_t n = s.outputs.size() + s.inputs.size();
    std::vector<std::string> subst(n);
    bool any = false;
    for (std::size_t i = 0; i < s.outputs.size(); ++i)
      if (resident(s.outputs[i].var)) {
        subst[i] = regName(s.outputs[i].var, s.outputs[i].index, error);
        if (subst[i].empty())
          return false;
        any = true;
      }
    for (std::size_t j = 0; j < s.inputs.size(); ++j) {
      const ExprRef& v = s.inputs[j].value;
      if (residentRead(v)) {
        subst[s.outputs.size() + j] =
            regName(v->var, v->args.empty() ? nullptr : v->args[0], error);
        if (subst[s.outputs.size() + j].empty())
          return false;
        any = true;
      }
    }
    if (!any)
      return emitAsm(s, error);
    Stmt t;
    t.kind = Stmt::Kind::Asm;
    t.line = s.line;
    t.column = s.column;
    t.memory = s.memory;
    int next = 0;
    for (std::size_t i = 0; i < s.outputs.size(); ++i)
      if (subst[i].empty()) {
        subst[i] = "%" + std::to_string(next++);
        t.outputs.push_back(s.outputs[i]);
      }
    for (std::size_t j = 0; j < s.inputs.size(); ++j)
      if (subst[s.outputs.size() + j].empty()) {
        subst[s.outputs.size() + j] = "%" + std::to_string(next++);
        t.inputs.push_back(s.inputs[j]);
      }
    t.text = substituteOperands(s.text, subst);
    return emitAsm(t, error);
  }

  /// An assignment that writes a resident array or reads one (a copy, or the argument of a
  /// PTX-only pure function) is inline PTX on the named registers.
  /// A constant as a PTX immediate (floats as 0fXXXXXXXX).
  static std::string immediate(const Expr& val) {
    char imm[32];
    if (val.kind == Expr::Kind::FConst) {
      float fv = val.fvalue;
      std::uint32_t bits = 0;
      std::memcpy(&bits, &fv, sizeof bits);
      std::snprintf(imm, sizeof imm, "0f%08X", bits);
    } else {
      std::snprintf(imm, sizeof imm, "%lld", static_cast<long long>(val.value));
    }
    return imm;
  }

  bool assign(const Stmt& s, std::string& error) {
    const Expr& val = *s.value;
    const PureFunction* f = val.kind == Expr::Kind::Call ? findPureFunction(val.name) : nullptr;
    bool ptxCall = f && f->nvvmIntrinsic.empty();
    bool argRead = ptxCall && std::any_of(val.args.begin(), val.args.end(),
                                          [&](const ExprRef& a) { return residentRead(a); });
    if (!resident(s.var) && !argRead && !residentRead(s.value)) {
      flushAsm();
      llvm::Value* v = expr(val, error);
      if (!v)
        return false;
      long el = element(s.var, s.index, error);
      if (el < 0)
        return false;
      m_vals[s.var][static_cast<std::size_t>(el)] =
          Ref{convertTo(v, val.ty, m_p.vars[s.var].ty), -1};
      invalidate();
      return true;
    }
    bool f32 = m_p.vars[s.var].ty == Ty::F32;
    // Fast paths, straight to PTX text: a constant into a named register (a fill), and a
    // PTX-only function of named registers into a named register (a cast).
    bool allNamed = ptxCall && std::all_of(val.args.begin(), val.args.end(),
                                           [&](const ExprRef& a) { return residentRead(a); });
    if (resident(s.var) && s.line != 0 &&
        (val.kind == Expr::Kind::FConst || val.kind == Expr::Kind::Const || allNamed)) {
      std::vector<std::string> names{regName(s.var, s.index, error)};
      if (names[0].empty())
        return false;
      std::string text;
      if (allNamed) {
        for (const ExprRef& a : val.args) {
          names.push_back(regName(a->var, a->args.empty() ? nullptr : a->args[0], error));
          if (names.back().empty())
            return false;
        }
        text = substituteOperands(std::string(f->ptx), names);
      } else {
        text = std::string(f32 ? "mov.f32 " : "mov.b32 ") + names[0] + ", " + immediate(val) + ";";
      }
      pendAsm(asmText(text), "", s.line, s.column);
      return true;
    }
    Stmt a;
    a.kind = Stmt::Kind::Asm;
    a.line = s.line;
    a.column = s.column;
    a.memory = false;
    AsmOperand out;
    out.var = s.var;
    out.index = s.index;
    out.constraint = f32 ? 'f' : 'r';
    a.outputs.push_back(out);
    if (ptxCall && (argRead || resident(s.var))) {
      a.text = std::string(f->ptx);
      for (std::size_t i = 0; i < val.args.size(); ++i) {
        AsmOperand in;
        in.constraint = i < f->args.size() && f->args[i] == Ty::F32 ? 'f' : 'r';
        in.value = val.args[i];
        a.inputs.push_back(in);
      }
    } else if (val.kind == Expr::Kind::FConst || val.kind == Expr::Kind::Const) {
      a.text = std::string(f32 ? "mov.f32" : "mov.b32") + " %0, " + immediate(val) + ";";
    } else {
      AsmOperand in;
      in.constraint = f32 ? 'f' : 'r';
      in.value = s.value;
      a.inputs.push_back(in);
      a.text = std::string(f32 ? "mov.f32" : "mov.b32") + " %0, %1;";
    }
    return asmStmt(a, error);
  }

  // ---- address operands: a shared base register and an immediate offset ----------------
  //
  // Inline PTX hides its addresses from LLVM, so LLVM cannot fold their constant parts into
  // the instruction as it does for loads and stores. An operand used only as `[%k]` is split
  // into an affine base (coefficients times atoms: variables, hardware values, non-linear
  // subexpressions) and a constant: `[%k+C]`. Statements whose addresses differ by constants
  // (the stores of an epilogue, the A and B stages, the full and empty barriers of a slot)
  // then share one base value. Integer arithmetic follows C (signed overflow does not happen),
  // so a sign extension distributes over a signed sum; unsigned widening stays an atom.
  /// The base of an affine address, built from its terms (atoms shared by canonical text).
  llvm::Value* materialize(const AffineForm& a, llvm::Type* ty, std::string& error) {
    llvm::Value* sum = nullptr;
    for (const AffineTerm& t : a.terms) {
      if (t.coeff == 0)
        continue;
      llvm::Value* v;
      std::string key = t.key + ":" + std::to_string(ty->getIntegerBitWidth());
      if (auto it = m_atoms.find(key); it != m_atoms.end()) {
        v = it->second;
      } else {
        v = expr(*t.atom, error);
        if (!v)
          return nullptr;
        if (v->getType()->isIntegerTy() && v->getType() != ty)
          v = t.sext ? m_b.CreateSExtOrTrunc(v, ty) : m_b.CreateZExtOrTrunc(v, ty);
        m_atoms[key] = v;
      }
      if (t.coeff != 1) {
        std::uint64_t c = static_cast<std::uint64_t>(t.coeff);
        v = t.coeff > 0 && llvm::isPowerOf2_64(c) ? m_b.CreateShl(v, llvm::Log2_64(c))
                                                  : m_b.CreateMul(v, llvm::ConstantInt::get(ty, c));
      }
      sum = sum ? m_b.CreateAdd(sum, v) : v;
    }
    return sum;
  }

  /// For an input used only as `[%k]`: its base value, and the text with `[%k+C]`.
  llvm::Value* addressOperand(std::size_t k, const AsmOperand& in, std::string& text,
                              std::string& error) {
    if (in.constraint != 'r' && in.constraint != 'l')
      return nullptr;
    std::string ref = "%" + std::to_string(k);
    std::string bracketed = "[" + ref + "]";
    std::size_t uses = 0, brackets = 0;
    for (std::size_t p = text.find(ref); p != std::string::npos; p = text.find(ref, p + 1)) {
      std::size_t end = p + ref.size();
      if (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end])))
        continue; // %1 inside %12
      ++uses;
      brackets += p > 0 && text[p - 1] == '[' && end < text.size() && text[end] == ']';
    }
    if (uses == 0 || uses != brackets)
      return nullptr;
    std::optional<AffineForm> form = affineForm(*in.value, m_boundValues);
    // A zero offset still takes the shared base (the first store of an epilogue).
    if (!form || form->terms.empty() || form->constant < 0 ||
        form->constant >= (std::int64_t(1) << 31))
      return nullptr;
    const AffineForm& a = *form;
    llvm::Type* ty = in.constraint == 'l' ? m_b.getInt64Ty() : m_b.getInt32Ty();
    llvm::Value* base = materialize(a, ty, error);
    if (!base)
      return nullptr;
    if (a.constant == 0)
      return base;
    std::string with = "[" + ref + "+" + std::to_string(a.constant) + "]";
    for (std::size_t p = text.find(bracketed); p != std::string::npos;
         p = text.find(bracketed, p + with.size()))
      text.replace(p, bracketed.size(), with);
    return base;
  }

  bool emitAsm(const Stmt& s, std::string& error) {
    if (s.outputs.empty() && s.inputs.empty() && s.line != 0) {
      pendAsm(asmText(s.text), s.memory ? "~{memory}" : "", s.line, s.column);
      return true;
    }
    flushAsm();
    std::vector<llvm::Type*> outTys, inTys;
    std::vector<llvm::Value*> ins;
    std::string cons;
    std::string text = s.text;
    auto add = [&](const std::string& c) { cons += (cons.empty() ? "" : ",") + c; };
    std::vector<std::size_t> tied;
    for (std::size_t i = 0; i < s.outputs.size(); ++i) {
      const AsmOperand& o = s.outputs[i];
      add(std::string("=") + o.constraint);
      outTys.push_back(type(m_p.vars[o.var].ty));
      if (o.mode == '+')
        tied.push_back(i);
    }
    for (std::size_t j = 0; j < s.inputs.size(); ++j) {
      const AsmOperand& in = s.inputs[j];
      if (llvm::Value* base = addressOperand(s.outputs.size() + j, in, text, error)) {
        add(std::string(1, in.constraint));
        ins.push_back(base);
        inTys.push_back(base->getType());
        continue;
      }
      if (!error.empty())
        return false;
      llvm::Value* v = expr(*in.value, error);
      if (!v)
        return false;
      Ty want = in.constraint == 'l' ? Ty::U64 : in.constraint == 'f' ? Ty::F32 : Ty::U32;
      if (in.constraint == 'n') {
        auto* c = llvm::dyn_cast<llvm::ConstantInt>(v);
        if (!c) {
          error = "immediate operand is not constant";
          return false;
        }
        v = m_b.getInt32(static_cast<std::uint32_t>(c->getZExtValue()));
        add("n");
      } else {
        if (in.constraint == 'f' && in.value->ty != Ty::F32)
          v = m_b.CreateBitCast(convertTo(v, in.value->ty, Ty::U32), m_b.getFloatTy());
        else if (in.constraint != 'f' && in.value->ty == Ty::F32)
          v = m_b.CreateBitCast(v, m_b.getInt32Ty());
        else
          v = convertTo(v, in.value->ty, want);
        add(std::string(1, in.constraint));
      }
      ins.push_back(v);
      inTys.push_back(v->getType());
    }
    for (std::size_t i : tied) {
      const AsmOperand& o = s.outputs[i];
      long el = element(o.var, o.index, error);
      if (el < 0)
        return false;
      llvm::Value* cur = resolve(static_cast<std::size_t>(o.var), static_cast<std::size_t>(el));
      ins.push_back(cur);
      inTys.push_back(cur->getType());
      add(std::to_string(i));
    }
    if (s.memory)
      add("~{memory}");
    llvm::Type* ret = m_b.getVoidTy();
    if (outTys.size() == 1)
      ret = outTys[0];
    else if (outTys.size() > 1)
      ret = llvm::StructType::get(m_ctx, outTys);
    auto* fty = llvm::FunctionType::get(ret, inTys, false);
    if (llvm::Error e = llvm::InlineAsm::verify(fty, cons)) {
      error = "invalid inline asm constraints '" + cons + "' (" + llvm::toString(std::move(e)) +
              ") for: " + s.text;
      return false;
    }
    auto* ia = llvm::InlineAsm::get(fty, asmText(text), cons, true);
    llvm::CallInst* callInst = m_b.CreateCall(fty, ia, ins);
    // .sync.aligned warp / warpgroup instructions must not be moved across divergent control
    // flow (as clang marks inline asm in CUDA); PTX never unwinds.
    callInst->setConvergent();
    callInst->setDoesNotThrow();
    for (std::size_t i = 0; i < s.outputs.size(); ++i) {
      const AsmOperand& o = s.outputs[i];
      long el = element(o.var, o.index, error);
      if (el < 0)
        return false;
      llvm::Value* v = outTys.size() == 1
                           ? static_cast<llvm::Value*>(callInst)
                           : m_b.CreateExtractValue(callInst, {static_cast<unsigned>(i)});
      m_vals[o.var][static_cast<std::size_t>(el)] = Ref{v, -1};
    }
    if (!s.outputs.empty())
      invalidate();
    return true;
  }

  /// Operand-free inline PTX of one source operation (the moves of a fill, the conversions of
  /// a cast on named registers) is collected and emitted as one asm statement when anything
  /// else is emitted (flushAsm).
  void pendAsm(const std::string& text, const char* cons, std::uint32_t line,
               std::uint32_t column) {
    if (m_pending.active && (m_pending.line != line || m_pending.column != column ||
                             m_pending.cons != cons || m_pending.bb != m_b.GetInsertBlock()))
      flushAsm();
    if (!m_pending.active) {
      m_pending.active = true;
      m_pending.text.clear();
      m_pending.cons = cons;
      m_pending.line = line;
      m_pending.column = column;
      m_pending.bb = m_b.GetInsertBlock();
      m_pending.loc = m_b.getCurrentDebugLocation();
    } else {
      m_pending.text += '\n';
    }
    m_pending.text += text;
  }

  void flushAsm() {
    if (!m_pending.active)
      return;
    m_pending.active = false;
    auto* fty = llvm::FunctionType::get(m_b.getVoidTy(), false);
    llvm::CallInst* c =
        m_b.CreateCall(fty, llvm::InlineAsm::get(fty, m_pending.text, m_pending.cons, true));
    c->setDebugLoc(m_pending.loc);
    c->setConvergent();
    c->setDoesNotThrow();
  }

  bool intrinStmt(const Stmt& s, std::string& error) {
    llvm::Intrinsic::ID id = llvm::Function::lookupIntrinsicID(s.intrinsic);
    if (id == llvm::Intrinsic::not_intrinsic || !s.outputs.empty()) {
      Stmt fallback = s;
      fallback.inputs.clear();
      return asmStmt(fallback, error);
    }
    std::vector<llvm::Value*> args;
    for (const AsmOperand& in : s.inputs) {
      llvm::Value* v = expr(*in.value, error);
      if (!v)
        return false;
      args.push_back(convertTo(v, in.value->ty, Ty::U32));
    }
    llvm::Function* decl = llvm::Intrinsic::getDeclaration(&m_mod, id);
    if (decl->getFunctionType()->getNumParams() != args.size()) {
      Stmt fallback = s;
      fallback.inputs.clear();
      return asmStmt(fallback, error);
    }
    m_b.CreateCall(decl, args);
    return true;
  }

  /// Variables a block may assign (loop-carried values need a phi in the loop header).
  void modifiedBy(const Block& b, std::vector<char>& out) const {
    for (const Stmt& s : b) {
      if (s.kind == Stmt::Kind::Assign)
        out[static_cast<std::size_t>(s.var)] = 1;
      for (const AsmOperand& o : s.outputs)
        out[static_cast<std::size_t>(o.var)] = 1;
      if (s.kind == Stmt::Kind::For)
        out[static_cast<std::size_t>(s.loopVar)] = 1;
      modifiedBy(s.body, out);
      modifiedBy(s.elseBody, out);
    }
    // Named PTX registers are not SSA values: no phis.
    for (std::size_t v = 0; v < out.size(); ++v)
      if (m_resident[v])
        out[v] = 0;
  }

  void location(const Stmt& s) {
    if (!m_sp)
      return;
    m_b.SetCurrentDebugLocation(llvm::DILocation::get(m_ctx, s.line, s.column, m_sp));
  }

  bool block(const Block& body, std::string& error) {
    for (const Stmt& s : body)
      if (!stmt(s, error))
        return false;
    return true;
  }

  bool stmt(const Stmt& s, std::string& error) {
    // Everything but assignments and inline PTX (which decide themselves) and statements
    // that emit nothing themselves ends a run of pending operand-free PTX.
    if (s.kind == Stmt::Kind::If || s.kind == Stmt::Kind::For || s.kind == Stmt::Kind::Intrin)
      flushAsm();
    if (s.kind != Stmt::Kind::Comment && s.kind != Stmt::Kind::Scope && s.line)
      location(s);
    switch (s.kind) {
    case Stmt::Kind::Comment:
      return true;
    case Stmt::Kind::Scope: {
      if (!block(s.body, error))
        return false;
      // Variables of the scope are dead after it: forgetting them avoids useless phis where
      // the role branches join.
      for (int v : s.decls)
        for (Ref& r : m_vals[static_cast<std::size_t>(v)])
          r = Ref{llvm::Constant::getNullValue(type(m_p.vars[static_cast<std::size_t>(v)].ty)), -1};
      return true;
    }
    case Stmt::Kind::Assign:
      return assign(s, error);
    case Stmt::Kind::Asm:
      return asmStmt(s, error);
    case Stmt::Kind::Intrin:
      return intrinStmt(s, error);
    case Stmt::Kind::If: {
      llvm::Value* c = expr(*s.cond, error);
      if (!c)
        return false;
      c = convertTo(c, s.cond->ty, Ty::Pred);
      auto* thenBB = llvm::BasicBlock::Create(m_ctx, "then", m_fn);
      auto* elseBB = s.elseBody.empty() ? nullptr : llvm::BasicBlock::Create(m_ctx, "else", m_fn);
      auto* join = llvm::BasicBlock::Create(m_ctx, "endif", m_fn);
      llvm::BasicBlock* condEnd = m_b.GetInsertBlock();
      m_b.CreateCondBr(c, thenBB, elseBB ? elseBB : join);
      auto before = m_vals;
      m_b.SetInsertPoint(thenBB);
      if (!block(s.body, error))
        return false;
      flushAsm();
      m_b.CreateBr(join);
      llvm::BasicBlock* thenEnd = m_b.GetInsertBlock();
      auto afterThen = std::move(m_vals);
      m_vals = before;
      llvm::BasicBlock* otherEnd = condEnd;
      if (elseBB) {
        m_b.SetInsertPoint(elseBB);
        if (!block(s.elseBody, error))
          return false;
        flushAsm();
        m_b.CreateBr(join);
        otherEnd = m_b.GetInsertBlock();
      }
      m_b.SetInsertPoint(join);
      // A phi for every value the branches left different.
      for (std::size_t v = 0; v < m_vals.size(); ++v)
        for (std::size_t i = 0; i < m_vals[v].size(); ++i)
          if (!same(afterThen[v][i], m_vals[v][i], v, i)) {
            llvm::Value* a = resolveRef(afterThen[v][i], v, i);
            llvm::Value* b = resolveRef(m_vals[v][i], v, i);
            if (a == b) {
              m_vals[v][i] = Ref{a, -1};
              continue;
            }
            llvm::PHINode* phi = m_b.CreatePHI(a->getType(), 2);
            phi->addIncoming(a, thenEnd);
            phi->addIncoming(b, otherEnd);
            m_vals[v][i] = Ref{phi, -1};
          }
      return true;
    }
    case Stmt::Kind::For: {
      llvm::Value* begin = expr(*s.begin, error);
      if (!begin)
        return false;
      m_vals[s.loopVar][0] = Ref{convertTo(begin, s.begin->ty, Ty::I32), -1};
      std::vector<char> modified(m_vals.size(), 0);
      modifiedBy(s.body, modified);
      modified[static_cast<std::size_t>(s.loopVar)] = 1;
      auto* cond = llvm::BasicBlock::Create(m_ctx, "for.cond", m_fn);
      auto* body = llvm::BasicBlock::Create(m_ctx, "for.body", m_fn);
      auto* exit = llvm::BasicBlock::Create(m_ctx, "for.end", m_fn);
      // Header values are created on demand (phis only for values the loop carries and
      // reads; SSA construction in the style of Braun et al.).
      int L = static_cast<int>(m_loops.size());
      m_loops.push_back({});
      m_loops[L].header = cond;
      m_loops[L].pre = m_b.GetInsertBlock();
      for (std::size_t v = 0; v < m_vals.size(); ++v)
        if (modified[v])
          for (std::size_t i = 0; i < m_vals[v].size(); ++i) {
            m_loops[L].preVals[{v, i}] = m_vals[v][i];
            m_vals[v][i] = Ref{nullptr, L};
          }
      m_b.CreateBr(cond);
      m_b.SetInsertPoint(cond);
      llvm::Value* end = expr(*s.end, error);
      if (!end)
        return false;
      llvm::Value* cur = resolve(static_cast<std::size_t>(s.loopVar), 0);
      m_b.CreateCondBr(m_b.CreateICmpSLT(cur, convertTo(end, s.end->ty, Ty::I32)), body, exit);
      m_b.SetInsertPoint(body);
      if (!block(s.body, error))
        return false;
      flushAsm();
      llvm::Value* step = expr(*s.step, error);
      if (!step)
        return false;
      m_vals[s.loopVar][0] = Ref{m_b.CreateAdd(resolve(static_cast<std::size_t>(s.loopVar), 0),
                                               convertTo(step, s.step->ty, Ty::I32)),
                                 -1};
      m_loops[L].latch = m_b.GetInsertBlock();
      m_b.CreateBr(cond);
      for (auto& [key, pre] : m_loops[L].preVals) {
        (void)pre;
        m_loops[L].latchVals[key] = m_vals[key.first][key.second];
        m_vals[key.first][key.second] = Ref{nullptr, L};
      }
      m_loops[L].sealed = true;
      // Complete the phis created while the loop body was built (this may create more).
      m_sealing = L;
      for (std::size_t done = 0; done < m_loops[L].order.size(); ++done) {
        auto key = m_loops[L].order[done];
        llvm::PHINode* phi = m_loops[L].phis[key];
        phi->addIncoming(resolveRef(m_loops[L].latchVals[key], key.first, key.second),
                         m_loops[L].latch);
      }
      m_sealing = -1;
      invalidate();
      m_b.SetInsertPoint(exit);
      return true;
    }
    case Stmt::Kind::Repeat: {
      // Unrolled here so that every register index is a constant.
      for (int i = 0; i < s.count; ++i) {
        m_bound[s.loopVar] = m_b.getInt32(static_cast<std::uint32_t>(i));
        invalidateBound();
        if (!block(s.body, error))
          return false;
      }
      m_bound.erase(s.loopVar);
      invalidateBound();
      return true;
    }
    }
    return true;
  }

  const Program& m_p;
  llvm::LLVMContext& m_ctx;
  llvm::Module& m_mod;
  llvm::IRBuilder<> m_b;
  bool m_debug;
  llvm::Function* m_fn = nullptr;
  llvm::GlobalVariable* m_smem = nullptr;
  std::unique_ptr<llvm::DIBuilder> m_di;
  llvm::DISubprogram* m_sp = nullptr;
  /// A variable's current value, or "the value at the header of loop `loop`" (not yet
  /// materialised as a phi).
  struct Ref {
    llvm::Value* v = nullptr;
    int loop = -1;
    bool operator==(const Ref& o) const { return v == o.v && loop == o.loop; }
  };
  struct Loop {
    llvm::BasicBlock* header = nullptr;
    llvm::BasicBlock* pre = nullptr;
    llvm::BasicBlock* latch = nullptr;
    bool sealed = false;
    std::map<std::pair<std::size_t, std::size_t>, Ref> preVals, latchVals;
    std::map<std::pair<std::size_t, std::size_t>, llvm::PHINode*> phis;
    std::vector<std::pair<std::size_t, std::size_t>> order;
  };
  std::vector<std::vector<Ref>> m_vals;
  std::vector<Loop> m_loops;
  std::vector<char> m_resident;
  std::vector<std::string> m_regPrefix;
  struct Pending {
    bool active = false;
    std::string text, cons;
    std::uint32_t line = 0, column = 0;
    llvm::BasicBlock* bb = nullptr;
    llvm::DebugLoc loc;
  };
  Pending m_pending; ///< operand-free inline PTX not emitted yet (pendAsm)

  llvm::Value* resolve(std::size_t v, std::size_t i) {
    Ref& r = m_vals[v][i];
    if (!r.v)
      r = Ref{headerValue(r.loop, v, i), -1};
    return r.v;
  }

  /// Equal values, also when one side is a header value that was materialised meanwhile.
  bool same(const Ref& a, const Ref& b, std::size_t v, std::size_t i) const {
    if (a == b)
      return true;
    auto materialised = [&](const Ref& pending, const Ref& value) {
      if (pending.v || !value.v)
        return false;
      const Loop& lp = m_loops[static_cast<std::size_t>(pending.loop)];
      auto it = lp.phis.find({v, i});
      return it != lp.phis.end() && it->second == value.v;
    };
    return materialised(a, b) || materialised(b, a);
  }

  llvm::Value* resolveRef(const Ref& r, std::size_t v, std::size_t i) {
    return r.v ? r.v : headerValue(r.loop, v, i);
  }

  /// The phi of loop L's header for element (v, i), created on first use.
  llvm::Value* headerValue(int L, std::size_t v, std::size_t i) {
    Loop& lp = m_loops[static_cast<std::size_t>(L)];
    auto key = std::make_pair(v, i);
    if (auto it = lp.phis.find(key); it != lp.phis.end())
      return it->second;
    llvm::Type* ty = type(m_p.vars[v].ty);
    llvm::PHINode* phi = llvm::PHINode::Create(ty, 2, "", lp.header->begin());
    lp.phis[key] = phi;
    lp.order.push_back(key);
    phi->addIncoming(resolveRef(lp.preVals[key], v, i), lp.pre);
    if (lp.sealed) {
      // Created after the loop was closed: its latch value is known already (the loop above
      // completes phis in `order`, so only add it here when that pass is over).
      if (m_sealing != L)
        phi->addIncoming(resolveRef(lp.latchVals[key], v, i), lp.latch);
    }
    return phi;
  }
  int m_sealing = -1;
  std::map<int, llvm::Value*> m_bound;
  /// m_bound as values, for folding register indices and address forms.
  BoundValues m_boundValues = [this](int var) -> std::optional<std::int64_t> {
    if (auto it = m_bound.find(var); it != m_bound.end())
      return llvm::cast<llvm::ConstantInt>(it->second)->getSExtValue();
    return std::nullopt;
  };
  std::unordered_map<const Expr*, std::pair<llvm::Value*, bool>> m_cache;
  /// Atoms of address bases by canonical text (same validity as m_cache).
  std::unordered_map<std::string, llvm::Value*> m_atoms;
  llvm::BasicBlock* m_cacheBlock = nullptr;
  bool m_touchBound = false;
};

} // namespace

LlvmResult emitLlvm(const Program& program, const LlvmOptions& options) {
  LlvmResult res;
  if (!llvmSupportsTarget(program.target)) {
    res.error = "LLVM " + llvmVersion() + " cannot emit " + program.target;
    return res;
  }
  initTarget();
  auto t0 = Clock::now();
  llvm::LLVMContext ctx;
  llvm::Module mod(program.name, ctx);
  llvm::Triple triple("nvptx64-nvidia-cuda");
  mod.setTargetTriple(triple.str());
  std::string err;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple.str(), err);
  if (!target) {
    res.error = "NVPTX target unavailable: " + err;
    return res;
  }
  std::string features = "+ptx" + [&] {
    std::string v = llvmPtxVersion(program.target);
    v.erase(std::remove(v.begin(), v.end(), '.'), v.end());
    return v;
  }();
  llvm::TargetOptions to;
  to.MCOptions.AsmVerbose = false; // no per-instruction comments (and no column padding)
  // The back end runs at its default level even for -O3: at Aggressive, NVPTX only adds a
  // second GVN over IR that the O3 middle end has just run GVN on (ptxas optimises the
  // machine code anyway); the PTX is the same and the path is faster.
  auto level = options.optLevel >= 2   ? llvm::CodeGenOptLevel::Default
               : options.optLevel == 1 ? llvm::CodeGenOptLevel::Less
                                       : llvm::CodeGenOptLevel::None;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple.str(), program.target, features, to, std::nullopt, std::nullopt, level));
  if (!tm) {
    res.error = "cannot create the NVPTX target machine";
    return res;
  }
  mod.setDataLayout(tm->createDataLayout());

  Builder b(program, ctx, mod, options.debugInfo);
  if (!b.build(res.error))
    return res;
  std::string verifyErrors;
  llvm::raw_string_ostream vs(verifyErrors);
  if (llvm::verifyModule(mod, &vs)) {
    res.error = "invalid LLVM module: " + vs.str();
    return res;
  }
  res.buildSeconds = since(t0);

  auto t1 = Clock::now();
  if (options.optLevel > 0) {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    // The O3 pipeline, tuned for GPU kernels written as straight-line inline PTX: the loop
    // and SLP vectorizers have nothing to vectorize for NVPTX and lowering already unrolled
    // every register-indexed loop (run-time loops stay rolled; ptxas unrolls what pays off).
    llvm::PipelineTuningOptions pto;
    pto.LoopUnrolling = false;
    pto.LoopVectorization = false;
    pto.SLPVectorization = false;
    pto.LoopInterleaving = false;
    llvm::PassBuilder pb(tm.get(), pto);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::OptimizationLevel ol = options.optLevel >= 3   ? llvm::OptimizationLevel::O3
                                 : options.optLevel == 2 ? llvm::OptimizationLevel::O2
                                                         : llvm::OptimizationLevel::O1;
    llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(ol);
    mpm.run(mod, mam);
  }
  res.optSeconds = since(t1);
  if (options.wantIr) {
    llvm::raw_string_ostream os(res.ir);
    mod.print(os, nullptr);
    os.flush();
  }
  auto t2 = Clock::now();
  if (options.wantPtx) {
    llvm::SmallString<0> buffer;
    {
      llvm::raw_svector_ostream os(buffer);
      // Pitfall: the pass manager must be destroyed before the stream is read.
      llvm::legacy::PassManager pm;
      if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile)) {
        res.error = "the NVPTX target cannot emit assembly";
        return res;
      }
      pm.run(mod);
    }
    res.ptx.assign(buffer.begin(), buffer.end());
    // LLVM 19 has no annotation for a required cluster shape: the directives go after the
    // entry's .maxntid (PTX ISA, Performance-Tuning Directives: .reqnctapercluster).
    if (program.cluster[0] * program.cluster[1] * program.cluster[2] > 1) {
      std::size_t at = res.ptx.find(".maxntid");
      if (at == std::string::npos) {
        res.error = "the emitted PTX has no .maxntid directive to place the cluster shape after";
        res.ptx.clear();
        return res;
      }
      at = res.ptx.find('\n', at);
      res.ptx.insert(at == std::string::npos ? res.ptx.size() : at + 1,
                     ".reqnctapercluster " + std::to_string(program.cluster[0]) + ", " +
                         std::to_string(program.cluster[1]) + ", " +
                         std::to_string(program.cluster[2]) + "\n.explicitcluster\n");
    }
    // The program is one kernel: a second entry could only come from inline PTX that escaped
    // its statement, which lowering refuses; never hand such a module on.
    if (std::size_t entries = reg::countPtxEntries(res.ptx); entries != 1) {
      res.error = "the emitted PTX has " + std::to_string(entries) +
                  " kernel entries instead of one (inline PTX left its statement)";
      res.ptx.clear();
      return res;
    }
  }
  res.codegenSeconds = since(t2);
  res.ok = true;
  return res;
}

} // namespace cake::lower
