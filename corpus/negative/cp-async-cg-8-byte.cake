// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: an 8-byte cp.async chunk with the default L2-only cache mode
// The 24-byte scale row of this int8 dequantisation is copied in 8-byte chunks, which divide
// it, but the copy keeps the primitive's default cache=cg: cp.async.cg exists only for
// 16-byte copies, so the instruction cannot be emitted. 4- and 8-byte chunks need cache=ca.
kernel cp_async_cg_8_byte target=sm_80 {
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
      cp.async s_s, Scale[t.x, :] chunk=8  // expected-blocking: hw-cp-async-size
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
