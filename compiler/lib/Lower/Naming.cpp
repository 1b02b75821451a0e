// Scope-aware naming of thread-program variables for the CUDA and PTX printers.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Lower/Naming.h"

#include <cctype>
#include <set>

namespace cake::lower {

ScopedNamer::ScopedNamer(std::function<bool(const std::string&)> reserved)
    : m_reserved(std::move(reserved)) {
  pushScope();
}

void ScopedNamer::pushScope() {
  m_scopes.emplace_back();
}

void ScopedNamer::popScope() {
  if (m_scopes.size() <= 1)
    return; // the outermost scope stays open
  for (const std::string& n : m_scopes.back())
    if (--m_open[n] == 0)
      m_open.erase(n);
  m_scopes.pop_back();
}

bool ScopedNamer::taken(const std::string& name) const {
  return m_open.count(name) != 0 || (m_reserved && m_reserved(name));
}

std::string ScopedNamer::sanitize(std::string_view hint) {
  std::string out;
  for (char c : hint) {
    char k = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    // `__` anywhere is reserved to the implementation in C++; one underscore is kept.
    if (k == '_' && !out.empty() && out.back() == '_')
      continue;
    out += k;
  }
  if (out.empty() || !std::isalpha(static_cast<unsigned char>(out.front())))
    out.insert(out.begin(), 'v');
  return out;
}

const std::string& ScopedNamer::bind(int key, std::string_view hint) {
  std::string base = sanitize(hint);
  std::string name = base;
  // Every candidate is checked, so `c_1` chosen for a second `c` never collides with a user's
  // own `c_1`; a trailing '_' is dropped first so that no candidate spells `__`.
  if (!base.empty() && base.back() == '_')
    base.pop_back();
  for (int k = 1; taken(name); ++k)
    name = base + "_" + std::to_string(k);
  m_scopes.back().push_back(name);
  ++m_open[name];
  return m_names[key] = name;
}

const std::string& ScopedNamer::nameOf(int key) const {
  static const std::string none;
  auto it = m_names.find(key);
  return it == m_names.end() ? none : it->second;
}

bool isReservedCudaName(const std::string& n) {
  static const std::set<std::string> words = {
      // C++ keywords and alternative tokens
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
      "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
      "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
      "co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast",
      "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
      "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
      "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
      "reinterpret_cast", "requires", "return", "short", "signed", "sizeof", "static",
      "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
      "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
      "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
      // CUDA built-ins and what the generated code calls or names
      "threadIdx", "blockIdx", "gridDim", "blockDim", "warpSize", "min", "max", "fmaxf", "fminf",
      "fmaf", "fabsf", "std", "uint8_t", "int8_t", "uint16_t", "int16_t", "uint32_t", "int32_t",
      "uint64_t", "int64_t", "cake_bf16", "cake_f16", "CakeTensorMap", "cake_smem"};
  return words.count(n) != 0 || n.rfind("__", 0) == 0;
}

std::vector<std::string>
cudaVariableNames(const Program& p, const std::function<bool(const std::string&)>& reserved) {
  ScopedNamer namer(
      [&](const std::string& n) { return isReservedCudaName(n) || (reserved && reserved(n)); });
  std::vector<char> bound(p.vars.size(), 0);
  auto bindVar = [&](int v) {
    if (v < 0 || static_cast<std::size_t>(v) >= p.vars.size())
      return;
    namer.bind(v, p.vars[static_cast<std::size_t>(v)].name);
    bound[static_cast<std::size_t>(v)] = 1;
  };
  std::function<void(const Block&)> walk = [&](const Block& b) {
    for (const Stmt& s : b) {
      switch (s.kind) {
      case Stmt::Kind::Scope:
        namer.pushScope();
        for (int v : s.decls)
          if (v >= 0 && static_cast<std::size_t>(v) < p.vars.size() &&
              !p.vars[static_cast<std::size_t>(v)].loopVar)
            bindVar(v);
        walk(s.body);
        namer.popScope();
        break;
      case Stmt::Kind::For:
      case Stmt::Kind::Repeat:
        // `for (int v = begin; v < end; ...)`: begin, end and step are in the counter's scope,
        // which a fresh name keeps from capturing anything they read.
        namer.pushScope();
        bindVar(s.loopVar);
        walk(s.body);
        namer.popScope();
        break;
      case Stmt::Kind::If:
        namer.pushScope();
        walk(s.body);
        namer.popScope();
        namer.pushScope();
        walk(s.elseBody);
        namer.popScope();
        break;
      default:
        break;
      }
    }
  };
  walk(p.body);
  std::vector<std::string> names(p.vars.size());
  std::set<std::string> used;
  for (std::size_t v = 0; v < p.vars.size(); ++v)
    if (bound[v])
      used.insert(names[v] = namer.nameOf(static_cast<int>(v)));
  // A variable no scope declares (never referenced, or a malformed program the C++ compiler
  // will reject) still gets a name no declared variable has.
  ScopedNamer rest([&](const std::string& n) {
    return used.count(n) != 0 || isReservedCudaName(n) || (reserved && reserved(n));
  });
  for (std::size_t v = 0; v < p.vars.size(); ++v)
    if (!bound[v])
      names[v] = rest.bind(static_cast<int>(v), p.vars[v].name);
  return names;
}

} // namespace cake::lower
