// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: clusters of 2 CTAs over a grid of 33 CTAs
// A row-wise RMS scale over 33 row blocks, launched in clusters of two CTAs so that a later
// version can share the weight vector through distributed shared memory. The grid has 33
// CTAs along x; a cluster must tile the grid, so cudaLaunchKernelEx refuses the launch.
kernel rms_scale_pairs target=sm_90a {
  const BLOCKS = 33

  param X : f32[BLOCKS * 8, 256] role=input align=16
  param W : f32[256] role=input align=16
  param Y : f32[BLOCKS * 8, 256] role=output align=16

  grid tiles=[BLOCKS] cluster=[2, 1, 1]  // expected-blocking: hw-cluster-grid-shape

  role main warps=0..8

  reg x : f32[8] scope=thread
  reg w : f32[8] scope=thread

  on main {
    for t in tiles {
      ld.global x, X[t.x * 8 + warp, lane * 8 +: 8]
      ld.global w, W[lane * 8 +: 8]
      ew.binary x, x, w fn=mul
      st.global Y[t.x * 8 + warp, lane * 8 +: 8], x
    }
  }
}
