// Keyboard shortcut reference built from the QActions the window really has.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/ShortcutReference.h"

#include <QAction>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSet>

namespace cake::widgets {

namespace {

QString plain(QString text) {
  text.remove(QRegularExpression(QStringLiteral("&(?!&)")));
  text.replace(QStringLiteral("&&"), QStringLiteral("&"));
  if (text.endsWith(QStringLiteral("…")))
    text.chop(1);
  return text.trimmed();
}

QString keysOf(const QAction* a) {
  QStringList keys;
  for (const QKeySequence& k : a->shortcuts())
    if (!k.isEmpty())
      keys << k.toString(QKeySequence::NativeText);
  return keys.join(QStringLiteral(", "));
}

void walk(const QMenu* menu, const QString& where, QList<ShortcutEntry>& out,
          QSet<const QAction*>& seen) {
  for (const QAction* a : menu->actions()) {
    seen.insert(a);
    if (a->isSeparator())
      continue;
    if (a->menu()) {
      walk(a->menu(), where + QStringLiteral(" › ") + plain(a->text()), out, seen);
      continue;
    }
    QString keys = keysOf(a);
    if (!keys.isEmpty())
      out.append({where, plain(a->text()), keys});
  }
}

} // namespace

QList<ShortcutEntry> collectShortcuts(const QMenuBar* bar, const QWidget* root) {
  QList<ShortcutEntry> out;
  QSet<const QAction*> seen;
  if (bar)
    for (const QAction* top : bar->actions())
      if (top->menu())
        walk(top->menu(), plain(top->text()), out, seen);
  if (!root)
    return out;
  const QList<QAction*> all = root->findChildren<QAction*>();
  for (const QAction* a : all) {
    if (seen.contains(a) || a->menu())
      continue;
    QString keys = keysOf(a);
    if (keys.isEmpty())
      continue;
    // The view the action works in: its dock's title, else the widget's own name.
    QString where;
    for (const QObject* o = a->parent(); o; o = o->parent())
      if (const auto* dock = qobject_cast<const QDockWidget*>(o)) {
        where = dock->windowTitle().section(QStringLiteral(" — "), 0, 0);
        break;
      }
    if (where.isEmpty() && a->parent())
      where = a->parent()->objectName();
    out.append({where.isEmpty() ? QStringLiteral("Window") : where, plain(a->text()), keys});
  }
  return out;
}

QString shortcutReferenceHtml(const QList<ShortcutEntry>& entries) {
  QString html = QStringLiteral("<table cellspacing=\"0\" cellpadding=\"3\">");
  QString group;
  for (const ShortcutEntry& e : entries) {
    if (e.where != group) {
      group = e.where;
      html += QStringLiteral("<tr><td colspan=\"2\"><br/><b>%1</b></td></tr>")
                  .arg(group.toHtmlEscaped());
    }
    html += QStringLiteral("<tr><td>%1</td><td><code>%2</code></td></tr>")
                .arg(e.action.toHtmlEscaped(), e.keys.toHtmlEscaped());
  }
  html += QStringLiteral("</table>");
  return html;
}

} // namespace cake::widgets
