// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: an FP8 quantisation that rounds toward zero
// Per-tensor FP8 quantisation of bf16 activations, y = e4m3(x * scale). The cast asks for
// round-toward-zero so that no value rounds up past the format's range. PTX converts to the
// 8-bit floats only with cvt.rn.satfinite (round to nearest even, saturating to the largest
// finite value), so there is no instruction for it; the saturation already keeps every
// value finite.
kernel fp8_round_toward_zero target=sm_90a {
  const ROWS = 8192
  const COLS = 4096
  const VEC = 16

  param X : bf16[ROWS, COLS] role=input
  param Scale : f32[1] role=input
  param Y : f8e4m3[ROWS, COLS] role=output

  grid tiles=[ROWS]

  role main warps=0..8

  reg x_r : bf16[VEC] scope=thread
  reg x_f : f32[VEC] scope=thread
  reg y_r : f8e4m3[VEC] scope=thread
  reg s_r : f32[1] scope=thread

  on main {
    ld.global s_r, Scale[0 +: 1]
    for t in tiles {
      ld.global x_r, X[t.x, tid * VEC +: VEC] cache=evict_first
      cast x_f, x_r
      ew.binary x_f, x_f, s_r fn=mul broadcast=scalar
      cast y_r, x_f rounding=rz  // expected-blocking: hw-cvt-rounding
      st.global Y[t.x, tid * VEC +: VEC], y_r
    }
  }
}
