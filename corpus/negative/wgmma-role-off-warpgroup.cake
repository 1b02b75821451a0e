// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: a wgmma role that does not sit on a hardware warpgroup
// A one-warp TMA producer is declared first, so the four-warp consumer takes warps 1..5: warps
// 1-3 of warpgroup 0 and warp 4 of warpgroup 1. wgmma is issued by whole warpgroups (4k..4k+3),
// so no warpgroup executes it complete. No role declares regs=, so hw-register-alignment does
// not apply; the layout itself is wrong. Declaring the consumer first (warps 0..4) fixes it.
kernel wgmma_split_warpgroup target=sm_90a {
  const M = 2048
  const N = 2048
  const K = 512
  const BM = 64
  const BN = 64
  const BK = 64

  param A : bf16[M, K] role=input
  param B : bf16[N, K] role=input
  param C : bf16[M, N] role=output

  tensormap tA : bf16[BM, BK] source=A swizzle=128B
  tensormap tB : bf16[BN, BK] source=B swizzle=128B

  grid tiles=[M / BM, N / BN]

  role tma warps=0..1
  role mma warps=1..5

  pipeline ring stages=2

  smem a_s : bf16[BM, BK] offset=0 stages=2 swizzle=128B pipeline=ring
  smem b_s : bf16[BN, BK] offset=16384 stages=2 swizzle=128B pipeline=ring

  mbarrier full count=1 producers=[tma] consumers=[mma] pipeline=ring
  mbarrier empty count=1 producers=[mma] consumers=[tma] pipeline=ring

  reg acc : f32[BM, BN] scope=warpgroup
  reg acc_bf : bf16[BM, BN] scope=warpgroup

  on tma {
    mbarrier.init full
    mbarrier.init empty
    fence.mbarrier_init
  }
  on all {
    cta.sync
  }
  on tma {
    for t in tiles {
      for k in 0..K / BK pipeline=ring {
        mbarrier.try_wait empty[ring.slot] parity=ring.phase ^ 1
        mbarrier.arrive_expect_tx full[ring.slot] bytes=16384
        tma.load a_s[ring.slot], tA[t.x * BM, k * BK], full[ring.slot]
        tma.load b_s[ring.slot], tB[t.y * BN, k * BK], full[ring.slot]
      }
    }
  }
  on mma {
    for t in tiles {
      ew.fill acc value=0.0
      for k in 0..K / BK pipeline=ring {
        mbarrier.try_wait full[ring.slot] parity=ring.phase
        wgmma.fence  // expected-blocking: hw-warpgroup-alignment
        wgmma.mma acc, a_s[ring.slot], b_s[ring.slot]
        wgmma.commit
        wgmma.wait pending=0
        mbarrier.arrive empty[ring.slot] scope=warpgroup
      }
      cast acc_bf, acc
      epilogue.store C[t.x * BM +: BM, t.y * BN +: BN], acc_bf
    }
  }
}
