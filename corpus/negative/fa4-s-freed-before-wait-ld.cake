// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: S handed back before its tcgen05.ld retired
// FA4-style attention (fa4_fwd.cake) whose softmax warpgroup arrives on s_free right after
// issuing tcgen05.ld of S, before tcgen05.wait::ld: the MMA warp then overwrites S with the next
// block's Q K^T while the load may still be reading it.
kernel fa4_s_freed_before_wait_ld target=sm_100a {
  const BATCH = 4
  const HEADS = 16
  const S = 4096
  const D = 64
  const BQ = 128
  const BM = 2 * BQ
  const BKV = 128
  const ROWS = BATCH * HEADS * S

  param Q : bf16[ROWS, D] role=input align=16
  param Kt : bf16[ROWS, D] role=input align=16
  param V : bf16[ROWS, D] role=input align=16
  param O : bf16[ROWS, D] role=output align=16

  tensormap tQ : bf16[BQ, D] source=Q swizzle=128B
  tensormap tK : bf16[BKV, D] source=Kt swizzle=128B
  tensormap tV : bf16[BKV, D] source=V swizzle=128B

  grid tiles=[S / BM, BATCH * HEADS]

  role softmax0 warps=0..4
  role softmax1 warps=4..8
  role mma warps=8..9
  role load warps=9..10

  pipeline kv stages=3

  // Two Q tiles (32 KiB), K and V rings of 3 x 16 KiB: every row is one 128B swizzle span.
  // 128 KiB keep one CTA per SM, so a CTA's six tcgen05.alloc never wait on a co-resident
  // CTA's columns (two CTAs could each hold part of the 512 columns and wait forever).
  smem q_s : bf16[2, BQ, D] offset=0 swizzle=128B
  smem k_s : bf16[BKV, D] offset=32768 stages=3 swizzle=128B pipeline=kv
  smem v_s : bf16[BKV, D] offset=81920 stages=3 swizzle=128B pipeline=kv

  // 512 columns: S (f32) and O (f32) per Q tile, P (bf16, two per column) per Q tile.
  tmem s0_t : f32[BQ, BKV] cols=0..128
  tmem s1_t : f32[BQ, BKV] cols=128..256
  tmem p0_t : bf16[BQ, BKV] cols=256..320
  tmem p1_t : bf16[BQ, BKV] cols=320..384
  tmem o0_t : f32[BQ, D] cols=384..448
  tmem o1_t : f32[BQ, D] cols=448..512

  mbarrier q_full count=1 producers=[load] consumers=[mma]
  mbarrier k_full count=1 producers=[load] consumers=[mma] pipeline=kv
  mbarrier v_full count=1 producers=[load] consumers=[mma] pipeline=kv
  mbarrier kv_empty count=1 producers=[mma] consumers=[load] pipeline=kv
  mbarrier s_full0 count=1 producers=[mma] consumers=[softmax0]
  mbarrier s_full1 count=1 producers=[mma] consumers=[softmax1]
  mbarrier s_free0 count=4 producers=[softmax0] consumers=[mma]
  mbarrier s_free1 count=4 producers=[softmax1] consumers=[mma]
  mbarrier p_full0 count=4 producers=[softmax0] consumers=[mma]
  mbarrier p_full1 count=4 producers=[softmax1] consumers=[mma]
  mbarrier o_done0 count=1 producers=[mma] consumers=[softmax0]
  mbarrier o_done1 count=1 producers=[mma] consumers=[softmax1]

  // Per warp: its 32 query rows (one per lane, the tcgen05.ld 32x32b layout).
  reg s_r : f32[32, BKV] scope=warp
  reg p_r : bf16[32, BKV] scope=warp
  reg o_r : f32[32, D] scope=warp
  reg o_bf : bf16[32, D] scope=warp
  reg m_i : f32[32] scope=warp
  reg m_blk : f32[32] scope=warp
  reg m_new : f32[32] scope=warp
  reg alpha : f32[32] scope=warp
  reg l_i : f32[32] scope=warp
  reg l_blk : f32[32] scope=warp
  reg qk_scale : f32[1] scope=thread

  on load {
    mbarrier.init q_full
    mbarrier.init k_full
    mbarrier.init v_full
    mbarrier.init kv_empty
    mbarrier.init s_full0
    mbarrier.init s_full1
    mbarrier.init s_free0
    mbarrier.init s_free1
    mbarrier.init p_full0
    mbarrier.init p_full1
    mbarrier.init o_done0
    mbarrier.init o_done1
    // The TMA unit and tcgen05.commit signal these barriers through the async proxy.
    fence.mbarrier_init
  }
  on mma {
    tcgen05.alloc s0_t
    tcgen05.alloc s1_t
    tcgen05.alloc p0_t
    tcgen05.alloc p1_t
    tcgen05.alloc o0_t
    tcgen05.alloc o1_t
    tcgen05.relinquish
  }
  // Barrier initialisation and the TMEM base addresses become visible to every warp.
  on all {
    cta.sync
  }
  on load {
    for t in tiles {
      mbarrier.arrive_expect_tx q_full bytes=32768
      tma.load q_s[0, :, :], tQ[t.y * S + t.x * BM, 0], q_full
      tma.load q_s[1, :, :], tQ[t.y * S + t.x * BM + BQ, 0], q_full
      for j in 0..S / BKV pipeline=kv {
        mbarrier.try_wait kv_empty[kv.slot] parity=kv.phase ^ 1
        mbarrier.arrive_expect_tx k_full[kv.slot] bytes=16384
        tma.load k_s[kv.slot], tK[t.y * S + j * BKV, 0], k_full[kv.slot]
        mbarrier.arrive_expect_tx v_full[kv.slot] bytes=16384
        tma.load v_s[kv.slot], tV[t.y * S + j * BKV, 0], v_full[kv.slot]
      }
    }
  }
  on mma {
    for t in tiles {
      // One CTA per tile: the Q barrier completes exactly once, in phase 0.
      mbarrier.try_wait q_full parity=0
      // FA4's issue order: S_i of block j is issued before O_i += P_i V of block j - 1, so the
      // tensor core computes the next scores while softmax i turns the current ones into P.
      // The ring slot of block j is j % 3 and its parity (j / 3) % 2, as the load warp's kv.
      // Block 0: the scores only.
      mbarrier.try_wait k_full[0] parity=0
      tcgen05.fence_after
      tcgen05.mma s0_t, q_s[0, :, :], k_s[0] accumulate=false
      tcgen05.commit s_full0
      tcgen05.fence_after
      tcgen05.mma s1_t, q_s[1, :, :], k_s[0] accumulate=false
      tcgen05.commit s_full1
      // Block 1 issues the first P V, which starts O from zero (enable-input-d false).
      for j in 1..2 {
        mbarrier.try_wait k_full[j % 3] parity=j / 3 % 2
        mbarrier.try_wait s_free0 parity=(j - 1) % 2
        tcgen05.fence_after
        tcgen05.mma s0_t, q_s[0, :, :], k_s[j % 3] accumulate=false
        tcgen05.commit s_full0
        mbarrier.try_wait v_full[(j - 1) % 3] parity=(j - 1) / 3 % 2
        mbarrier.try_wait p_full0 parity=(j - 1) % 2
        tcgen05.fence_after
        tcgen05.mma o0_t, p0_t, v_s[(j - 1) % 3] b_major=mn accumulate=false
        tcgen05.commit o_done0
        mbarrier.try_wait s_free1 parity=(j - 1) % 2
        tcgen05.fence_after
        tcgen05.mma s1_t, q_s[1, :, :], k_s[j % 3] accumulate=false
        tcgen05.commit s_full1
        mbarrier.try_wait p_full1 parity=(j - 1) % 2
        tcgen05.fence_after
        tcgen05.mma o1_t, p1_t, v_s[(j - 1) % 3] b_major=mn accumulate=false
        tcgen05.commit o_done1
        // K and V of block j - 1 are free once every MMA issued so far has completed.
        tcgen05.commit kv_empty[(j - 1) % 3]
      }
      for j in 2..S / BKV {
        mbarrier.try_wait k_full[j % 3] parity=j / 3 % 2
        mbarrier.try_wait s_free0 parity=(j - 1) % 2
        tcgen05.fence_after
        tcgen05.mma s0_t, q_s[0, :, :], k_s[j % 3] accumulate=false  // expected-blocking: ps-cross-role-race
        tcgen05.commit s_full0
        mbarrier.try_wait v_full[(j - 1) % 3] parity=(j - 1) / 3 % 2
        mbarrier.try_wait p_full0 parity=(j - 1) % 2
        tcgen05.fence_after
        tcgen05.mma o0_t, p0_t, v_s[(j - 1) % 3] b_major=mn
        tcgen05.commit o_done0
        mbarrier.try_wait s_free1 parity=(j - 1) % 2
        tcgen05.fence_after
        tcgen05.mma s1_t, q_s[1, :, :], k_s[j % 3] accumulate=false
        tcgen05.commit s_full1
        mbarrier.try_wait p_full1 parity=(j - 1) % 2
        tcgen05.fence_after
        tcgen05.mma o1_t, p1_t, v_s[(j - 1) % 3] b_major=mn
        tcgen05.commit o_done1
        // K and V of block j - 1 are free once every MMA issued so far has completed.
        tcgen05.commit kv_empty[(j - 1) % 3]
      }
      // The last block's P V.
      mbarrier.try_wait v_full[(S / BKV - 1) % 3] parity=(S / BKV - 1) / 3 % 2
      mbarrier.try_wait p_full0 parity=(S / BKV - 1) % 2
      tcgen05.fence_after
      tcgen05.mma o0_t, p0_t, v_s[(S / BKV - 1) % 3] b_major=mn
      tcgen05.commit o_done0
      mbarrier.try_wait p_full1 parity=(S / BKV - 1) % 2
      tcgen05.fence_after
      tcgen05.mma o1_t, p1_t, v_s[(S / BKV - 1) % 3] b_major=mn
      tcgen05.commit o_done1
      tcgen05.commit kv_empty[(S / BKV - 1) % 3]
    }
  }
  on softmax0 {
    // log2(e) / sqrt(64): the softmax runs in base 2.
    ew.fill qk_scale value=0.18033688011112042
    for t in tiles {
      ew.fill m_i value=-3.0e38
      ew.fill l_i value=0.0
      // The first key block: O is not written yet, nothing to correct.
      for j in 0..1 {
        mbarrier.try_wait s_full0 parity=j % 2
        tcgen05.fence_after
        tcgen05.ld s_r, s0_t[warp * 32 +: 32, :]
        tcgen05.wait_ld
        // S is in registers: the MMA warp may overwrite it with the next block's Q K^T.
        tcgen05.fence_before
        mbarrier.arrive s_free0 scope=warp
        ew.binary s_r, s_r, qk_scale fn=mul broadcast=scalar
        reduce.warp m_i, s_r op=max
        ew.binary s_r, s_r, m_i fn=sub broadcast=row
        ew.unary s_r, s_r fn=exp2
        reduce.warp l_i, s_r op=sum
        cast p_r, s_r
        tcgen05.st p0_t[warp * 32 +: 32, :], p_r
        tcgen05.wait_st
        tcgen05.fence_before
        mbarrier.arrive p_full0 scope=warp
      }
      for j in 1..S / BKV {
        mbarrier.try_wait s_full0 parity=j % 2
        tcgen05.fence_after
        tcgen05.ld s_r, s0_t[warp * 32 +: 32, :]
        tcgen05.fence_before
        mbarrier.arrive s_free0 scope=warp
        tcgen05.wait_ld
        // Online softmax: new running max, correction factor alpha = exp2(m_old - m_new).
        ew.binary s_r, s_r, qk_scale fn=mul broadcast=scalar
        reduce.warp m_blk, s_r op=max
        ew.binary m_new, m_i, m_blk fn=max
        ew.binary alpha, m_i, m_new fn=sub
        ew.unary alpha, alpha fn=exp2
        ew.binary s_r, s_r, m_new fn=sub broadcast=row
        ew.unary s_r, s_r fn=exp2
        reduce.warp l_blk, s_r op=sum
        ew.binary l_i, l_i, alpha fn=mul
        ew.binary l_i, l_i, l_blk fn=add
        cast m_i, m_new
        cast p_r, s_r
        // The previous P V retired: O may be corrected and P overwritten.
        mbarrier.try_wait o_done0 parity=(j - 1) % 2
        tcgen05.fence_after
        tcgen05.ld o_r, o0_t[warp * 32 +: 32, :]
        tcgen05.wait_ld
        ew.binary o_r, o_r, alpha fn=mul broadcast=row
        tcgen05.st o0_t[warp * 32 +: 32, :], o_r
        tcgen05.st p0_t[warp * 32 +: 32, :], p_r
        tcgen05.wait_st
        tcgen05.fence_before
        mbarrier.arrive p_full0 scope=warp
      }
      // Epilogue: the last P V retired; O / l to bf16.
      mbarrier.try_wait o_done0 parity=(S / BKV - 1) % 2
      tcgen05.fence_after
      tcgen05.ld o_r, o0_t[warp * 32 +: 32, :]
      tcgen05.wait_ld
      ew.binary o_r, o_r, l_i fn=div broadcast=row
      cast o_bf, o_r
      epilogue.store O[t.y * S + t.x * BM + 0 * BQ + warp * 32 +: 32, :], o_bf
      tcgen05.fence_before
    }
  }
  on softmax1 {
    // log2(e) / sqrt(64): the softmax runs in base 2.
    ew.fill qk_scale value=0.18033688011112042
    for t in tiles {
      ew.fill m_i value=-3.0e38
      ew.fill l_i value=0.0
      // The first key block: O is not written yet, nothing to correct.
      for j in 0..1 {
        mbarrier.try_wait s_full1 parity=j % 2
        tcgen05.fence_after
        tcgen05.ld s_r, s1_t[warp * 32 +: 32, :]
        tcgen05.wait_ld
        // S is in registers: the MMA warp may overwrite it with the next block's Q K^T.
        tcgen05.fence_before
        mbarrier.arrive s_free1 scope=warp
        ew.binary s_r, s_r, qk_scale fn=mul broadcast=scalar
        reduce.warp m_i, s_r op=max
        ew.binary s_r, s_r, m_i fn=sub broadcast=row
        ew.unary s_r, s_r fn=exp2
        reduce.warp l_i, s_r op=sum
        cast p_r, s_r
        tcgen05.st p1_t[warp * 32 +: 32, :], p_r
        tcgen05.wait_st
        tcgen05.fence_before
        mbarrier.arrive p_full1 scope=warp
      }
      for j in 1..S / BKV {
        mbarrier.try_wait s_full1 parity=j % 2
        tcgen05.fence_after
        tcgen05.ld s_r, s1_t[warp * 32 +: 32, :]
        tcgen05.wait_ld
        tcgen05.fence_before
        mbarrier.arrive s_free1 scope=warp
        // Online softmax: new running max, correction factor alpha = exp2(m_old - m_new).
        ew.binary s_r, s_r, qk_scale fn=mul broadcast=scalar
        reduce.warp m_blk, s_r op=max
        ew.binary m_new, m_i, m_blk fn=max
        ew.binary alpha, m_i, m_new fn=sub
        ew.unary alpha, alpha fn=exp2
        ew.binary s_r, s_r, m_new fn=sub broadcast=row
        ew.unary s_r, s_r fn=exp2
        reduce.warp l_blk, s_r op=sum
        ew.binary l_i, l_i, alpha fn=mul
        ew.binary l_i, l_i, l_blk fn=add
        cast m_i, m_new
        cast p_r, s_r
        // The previous P V retired: O may be corrected and P overwritten.
        mbarrier.try_wait o_done1 parity=(j - 1) % 2
        tcgen05.fence_after
        tcgen05.ld o_r, o1_t[warp * 32 +: 32, :]
        tcgen05.wait_ld
        ew.binary o_r, o_r, alpha fn=mul broadcast=row
        tcgen05.st o1_t[warp * 32 +: 32, :], o_r
        tcgen05.st p1_t[warp * 32 +: 32, :], p_r
        tcgen05.wait_st
        tcgen05.fence_before
        mbarrier.arrive p_full1 scope=warp
      }
      // Epilogue: the last P V retired; O / l to bf16.
      mbarrier.try_wait o_done1 parity=(S / BKV - 1) % 2
      tcgen05.fence_after
      tcgen05.ld o_r, o1_t[warp * 32 +: 32, :]
      tcgen05.wait_ld
      ew.binary o_r, o_r, l_i fn=div broadcast=row
      cast o_bf, o_r
      epilogue.store O[t.y * S + t.x * BM + 1 * BQ + warp * 32 +: 32, :], o_bf
      tcgen05.fence_before
    }
  }
  // Every TMEM reader has finished; the allocating warp returns the columns.
  on all {
    cta.sync
  }
  on mma {
    tcgen05.dealloc s0_t
    tcgen05.dealloc s1_t
    tcgen05.dealloc p0_t
    tcgen05.dealloc p1_t
    tcgen05.dealloc o0_t
    tcgen05.dealloc o1_t
  }
}
