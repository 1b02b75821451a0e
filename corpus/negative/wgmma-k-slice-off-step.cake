// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: wgmma over a K slice that does not start on a 32-byte step of the swizzle row
// The stage rows are one 128-byte swizzle span, and the first wgmma takes K elements 0..24, the
// second 24..56: the second descriptor would start 48 bytes into the swizzle atom, between two
// k16 blocks (32 bytes each), where no matrix descriptor can point. K halves at 0 and 32 are
// legal (tests/lit/check/regressions.test, wgmma-k-halves.cake).
kernel gemm_k_slice_off_step target=sm_90a {
  const M = 2048
  const N = 2048
  const K = 512
  const BM = 64
  const BN = 128
  const BK = 64

  param A : bf16[M, K] role=input
  param B : bf16[N, K] role=input
  param C : bf16[M, N] role=output

  tensormap tA : bf16[BM, BK] source=A swizzle=128B
  tensormap tB : bf16[BN, BK] source=B swizzle=128B

  grid tiles=[M / BM, N / BN] schedule=persistent

  role consumer warps=0..4
  role producer warps=4..5

  pipeline ring stages=3

  smem a_s : bf16[BM, BK] offset=0 stages=3 swizzle=128B pipeline=ring
  smem b_s : bf16[BN, BK] offset=24576 stages=3 swizzle=128B pipeline=ring

  mbarrier full count=1 producers=[producer] consumers=[consumer] pipeline=ring
  mbarrier empty count=1 producers=[consumer] consumers=[producer] pipeline=ring

  reg acc : f32[BM, BN] scope=warpgroup
  reg acc_bf : bf16[BM, BN] scope=warpgroup

  on producer {
    mbarrier.init full
    mbarrier.init empty
    fence.mbarrier_init
  }
  on all {
    cta.sync
  }
  on producer {
    for t in tiles {
      for k in 0..K / BK pipeline=ring {
        mbarrier.try_wait empty[ring.slot] parity=ring.phase ^ 1
        mbarrier.arrive_expect_tx full[ring.slot] bytes=24576
        tma.load a_s[ring.slot], tA[t.x * BM, k * BK], full[ring.slot]
        tma.load b_s[ring.slot], tB[t.y * BN, k * BK], full[ring.slot]
      }
    }
  }
  on consumer {
    for t in tiles {
      ew.fill acc value=0.0
      for k in 0..K / BK pipeline=ring {
        mbarrier.try_wait full[ring.slot] parity=ring.phase
        wgmma.fence
        wgmma.mma acc, a_s[ring.slot, :, 0 +: 32], b_s[ring.slot, :, 0 +: 32]
        wgmma.mma acc, a_s[ring.slot, :, 24 +: 32], b_s[ring.slot, :, 24 +: 32]  // expected-blocking: hw-mma-swizzle-span
        wgmma.commit
        wgmma.wait pending=0
        mbarrier.arrive empty[ring.slot] scope=warpgroup
      }
      cast acc_bf, acc
      epilogue.store C[t.x * BM +: BM, t.y * BN +: BN], acc_bf
    }
  }
}
