// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: a 1-stage ring where the producer runs ahead
// With a single stage the producer must wait until the consumer releases the buffers; this
// one never waits on empty, so the next TMA copy overwrites the tile the wgmma is still
// reading.
kernel single_stage_runahead target=sm_90a {
  grid tiles=[16, 16] schedule=persistent
  role producer warps=0..4 regs=40
  role consumer warps=4..12 regs=232
  pipeline ring stages=1
  param A : bf16[2048, 512] role=input
  param B : bf16[2048, 512] role=input
  param C : f32[2048, 2048] role=output
  tensormap tA : bf16[128, 64] source=A swizzle=128B
  tensormap tB : bf16[128, 64] source=B swizzle=128B
  smem a_s : bf16[128, 64] offset=0 stages=1 swizzle=128B pipeline=ring
  smem b_s : bf16[128, 64] offset=32768 stages=1 swizzle=128B pipeline=ring
  mbarrier full count=1 producers=[producer] consumers=[consumer] pipeline=ring
  mbarrier empty count=2 producers=[consumer] consumers=[producer] pipeline=ring
  reg acc : f32[64, 128] scope=warpgroup
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
      for k in 0..8 pipeline=ring {
        mbarrier.arrive_expect_tx full[ring.slot] bytes=32768  // expected-blocking: ps-wait-cycle
        tma.load a_s, tA[t.x * 128, k * 64], full[ring.slot]  // expected-blocking: ps-cross-role-race
        tma.load b_s, tB[t.y * 128, k * 64], full[ring.slot]  // expected-blocking: ps-cross-role-race
      }
    }
  }
  on consumer {
    for t in tiles {
      ew.fill acc value=0.0
      for k in 0..8 pipeline=ring {
        mbarrier.try_wait full[ring.slot] parity=ring.phase  // expected-blocking: ps-deadlock-no-producer
        wgmma.fence
        wgmma.mma acc, a_s[wg * 64 +: 64, :], b_s  // expected-blocking: ps-cross-role-race  // expected-blocking: ps-cross-role-race
        wgmma.commit
        wgmma.wait pending=0
        mbarrier.arrive empty[ring.slot] scope=warpgroup
      }
      epilogue.store C[t.x * 128 + wg * 64 +: 64, t.y * 128 +: 128], acc
    }
  }
}
