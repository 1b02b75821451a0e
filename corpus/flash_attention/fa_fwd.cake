// SPDX-License-Identifier: GPL-3.0-or-later
// FlashAttention-style forward pass, non-causal: O = softmax(Q K^T / sqrt(D)) V
// B = 4, H = 32, S = 4096, D = 128, bf16 in/out, fp32 softmax statistics (sm_90a).
// Q, K, V and O are [B * H * S, D] row-major (heads stacked along rows).
//
// Schedule: one CTA per (128-query block, head): 32 x 128 tiles. A TMA producer warpgroup
// loads Q once and streams K/V blocks of 128 keys through a 2-stage ring with separate K and V
// barriers (QK^T can start before V lands). Two consumer warpgroups own 64 query rows each:
// S = Q K^T by wgmma, online softmax in registers (running max m_i and sum l_i, rescale of the
// output accumulator), P (bf16, registers) times V by wgmma with V read MN-major. The head
// dimension is split in two 64-column halves so every TMA box row is one 128B swizzle span.
kernel flash_attention_fwd target=sm_90a {
  const BATCH = 4
  const HEADS = 32
  const S = 4096
  const D = 128
  const BQ = 128
  const BKV = 128
  const ROWS = BATCH * HEADS * S

  param Q : bf16[ROWS, D] role=input align=16
  param Kt : bf16[ROWS, D] role=input align=16
  param V : bf16[ROWS, D] role=input align=16
  param O : bf16[ROWS, D] role=output align=16

  tensormap tQ : bf16[BQ, 64] source=Q swizzle=128B
  tensormap tK : bf16[BKV, 64] source=Kt swizzle=128B
  tensormap tV : bf16[BKV, 64] source=V swizzle=128B

  grid tiles=[S / BQ, BATCH * HEADS]

  role producer warps=0..4 regs=24
  role consumer warps=4..12 regs=240

  pipeline kv stages=2

  // [half of D, rows, 64 columns]: Q 32 KiB, K and V 2 x 32 KiB each.
  smem q_s : bf16[2, BQ, 64] offset=0 swizzle=128B
  smem k_s : bf16[2, BKV, 64] offset=32768 stages=2 swizzle=128B pipeline=kv
  smem v_s : bf16[2, BKV, 64] offset=98304 stages=2 swizzle=128B pipeline=kv

  mbarrier q_full count=1 producers=[producer] consumers=[consumer]
  mbarrier k_full count=1 producers=[producer] consumers=[consumer] pipeline=kv
  mbarrier v_full count=1 producers=[producer] consumers=[consumer] pipeline=kv
  mbarrier kv_empty count=2 producers=[consumer] consumers=[producer] pipeline=kv

  reg s_acc : f32[64, BKV] scope=warpgroup
  reg p_bf : bf16[64, BKV] scope=warpgroup
  reg o_acc : f32[64, D] scope=warpgroup
  reg o_bf : bf16[64, D] scope=warpgroup
  reg m_i : f32[64] scope=warpgroup
  reg m_blk : f32[64] scope=warpgroup
  reg m_new : f32[64] scope=warpgroup
  reg l_i : f32[64] scope=warpgroup
  reg l_blk : f32[64] scope=warpgroup
  reg qk_scale : f32[1] scope=thread

  on producer {
    mbarrier.init q_full
    mbarrier.init k_full
    mbarrier.init v_full
    mbarrier.init kv_empty
    // The TMA unit signals these barriers through the async proxy.
    fence.mbarrier_init
  }
  on all {
    cta.sync
  }
  on producer {
    for t in tiles {
      mbarrier.arrive_expect_tx q_full bytes=32768
      tma.load q_s[0, :, :], tQ[t.y * S + t.x * BQ, 0], q_full
      tma.load q_s[1, :, :], tQ[t.y * S + t.x * BQ, 64], q_full
      for j in 0..S / BKV pipeline=kv {
        mbarrier.try_wait kv_empty[kv.slot] parity=kv.phase ^ 1
        mbarrier.arrive_expect_tx k_full[kv.slot] bytes=32768
        tma.load k_s[kv.slot, 0, :, :], tK[t.y * S + j * BKV, 0], k_full[kv.slot]
        tma.load k_s[kv.slot, 1, :, :], tK[t.y * S + j * BKV, 64], k_full[kv.slot]
        mbarrier.arrive_expect_tx v_full[kv.slot] bytes=32768
        tma.load v_s[kv.slot, 0, :, :], tV[t.y * S + j * BKV, 0], v_full[kv.slot]
        tma.load v_s[kv.slot, 1, :, :], tV[t.y * S + j * BKV, 64], v_full[kv.slot]
      }
    }
  }
  on consumer {
    // log2(e) / sqrt(128): the softmax runs in base 2.
    ew.fill qk_scale value=0.12751743074602467
    for t in tiles {
      ew.fill o_acc value=0.0
      ew.fill m_i value=-3.0e38
      ew.fill l_i value=0.0
      // One CTA per tile: the Q barrier completes exactly once, in phase 0.
      mbarrier.try_wait q_full parity=0
      for j in 0..S / BKV pipeline=kv {
        mbarrier.try_wait k_full[kv.slot] parity=kv.phase
        wgmma.fence
        wgmma.mma s_acc, q_s[0, wg * 64 +: 64, :], k_s[kv.slot, 0, :, :] accumulate=false
        wgmma.mma s_acc, q_s[1, wg * 64 +: 64, :], k_s[kv.slot, 1, :, :]
        wgmma.commit
        wgmma.wait pending=0
        // Online softmax: new running max, rescale of O and l, probabilities of this block.
        ew.binary s_acc, s_acc, qk_scale fn=mul broadcast=scalar
        reduce.warp m_blk, s_acc op=max
        ew.binary m_new, m_i, m_blk fn=max
        softmax.rescale o_acc, m_i, m_new
        softmax.rescale l_i, m_i, m_new
        ew.binary s_acc, s_acc, m_new fn=sub broadcast=row
        ew.unary s_acc, s_acc fn=exp2
        reduce.warp l_blk, s_acc op=sum
        ew.binary l_i, l_i, l_blk fn=add
        cast m_i, m_new
        cast p_bf, s_acc
        mbarrier.try_wait v_full[kv.slot] parity=kv.phase
        wgmma.fence
        wgmma.mma o_acc[:, 0 +: 64], p_bf, v_s[kv.slot, 0, :, :] b_major=mn
        wgmma.mma o_acc[:, 64 +: 64], p_bf, v_s[kv.slot, 1, :, :] b_major=mn
        wgmma.commit
        wgmma.wait pending=0
        mbarrier.arrive kv_empty[kv.slot] scope=warpgroup
      }
      ew.binary o_acc, o_acc, l_i fn=div broadcast=row
      cast o_bf, o_acc
      epilogue.store O[t.y * S + t.x * BQ + wg * 64 +: 64, :], o_bf
    }
  }
}
