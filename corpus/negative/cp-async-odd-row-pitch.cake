// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: cp.async chunks of a tensor whose rows are 2,040 bytes apart
// A row-block gather for a fused projection: each CTA stages 16 rows x 64 columns of an
// f16 table with 1,020 columns (the vocabulary projection was trimmed from 1,024 to 1,020
// outputs). Row r starts at byte 2,040 * r, so for every odd row the 16-byte chunk addresses
// are only 8-byte aligned: cp.async faults with a misaligned address at run time.
kernel rowblock_gather target=sm_80 {
  const ROWS = 8192
  const COLS = 1020

  param E : f16[ROWS, COLS] role=input
  param O : f16[ROWS, 64] role=output

  grid tiles=[ROWS / 16]

  role main warps=0..4

  smem e_s : f16[16, 64] offset=0

  reg v : f16[8] scope=thread

  on main {
    for t in tiles {
      cp.async e_s, E[t.x * 16 +: 16, 0 +: 64] chunk=16  // expected-blocking: hw-cp-async-alignment
      cp.async.commit
      cp.async.wait pending=0
      cta.sync
      ld.shared v, e_s[tid / 8, tid % 8 * 8 +: 8]
      st.global O[t.x * 16 + tid / 8, tid % 8 * 8 +: 8], v
      cta.sync
    }
  }
}
