// Memory layout widgets: the byte map (ByteMapGeometry), TMEM strip, and the bank grid of a
// buffer under its swizzle with the bank load of the selected access's worst phase.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/MemoryLayoutView.h"

#include "cake/views/ViewPalette.h"

#include "cake/Verify/BankModel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollArea>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace cake::widgets {

namespace {

QFont uiFont(int px, bool bold = false) {
  QFont f(QStringLiteral("DejaVu Sans"));
  f.setPixelSize(px);
  f.setBold(bold);
  return f;
}

/// The shared view palette in the variant of a widget's palette (B11).
const views::ViewPalette& pal(const QWidget* w) {
  return views::ViewPalette::forPalette(w->palette());
}

QString kib(qint64 bytes) {
  if (bytes >= 1024 && bytes % 1024 == 0)
    return QStringLiteral("%1 KiB").arg(bytes / 1024);
  if (bytes >= 1024)
    return QStringLiteral("%1 KiB").arg(double(bytes) / 1024.0, 0, 'f', 1);
  return QStringLiteral("%1 B").arg(bytes);
}

QString grouped(qint64 n) { return QLocale(QLocale::English).toString(n); }

constexpr double kLabelColumn = 290;
constexpr double kAxis = 24;

} // namespace

// ---------------------------------------------------------------------------------- byte map

