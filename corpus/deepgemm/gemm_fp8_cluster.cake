// SPDX-License-Identifier: GPL-3.0-or-later
// DeepGEMM-style FP8 GEMM with fine-grained scaling on a 2x1 cluster (H100/H200, sm_90a):
//   C[M, N] = sum over K blocks kb of (A[:, kb] * B[:, kb]^T) * SA[m, kb] * SB[n / 128, kb]
// e4m3 in, f32 accumulate, bf16 out, M = N = K = 4096.
//
// Follows deepseek-ai/DeepGEMM's sm90 FP8 GEMM (deep_gemm/include/deep_gemm/fp8_gemm.cuh,
// structure only): a TMA producer warpgroup and two wgmma math warpgroups; 128x128 tiles, K in
// 128-channel scale blocks, two of them per pipeline stage; a cluster of two CTAs along M that share
// the B tile: the CTA of rank 0 issues B with .multicast::cluster to both CTAs, each CTA loads
// its own A, so every CTA's full barrier expects A + B bytes; the math warpgroups release a
// stage on the empty barrier of both CTAs (remote arrive through mapa), so the empty count is
// 2 CTAs x 2 warpgroups; cluster barriers after the barrier initialisation and at the end
// (cute::cluster_sync in DeepGEMM). Per-128-channel scale promotion: the wgmma result of one K
// block is multiplied by the A scale of its row and the B scale of its 128x128 block and added
// into the f32 result, so the tensor core never accumulates across scale blocks. Unlike
// DeepGEMM (which waits for each batch before promoting it), one wgmma batch stays in flight:
// the two scale blocks of a stage go into acc0 and acc1 as two batches; acc0 is promoted while
// the acc1 batch runs (wgmma.wait pending=1), and the stage is released only after both are
// promoted (deferred release). Epilogue through shared memory and TMA store.
kernel gemm_fp8_cluster target=sm_90a {
  const M = 4096
  const N = 4096
  const K = 4096
  const BM = 128
  const BN = 128
  const BK = 128
  const KB = K / BK

  param A : f8e4m3[M, K] role=input align=16
  param B : f8e4m3[N, K] role=input align=16
  param SA : f32[M, KB] role=input align=16
  param SB : f32[N / 128, KB] role=input align=16
  param C : bf16[M, N] role=output align=16

  tensormap tA : f8e4m3[BM, BK] source=A swizzle=128B
  tensormap tB : f8e4m3[BN, BK] source=B swizzle=128B
  tensormap tC : bf16[BM, 64] source=C swizzle=128B

  // Two CTAs along M form a cluster: both compute tiles of the same B column block t.y.
  grid tiles=[M / BM, N / BN] cluster=[2, 1, 1]

  role producer warps=0..4 regs=40
  role consumer warps=4..12 regs=232

  pipeline ring stages=3

  // A stage holds two 128-channel K blocks of A and of B (64 KiB); three stages and the two
  // epilogue halves fill 224 KiB. Every buffer starts on a 1024-byte boundary (128B swizzle).
  smem a_s : f8e4m3[2, BM, BK] offset=0 stages=3 swizzle=128B pipeline=ring
  smem b_s : f8e4m3[2, BN, BK] offset=98304 stages=3 swizzle=128B pipeline=ring
  smem c_s : bf16[BM, 64] offset=196608 stages=2 swizzle=128B

  mbarrier full count=1 producers=[producer] consumers=[consumer] pipeline=ring
  // Both CTAs' math warpgroups release every stage of both CTAs (B lands in both).
  mbarrier empty count=4 producers=[consumer] consumers=[producer] pipeline=ring
  nbarrier epi roles=[consumer]

  reg acc0 : f32[64, BN] scope=warpgroup
  reg acc1 : f32[64, BN] scope=warpgroup
  reg res : f32[64, BN] scope=warpgroup
  reg res_bf : bf16[64, BN] scope=warpgroup
  reg sa : f32[64] scope=warpgroup
  reg sb : f32[1] scope=thread

  on producer {
    mbarrier.init full
    mbarrier.init empty
    fence.mbarrier_init
  }
  // The peer CTA's barriers must be initialised before this CTA's multicast or remote arrive
  // reaches them: a cluster barrier, not only a CTA barrier.
  on all {
    cluster.sync
  }
  on producer {
    for t in tiles {
      for k in 0..KB / 2 pipeline=ring {
        mbarrier.try_wait empty[ring.slot] parity=ring.phase ^ 1
        // 2 x 16 KiB of A (own) + 2 x 16 KiB of B (multicast by rank 0 into both CTAs).
        mbarrier.arrive_expect_tx full[ring.slot] bytes=65536
        for h in 0..2 {
          tma.load a_s[ring.slot, h, :, :], tA[t.x * BM, (2 * k + h) * BK], full[ring.slot]
          tma.load b_s[ring.slot, h, :, :], tB[t.y * BN, (2 * k + h) * BK], full[ring.slot] multicast=3
        }
      }
    }
  }
  on consumer {
    for t in tiles {
      ew.fill res value=0.0
      for k in 0..KB / 2 pipeline=ring {
        mbarrier.try_wait full[ring.slot] parity=ring.phase
        wgmma.fence
        wgmma.mma acc0, a_s[ring.slot, 0, wg * 64 +: 64, :], b_s[ring.slot, 0, :, :] accumulate=false
        wgmma.commit
        wgmma.mma acc1, a_s[ring.slot, 1, wg * 64 +: 64, :], b_s[ring.slot, 1, :, :] accumulate=false
        wgmma.commit
        // The acc1 batch stays in flight while acc0 (scale block 2k) is promoted.
        wgmma.wait pending=1
        ld.global sa, SA[t.x * BM + wg * 64 +: 64, 2 * k]
        ld.global sb, SB[t.y, 2 * k]
        ew.binary sa, sa, sb fn=mul broadcast=scalar
        ew.fma res, acc0, sa, res broadcast=row
        wgmma.wait pending=0
        ld.global sa, SA[t.x * BM + wg * 64 +: 64, 2 * k + 1]
        ld.global sb, SB[t.y, 2 * k + 1]
        ew.binary sa, sa, sb fn=mul broadcast=scalar
        ew.fma res, acc1, sa, res broadcast=row
        // Deferred release, in both CTAs of the cluster: only after both batches were read.
        mbarrier.arrive empty[ring.slot] scope=warpgroup cta_mask=3
      }
      // Epilogue: registers -> shared memory (stmatrix) -> global memory (TMA store).
      cast res_bf, res
      // The previous tile's TMA store must have read c_s before it is overwritten.
      bulk.wait_group pending=0 read=true
      bar.sync epi
      for h in 0..2 {
        stmatrix c_s[h, wg * 64 +: 64, :], res_bf[:, h * 64 +: 64]
      }
      fence.proxy.async
      bar.sync epi
      for h in 0..2 {
        tma.store tC[t.x * BM, t.y * BN + h * 64], c_s[h]
      }
      bulk.commit_group
    }
    bulk.wait_group pending=0
  }
  // No CTA may exit while its peer can still arrive on its empty barrier.
  on all {
    cluster.sync
  }
}
