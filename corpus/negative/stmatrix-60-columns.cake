// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: stmatrix into 60-column halves of the epilogue tile
// N = 3840 is tiled with BN = 120 and the epilogue keeps the two-halves loop of the 128-wide
// kernel, so every stmatrix writes a 64 x 60 slice. stmatrix stores whole 8x8 matrices: the
// last 4 columns of each half cannot be written by the instruction. Store the warpgroup's
// 120 columns with one stmatrix (15 matrices wide) or split them at a multiple of 8.
kernel stmatrix_60_columns target=sm_90a {
  const M = 4096
  const N = 3840
  const K = 4096
  const BM = 128
  const BN = 120
  const BK = 64

  param A : bf16[M, K] role=input
  param B : bf16[N, K] role=input
  param C : bf16[M, N] role=output

  tensormap tA : bf16[BM, BK] source=A swizzle=128B
  tensormap tB : bf16[BN, BK] source=B swizzle=128B
  tensormap tC : bf16[BM, BN] source=C

  grid tiles=[M / BM, N / BN] schedule=persistent

  role producer warps=0..4 regs=40
  role consumer warps=4..12 regs=232

  pipeline ring stages=4

  // 64 KiB of A and 60 KiB of B stages, then the unswizzled epilogue tile.
  smem a_s : bf16[BM, BK] offset=0 stages=4 swizzle=128B pipeline=ring
  smem b_s : bf16[BN, BK] offset=65536 stages=4 swizzle=128B pipeline=ring
  smem c_s : bf16[BM, BN] offset=126976

  mbarrier full count=1 producers=[producer] consumers=[consumer] pipeline=ring
  mbarrier empty count=2 producers=[consumer] consumers=[producer] pipeline=ring
  nbarrier epi roles=[consumer]

  reg acc : f32[64, BN] scope=warpgroup
  reg acc_bf : bf16[64, BN] scope=warpgroup

  on producer {
    mbarrier.init full
    mbarrier.init empty
    // The TMA unit signals these barriers through the async proxy.
    fence.mbarrier_init
  }
  on all {
    cta.sync
  }
  on producer {
    for t in tiles {
      for k in 0..K / BK pipeline=ring {
        // Producers start on the opposite parity: a fresh empty barrier counts as released.
        mbarrier.try_wait empty[ring.slot] parity=ring.phase ^ 1
        mbarrier.arrive_expect_tx full[ring.slot] bytes=31744
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
        wgmma.mma acc, a_s[ring.slot, wg * 64 +: 64, :], b_s[ring.slot]
        wgmma.commit
        wgmma.wait pending=0
        mbarrier.arrive empty[ring.slot] scope=warpgroup
      }
      // Epilogue: registers -> shared memory (stmatrix) -> global memory (TMA store).
      cast acc_bf, acc
      // The previous tile's TMA store must have read c_s before it is overwritten.
      bulk.wait_group pending=0 read=true
      bar.sync epi
      // Two halves, as in the 128-wide kernel: 60 columns each.
      for h in 0..2 {
        stmatrix c_s[wg * 64 +: 64, h * 60 +: 60], acc_bf[:, h * 60 +: 60]  // expected-blocking: hw-stmatrix-shape // expected-blocking: hw-stmatrix-shape {{16-byte aligned}}
      }
      // stmatrix writes through the generic proxy; the TMA store reads through the async one.
      fence.proxy.async
      bar.sync epi
      tma.store tC[t.x * BM, t.y * BN], c_s
      bulk.commit_group
    }
    bulk.wait_group pending=0
  }
}
