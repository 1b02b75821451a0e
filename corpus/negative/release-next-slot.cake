// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: a consumer that releases the next slot of the ring instead of the one it used.
// Done with stage ring.slot, each consumer warpgroup arrives on empty[(ring.slot + 1) % 4].
// In the interleaving the verifier plays the producer is ahead and every wait still passes,
// but nothing orders the consumer's first release of empty[1] after the producer's first wait
// on it: if the release comes first, it completes the first phase of empty[1], the producer's
// fresh-barrier wait (parity ring.phase ^ 1) blocks, and the consumer waits for data that never
// comes. Reported at the release, unordered with the wait it can overturn.
kernel release_next_slot target=sm_90a {
  grid tiles=[16, 16] schedule=persistent
  role producer warps=0..4 regs=40
  role consumer warps=4..12 regs=232
  pipeline ring stages=4
  param A : bf16[2048, 512] role=input
  param B : bf16[2048, 512] role=input
  param C : f32[2048, 2048] role=output
  tensormap tA : bf16[128, 64] source=A swizzle=128B
  tensormap tB : bf16[128, 64] source=B swizzle=128B
  smem a_s : bf16[128, 64] offset=0 stages=4 swizzle=128B pipeline=ring
  smem b_s : bf16[128, 64] offset=65536 stages=4 swizzle=128B pipeline=ring
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
        mbarrier.try_wait empty[ring.slot] parity=ring.phase ^ 1
        mbarrier.arrive_expect_tx full[ring.slot] bytes=32768
        tma.load a_s[ring.slot], tA[t.x * 128, k * 64], full[ring.slot]
        tma.load b_s[ring.slot], tB[t.y * 128, k * 64], full[ring.slot]
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
        mbarrier.arrive empty[(ring.slot + 1) % 4] scope=warpgroup  // expected-blocking: ps-wait-cycle
      }
      epilogue.store C[t.x * 128 + wg * 64 +: 64, t.y * 128 +: 128], acc
    }
  }
}
