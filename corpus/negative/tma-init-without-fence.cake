// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: TMA completes on barriers whose initialisation was never fenced
// A two-stage TMA ring feeding one wgmma warpgroup; the producer initialises both barriers and
// the CTA barrier publishes them to the other warps, but without fence.mbarrier_init the TMA
// unit (async proxy) may complete its bytes on an uninitialised 'full' word. 'empty' is only
// signalled by threads (generic proxy), so the CTA barrier is enough for it.
kernel tma_ring_unfenced target=sm_90a {
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

  role mma warps=0..4
  role tma warps=4..5

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
  }
  on all {
    cta.sync
  }
  on tma {
    for t in tiles {
      for k in 0..K / BK pipeline=ring {
        mbarrier.try_wait empty[ring.slot] parity=ring.phase ^ 1
        mbarrier.arrive_expect_tx full[ring.slot] bytes=16384
        tma.load a_s[ring.slot], tA[t.x * BM, k * BK], full[ring.slot]  // expected-blocking: ps-barrier-init-not-fenced
        tma.load b_s[ring.slot], tB[t.y * BN, k * BK], full[ring.slot]
      }
    }
  }
  on mma {
    for t in tiles {
      ew.fill acc value=0.0
      for k in 0..K / BK pipeline=ring {
        mbarrier.try_wait full[ring.slot] parity=ring.phase
        wgmma.fence
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