class ByteMapWidget : public QWidget {
public:
  explicit ByteMapWidget(MemoryLayoutView* owner) : QWidget(owner), m_owner(owner) {
    setObjectName(QStringLiteral("byteMap"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  }
  const views::MemoryMap* map() const {
    return m_owner->m_snapshot && m_owner->m_snapshot->views ? &m_owner->m_snapshot->views->memory : nullptr;
  }
  views::ByteMapGeometry geometry() const {
    views::ByteMapGeometry g;
    g.left = kLabelColumn;
    g.width = std::max(60.0, width() - kLabelColumn - 16);
    g.top = kAxis + 6;
    g.rowHeight = 22;
    g.rowGap = 5;
    g.span = map() ? map()->span() : 1;
    // Room right of the limit line for its label.
    g.span = qint64(double(g.span) * 1.04);
    return g;
  }
  int rows() const { return map() ? int(map()->rows.size()) : 0; }
  /// The cluster block under the summary: a title and one line per cross-CTA signal.
  double clusterHeight() const {
    const views::MemoryMap* m = map();
    return m && !m->cluster.isEmpty() ? 26.0 + 20.0 * m->cluster.size() : 0.0;
  }
  double clusterTop() const { return geometry().rowTop(rows()) + 36; }
  double tmemTop() const { return geometry().rowTop(rows()) + 26 + clusterHeight(); }
  QSize sizeHint() const override {
    const views::MemoryMap* m = map();
    int h = int(kAxis + 6 + rows() * 27 + 46 + clusterHeight());
    if (m && m->hasTmem)
      h += 64;
    return {700, std::max(h, 90)};
  }
  void refresh() {
    updateGeometry();
    setFixedHeight(sizeHint().height());
    update();
  }

protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    const views::ViewPalette& vp = pal(this);
    p.fillRect(rect(), vp.canvas);
    const views::MemoryMap* m = map();
    if (!m || m->rows.isEmpty()) {
      p.setPen(vp.mutedText);
      p.setFont(uiFont(12));
      p.drawText(rect().adjusted(12, 8, -12, -8), Qt::AlignLeft | Qt::AlignTop, tr("no kernel"));
      return;
    }
    p.setRenderHint(QPainter::Antialiasing);
    views::ByteMapGeometry g = geometry();
    // Axis in KiB.
    p.setFont(uiFont(10));
    double minBytes = 80.0 * double(g.span) / g.width;
    qint64 step = 1024;
    while (double(step) < minBytes)
      step *= 2;
    p.setPen(vp.headerEdge);
    for (qint64 b = 0; b <= g.span; b += step)
      p.drawLine(QPointF(g.xOf(b), kAxis), QPointF(g.xOf(b), g.rowTop(rows()) - g.rowGap));
    p.setPen(vp.mutedText);
    for (qint64 b = 0; b <= g.span; b += step) {
      double x = g.xOf(b);
      p.drawLine(QPointF(x, kAxis - 5), QPointF(x, kAxis));
      p.drawText(QRectF(x + 3, 2, 90, kAxis - 6), Qt::AlignLeft | Qt::AlignVCenter, kib(b));
    }
    // Row labels and selection band.
    for (int r = 0; r < m->rows.size(); ++r) {
      const views::MemoryRow& row = m->rows[r];
      double top = g.rowTop(r);
      if (row.buffer >= 0 && row.buffer == m_owner->m_buffer)
        p.fillRect(QRectF(0, top - 2, width(), g.rowHeight + 4), vp.selectionFill);
      p.setPen(vp.text);
      p.setFont(uiFont(11, true));
      QFontMetrics bold(uiFont(11, true));
      p.drawText(QRectF(8, top, kLabelColumn - 12, g.rowHeight), Qt::AlignLeft | Qt::AlignVCenter, row.label);
      p.setPen(vp.mutedText);
      p.setFont(uiFont(9));
      QFontMetrics small(uiFont(9));
      double x = 8 + bold.horizontalAdvance(row.label) + 6;
      p.drawText(QRectF(x, top, kLabelColumn - x - 6, g.rowHeight), Qt::AlignLeft | Qt::AlignVCenter,
                 small.elidedText(row.detail, Qt::ElideRight, int(kLabelColumn - x - 6)));
    }
    // Regions.
    QFont regionFont = uiFont(9);
    QFontMetrics fm(regionFont);
    p.setFont(regionFont);
    // Free space first, then buffers, then the thin barrier storage with its label on top.
    QVector<const views::MemoryRegion*> ordered;
    for (views::MemoryRegion::Kind kind : {views::MemoryRegion::Kind::Free, views::MemoryRegion::Kind::Buffer,
                                           views::MemoryRegion::Kind::Barriers})
      for (const views::MemoryRegion& reg : m->regions)
        if (reg.kind == kind)
          ordered << &reg;
    // Where the barrier label goes when its bar is too thin: free-space text keeps clear of it.
    QVector<QRectF> outsideLabels;
    for (const views::MemoryRegion& reg : m->regions)
      if (reg.kind == views::MemoryRegion::Kind::Barriers) {
        QRectF r = g.rectFor(reg.offset, reg.bytes, reg.row);
        QString text = QStringLiteral("mbarriers %1 B").arg(reg.bytes);
        if (fm.horizontalAdvance(text) + 8 >= r.width())
          outsideLabels << QRectF(r.right() + 4, r.top() + 3, fm.horizontalAdvance(text) + 8, r.height() - 6);
      }
    for (const views::MemoryRegion* regp : std::as_const(ordered)) {
      const views::MemoryRegion& reg = *regp;
      QRectF r = g.rectFor(reg.offset, reg.bytes, reg.row);
      QString text;
      switch (reg.kind) {
      case views::MemoryRegion::Kind::Buffer: {
        p.setPen(QPen(vp.canvas, 1));
        p.setBrush(vp.buffer(reg.buffer));
        p.drawRect(r);
        text = reg.stage >= 0 ? (reg.row + 1 == m->rows.size() ? QStringLiteral("%1[%2]").arg(reg.name).arg(reg.stage)
                                                               : QStringLiteral("stage %1").arg(reg.stage))
                              : reg.name;
        break;
      }
      case views::MemoryRegion::Kind::Barriers:
        p.setPen(QPen(vp.canvas, 1));
        p.setBrush(vp.currentMatch);
        p.drawRect(r.adjusted(0, 0, std::max(0.0, 3 - r.width()), 0));
        text = QStringLiteral("mbarriers %1 B").arg(reg.bytes);
        break;
      case views::MemoryRegion::Kind::Free:
        p.setPen(Qt::NoPen);
        p.setBrush(vp.header);
        p.drawRect(r);
        p.setBrush(QBrush(vp.border, Qt::BDiagPattern));
        p.drawRect(r);
        text = QStringLiteral("free %1").arg(kib(reg.bytes));
        break;
      }
      QRectF textRect(r.center().x() - fm.horizontalAdvance(text) / 2.0 - 2, r.top(), fm.horizontalAdvance(text) + 4,
                      r.height());
      bool clear = std::none_of(outsideLabels.begin(), outsideLabels.end(),
                                [&](const QRectF& o) { return o.intersects(textRect); });
      if (fm.horizontalAdvance(text) + 8 < r.width() && (reg.kind != views::MemoryRegion::Kind::Free || clear)) {
        p.setPen(reg.kind == views::MemoryRegion::Kind::Free ? vp.mutedText : vp.text);
        p.drawText(r, Qt::AlignCenter, text);
      } else if (reg.kind == views::MemoryRegion::Kind::Barriers) {
        // Too thin to hold its name: label it just right of the bar.
        QRectF box(r.right() + 4, r.top() + 3, fm.horizontalAdvance(text) + 8, r.height() - 6);
        p.setPen(Qt::NoPen);
        p.setBrush(vp.plate);
        p.drawRoundedRect(box, 2, 2);
        p.setPen((vp.dark ? vp.severity(1) : vp.severity(1).darker(130)));
        p.drawText(box, Qt::AlignCenter, text);
      }
    }
    // Overlaps: on both buffers' rows and on the CTA row.
    for (const views::MemoryOverlap& o : m->overlaps) {
      QColor c = o.sanctioned ? vp.severity(1) : vp.severity(0);
      for (int r = 0; r < m->rows.size(); ++r) {
        int b = m->rows[r].buffer;
        if (b != o.a && b != o.b && b != -1)
          continue;
        QRectF rr = g.rectFor(o.begin, o.end - o.begin, r);
        p.setPen(QPen(c, 1.5));
        p.setBrush(QColor(c.red(), c.green(), c.blue(), 70));
        p.drawRect(rr);
        p.setBrush(QBrush(c, Qt::DiagCrossPattern));
        p.drawRect(rr);
      }
    }
    // The per-CTA limit.
    double bottom = g.rowTop(rows()) - g.rowGap + 2;
    if (m->limit > 0) {
      double x = g.xOf(m->limit);
      p.setPen(QPen(vp.severity(0), 1.6, Qt::DashLine));
      p.drawLine(QPointF(x, kAxis - 2), QPointF(x, bottom));
      QString text = tr("%1 limit %2 B").arg(m->target, grouped(m->limit));
      p.setFont(uiFont(10, true));
      QFontMetrics lm(uiFont(10, true));
      double w = lm.horizontalAdvance(text) + 8;
      QRectF box(std::max(g.left, x - w - 3), g.rowTop(rows()) - g.rowGap + 4, w, 16);
      p.setPen(Qt::NoPen);
      p.setBrush(vp.plate);
      p.drawRect(box);
      p.setPen(vp.severity(0));
      p.drawText(box, Qt::AlignCenter, text);
    }
    // Summary.
    double y = g.rowTop(rows()) - g.rowGap + 4;
    p.setFont(uiFont(10));
    bool over = m->limit > 0 && m->total > m->limit;
    p.setPen(over ? vp.severity(0) : vp.text);
    // The figures and their scope as the findings and the CLI state them (MemoryMap).
    QString summary = m->perCtaSummary();
    if (m->limit > 0)
      summary += tr(" (%1% of the limit)").arg(100.0 * double(m->total) / double(m->limit), 0, 'f', 1);
    int hard = int(std::count_if(m->overlaps.begin(), m->overlaps.end(), [](const views::MemoryOverlap& o) { return !o.sanctioned; }));
    if (hard)
      summary += tr(" · %1 overlap(s)").arg(hard);
    QFontMetrics sm(uiFont(10));
    double first = std::max(60.0, g.xOf(m->limit) - 200);
    p.drawText(QRectF(8, y, first, 16), Qt::AlignLeft | Qt::AlignVCenter,
               sm.elidedText(summary, Qt::ElideRight, int(first)));
    p.setPen(vp.mutedText);
    double second = std::max(60.0, width() - 16.0);
    p.drawText(QRectF(8, y + 15, second, 16), Qt::AlignLeft | Qt::AlignVCenter,
               sm.elidedText(m->perSmSummary(), Qt::ElideRight, int(second)));
    // Rows of buffers that multicast copies fill: which CTA ranks receive them.
    for (int r = 0; r < m->rows.size(); ++r) {
      const views::MemoryRow& row = m->rows[r];
      if (row.multicastRanks.isEmpty())
        continue;
      QStringList ranks;
      for (int k : row.multicastRanks)
        ranks << QString::number(k);
      QString text = tr("multicast → CTA %1").arg(ranks.join(QStringLiteral(", ")));
      QFontMetrics bm(uiFont(9, true));
      QRectF box(g.left + g.width - bm.horizontalAdvance(text) - 12, g.rowTop(r) + 3,
                 bm.horizontalAdvance(text) + 10, g.rowHeight - 6);
      p.setPen(QPen(vp.syncOther, 1.2));
      p.setBrush(vp.plate);
      p.drawRoundedRect(box, 3, 3);
      p.setFont(uiFont(9, true));
      p.setPen(vp.syncOther);
      p.drawText(box, Qt::AlignCenter, text);
    }
    if (!m->cluster.isEmpty())
      paintCluster(p, *m);
    if (m->hasTmem)
      paintTmem(p, *m);
  }

  /// The cluster block: one line per signal that reaches other CTAs, with one chip per CTA
  /// rank (filled: receives it; heavy outline: issues it; every rank issues a remote arrive).
  void paintCluster(QPainter& p, const views::MemoryMap& m) {
    const views::ViewPalette& vp = pal(this);
    double top = clusterTop();
    p.setFont(uiFont(11, true));
    p.setPen(vp.text);
    p.drawText(QRectF(8, top, width() - 16, 20), Qt::AlignLeft | Qt::AlignVCenter,
               tr("Cluster %1 (%2 CTAs): signals into other CTAs' shared memory")
                   .arg(m.clusterShape)
                   .arg(m.clusterSize));
    QFontMetrics fm(uiFont(9));
    for (int i = 0; i < m.cluster.size(); ++i) {
      const views::ClusterDelivery& d = m.cluster[i];
      double y = top + 24 + 20.0 * i;
      double x = 12;
      QColor fill = d.buffer >= 0 ? vp.buffer(d.buffer) : vp.currentMatch;
      for (int k = 0; k < m.clusterSize && k < 16; ++k) {
        QRectF chip(x, y + 2, 22, 14);
        bool receives = d.ranks.contains(k);
        bool issues = d.issuer < 0 || d.issuer == k;
        p.setPen(QPen(issues ? vp.text : vp.border, issues ? 2.0 : 1.0));
        p.setBrush(receives ? fill : vp.header);
        p.drawRoundedRect(chip, 2, 2);
        p.setFont(uiFont(9, issues));
        p.setPen(vp.text);
        p.drawText(chip, Qt::AlignCenter, QString::number(k));
        x += 26;
      }
      p.setFont(uiFont(10));
      p.setPen(vp.text);
      double w = std::max(60.0, width() - x - 16);
      p.drawText(QRectF(x + 6, y, w, 18), Qt::AlignLeft | Qt::AlignVCenter,
                 fm.elidedText(d.text(), Qt::ElideRight, int(w)));
    }
  }

  void paintTmem(QPainter& p, const views::MemoryMap& m) {
    const views::ViewPalette& vp = pal(this);
    double top = tmemTop() + 16;
    double left = kLabelColumn, w = std::max(60.0, width() - kLabelColumn - 16);
    qint64 cols = std::max<qint64>(m.tmemLimit, 1);
    p.setPen(vp.text);
    p.setFont(uiFont(11, true));
    p.drawText(QRectF(8, top, kLabelColumn - 12, 22), Qt::AlignLeft | Qt::AlignVCenter, tr("TMEM"));
    p.setFont(uiFont(9));
    p.setPen(vp.mutedText);
    p.drawText(QRectF(52, top, kLabelColumn - 56, 22), Qt::AlignLeft | Qt::AlignVCenter,
               tr("128 lanes × %1 columns").arg(cols));
    p.setPen(vp.mutedText);
    for (qint64 c = 0; c <= cols; c += 64) {
      double x = left + w * double(c) / double(cols);
      p.drawLine(QPointF(x, top - 4), QPointF(x, top));
      // The last tick's number sits left of it so that it is not cut at the edge.
      QRectF label = c == cols ? QRectF(x - 42, top - 16, 40, 12) : QRectF(x + 2, top - 16, 40, 12);
      p.drawText(label, (c == cols ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter, QString::number(c));
    }
    p.setPen(Qt::NoPen);
    p.setBrush(vp.header);
    p.drawRect(QRectF(left, top, w, 22));
    for (const views::TmemRegion& t : m.tmem) {
      QRectF r(left + w * double(t.colBegin) / double(cols), top,
               std::max(2.0, w * double(t.colEnd - t.colBegin) / double(cols)), 22);
      p.setPen(QPen(vp.canvas, 1));
      p.setBrush(vp.buffer(t.buffer));
      p.drawRect(r);
      p.setPen(vp.text);
      p.drawText(r, Qt::AlignCenter, QFontMetrics(uiFont(9)).elidedText(t.name + QStringLiteral(" ") +
                 QStringLiteral("%1..%2").arg(t.colBegin).arg(t.colEnd), Qt::ElideRight, int(r.width() - 4)));
    }
  }

  void mousePressEvent(QMouseEvent* e) override {
    const views::MemoryMap* m = map();
    if (!m)
      return;
    views::ByteMapGeometry g = geometry();
    int row = g.rowAt(e->position().y());
    if (row < 0 || row >= m->rows.size())
      return;
    int buffer = m->rows[row].buffer;
    if (buffer < 0) {
      // CTA row: the buffer under the cursor.
      qint64 byte = g.byteAt(e->position().x());
      for (const views::MemoryRegion& reg : m->regions)
        if (reg.row == row && reg.kind == views::MemoryRegion::Kind::Buffer && byte >= reg.offset && byte < reg.end())
          buffer = reg.buffer;
    }
    if (buffer >= 0) {
      m_owner->showBuffer(buffer);
      if (m_owner->m_selection)
        m_owner->m_selection->selectBuffer(buffer, views::SelectionOrigin::Layout);
    }
  }

  bool event(QEvent* e) override {
    if (e->type() == QEvent::ToolTip) {
      auto* help = static_cast<QHelpEvent*>(e);
      const views::MemoryMap* m = map();
      QString text;
      if (m) {
        views::ByteMapGeometry g = geometry();
        int row = g.rowAt(help->pos().y());
        qint64 byte = g.byteAt(help->pos().x());
        for (const views::MemoryOverlap& o : m->overlaps)
          if (byte >= o.begin && byte < o.end && row >= 0)
            text += tr("overlap of bytes %1..%2%3\n").arg(o.begin).arg(o.end)
                        .arg(o.sanctioned ? tr(" (views of one pool)") : QString());
        for (const views::MemoryRegion& reg : m->regions)
          if (reg.row == row && byte >= reg.offset && byte < reg.end())
            text += tr("%1%2: bytes %3..%4 (%5)")
                        .arg(reg.name, reg.stage >= 0 ? tr(" stage %1").arg(reg.stage) : QString())
                        .arg(reg.offset)
                        .arg(reg.end())
                        .arg(kib(reg.bytes));
      }
      if (text.isEmpty())
        QToolTip::hideText();
      else
        QToolTip::showText(help->globalPos(), text.trimmed(), this);
      return true;
    }
    return QWidget::event(e);
  }

private:
  MemoryLayoutView* m_owner;
};

// ---------------------------------------------------------------------------------- bank grid

class BankGridWidget : public QWidget {
public:
  explicit BankGridWidget(MemoryLayoutView* owner) : QWidget(owner), m_owner(owner) {
    setObjectName(QStringLiteral("bankGrid"));
  }
  views::BankGrid grid;
  views::BankHeat heat;
  bool hasHeat = false;
  qint64 elementBytes = 2;
  qint64 rowElements = 1; ///< elements in the buffer's innermost dimension
  qint64 stageBytes = 1;
  QString title;

  static constexpr double kCellW = 31, kCellH = 20, kLeft = 62, kTop = 64;
  QSize sizeHint() const override {
    return {int(kLeft + 32 * kCellW + 12), int(kTop + std::max(grid.rows, 1) * kCellH + 26)};
  }
  void refresh() {
    setMinimumSize(sizeHint());
    resize(sizeHint());
    update();
  }

protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    const views::ViewPalette& vp = pal(this);
    p.fillRect(rect(), vp.canvas);
    if (grid.rows == 0) {
      p.setPen(vp.mutedText);
      p.setFont(uiFont(11));
      p.drawText(rect().adjusted(10, 6, -10, -6), Qt::AlignLeft | Qt::AlignTop, tr("select a shared-memory buffer"));
      return;
    }
    p.setRenderHint(QPainter::Antialiasing);
    p.setFont(uiFont(11, true));
    p.setPen(vp.text);
    p.drawText(QRectF(8, 2, width() - 16, 16), Qt::AlignLeft | Qt::AlignVCenter, title);
    // Per-bank load of the access phase.
    double barTop = 22, barH = 22;
    p.setFont(uiFont(9));
    int maxLoad = hasHeat ? std::max(heat.degree, 2) : 1;
    for (int b = 0; b < 32; ++b) {
      double x = kLeft + b * kCellW;
      if (hasHeat && heat.wordsPerBank[b] > 0) {
        int n = heat.wordsPerBank[b];
        double h = barH * double(n) / double(maxLoad);
        p.setPen(Qt::NoPen);
        p.setBrush(vp.conflict(n));
        p.drawRect(QRectF(x + 4, barTop + barH - h, kCellW - 8, h));
        p.setPen(vp.onAccent);
        if (h >= 11)
          p.drawText(QRectF(x + 4, barTop + barH - h, kCellW - 8, h), Qt::AlignCenter, QString::number(n));
      }
      p.setPen(vp.mutedText);
      p.drawText(QRectF(x, kTop - 16, kCellW, 14), Qt::AlignCenter, QString::number(b));
    }
    p.setPen(vp.mutedText);
    p.drawText(QRectF(4, barTop, kLeft - 8, barH), Qt::AlignRight | Qt::AlignVCenter, hasHeat ? tr("words") : QString());
    p.drawText(QRectF(4, kTop - 16, kLeft - 8, 14), Qt::AlignRight | Qt::AlignVCenter, tr("bank"));
    QSet<qint64> touched(heat.physicalWords.begin(), heat.physicalWords.end());
    QFont cellFont = uiFont(8);
    p.setFont(cellFont);
    for (int r = 0; r < grid.rows; ++r) {
      double y = kTop + r * kCellH;
      p.setPen(vp.mutedText);
      p.drawText(QRectF(2, y, kLeft - 8, kCellH), Qt::AlignRight | Qt::AlignVCenter,
                 QStringLiteral("+%1").arg(grid.base - grid.bufferOffset + qint64(r) * 128));
      for (int b = 0; b < 32; ++b) {
        QRectF cell(kLeft + b * kCellW, y, kCellW, kCellH);
        qint64 logical = grid.logicalAt(r, b);
        if (logical < 0) {
          p.fillRect(cell.adjusted(0.5, 0.5, -0.5, -0.5), vp.band[1]);
          continue;
        }
        int chunk = int((logical % 128) / 16);
        p.fillRect(cell.adjusted(0.5, 0.5, -0.5, -0.5), vp.chunk(chunk));
        qint64 inStage = logical % std::max<qint64>(stageBytes, 1);
        qint64 element = inStage / std::max<qint64>(elementBytes, 1);
        QString text = rowElements > 1 ? QStringLiteral("%1,%2").arg(element / rowElements).arg(element % rowElements)
                                       : QString::number(element);
        p.setPen(vp.text);
        p.drawText(cell, Qt::AlignCenter, text);
        qint64 physical = grid.base + qint64(r) * 128 + qint64(b) * 4;
        if (touched.contains(physical)) {
          QColor c = vp.conflict(heat.wordsPerBank[b]);
          p.setPen(QPen(c, 2.2));
          p.setBrush(QColor(c.red(), c.green(), c.blue(), 60));
          p.drawRect(cell.adjusted(1.5, 1.5, -1.5, -1.5));
        }
      }
    }
    // The 16-byte chunk legend.
    double y = kTop + grid.rows * kCellH + 6;
    p.setFont(uiFont(9));
    p.setPen(vp.mutedText);
    p.drawText(QRectF(8, y, 200, 14), Qt::AlignLeft | Qt::AlignVCenter, tr("logical 16-byte chunk of its row:"));
    for (int c = 0; c < 8; ++c) {
      QRectF sw(210 + c * 34, y + 1, 30, 12);
      p.fillRect(sw, vp.chunk(c));
      p.drawText(sw, Qt::AlignCenter, QString::number(c));
    }
    p.drawText(QRectF(210 + 8 * 34 + 8, y, width(), 14), Qt::AlignLeft | Qt::AlignVCenter,
               tr("cells: element (row,col) of the word"));
  }

private:
  MemoryLayoutView* m_owner;
};

// --------------------------------------------------------------------------------------- view

MemoryLayoutView::MemoryLayoutView(views::SelectionModel* selection, QWidget* parent)
    : QWidget(parent), m_selection(selection), m_buffers(new views::BuffersModel(this)) {
  setObjectName(QStringLiteral("memoryLayoutView"));
  m_map = new ByteMapWidget(this);
  m_grid = new BankGridWidget(this);
  m_bufferBox = new QComboBox(this);
  m_bufferBox->setObjectName(QStringLiteral("layoutBuffer"));
  m_bufferBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_accessBox = new QComboBox(this);
  m_accessBox->setObjectName(QStringLiteral("layoutAccess"));
  m_accessBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_note = new QLabel(this);
  m_note->setObjectName(QStringLiteral("layoutNote"));
  m_note->setWordWrap(true);
  m_note->setTextFormat(Qt::PlainText);
  m_note->setContentsMargins(8, 2, 8, 2);

  auto* controls = new QHBoxLayout;
  controls->setContentsMargins(8, 4, 8, 0);
  controls->addWidget(new QLabel(tr("Banks of"), this));
  controls->addWidget(m_bufferBox);
  controls->addSpacing(10);
  controls->addWidget(new QLabel(tr("access"), this));
  controls->addWidget(m_accessBox, 1);
  controls->addStretch(0);

  auto* scroll = new QScrollArea(this);
  scroll->setWidget(m_grid);
  scroll->setWidgetResizable(false);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setBackgroundRole(QPalette::Base);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 4, 0, 0);
  layout->setSpacing(2);
  layout->addWidget(m_map);
  layout->addLayout(controls);
  layout->addWidget(m_note);
  layout->addWidget(scroll, 1);

