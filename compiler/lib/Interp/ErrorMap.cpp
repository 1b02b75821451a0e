// Per-tile error summaries of a CPU run's output (the heat map's data): the tile extent found
// from the boxes the last writers' (CTA, tile) groups wrote, then one aggregate per tile, with a
// bounded number of tiles and per-element errors only for small outputs.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Interp/Run.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

namespace cake::interp {

namespace {

struct Box {
  std::int64_t r0, r1, c0, c1; // inclusive
};

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) {
  return b > 0 ? (a + b - 1) / b : 0;
}

} // namespace

const TileError* ErrorMap::tileAt(std::int64_t row, std::int64_t col) const {
  if (row < 0 || col < 0 || row >= rows || col >= cols || tileRows <= 0 || tileCols <= 0)
    return nullptr;
  std::int64_t i = (row / tileRows) * gridCols + col / tileCols;
  return i < std::int64_t(tiles.size()) ? &tiles[std::size_t(i)] : nullptr;
}

ErrorMap buildErrorMap(std::int64_t rows, std::int64_t cols,
                       const std::function<ElementError(std::int64_t)>& element) {
  ErrorMap map;
  map.rows = std::max<std::int64_t>(0, rows);
  map.cols = std::max<std::int64_t>(0, cols);
  const std::int64_t n = map.rows * map.cols;
  if (n == 0)
    return map;

  // The box each writer group covered; the tile extent is the most common box size (edge tiles
  // clipped by the output and stray writes are the minority). Ties go to the larger box.
  std::unordered_map<std::int64_t, Box> boxes;
  for (std::int64_t e = 0; e < n; ++e) {
    ElementError x = element(e);
    if (x.group < 0)
      continue;
    std::int64_t r = e / map.cols, c = e % map.cols;
    auto [it, fresh] = boxes.try_emplace(x.group, Box{r, r, c, c});
    if (!fresh) {
      Box& b = it->second;
      b.r0 = std::min(b.r0, r);
      b.r1 = std::max(b.r1, r);
      b.c0 = std::min(b.c0, c);
      b.c1 = std::max(b.c1, c);
    }
  }
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> sizes;
  for (const auto& [group, b] : boxes)
    ++sizes[{b.r1 - b.r0 + 1, b.c1 - b.c0 + 1}];
  std::int64_t best = 0;
  for (const auto& [extent, count] : sizes)
    if (count > best ||
        (count == best && extent.first * extent.second > map.tileRows * map.tileCols)) {
      best = count;
      map.tileRows = extent.first;
      map.tileCols = extent.second;
    }
  if (sizes.empty()) {
    // Nothing was written: a plain grid of at most 32 x 32 cells.
    map.tileRows = ceilDiv(map.rows, std::min<std::int64_t>(map.rows, 32));
    map.tileCols = ceilDiv(map.cols, std::min<std::int64_t>(map.cols, 32));
  }
  map.gridRows = ceilDiv(map.rows, map.tileRows);
  map.gridCols = ceilDiv(map.cols, map.tileCols);
  while (map.gridRows * map.gridCols > ErrorMap::kMaxTiles) {
    if (map.gridRows >= map.gridCols)
      map.tileRows *= 2;
    else
      map.tileCols *= 2;
    map.gridRows = ceilDiv(map.rows, map.tileRows);
    map.gridCols = ceilDiv(map.cols, map.tileCols);
  }
  map.tiles.resize(std::size_t(map.gridRows * map.gridCols));
  for (std::int64_t tr = 0; tr < map.gridRows; ++tr)
    for (std::int64_t tc = 0; tc < map.gridCols; ++tc) {
      TileError& t = map.tiles[std::size_t(tr * map.gridCols + tc)];
      t.row0 = tr * map.tileRows;
      t.col0 = tc * map.tileCols;
      t.rows = std::min(map.tileRows, map.rows - t.row0);
      t.cols = std::min(map.tileCols, map.cols - t.col0);
    }

  const bool keep = n <= ErrorMap::kMaxElements;
  if (keep) {
    map.elements.resize(std::size_t(n));
    map.wrong.resize(std::size_t(n));
  }
  std::vector<double> worstError(map.tiles.size(), 0.0);
  for (std::int64_t e = 0; e < n; ++e) {
    ElementError x = element(e);
    std::int64_t r = e / map.cols, c = e % map.cols;
    std::size_t ti = std::size_t((r / map.tileRows) * map.gridCols + c / map.tileCols);
    TileError& t = map.tiles[ti];
    if (keep) {
      map.elements[std::size_t(e)] = float(x.absError);
      map.wrong[std::size_t(e)] = x.wrong;
    }
    t.maxAbsError = std::max(t.maxAbsError, x.absError);
    t.maxRelError = std::max(t.maxRelError, x.relError);
    t.unwritten += !x.written;
    if (x.wrong) {
      // The first wrong element (row-major within the tile) explains it, as the verdict's
      // first mismatch explains the output.
      if (t.mismatches++ == 0)
        t.worst = e;
    } else if (t.mismatches == 0 && x.absError > worstError[ti]) {
      worstError[ti] = x.absError;
      t.worst = e;
    }
  }
  return map;
}

} // namespace cake::interp
