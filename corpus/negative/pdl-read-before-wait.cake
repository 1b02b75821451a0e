// SPDX-License-Identifier: GPL-3.0-or-later
// (rmsnorm_pdl with the weight load moved above the wait.)
// RMSNorm: Y[r, :] = X[r, :] / sqrt(mean(X[r, :]^2) + eps) * W, bf16 in/out, fp32 math
// (sm_90a). ROWS = 16384, HIDDEN = 4096, eps = 1e-6.
//
// Schedule: memory-bound and persistent. A CTA of 4 warps processes one row at a time; each
// warp owns a contiguous quarter of the row (1024 elements, 32 per lane as 16-byte vectors).
// The weight quarter of a warp is loaded once per CTA and stays in registers across rows.
// Sum of squares: warp reduction, then a 4-way CTA reduction through 16 bytes of smem.
//
// NEGATIVE (ps-pdl-access-before-wait): launched with pdl=on, the kernel loads its weights
// before griddep.wait, while the previous kernel on the stream may still be writing W.
kernel pdl_read_before_wait target=sm_90a {
  const ROWS = 16384
  const HIDDEN = 4096
  const PER_WARP = HIDDEN / 4

  param X : bf16[ROWS, HIDDEN] role=input align=16
  param W : bf16[HIDDEN] role=input align=16
  param Y : bf16[ROWS, HIDDEN] role=output align=16

  grid tiles=[ROWS] schedule=persistent pdl=on

  role main warps=0..4

  smem red_s : f32[4] offset=0

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
    ld.global w_r, W[warp * PER_WARP +: PER_WARP]  // expected-blocking: ps-pdl-access-before-wait
    griddep.wait
    griddep.launch_dependents
    cast w_f, w_r
    for t in tiles {
      ld.global x_r, X[t.x, warp * PER_WARP +: PER_WARP] cache=evict_first
      cast x_f, x_r
      ew.binary sq, x_f, x_f fn=mul
      reduce.warp part, sq op=sum
      reduce.cta rstd, part, red_s op=sum
      ew.fma rstd, rstd, inv_n, eps broadcast=scalar
      ew.unary rstd, rstd fn=rsqrt
      ew.binary x_f, x_f, rstd fn=mul broadcast=scalar
      ew.binary x_f, x_f, w_f fn=mul
      cast x_r, x_f
      st.global Y[t.x, warp * PER_WARP +: PER_WARP], x_r
    }
  }
}