  connect(m_bufferBox, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (m_updating || i < 0)
      return;
    int buffer = m_bufferBox->itemData(i).toInt();
    showBuffer(buffer);
    if (m_selection)
      m_selection->selectBuffer(buffer, views::SelectionOrigin::Layout);
  });
  connect(m_accessBox, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (m_updating || i < 0)
      return;
    showAccess(i);
    if (m_selection && m_op >= 0)
      m_selection->selectOp(m_op, -1, views::SelectionOrigin::Layout);
  });
  if (m_selection)
    connect(m_selection, &views::SelectionModel::selectionChanged, this, &MemoryLayoutView::onSelectionChanged);
}

void MemoryLayoutView::setSnapshot(const views::CheckSnapshotPtr& snapshot) {
  m_snapshot = snapshot;
  m_buffers->setSnapshot(snapshot);
  m_updating = true;
  m_bufferBox->clear();
  for (int r = 0; r < m_buffers->rowCount(); ++r) {
    const views::BufferRow* row = m_buffers->row(r);
    if (row->space == QLatin1String("smem"))
      m_bufferBox->addItem(QStringLiteral("%1 (%2, swizzle %3)").arg(row->name, row->placement, row->swizzle), row->buffer);
  }
  m_updating = false;
  m_map->refresh();
  int keep = m_buffer;
  if (m_snapshot && m_snapshot->views && (keep < 0 || keep >= m_snapshot->views->bufferNames.size() ||
                                          m_bufferBox->findData(keep) < 0))
    keep = -1;
  // Default: the buffer of the selection, else the one with the worst modelled conflicts,
  // else the first shared-memory buffer.
  if (m_selection && m_selection->current().buffer >= 0 && m_bufferBox->findData(m_selection->current().buffer) >= 0)
    keep = m_selection->current().buffer;
  if (keep < 0) {
    int worst = 0;
    for (int r = 0; r < m_buffers->rowCount(); ++r) {
      const views::BufferRow* row = m_buffers->row(r);
      if (row->space == QLatin1String("smem") && (keep < 0 || row->worstDegree > worst)) {
        keep = row->buffer;
        worst = row->worstDegree;
      }
    }
  }
  m_buffer = -1;
  showBuffer(keep, m_selection ? m_selection->current().op : -1);
}

