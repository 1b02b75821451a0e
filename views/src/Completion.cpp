// Registry-driven completion: the context is read from the line's text, the candidates from the
// primitive definitions, so a primitive file added at run time completes without a rebuild.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/Completion.h"

#include "cake/IR/Kernel.h"
#include "cake/Registry/Registry.h"

#include <QRegularExpression>
#include <QSet>

namespace cake::views {

namespace {
bool isWordChar(QChar c) {
  return c.isLetterOrNumber() || c == '_' || c == '.';
}
} // namespace

CompletionContext completionContext(const QString& line, int column) {
  CompletionContext ctx;
  column = qBound(0, column, int(line.size()));
  QString before = line.left(column);
  if (before.contains(QLatin1String("//")))
    return ctx; // inside a comment
  int start = column;
  while (start > 0 && isWordChar(before[start - 1]))
    --start;
  ctx.prefix = before.mid(start);
  ctx.prefixStart = start;
  QString head = before.left(start);
  if (head.trimmed().isEmpty()) {
    ctx.kind = CompletionContext::Statement;
    return ctx;
  }
  // After `prim.name operands...`: a new word (not a value after '=', not inside brackets, not
  // a member after '.') is an attribute name.
  static const QRegularExpression opHead(
      QStringLiteral(R"(^\s*([a-z_][a-z0-9_]*(?:\.[a-z0-9_]+)*)\s)"));
  auto m = opHead.match(head);
  if (!m.hasMatch() || ctx.prefix.contains('.'))
    return ctx;
  QChar prev = head.isEmpty() ? QChar(' ') : head.back();
  if (prev != ' ' && prev != '\t')
    return ctx;
  int depth = 0;
  bool inString = false;
  for (QChar c : head) {
    if (c == '"')
      inString = !inString;
    else if (!inString && (c == '[' || c == '('))
      ++depth;
    else if (!inString && (c == ']' || c == ')'))
      --depth;
  }
  if (depth > 0 || inString)
    return ctx;
  // `key=value value2`: a word right after a binary operator continues an expression.
  QString trimmed = head.trimmed();
  if (!trimmed.isEmpty() && QStringLiteral("=+-*/%^&|<>,").contains(trimmed.back()))
    return ctx;
  ctx.kind = CompletionContext::Attribute;
  ctx.primitive = m.captured(1);
  return ctx;
}

QStringList completions(const reg::Registry& registry, const CompletionContext& ctx,
                        const QString& line) {
  QStringList out;
  if (ctx.kind == CompletionContext::Statement) {
    for (const std::string& name : registry.names())
      out << QString::fromStdString(name);
    out << QStringLiteral("for") << QStringLiteral("on");
    for (int k = 0; k <= int(ir::DeclKind::NBarrier); ++k) {
      std::string_view kw = ir::keyword(ir::DeclKind(k));
      out << QString::fromUtf8(kw.data(), int(kw.size()));
    }
  } else if (ctx.kind == CompletionContext::Attribute) {
    const reg::Primitive* p = registry.find(ctx.primitive.toStdString());
    if (!p)
      return {};
    // Attributes already written on the line are not offered again.
    QSet<QString> written;
    static const QRegularExpression key(QStringLiteral(R"(\b([A-Za-z_][A-Za-z0-9_]*)=)"));
    for (auto it = key.globalMatch(line); it.hasNext();)
      written.insert(it.next().captured(1));
    for (const reg::AttrDef& a : p->attributes) {
      QString name = QString::fromStdString(a.name);
      if (!written.contains(name) || name == ctx.prefix)
        out << name + QLatin1Char('=');
    }
  }
  QStringList filtered;
  for (const QString& c : out)
    if (c.startsWith(ctx.prefix))
      filtered << c;
  filtered.sort();
  filtered.removeDuplicates();
  return filtered;
}

} // namespace cake::views
