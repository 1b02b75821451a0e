// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: a staged reduction scratch whose stages are 8 bytes apart
// RMSNorm with 2 warps per row (64 threads, so that more rows are resident per SM). The
// cross-warp scratch holds one partial per warp and is double-buffered across rows: each
// stage is 8 bytes, so the second stage starts at byte 8. Shared-memory buffers and their
// stages must start on 16-byte boundaries (vector accesses); pad the stage to 4 floats.
kernel scratch_stage_8_bytes target=sm_90a {
  const ROWS = 16384
  const HIDDEN = 4096
  const WARPS = 2
  const PER_WARP = HIDDEN / WARPS

  param X : bf16[ROWS, HIDDEN] role=input
  param W : bf16[HIDDEN] role=input
  param Y : bf16[ROWS, HIDDEN] role=output

  grid tiles=[ROWS] schedule=persistent

  role main warps=0..WARPS

  pipeline rows stages=2

  // One partial per warp, double-buffered across consecutive rows.
  smem red_s : f32[WARPS] offset=0 stages=2 pipeline=rows  // expected-blocking: hw-smem-alignment

  reg w_r : bf16[PER_WARP] scope=warp
  reg w_f : f32[PER_WARP] scope=warp
  reg x_r : bf16[PER_WARP] scope=warp
  reg x_f : f32[PER_WARP] scope=warp
  reg sq : f32[PER_WARP] scope=warp
  reg part : f32[1] scope=warp
  reg rstd : f32[1] scope=role
  reg inv_n : f32[1] scope=thread
  reg eps : f32[1] scope=thread

  on main {
    ew.fill inv_n value=0.000244140625
    ew.fill eps value=1.0e-6
    ld.global w_r, W[warp * PER_WARP +: PER_WARP]
    cast w_f, w_r
    for t in tiles pipeline=rows {
      ld.global x_r, X[t.x, warp * PER_WARP +: PER_WARP] cache=evict_first
      cast x_f, x_r
      ew.binary sq, x_f, x_f fn=mul
      reduce.warp part, sq op=sum
      reduce.cta rstd, part, red_s[rows.slot] op=sum
      ew.fma rstd, rstd, inv_n, eps broadcast=scalar
      ew.unary rstd, rstd fn=rsqrt
      ew.binary x_f, x_f, rstd fn=mul broadcast=scalar
      ew.binary x_f, x_f, w_f fn=mul
      cast x_r, x_f
      st.global Y[t.x, warp * PER_WARP +: PER_WARP], x_r
    }
  }
}