void MemoryLayoutView::showBuffer(int buffer, int preferredOp) {
  m_buffer = buffer;
  m_updating = true;
  m_bufferBox->setCurrentIndex(m_bufferBox->findData(buffer));
  m_updating = false;
  fillAccesses(preferredOp);
  m_map->update();
}

void MemoryLayoutView::fillAccesses(int preferredOp) {
  m_updating = true;
  m_accessBox->clear();
  // The preferred op's access, else the worst modelled one, else the first.
  int pick = -1, worst = 0, preferred = -1;
  if (m_snapshot && m_snapshot->views && m_buffer >= 0) {
    const views::ViewData& d = *m_snapshot->views;
    const auto& accesses = m_snapshot->result.verification.smemAccesses;
    for (int op = 0; op < d.ops.size(); ++op) {
      if (!d.ops[op].smemBuffers.contains(m_buffer))
        continue;
      int access = -1;
      for (std::size_t a = 0; a < accesses.size(); ++a)
        if (int(accesses[a].op) == op && int(accesses[a].buffer) == m_buffer &&
            (access < 0 || accesses[a].degree > accesses[std::size_t(access)].degree))
          access = int(a);
      QString what = access >= 0 ? (accesses[std::size_t(access)].degree <= 1
                                        ? tr("conflict-free")
                                        : tr("%1-way").arg(accesses[std::size_t(access)].degree))
                                 : tr("not modelled");
      m_accessBox->addItem(tr("line %1 · %2 · %3").arg(d.ops[op].span.line).arg(d.ops[op].name, what),
                           QVariantList{op, access});
      int index = m_accessBox->count() - 1;
      int degree = access >= 0 ? accesses[std::size_t(access)].degree : 0;
      if (op == preferredOp && preferred < 0)
        preferred = index;
      if (pick < 0 || degree > worst) {
        pick = index;
        worst = degree;
      }
    }
  }
  if (preferred >= 0)
    pick = preferred;
  m_accessBox->setCurrentIndex(pick);
  m_updating = false;
  showAccess(pick);
}

