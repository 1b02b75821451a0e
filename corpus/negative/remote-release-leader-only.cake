// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: consumers release the stage on the leader CTA only
// The math warpgroups of both CTAs arrive on CTA 0's empty barrier only (cta_mask=1), so
// CTA 0 sees 4 arrivals per phase but CTA 1's empty barrier none: CTA 1's producer waits
// forever when it comes back to a stage.
kernel remote_release_leader_only target=sm_90a {
  grid tiles=[16, 16] cluster=[2, 1, 1]
  role producer warps=0..4 regs=40
  role consumer warps=4..12 regs=232
  pipeline ring stages=2
  param A : bf16[2048, 512] role=input align=16
  param B : bf16[2048, 512] role=input align=16
  param C : f32[2048, 2048] role=output align=16
  tensormap tA : bf16[128, 64] source=A swizzle=128B
  tensormap tB : bf16[128, 64] source=B swizzle=128B
  smem a_s : bf16[128, 64] offset=0 stages=2 swizzle=128B pipeline=ring
  smem b_s : bf16[128, 64] offset=32768 stages=2 swizzle=128B pipeline=ring
  mbarrier full count=1 producers=[producer] consumers=[consumer] pipeline=ring
  mbarrier empty count=4 producers=[consumer] consumers=[producer] pipeline=ring
  reg acc : f32[64, 128] scope=warpgroup
  on producer {
    mbarrier.init full
    mbarrier.init empty
    fence.mbarrier_init
  }
  on all {
    cluster.sync
  }
  on producer {
    for t in tiles {
      for k in 0..8 pipeline=ring {
        mbarrier.try_wait empty[ring.slot] parity=ring.phase ^ 1  // expected-blocking: ps-cluster-arrival-count
        mbarrier.arrive_expect_tx full[ring.slot] bytes=32768
        tma.load a_s[ring.slot], tA[t.x * 128, k * 64], full[ring.slot]
        tma.load b_s[ring.slot], tB[t.y * 128, k * 64], full[ring.slot] multicast=3
      }
    }
  }
  on consumer {
    for t in tiles {
      ew.fill acc value=0.0
      for k in 0..8 pipeline=ring {
        mbarrier.try_wait full[ring.slot] parity=ring.phase
        wgmma.fence
        wgmma.mma acc, a_s[ring.slot, wg * 64 +: 64, :], b_s[ring.slot]
        wgmma.commit
        wgmma.wait pending=0
        mbarrier.arrive empty[ring.slot] scope=warpgroup cta_mask=1
      }
      epilogue.store C[t.x * 128 + wg * 64 +: 64, t.y * 128 +: 128], acc
    }
  }
  on all {
    cluster.sync
  }
}
