// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: the producer completes a phase no consumer waits for
// Value projection Z = X * V^T over a 3-stage ring. The producer streams all D / BK blocks of
// each row tile, but the consumer's loop stops one block early (0..D / BK - 1): the last TMA
// load of every tile completes a phase of full[] that nobody waits for. Its bytes are never
// used, and on the last tile they may still be landing in shared memory when the CTA exits.
kernel zproj_short_consumer target=sm_90a {
  const R = 2048
  const C = 1024
  const D = 768
  const BR = 64
  const BC = 128
  const BK = 64

  param X : bf16[R, D] role=input
  param V : bf16[C, D] role=input
  param Z : f32[R, C] role=output

  tensormap tX : bf16[BR, BK] source=X swizzle=128B
  tensormap tV : bf16[BC, BK] source=V swizzle=128B

  grid tiles=[R / BR, C / BC]

  role loader warps=0..4 regs=40
  role math warps=4..8 regs=232

  pipeline ring stages=3

  smem x_s : bf16[BR, BK] offset=0 stages=3 swizzle=128B pipeline=ring
  smem v_s : bf16[BC, BK] offset=24576 stages=3 swizzle=128B pipeline=ring

  mbarrier full count=1 producers=[loader] consumers=[math] pipeline=ring
  mbarrier empty count=1 producers=[math] consumers=[loader] pipeline=ring

  reg acc : f32[BR, BC] scope=warpgroup

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
      for k in 0..D / BK pipeline=ring {
        mbarrier.try_wait empty[ring.slot] parity=ring.phase ^ 1
        mbarrier.arrive_expect_tx full[ring.slot] bytes=24576
        tma.load x_s[ring.slot], tX[t.x * BR, k * BK], full[ring.slot]  // expected-blocking: ps-phase-never-waited
        tma.load v_s[ring.slot], tV[t.y * BC, k * BK], full[ring.slot]
      }
    }
  }
  on math {
    for t in tiles {
      ew.fill acc value=0.0
      for k in 0..D / BK - 1 pipeline=ring {
        mbarrier.try_wait full[ring.slot] parity=ring.phase
        wgmma.fence
        wgmma.mma acc, x_s[ring.slot], v_s[ring.slot]
        wgmma.commit
        wgmma.wait pending=0
        mbarrier.arrive empty[ring.slot] scope=warpgroup
      }
      epilogue.store Z[t.x * BR +: BR, t.y * BC +: BC], acc
    }
  }
}
