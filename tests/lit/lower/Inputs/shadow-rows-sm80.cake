// SPDX-License-Identifier: GPL-3.0-or-later
// Bias + GELU with the row loop named like the repeat("q") of the vector global accesses.
kernel bias_gelu target=sm_80 {
  const M = 8192
  const N = 4096
  const ROWS = 2
  const VEC = 16

  param X : bf16[M, N] role=input
  param Bias : bf16[N] role=input
  param Y : bf16[M, N] role=output

  grid tiles=[M / ROWS]

  role main warps=0..8

  reg b_r : bf16[VEC] scope=thread
  reg b_f : f32[VEC] scope=thread
  reg x_r : bf16[VEC] scope=thread
  reg x_f : f32[VEC] scope=thread

  on main {
    ld.global b_r, Bias[tid * VEC +: VEC]
    cast b_f, b_r
    for t in tiles {
      for q in 0..ROWS {
        ld.global x_r, X[t.x * ROWS + q, tid * VEC +: VEC] cache=evict_first
        cast x_f, x_r
        ew.binary x_f, x_f, b_f fn=add
        ew.unary x_f, x_f fn=gelu
        cast x_r, x_f
        st.global Y[t.x * ROWS + q, tid * VEC +: VEC], x_r cache=evict_first
      }
    }
  }
}
