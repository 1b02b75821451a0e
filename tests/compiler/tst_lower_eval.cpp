// Numeric tests of lowered code: a small evaluator of the thread program runs the statements
// lowered for one operation on chosen register values and compares them with a reference, for
// every `fn` the registry lists for ew.unary (a new value is covered, or fails, automatically).
// SPDX-License-Identifier: GPL-3.0-or-later
// Before any Qt header: TileExprCode has a member named emit, which is a Qt macro.
#include "cake/Sema/RuntimeBound.h"

#include "TestUtil.h"

#include "cake/Lower/Lowering.h"
#include "cake/Lower/ThreadProgram.h"

#include <QtTest>

#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

using namespace cake;
using namespace cake::lower;

namespace {

/// One scalar value of the thread program: floats are f32, integers 64-bit with the width
/// applied on store.
struct Value {
  bool isFloat = false;
  float f = 0.0f;
  std::int64_t i = 0;
  static Value ofFloat(float v) { return {true, v, 0}; }
  static Value ofInt(std::int64_t v) { return {false, 0.0f, v}; }
};

/// Evaluates statements of one thread (thread 0 of CTA 0, no memory): enough for the
/// register arithmetic of elementwise operations. Anything it does not model (inline PTX,
/// memory, run-time loops over variables it lacks) throws, so a test cannot pass by skipping.
class Evaluator {
public:
  explicit Evaluator(const Program& p) : m_p(p), m_vals(p.vars.size()) {}
  /// %ctaid.x (the other special registers read 0).
  std::int64_t blockIdx = 0;

  void set(int var, std::size_t index, Value v) {
    auto& slot = m_vals[std::size_t(var)];
    if (slot.size() <= index)
      slot.resize(index + 1);
    slot[index] = v;
    setFlag(var, index);
  }
  Value get(int var, std::size_t index) const {
    if (!isSet(var, index))
      throw std::runtime_error("read of unset variable " + m_p.vars[std::size_t(var)].name + "[" +
                               std::to_string(index) + "]");
    return m_vals[std::size_t(var)][index];
  }

  void run(const Block& block) {
    for (const Stmt& s : block)
      run(s);
  }

  void run(const Stmt& s) {
    switch (s.kind) {
    case Stmt::Kind::Assign: {
      std::size_t index = s.index ? std::size_t(integer(*s.index)) : 0;
      Value v = eval(*s.value);
      Ty ty = m_p.vars[std::size_t(s.var)].ty;
      set(s.var, index, ty == Ty::F32 ? Value::ofFloat(real(v)) : Value::ofInt(wrap(v.i, ty)));
      return;
    }
    case Stmt::Kind::Repeat:
      for (int k = 0; k < s.count; ++k) {
        set(s.loopVar, 0, Value::ofInt(k));
        run(s.body);
      }
      return;
    case Stmt::Kind::For: {
      std::int64_t end = integer(*s.end), step = integer(*s.step);
      if (step <= 0)
        throw std::runtime_error("for loop with step " + std::to_string(step));
      for (std::int64_t k = integer(*s.begin); k < end; k += step) {
        set(s.loopVar, 0, Value::ofInt(k));
        run(s.body);
      }
      return;
    }
    case Stmt::Kind::If:
      run(integer(*s.cond) != 0 ? s.body : s.elseBody);
      return;
    case Stmt::Kind::Scope:
      run(s.body);
      return;
    case Stmt::Kind::Comment:
      return;
    case Stmt::Kind::Asm:
    case Stmt::Kind::Intrin:
      throw std::runtime_error("the evaluator does not model '" + s.text + "'");
    }
  }