void MemoryLayoutView::showAccess(int index) {
  m_op = -1;
  m_access = -1;
  m_grid->grid = {};
  m_grid->heat = {};
  m_grid->hasHeat = false;
  if (!m_snapshot || !m_snapshot->views || m_buffer < 0) {
    m_note->setText(m_snapshot ? tr("This kernel has no shared-memory buffer.") : QString());
    m_grid->refresh();
    return;
  }
  const sema::KernelModel& m = m_snapshot->result.model;
  const sema::BufferInfo& b = m.buffers[std::size_t(m_buffer)];
  int mode = verify::swizzleModeBytes(b.swizzle);
  QVariantList data = index >= 0 ? m_accessBox->itemData(index).toList() : QVariantList{};
  m_op = data.value(0, -1).toInt();
  m_access = data.value(1, -1).toInt();
  unsigned bits = ir::info(b.dtype).bits;
  m_grid->elementBytes = std::max<qint64>(1, bits / 8);
  m_grid->rowElements = b.shape.empty() ? 1 : b.shape.back();
  m_grid->stageBytes = b.stageBytes();
  qint64 from = b.offset;
  int rows = int(std::min<qint64>(8, (b.stageBytes() + 127) / 128));
  if (m_access >= 0) {
    const verify::SmemAccessPattern& a = m_snapshot->result.verification.smemAccesses[std::size_t(m_access)];
    const std::vector<std::int64_t>& phase = a.phases[a.worstPhase];
    m_grid->heat = views::bankHeat(phase, a.width, mode);
    m_grid->hasHeat = true;
    std::int64_t lo = *std::min_element(phase.begin(), phase.end());
    std::int64_t hi = *std::max_element(phase.begin(), phase.end()) + a.width;
    from = (lo / 128) * 128;
    rows = int(std::clamp<std::int64_t>((hi - from + 127) / 128, 8, 32));
    // Stay inside the buffer when the phase sits near its end.
    rows = int(std::min<qint64>(rows, (b.offset + b.totalBytes() - from + 127) / 128));
  }
  m_grid->grid = views::buildBankGrid(b.offset, b.totalBytes(), mode, from, std::max(rows, 1));
  qint64 rel = from - b.offset;
  qint64 stage = rel / std::max<qint64>(1, b.stageBytes());
  m_grid->title = tr("%1%2 · bytes %3..%4 · swizzle %5")
                      .arg(QString::fromStdString(b.name),
                           b.stages > 1 ? tr(" stage %1").arg(stage) : QString())
                      .arg(rel - stage * b.stageBytes())
                      .arg(rel - stage * b.stageBytes() + qint64(m_grid->grid.rows) * 128)
                      .arg(QString::fromStdString(b.swizzle));
  m_grid->refresh();
  m_note->setText(accessNote());
}

