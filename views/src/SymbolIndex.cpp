// Name resolution for go-to-definition: declarations and loop variables with every use, located
// by the parser's side table of source ranges (no text matching).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/SymbolIndex.h"

#include "cake/Driver/Compiler.h"
#include "cake/views/ViewData.h"

#include <QHash>

namespace cake::views {

namespace {

bool contains(const SourceSpan& s, int line, int column) {
  if (!s.valid())
    return false;
  bool afterStart = line > s.line || (line == s.line && column >= s.column);
  // The end is exclusive, but a cursor just after the last character still "is on" the name.
  bool beforeEnd = line < s.endLine || (line == s.endLine && column <= s.endColumn);
  return afterStart && beforeEnd;
}

class Builder {
public:
  Builder(const driver::CheckResult& r, SymbolIndex& out) : m_r(r), m_out(out) {}

  void run() {
    const ir::Kernel& k = *m_r.module.kernel;
    for (const ir::Decl& d : k.decls) {
      if (!ir::declHasName(d.kind) || d.name.name.empty())
        continue;
      QString name = QString::fromStdString(d.name.name);
      if (m_global.contains(name))
        continue; // a redeclaration: the first one is the definition (the checker reports it)
      m_global.insert(name, addDef(name,
                                   QString::fromUtf8(ir::keyword(d.kind).data(),
                                                     int(ir::keyword(d.kind).size())),
                                   d.name.id, d.id));
    }
    // Uses inside declarations (types, values, attributes: source=A, pipeline=ring, roles).
    for (const ir::Decl& d : k.decls) {
      if (d.type)
        type(*d.type);
      if (d.value)
        expr(*d.value);
      attributes(d.attributes);
    }
    attributes(k.attributes);
    for (const ir::StmtPtr& s : k.body)
      stmt(*s);
  }

private:
  SourceSpan span(ir::NodeId id) const { return spanOf(m_r, m_r.module.sourceMap.range(id)); }

  int addDef(const QString& name, const QString& kind, ir::NodeId nameId, ir::NodeId declId) {
    SymbolDef def{name, kind, span(nameId), span(declId)};
    m_out.defs.push_back(def);
    int index = int(m_out.defs.size()) - 1;
    if (def.nameSpan.valid())
      m_out.refs.push_back({def.nameSpan, index}); // the declaration resolves to itself
    return index;
  }

  int resolve(const std::string& name) const {
    QString n = QString::fromStdString(name);
    for (auto it = m_scopes.rbegin(); it != m_scopes.rend(); ++it)
      if (it->first == n)
        return it->second;
    return m_global.value(n, -1);
  }

  void use(const std::string& name, ir::NodeId id) {
    int def = resolve(name);
    SourceSpan s = span(id);
    if (def >= 0 && s.valid())
      m_out.refs.push_back({s, def});
  }

  void expr(const ir::Expr& e) {
    if (e.kind == ir::ExprKind::Name) {
      use(std::string(e.text()), e.id);
      return;
    }
    if (e.kind == ir::ExprKind::Member && !e.children.empty() &&
        e.children[0]->kind == ir::ExprKind::Name) {
      // `ring.slot`: only the base is a name; its span is the base expression's.
      use(std::string(e.children[0]->text()), e.children[0]->id);
      return;
    }
    for (const ir::ExprPtr& c : e.children)
      if (c)
        expr(*c);
  }

  void type(const ir::TypeSpec& t) {
    for (const ir::ExprPtr& e : t.shape)
      if (e)
        expr(*e);
  }

  void attributes(const std::vector<ir::Attribute>& attrs) {
    for (const ir::Attribute& a : attrs)
      if (a.value)
        expr(*a.value);
  }

  void stmt(const ir::Stmt& s) {
    switch (s.kind) {
    case ir::StmtKind::Op:
      for (const ir::Operand& o : s.operands) {
        use(o.name.name, o.name.id);
        for (const ir::Index& i : o.indices) {
          if (i.start)
            expr(*i.start);
          if (i.size)
            expr(*i.size);
        }
      }
      attributes(s.attributes);
      return;
    case ir::StmtKind::On:
      for (const ir::Ident& role : s.block().roles)
        use(role.name, role.id);
      break;
    case ir::StmtKind::For: {
      if (s.block().loopRange)
        expr(*s.block().loopRange);
      attributes(s.attributes);
      SymbolDef def{QString::fromStdString(s.block().loopVar.name), QStringLiteral("for"),
                    span(s.block().loopVar.id), span(s.id)};
      m_out.defs.push_back(def);
      int index = int(m_out.defs.size()) - 1;
      if (def.nameSpan.valid())
        m_out.refs.push_back({def.nameSpan, index});
      m_scopes.push_back({def.name, index});
      for (const ir::StmtPtr& c : s.body)
        stmt(*c);
      m_scopes.pop_back();
      return;
    }
    }
    for (const ir::StmtPtr& c : s.body)
      stmt(*c);
  }

  const driver::CheckResult& m_r;
  SymbolIndex& m_out;
  QHash<QString, int> m_global;
  std::vector<std::pair<QString, int>> m_scopes; ///< loop variables in scope, innermost last
};

} // namespace

int SymbolIndex::definitionAt(int line, int column) const {
  for (const SymbolRef& r : refs)
    if (contains(r.span, line, column))
      return r.def;
  return -1;
}

int SymbolIndex::find(const QString& name) const {
  for (int i = 0; i < defs.size(); ++i)
    if (defs[i].name == name)
      return i;
  return -1;
}

SymbolIndex buildSymbolIndex(const driver::CheckResult& result) {
  SymbolIndex index;
  if (result.module.kernel)
    Builder(result, index).run();
  return index;
}

} // namespace cake::views
