// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: a 24-byte scale row copied in 16-byte cp.async chunks
// Weight-only int8 dequantisation with one f32 scale per group of 128 weights: a 768-wide row
// has 6 scales, 24 bytes. The CTA stages the row's scales with cp.async at the default chunk
// size, 16 bytes, as in the kernel for 1024-wide rows (8 scales, 32 bytes) it was copied from.
// 24 bytes are one and a half chunks: no instruction copies the last half chunk (and the
// rows of Scale are only 8-byte aligned).
kernel cp_async_partial_chunk target=sm_80 {
  const ROWS = 4096
  const COLS = 768
  const GROUP = 128
  const GROUPS = COLS / GROUP
  const VEC = 8

  param Wq : i8[ROWS, COLS] role=input
  param Scale : f32[ROWS, GROUPS] role=input
  param W : bf16[ROWS, COLS] role=output

  grid tiles=[ROWS]

  role main warps=0..3

  smem s_s : f32[GROUPS] offset=0

  reg q_r : i8[VEC] scope=thread
  reg w_f : f32[VEC] scope=thread
  reg w_r : bf16[VEC] scope=thread
  reg s_r : f32[1] scope=thread

  on main {
    for t in tiles {
      cp.async s_s, Scale[t.x, :]  // expected-blocking: dc-copy-granularity
      cp.async.commit
      cp.async.wait pending=0
      cta.sync
      // 96 threads x 8 weights: thread tid belongs to group tid / 16.
      ld.shared s_r, s_s[tid * VEC / GROUP +: 1]
      ld.global q_r, Wq[t.x, tid * VEC +: VEC]
      cast w_f, q_r
      ew.binary w_f, w_f, s_r fn=mul broadcast=scalar
      cast w_r, w_f
      st.global W[t.x, tid * VEC +: VEC], w_r
    }
  }
}
