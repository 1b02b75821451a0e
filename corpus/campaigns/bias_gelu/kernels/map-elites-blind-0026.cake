// SPDX-License-Identifier: GPL-3.0-or-later
// Fused bias + GELU: Y[m, n] = gelu(X[m, n] + bias[n]), bf16 in/out, fp32 math (sm_80).
// M = 8192 tokens, N = 4096 features.
//
// Schedule: memory-bound. Each CTA of 256 threads handles two rows; every thread owns 16
// contiguous features (two 16-byte vectors), so a warp reads 1 KiB of contiguous memory per
// row. The bias slice of a thread is the same for both rows and is loaded once.
kernel bias_gelu target=sm_80 {
  const M = 8192
  const N = 4096
  const ROWS = 1
  const VEC = 4

  param X : bf16[M, N] role=input align=16
  param Bias : bf16[N] role=input align=16
  param Y : bf16[M, N] role=output align=16

  grid tiles=[M / ROWS] schedule=persistent

  role main warps=0..8

  reg b_r : bf16[VEC] scope=thread
  reg b_f : f32[VEC] scope=thread
  reg x_r : bf16[VEC] scope=thread
  reg x_f : f32[VEC] scope=thread

  on main {
    ld.global b_r, Bias[tid * VEC +: VEC]
    cast b_f, b_r
    for t in tiles {
      for r in 0..ROWS {
        ld.global x_r, X[t.x * ROWS + r, tid * VEC +: VEC] cache=evict_first
        cast x_f, x_r
        ew.binary x_f, x_f, b_f fn=add
        ew.unary x_f, x_f fn=gelu
        cast x_r, x_f
        st.global Y[t.x * ROWS + r, tid * VEC +: VEC], x_r cache=evict_first
      }
    }
  }
}
