// Help > Keyboard Shortcuts (item 10): the reference is generated from the window's actual
// QActions (menus, and actions bound inside a view such as Explain in the findings dock), so
// it cannot drift from what the keys do.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QString>

class QMenuBar;
class QWidget;

namespace cake::widgets {

/// One bound action.
struct ShortcutEntry {
  QString where;  ///< "Edit", "File › Open Recent", or the dock an in-view action lives in
  QString action; ///< the action's text without mnemonics ("Go to Line")
  QString keys;   ///< its shortcuts in native text, ", "-joined ("Ctrl+L")
};

/// The shortcuts of every menu of `bar` (submenus included, in menu order), then those of the
/// actions under `root` that no menu holds (view-local ones), each named after its dock.
QList<ShortcutEntry> collectShortcuts(const QMenuBar* bar, const QWidget* root);

/// An HTML table of the entries, grouped by `where`.
QString shortcutReferenceHtml(const QList<ShortcutEntry>& entries);

} // namespace cake::widgets
