// Fuzz seed: warp-specialized GEMM main loop. SPDX-License-Identifier: GPL-3.0-or-later
kernel gemm target=sm_90a {
  const M = 4096
  const N = 4096
  const K = 4096
  const BM = 128
  const BN = 128
  const BK = 64
  param A : bf16[M, K] role=input
  param B : bf16[N, K] role=input
  param C : f32[M, N] role=output
  tensormap tA : bf16[BM, BK] source=A swizzle=128B
  tensormap tB : bf16[BN, BK] source=B swizzle=128B
  grid tiles=[M / BM, N / BN] schedule=persistent
  role producer warps=0..4 regs=40
  role consumer warps=4..12 regs=232
  pipeline ring stages=4
  smem a_s : bf16[BM, BK] offset=0 pipeline=ring swizzle=128B
  smem b_s : bf16[BN, BK] offset=65536 pipeline=ring swizzle=128B
  reg acc : f32[BM, BN] scope=warpgroup
  mbarrier full count=1 producers=[producer] consumers=[consumer] pipeline=ring
  mbarrier empty count=2 producers=[consumer] consumers=[producer] pipeline=ring

  on producer {
    for t in tiles {
      for k in 0..K / BK pipeline=ring {
        mbarrier.try_wait empty[ring.slot] parity=ring.phase ^ 1
        tma.load a_s[ring.slot], tA[t.x * BM, k * BK], full[ring.slot]
        tma.load b_s[ring.slot], tB[t.y * BN, k * BK], full[ring.slot]
      }
    }
  }
  on consumer {
    for t in tiles {
      for k in 0..K / BK pipeline=ring {
        mbarrier.try_wait full[ring.slot] parity=ring.phase
        wgmma.mma acc, a_s[ring.slot], b_s[ring.slot]
      }
    }
  }
}