  Value eval(const Expr& e) {
    switch (e.kind) {
    case Expr::Kind::Const:
      return Value::ofInt(e.value);
    case Expr::Kind::FConst:
      return Value::ofFloat(e.fvalue);
    case Expr::Kind::Var:
      return get(e.var, e.args.empty() ? 0 : std::size_t(integer(*e.args[0])));
    case Expr::Kind::Special:
      return Value::ofInt(e.special == Special::BlockIdx ? blockIdx : 0);
    case Expr::Kind::Param:
      throw std::runtime_error("the evaluator has no kernel parameters");
    case Expr::Kind::Unary: {
      Value a = eval(*e.args[0]);
      if (e.op == Op::Neg)
        return a.isFloat ? Value::ofFloat(-a.f) : Value::ofInt(wrap(-a.i, e.ty));
      return Value::ofInt(e.ty == Ty::Pred ? !a.i : wrap(~a.i, e.ty));
    }
    case Expr::Kind::Binary:
      return binary(e);
    case Expr::Kind::Select:
      return integer(*e.args[0]) ? eval(*e.args[1]) : eval(*e.args[2]);
    case Expr::Kind::Convert: {
      Value a = eval(*e.args[0]);
      if (e.ty == Ty::F32)
        return Value::ofFloat(a.isFloat ? a.f : float(a.i));
      return Value::ofInt(wrap(a.isFloat ? std::int64_t(a.f) : a.i, e.ty));
    }
    case Expr::Kind::Bitcast: {
      Value a = eval(*e.args[0]);
      std::uint32_t bits = 0;
      if (a.isFloat) {
        std::memcpy(&bits, &a.f, 4);
        return Value::ofInt(bits);
      }
      bits = std::uint32_t(a.i);
      float f = 0;
      std::memcpy(&f, &bits, 4);
      return Value::ofFloat(f);
    }
    case Expr::Kind::Call:
      return call(e);
    }
    throw std::runtime_error("unknown expression kind");
  }

private:
  static std::int64_t wrap(std::int64_t v, Ty ty) {
    switch (ty) {
    case Ty::Pred:
      return v != 0;
    case Ty::I32:
      return std::int32_t(std::uint32_t(v));
    case Ty::U32:
      return std::uint32_t(v);
    default:
      return v;
    }
  }
  std::int64_t integer(const Expr& e) {
    Value v = eval(e);
    if (v.isFloat)
      throw std::runtime_error("a float where an integer is needed");
    return v.i;
  }
  static float real(Value v) { return v.isFloat ? v.f : float(v.i); }
  /// A comparison of floats or of integers (1 or 0); none for other operations.
  template <class T> static std::optional<Value> compare(Op op, T x, T y) {
    switch (op) {
    case Op::Eq:
      return Value::ofInt(x == y);
    case Op::Ne:
      return Value::ofInt(x != y);
    case Op::Lt:
      return Value::ofInt(x < y);
    case Op::Le:
      return Value::ofInt(x <= y);
    case Op::Gt:
      return Value::ofInt(x > y);
    case Op::Ge:
      return Value::ofInt(x >= y);
    default:
      return std::nullopt;
    }
  }

  Value binary(const Expr& e) {
    Value a = eval(*e.args[0]), b = eval(*e.args[1]);
    if (a.isFloat || b.isFloat) {
      float x = real(a), y = real(b);
      switch (e.op) {
      case Op::Add:
        return Value::ofFloat(x + y);
      case Op::Sub:
        return Value::ofFloat(x - y);
      case Op::Mul:
        return Value::ofFloat(x * y);
      case Op::Div:
        return Value::ofFloat(x / y);
      case Op::Min:
        return Value::ofFloat(std::fmin(x, y));
      case Op::Max:
        return Value::ofFloat(std::fmax(x, y));
      default:
        if (std::optional<Value> c = compare(e.op, x, y))
          return *c;
        throw std::runtime_error("integer operation " + std::string(toString(e.op)) + " on floats");
      }
    }
    std::int64_t x = a.i, y = b.i, r = 0;
    switch (e.op) {
    case Op::Add:
      r = x + y;
      break;
    case Op::Sub:
      r = x - y;
      break;
    case Op::Mul:
      r = x * y;
      break;
    case Op::Div:
    case Op::Rem:
      if (y == 0)
        throw std::runtime_error("integer division by zero");
      r = e.op == Op::Div ? x / y : x % y;
      break;
    case Op::Shl:
      r = x << y;
      break;
    case Op::Shr:
      r = (e.ty == Ty::U32 || e.ty == Ty::U64) ? std::int64_t(std::uint64_t(x) >> y) : x >> y;
      break;
    case Op::And:
      r = x & y;
      break;
    case Op::Or:
      r = x | y;
      break;
    case Op::Xor:
      r = x ^ y;
      break;
    case Op::Min:
      r = std::min(x, y);
      break;
    case Op::Max:
      r = std::max(x, y);
      break;
    default:
      if (std::optional<Value> c = compare(e.op, x, y))
        return *c;
      throw std::runtime_error("unexpected binary operation " + std::string(toString(e.op)));
    }
    return Value::ofInt(wrap(r, e.ty));
  }