QString MemoryLayoutView::accessNote() const {
  if (!m_snapshot || !m_snapshot->views || m_buffer < 0)
    return {};
  const sema::KernelModel& m = m_snapshot->result.model;
  const sema::BufferInfo& b = m.buffers[std::size_t(m_buffer)];
  QString swz = b.swizzle == "none"
                    ? tr("No swizzle: word w of a row sits in bank w mod 32.")
                    : tr("Swizzle %1: the 16-byte chunk c of row r lands in chunk c XOR (r mod %2) (Swizzle<%3,4,3>).")
                          .arg(QString::fromStdString(b.swizzle))
                          .arg(verify::swizzleModeBytes(b.swizzle) / 16)
                          .arg(verify::swizzleModeBytes(b.swizzle) == 128 ? 3 : verify::swizzleModeBytes(b.swizzle) == 64 ? 2 : 1);
  if (m_op < 0)
    return swz + tr(" No operation accesses it.");
  const views::OpView& op = m_snapshot->views->ops[m_op];
  if (m_access >= 0) {
    const verify::SmemAccessPattern& a = m_snapshot->result.verification.smemAccesses[std::size_t(m_access)];
    QString deg = a.degree <= 1 ? tr("conflict-free (1 wavefront)")
                                : tr("%1-way bank conflict (%1 wavefronts instead of 1)").arg(a.degree);
    return tr("%1 (line %2): %3 per %4 in its worst phase; %5 distinct phase(s), %6 wavefronts in "
              "all. Outlined: the words of the worst phase. %7")
        .arg(op.name)
        .arg(op.span.line)
        .arg(deg, QString::fromStdString(a.unit))
        .arg(a.phases.size())
        .arg(a.wavefronts)
        .arg(swz);
  }
  verify::SmemAccessModel model = verify::smemAccessModel(op.name.toStdString());
  QString why;
  if (op.name.startsWith(QLatin1String("tma.")))
    why = tr("TMA copies go through the async proxy and move whole swizzle atoms: there is no per-thread "
             "address pattern to conflict (the layout's legality is checked by the hardware rules).");
  else if (op.name == QLatin1String("wgmma.mma") || op.name.startsWith(QLatin1String("tcgen05.")))
    why = tr("%1 reads shared memory through matrix descriptors in whole swizzle atoms: not a per-thread "
             "pattern, so the bank model does not apply (the descriptor's swizzle must match the buffer's).")
              .arg(op.name);
  else if (model != verify::SmemAccessModel::None)
    why = tr("%1 is modelled, but its addresses could not be evaluated statically here (they depend on "
             "tid/lane or on a value the analysis does not know).").arg(op.name);
  else
    why = tr("%1 is not modelled by the bank-conflict analysis: its shared-memory addresses are chosen by "
             "lowering.").arg(op.name);
  return tr("%1 (line %2): not modelled. %3 %4").arg(op.name).arg(op.span.line).arg(why, swz);
}

void MemoryLayoutView::onSelectionChanged(const views::Selection& s, views::SelectionOrigin origin) {
  if (origin == views::SelectionOrigin::Layout || !m_snapshot)
    return;
  if (s.buffer >= 0 && m_bufferBox->findData(s.buffer) >= 0)
    showBuffer(s.buffer, s.op);
}

} // namespace cake::widgets
