// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: two views of one pool in use at the same time
// x_s and y_s alias the same bytes of the stage pool. The kernel parks a row in x_s, then
// stages a second row in y_s while the first one is still to be read back: the second store
// clobbers data that is still live.
kernel pool_views_overlap target=sm_80 {
  const N = 4096
  param X : f32[N, 1024] role=input
  param Y : f32[N, 1024] role=output
  grid tiles=[N]
  role main warps=0..8
  pool stage bytes=4096
  smem x_s : f32[1024] offset=0 pool=stage
  smem y_s : f32[1024] offset=0 pool=stage
  reg a : f32[4] scope=thread
  reg b : f32[4] scope=thread
  on main {
    for t in tiles {
      ld.global a, X[t.x, tid * 4 +: 4]
      st.shared x_s[tid * 4 +: 4], a
      cta.sync
      ld.global b, X[(t.x + 1) % N, tid * 4 +: 4]
      st.shared y_s[tid * 4 +: 4], b  // expected-blocking: ps-view-overlap
      cta.sync
      ld.shared a, x_s[tid * 4 +: 4]
      ld.shared b, y_s[tid * 4 +: 4]
      ew.binary a, a, b fn=add
      st.global Y[t.x, tid * 4 +: 4], a
    }
  }
}
