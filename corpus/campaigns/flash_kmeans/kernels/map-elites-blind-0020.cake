// SPDX-License-Identifier: GPL-3.0-or-later
// Flash-KMeans assignment step: idx[b, n] = argmin_k ||x[b, n] - c[b, k]||^2
// B = 32, N = 65536 points, K = 1024 centroids, D = 128, bf16 in, fp32 accumulate (sm_90a).
// ||x||^2 is the same for every centroid of a point, so the kernel minimises
// ||c_k||^2 - 2 x . c_k with the centroid norms precomputed (cnorm).
//
// Schedule: persistent over (128-point block, batch) tiles. A TMA producer warpgroup loads the
// point block once per tile (1-stage pipeline `xr`, its phase flips every tile) and streams
// 256-centroid blocks with their norms through a 2-stage ring. Two consumer warpgroups (64
// points each) compute the 64 x 256 distance block with wgmma over the two 64-wide halves of
// D, fold in the norms and keep a running argmin in registers; the indices leave through a
// direct register epilogue.
kernel flash_kmeans_assign target=sm_90a {
  const B = 32
  const N = 65536
  const K = 1024
  const D = 128
  const BP = 128
  const BC = 256

  param X : bf16[B * N, D] role=input align=16
  param Cent : bf16[B * K, D] role=input align=16
  param CNorm : f32[B * K] role=input align=16
  param Idx : i32[B * N] role=output align=16

  tensormap tX : bf16[BP, 64] source=X swizzle=128B
  tensormap tC : bf16[BC, 64] source=Cent swizzle=128B
  tensormap tN : f32[BC] source=CNorm

  grid tiles=[N / BP, B] schedule=persistent

  role producer warps=0..4 regs=40
  role consumer warps=4..12 regs=232

  pipeline xr stages=2
  pipeline cr stages=3

  // X block 32 KiB, two centroid stages of 64 KiB, two norm stages of 1 KiB.
  smem x_s : bf16[2, BP, 64] offset=0 swizzle=128B pipeline=xr
  smem c_s : bf16[2, BC, 64] offset=65536 stages=3 swizzle=128B pipeline=cr
  smem n_s : f32[BC] offset=262144 stages=3 pipeline=cr

  mbarrier x_full count=1 producers=[producer] consumers=[consumer] pipeline=xr
  mbarrier x_empty count=2 producers=[consumer] consumers=[producer] pipeline=xr
  mbarrier c_full count=1 producers=[producer] consumers=[consumer] pipeline=cr
  mbarrier c_empty count=2 producers=[consumer] consumers=[producer] pipeline=cr

  reg dist : f32[64, BC] scope=warpgroup
  reg norms : f32[BC] scope=warpgroup
  reg minus2 : f32[1] scope=thread
  reg best_v : f32[64] scope=warpgroup
  reg best_i : i32[64] scope=warpgroup

  on producer {
    mbarrier.init x_full
    mbarrier.init x_empty
    mbarrier.init c_full
    mbarrier.init c_empty
    // The TMA unit signals these barriers through the async proxy.
    fence.mbarrier_init
  }
  on all {
    cta.sync
  }
  on producer {
    for t in tiles pipeline=xr {
      mbarrier.try_wait x_empty[xr.slot] parity=xr.phase ^ 1
      mbarrier.arrive_expect_tx x_full[xr.slot] bytes=32768
      tma.load x_s[xr.slot, 0, :, :], tX[t.y * N + t.x * BP, 0], x_full[xr.slot]
      tma.load x_s[xr.slot, 1, :, :], tX[t.y * N + t.x * BP, 64], x_full[xr.slot]
      for c in 0..K / BC pipeline=cr {
        mbarrier.try_wait c_empty[cr.slot] parity=cr.phase ^ 1
        mbarrier.arrive_expect_tx c_full[cr.slot] bytes=66560
        tma.load c_s[cr.slot, 0, :, :], tC[t.y * K + c * BC, 0], c_full[cr.slot]
        tma.load c_s[cr.slot, 1, :, :], tC[t.y * K + c * BC, 64], c_full[cr.slot]
        tma.load n_s[cr.slot], tN[t.y * K + c * BC], c_full[cr.slot]
      }
    }
  }
  on consumer {
    ew.fill minus2 value=-2.0
    for t in tiles pipeline=xr {
      ew.fill best_v value=3.0e38
      ew.fill best_i value=0.0
      mbarrier.try_wait x_full[xr.slot] parity=xr.phase
      for c in 0..K / BC pipeline=cr {
        mbarrier.try_wait c_full[cr.slot] parity=cr.phase
        wgmma.fence
        wgmma.mma dist, x_s[xr.slot, 0, wg * 64 +: 64, :], c_s[cr.slot, 0, :, :] accumulate=false
        wgmma.mma dist, x_s[xr.slot, 1, wg * 64 +: 64, :], c_s[cr.slot, 1, :, :]
        wgmma.commit
        wgmma.wait pending=0
        ld.shared norms, n_s[cr.slot]
        mbarrier.arrive c_empty[cr.slot] scope=warpgroup
        // dist = ||c||^2 - 2 x . c, then the running argmin over this centroid block.
        ew.binary dist, dist, minus2 fn=mul broadcast=scalar
        ew.binary dist, dist, norms fn=add broadcast=col
        reduce.argmin best_v, best_i, dist index_base=c * BC accumulate=true
      }
      mbarrier.arrive x_empty[xr.slot] scope=warpgroup
      epilogue.store Idx[t.y * N + t.x * BP + wg * 64 +: 64], best_i
    }
  }
}