  /// A pure function by the PTX instruction both back ends emit for it (not by its name, so a
  /// helper whose PTX does something else is caught too).
  Value call(const Expr& e) {
    const PureFunction* f = findPureFunction(e.name);
    if (!f)
      throw std::runtime_error("unknown pure function '" + e.name + "'");
    std::string_view ptx = f->ptx;
    std::string opcode(ptx.substr(0, ptx.find(' ')));
    std::vector<float> a;
    for (const ExprRef& arg : e.args)
      a.push_back(real(eval(*arg)));
    static const std::map<std::string, std::function<float(const std::vector<float>&)>> sem{
        {"ex2.approx.ftz.f32", [](const auto& v) { return std::exp2(v[0]); }},
        {"lg2.approx.ftz.f32", [](const auto& v) { return std::log2(v[0]); }},
        {"rsqrt.approx.ftz.f32", [](const auto& v) { return 1.0f / std::sqrt(v[0]); }},
        {"rcp.approx.ftz.f32", [](const auto& v) { return 1.0f / v[0]; }},
        {"sqrt.approx.ftz.f32", [](const auto& v) { return std::sqrt(v[0]); }},
        {"tanh.approx.f32", [](const auto& v) { return std::tanh(v[0]); }},
        {"fma.rn.f32", [](const auto& v) { return std::fma(v[0], v[1], v[2]); }},
        {"max.f32", [](const auto& v) { return std::fmax(v[0], v[1]); }},
        {"min.f32", [](const auto& v) { return std::fmin(v[0], v[1]); }},
        {"abs.f32", [](const auto& v) { return std::fabs(v[0]); }},
    };
    auto it = sem.find(opcode);
    if (it == sem.end() || f->result != Ty::F32 || a.size() != f->args.size())
      throw std::runtime_error("the evaluator does not model '" + std::string(ptx) + "'");
    return Value::ofFloat(it->second(a));
  }

  void setFlag(int var, std::size_t index) {
    auto& flags = m_set[var];
    if (flags.size() <= index)
      flags.resize(index + 1, false);
    flags[index] = true;
  }
  bool isSet(int var, std::size_t index) const {
    auto it = m_set.find(var);
    return it != m_set.end() && index < it->second.size() && it->second[index];
  }

  const Program& m_p;
  std::vector<std::vector<Value>> m_vals;
  std::map<int, std::vector<bool>> m_set;
};

/// The statements lowered for the operation at `line` (derived code carries its source line).
void collectAtLine(const Block& block, std::uint32_t line, Block& out) {
  for (const Stmt& s : block) {
    if (s.line == line && s.kind != Stmt::Kind::Comment)
      out.push_back(s);
    else {
      collectAtLine(s.body, line, out);
      collectAtLine(s.elseBody, line, out);
    }
  }
}

int varNamed(const Program& p, const std::string& name) {
  for (std::size_t v = 0; v < p.vars.size(); ++v)
    if (p.vars[v].name == name)
      return int(v);
  return -1;
}

/// Reference definitions, from the registry's documentation of `fn` (in double precision).
const std::map<std::string, std::function<double(double)>>& references() {
  static const std::map<std::string, std::function<double(double)>> r{
      {"neg", [](double x) { return -x; }},
      {"abs", [](double x) { return std::fabs(x); }},
      {"exp", [](double x) { return std::exp(x); }},
      {"exp2", [](double x) { return std::exp2(x); }},
      {"log", [](double x) { return std::log(x); }},
      {"log2", [](double x) { return std::log2(x); }},
      {"sqrt", [](double x) { return std::sqrt(x); }},
      {"rsqrt", [](double x) { return 1.0 / std::sqrt(x); }},
      {"rcp", [](double x) { return 1.0 / x; }},
      {"tanh", [](double x) { return std::tanh(x); }},
      {"gelu", [](double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }},
      {"gelu_tanh",
       [](double x) {
         return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
       }},
      {"silu", [](double x) { return x / (1.0 + std::exp(-x)); }},
      {"relu", [](double x) { return std::max(x, 0.0); }},
      {"sigmoid", [](double x) { return 1.0 / (1.0 + std::exp(-x)); }},
  };
  return r;
}

// Line 10 is the ew.unary operation; x and y are per-thread f32 tiles.
const char* kUnary = R"(kernel u target=sm_90a {
  param O : f32[128, 4] role=output
  grid tiles=[1]
  role main warps=0..4
  reg x : f32[4] scope=thread
  reg y : f32[4] scope=thread
  on main {
    for t in tiles {
      ew.fill x value=0.5
      ew.unary y, x fn=%FN%
      st.global O[tid, 0 +: 4], y
    }
  }
}
)";
constexpr std::uint32_t kUnaryLine = 10;

