// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: a TMA load is published only by its own barrier
// Attention scores S = Q * K^T per 64-row query tile: the producer loads the query tile once
// (barrier q_full) and streams 128-key blocks through a 2-stage ring (full/empty). The
// consumer waits for each key block but for q_full only after its loop: the producer issued
// the Q load before its first arrive_expect_tx on full[0], yet that later signal says nothing
// about the Q bytes, which land when q_full's phase completes.
kernel scores_q_unwaited target=sm_90a {
  const LQ = 1024
  const LK = 1024
  const D = 64
  const BQ = 64
  const BKV = 128

  param Q : bf16[LQ, D] role=input
  param Kt : bf16[LK, D] role=input
  param S : f32[LQ, LK] role=output

  tensormap tQ : bf16[BQ, D] source=Q swizzle=128B
  tensormap tK : bf16[BKV, D] source=Kt swizzle=128B

  grid tiles=[LQ / BQ]

  role producer warps=0..4 regs=40
  role consumer warps=4..8 regs=232

  pipeline ring stages=2

  smem q_s : bf16[BQ, D] offset=0 swizzle=128B
  smem k_s : bf16[BKV, D] offset=8192 stages=2 swizzle=128B pipeline=ring

  mbarrier q_full count=1 producers=[producer] consumers=[consumer]
  mbarrier full count=1 producers=[producer] consumers=[consumer] pipeline=ring
  mbarrier empty count=1 producers=[consumer] consumers=[producer] pipeline=ring

  reg acc : f32[BQ, BKV] scope=warpgroup

  on producer {
    mbarrier.init q_full
    mbarrier.init full
    mbarrier.init empty
    fence.mbarrier_init
  }
  on all {
    cta.sync
  }
  on producer {
    for t in tiles {
      mbarrier.arrive_expect_tx q_full bytes=8192
      tma.load q_s, tQ[t.x * BQ, 0], q_full
      for j in 0..LK / BKV pipeline=ring {
        mbarrier.try_wait empty[ring.slot] parity=ring.phase ^ 1
        mbarrier.arrive_expect_tx full[ring.slot] bytes=16384
        tma.load k_s[ring.slot], tK[j * BKV, 0], full[ring.slot]
      }
    }
  }
  on consumer {
    for t in tiles {
      for j in 0..LK / BKV pipeline=ring {
        mbarrier.try_wait full[ring.slot] parity=ring.phase
        ew.fill acc value=0.0
        wgmma.fence
        wgmma.mma acc, q_s, k_s[ring.slot]  // expected-blocking: ps-cross-role-race
        wgmma.commit
        wgmma.wait pending=0
        mbarrier.arrive empty[ring.slot] scope=warpgroup
        epilogue.store S[t.x * BQ +: BQ, j * BKV +: BKV], acc
      }
      mbarrier.try_wait q_full parity=0
    }
  }
}
