// Stale banner: one line, the error's location as a link, in the palette's tooltip colours so
// it reads on light and dark themes alike.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/StaleBanner.h"

#include "cake/views/LastGoodCheck.h"

#include <QVBoxLayout>

namespace cake::widgets {

StaleBanner::StaleBanner(views::LastGoodCheck* source, QWidget* parent)
    : QLabel(parent), m_source(source) {
  setObjectName(QStringLiteral("staleBanner"));
  setAutoFillBackground(true);
  setForegroundRole(QPalette::ToolTipText);
  setBackgroundRole(QPalette::ToolTipBase);
  setContentsMargins(6, 2, 6, 2);
  setTextFormat(Qt::RichText);
  setWordWrap(false);
  // Narrow docks: the banner never widens its view.
  setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
  setToolTip(tr("The text does not parse or type-check: this view shows the last good "
                "result until it does again. Click the location to go there."));
  connect(this, &QLabel::linkActivated, this, [this](const QString& link) {
    // "loc:LINE:COL"
    const QStringList parts = link.split(QLatin1Char(':'));
    if (parts.size() == 3)
      Q_EMIT locationActivated(parts[1].toInt(), parts[2].toInt());
  });
  connect(source, &views::LastGoodCheck::staleChanged, this, &StaleBanner::update);
  update(source->isStale(), source->bannerText());
}

void StaleBanner::update(bool stale, const QString& text) {
  setVisible(stale);
  if (!stale) {
    clear();
    return;
  }
  const auto& at = m_source->staleAt();
  QString link = QStringLiteral("loc:%1:%2").arg(at->line).arg(at->column);
  // The whole text stays plain (a test and a screen reader read text()); the location links.
  QString where = QStringLiteral("%1:%2").arg(at->line).arg(at->column);
  QString html = text.toHtmlEscaped();
  html.replace(where, QStringLiteral("<a href=\"%1\">%2</a>").arg(link, where));
  setText(html);
  setAccessibleName(text);
}

QWidget* StaleBanner::wrap(QWidget* view, views::LastGoodCheck* source) {
  auto* box = new QWidget;
  box->setObjectName(view->objectName() + QStringLiteral("Box"));
  auto* layout = new QVBoxLayout(box);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(new StaleBanner(source, box));
  layout->addWidget(view, 1);
  return box;
}

StaleBanner* StaleBanner::of(const QWidget* container) {
  return container ? container->findChild<StaleBanner*>(QStringLiteral("staleBanner"),
                                                        Qt::FindDirectChildrenOnly)
                   : nullptr;
}

} // namespace cake::widgets