/// A static grid in a chosen tile order: each CTA's tile is blockIdx.x in that order.
const char* kTileOrder = R"(kernel o target=sm_90a {
  param O : f32[65536, 4] role=output
  grid %GRID%
  role main warps=0..4
  reg y : f32[4] scope=thread
  on main {
    for t in tiles {
      ew.fill y value=0.5
      st.global O[(t.x * 64 + t.y) * 128 + tid, 0 +: 4], y
    }
  }
}
)";

/// The assignments of `vars` anywhere in `block`, in program order.
void collectAssigns(const Block& block, const std::set<int>& vars, Block& out) {
  for (const Stmt& s : block) {
    if (s.kind == Stmt::Kind::Assign && vars.count(s.var))
      out.push_back(s);
    collectAssigns(s.body, vars, out);
    collectAssigns(s.elseBody, vars, out);
  }
}

} // namespace

class TestLowerEval : public QObject {
  Q_OBJECT
private Q_SLOTS:
  // Lowering computes the tile coordinates from the linear tile id with the same map as
  // sema::tileCoords (docs/ir.md, "Tile schedulers"), for every CTA of the grid: plain, raster,
  // full swizzle bands (constant divisors) and a ragged last band (run-time divisor).
  void tileCoordinatesFollowTheOrder_data() {
    QTest::addColumn<QString>("grid");
    QTest::newRow("plain") << "tiles=[6, 5]";
    QTest::newRow("raster n") << "tiles=[6, 5] raster=n";
    QTest::newRow("m swizzle 2, full bands") << "tiles=[6, 8] raster=m swizzle=2";
    QTest::newRow("n swizzle 4, ragged band") << "tiles=[7, 5] raster=n swizzle=4";
    QTest::newRow("m swizzle 8, ragged band") << "tiles=[3, 11] swizzle=8";
    QTest::newRow("3-D, n swizzle 2") << "tiles=[3, 4, 2] raster=n swizzle=2";
    // Clustered grids order whole clusters; the rank in the cluster is the offset in its block.
    QTest::newRow("pair, n swizzle 2") << "tiles=[6, 8] raster=n swizzle=2 cluster=[2, 1, 1]";
    QTest::newRow("pair, m swizzle 4, ragged band") << "tiles=[6, 5] swizzle=4 cluster=[2, 1, 1]";
  }
  void tileCoordinatesFollowTheOrder() {
    QFETCH(QString, grid);
    QString kernel = QString::fromUtf8(kTileOrder).replace("%GRID%", grid);
    // Every coordinate is used, or lowering drops its unused arithmetic.
    if (grid.count(',') == 2)
      kernel.replace("(t.x * 64 + t.y)", "((t.z * 8 + t.x) * 8 + t.y)");
    std::string text = kernel.toStdString();
    driver::CheckResult r = test::compiler().check("o.cake", text);
    QVERIFY2(r.accepted, qPrintable(test::messages(r.diagnostics)));
    LoweredKernel k =
        lowerKernel(r.module, r.model, test::compiler().registry(), *r.sources, "o.cake");
    QVERIFY2(k.ok, qPrintable(test::messages(k.findings)));
    std::vector<int> coords;
    for (const char* name : {"t_x", "t_y", "t_z"})
      if (int v = varNamed(k.program, name); v >= 0)
        coords.push_back(v);
    int linear = varNamed(k.program, "t_tile");
    QVERIFY(linear >= 0);
    QCOMPARE(coords.size(), r.model.grid->tiles.size());
    std::set<int> wanted(coords.begin(), coords.end());
    wanted.insert(linear);
    Block code;
    collectAssigns(k.program.body, wanted, code);
    for (std::int64_t cta = 0; cta < r.model.grid->tileCount(); ++cta) {
      Evaluator ev(k.program);
      ev.blockIdx = cta;
      try {
        ev.run(code);
      } catch (const std::exception& ex) {
        QFAIL(ex.what());
      }
      std::vector<std::int64_t> want = sema::tileCoords(*r.model.grid, cta);
      for (std::size_t d = 0; d < coords.size(); ++d)
        QVERIFY2(ev.get(coords[d], 0).i == want[d],
                 qPrintable(QString("CTA %1, coordinate %2: lowered %3, order %4")
                                .arg(cta)
                                .arg(d)
                                .arg(ev.get(coords[d], 0).i)
                                .arg(want[d])));
    }
  }

