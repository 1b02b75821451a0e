// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: a data barrier waited for with the release barrier's parity
// A streaming row transform: one loader warp brings blocks of 8 rows into a 2-stage ring with
// TMA, eight worker warps read them from shared memory. The workers wait on 'full' with
// parity ring.phase ^ 1, the convention of a barrier that releases slots. 'full' publishes the
// TMA data, so on the fresh barrier parity 1 names the phase before the first, which counts
// as complete: the first wait passes before any byte has landed and the workers read
// x_s[0] while the copy is still writing it. The races that follow are consequences of this
// one wait (caused_by), not findings of their own.
kernel row_exp_stream target=sm_90a {
  const M = 16384
  const N = 256
  const ROWS = 8
  const BLOCKS = 16

  param X : f32[M, N] role=input align=16
  param Y : f32[M, N] role=output align=16

  tensormap tX : f32[ROWS, N] source=X swizzle=none

  grid tiles=[M / (ROWS * BLOCKS)]

  role loader warps=0..1
  role worker warps=1..9

  pipeline ring stages=2

  smem x_s : f32[ROWS, N] offset=0 stages=2 pipeline=ring

  mbarrier full count=1 producers=[loader] consumers=[worker] pipeline=ring
  mbarrier empty count=8 producers=[worker] consumers=[loader] pipeline=ring

  reg x_r : f32[8] scope=thread

  on loader {
    mbarrier.init full
    mbarrier.init empty
    fence.mbarrier_init
  }
  on all {
    cta.sync
  }
  on loader {
    for t in tiles {
      for j in 0..BLOCKS pipeline=ring {
        mbarrier.try_wait empty[ring.slot] parity=ring.phase ^ 1
        mbarrier.arrive_expect_tx full[ring.slot] bytes=8192
        tma.load x_s[ring.slot], tX[(t.x * BLOCKS + j) * ROWS, 0], full[ring.slot]
      }
    }
  }
  on worker {
    for t in tiles {
      for j in 0..BLOCKS pipeline=ring {
        mbarrier.try_wait full[ring.slot] parity=ring.phase ^ 1  // expected-blocking: ps-parity-convention
        ld.shared x_r, x_s[ring.slot, warp, lane * 8 +: 8]
        mbarrier.arrive empty[ring.slot] scope=warp
        ew.unary x_r, x_r fn=exp
        st.global Y[(t.x * BLOCKS + j) * ROWS + warp, lane * 8 +: 8], x_r
      }
    }
  }
}
