// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: TMA boxes copied into column slices of a wider shared-memory tile
// A tile gatherer loads a [32, 32] f32 tile as eight boxes of 4 columns each (one tensor map
// for narrow column groups) into x_s[:, c * 4 +: 4]. Each view has the box's shape, but its
// rows are 128 bytes apart in x_s, while the TMA unit writes a box as 32 contiguous rows of 16
// bytes from the view's first byte: box row 1 lands where the view's element [0, 4] is, and
// the boxes overwrite each other's columns.
kernel column_box_gather target=sm_90a {
  const M = 8192
  const N = 512

  param X : f32[M, N] role=input
  param Y : f32[M, N] role=output

  tensormap tX : f32[32, 4] source=X swizzle=none

  grid tiles=[M / 32, N / 32]

  role loader warps=0..1
  role worker warps=1..2

  smem x_s : f32[32, 32] offset=0

  mbarrier full count=1 producers=[loader] consumers=[worker]

  reg x_r : f32[32] scope=thread

  on loader {
    mbarrier.init full
    fence.mbarrier_init
  }
  on all {
    cta.sync
  }
  on loader {
    for t in tiles {
      mbarrier.arrive_expect_tx full bytes=4096
      for c in 0..8 {
        tma.load x_s[:, c * 4 +: 4], tX[t.x * 32, t.y * 32 + c * 4], full  // expected-blocking: dc-tma-view-layout
      }
    }
  }
  on worker {
    for t in tiles {
      mbarrier.try_wait full parity=0
      ld.shared x_r, x_s[lane, :]
      st.global Y[t.x * 32 + lane, t.y * 32 +: 32], x_r
    }
  }
}
