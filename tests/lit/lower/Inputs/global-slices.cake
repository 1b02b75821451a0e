// SPDX-License-Identifier: GPL-3.0-or-later
// Global loads and stores of strided 1-D slices and single elements into thread-scope register
// tiles (global-slices.test): a scalar scale S[tile / 16, 3] per tile, a column of X (4 rows,
// stride C) scaled and written back as a contiguous row of Y and as a column of Z.
kernel global_slices target=sm_90a {
  const R = 1024
  const C = 256

  param X : f32[R, C] role=input align=16
  param S : f32[R / 64, 4] role=input align=16
  param Y : f32[C, R] role=output align=16
  param Z : f32[R, C] role=output align=16

  grid tiles=[R / 4]

  role main warps=0..8

  reg col : f32[4] scope=thread
  reg s : f32[1] scope=thread

  on main {
    for t in tiles {
      ld.global s, S[t.x / 16, 3]
      ld.global col, X[t.x * 4 +: 4, tid]
      ew.binary col, col, s fn=mul broadcast=scalar
      st.global Y[tid, t.x * 4 +: 4], col
      st.global Z[t.x * 4 +: 4, tid], col
    }
  }
}