  void unaryFunctions_data() {
    QTest::addColumn<QString>("fn");
    const reg::Primitive* prim = test::compiler().registry().find("ew.unary");
    QVERIFY(prim);
    const reg::AttrDef* fn = nullptr;
    for (const reg::AttrDef& a : prim->attributes)
      if (a.name == "fn")
        fn = &a;
    QVERIFY(fn && fn->values.size() >= 15);
    for (const std::string& v : fn->values)
      QTest::newRow(v.c_str()) << QString::fromStdString(v);
  }

  /// Every function of ew.unary lowers to code that computes it: signs, both sides of zero,
  /// large and small magnitudes, within f32 approximation error.
  void unaryFunctions() {
    QFETCH(QString, fn);
    auto ref = references().find(fn.toStdString());
    QVERIFY2(ref != references().end(),
             qPrintable("no reference for ew.unary fn=" + fn + ": add one to references()"));
    std::string text = QString::fromUtf8(kUnary).replace("%FN%", fn).toStdString();
    driver::CheckResult r = test::compiler().check("u.cake", text);
    QVERIFY2(r.accepted, qPrintable(test::messages(r.diagnostics)));
    LoweredKernel k =
        lowerKernel(r.module, r.model, test::compiler().registry(), *r.sources, "u.cake");
    QVERIFY2(k.ok, qPrintable(test::messages(k.findings)));
    Block code;
    collectAtLine(k.program.body, kUnaryLine, code);
    QVERIFY2(!code.empty(), "no statement lowered for the ew.unary line");
    int x = varNamed(k.program, "x"), y = varNamed(k.program, "y");
    QVERIFY(x >= 0 && y >= 0);

    const double inputs[] = {-6.0, -2.5, -1.0, -0.3, -1e-3, 0.0, 1e-3,
                             0.25, 0.7,  1.0,  1.9,  4.5,   9.0};
    int compared = 0;
    for (std::size_t base = 0; base < std::size(inputs); base += 4) {
      Evaluator ev(k.program);
      for (std::size_t e = 0; e < 4; ++e)
        ev.set(x, e, Value::ofFloat(float(inputs[(base + e) % std::size(inputs)])));
      try {
        ev.run(code);
      } catch (const std::exception& ex) {
        QFAIL(ex.what());
      }
      for (std::size_t e = 0; e < 4; ++e) {
        double in = float(inputs[(base + e) % std::size(inputs)]);
        double want = ref->second(in);
        if (!std::isfinite(want))
          continue; // outside the function's domain (log of -1, rcp of 0)
        Value got = ev.get(y, e);
        QVERIFY(got.isFloat);
        double tol = 2e-4 * std::max(1.0, std::fabs(want));
        QVERIFY2(std::fabs(double(got.f) - want) <= tol,
                 qPrintable(QStringLiteral("%1(%2) = %3, expected %4")
                                .arg(fn)
                                .arg(in)
                                .arg(double(got.f), 0, 'g', 9)
                                .arg(want, 0, 'g', 9)));
        ++compared;
      }
    }
    QVERIFY2(compared >= 6, "fewer than six inputs in the function's domain");
  }
};

QTEST_GUILESS_MAIN(TestLowerEval)
#include "tst_lower_eval.moc"
