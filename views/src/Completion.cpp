// Registry-driven completion: the context is read from the line's text, the candidates from the
// primitive definitions, so a primitive file added at run time completes without a rebuild.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/Completion.h"

#include "cake/IR/Kernel.h"
#include "cake/Registry/Registry.h"

#include <QRegularExpression>
#include <QSet>

#include <algorithm>
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

QString dottedWordAt(const QString& line, int column) {
  auto part = [&](int i) { return i >= 0 && i < line.size() && (line[i].isLetterOrNumber() || line[i] == '_' || line[i] == '.'); };
  int b = std::clamp(column, 0, int(line.size()));
  if (!part(b) && part(b - 1))
    --b;
  if (!part(b))
    return {};
  int e = b;
  while (part(b - 1))
    --b;
  while (part(e + 1))
    ++e;
  QString word = line.mid(b, e - b + 1);
  while (word.endsWith('.'))
    word.chop(1);
  while (word.startsWith('.'))
    word.remove(0, 1);
  return word;
}

QString primitiveDescription(const reg::Registry& registry, const QString& name) {
  const reg::Primitive* p = registry.find(name.toStdString());
  if (!p)
    return {};
  auto q = [](const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); };
  auto v = [](std::string_view s) { return QString::fromUtf8(s.data(), int(s.size())); };
  QString html = QStringLiteral("<b>%1</b> <i>(%2)</i><br>%3").arg(q(p->name), q(p->category), q(p->summary));
  if (!p->operands.empty()) {
    html += QStringLiteral("<br><b>operands</b>: ");
    QStringList ops;
    for (const reg::OperandDef& o : p->operands)
      ops << QStringLiteral("%1%2 (%3, %4)")
                 .arg(q(o.name), o.optional ? QStringLiteral("?") : QString(), v(reg::toString(o.kind)),
                      v(reg::toString(o.access)));
    html += ops.join(QStringLiteral(", "));
  }
  if (!p->attributes.empty()) {
    html += QStringLiteral("<br><b>attributes</b>: ");
    QStringList attrs;
    for (const reg::AttrDef& a : p->attributes)
      attrs << QStringLiteral("%1: %2%3")
                   .arg(q(a.name), v(reg::toString(a.type)),
                        a.required ? QStringLiteral(" (required)") : QString());
    html += attrs.join(QStringLiteral(", "));
  }
  html += QStringLiteral("<br><small>defined in %1</small>").arg(q(p->path));
  return html;
}

} // namespace cake::views
