// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: the key loop runs one block past the diagonal and, on the last query block,
// past the sequence end
// The FA3-style causal attention with every role's key range ending at (t.x + 2) * BQ / BKV
// (an off-by-one of the causal bound). The trip counts agree, and the causal mask hides the
// extra block's scores on every query block but the last, where the block starts at key
// S = 4096: its keys and values were loaded from past the end of the sequence (the next head's
// rows).
kernel fa3_mask_past_sequence_end target=sm_90a {
  const BATCH = 4
  const HEADS = 16
  const S = 4096
  const D = 128
  const BQ = 128
  const BKV = 128
  const ROWS = BATCH * HEADS * S

  param Q : bf16[ROWS, D] role=input align=16
  param Kt : bf16[ROWS, D] role=input align=16
  param V : bf16[ROWS, D] role=input align=16
  param O : bf16[ROWS, D] role=output align=16
  param LSE : f32[ROWS] role=output align=16

  tensormap tQ : bf16[BQ, 64] source=Q swizzle=128B
  tensormap tK : bf16[BKV, 64] source=Kt swizzle=128B
  tensormap tV : bf16[BKV, 64] source=V swizzle=128B

  grid tiles=[S / BQ, BATCH * HEADS]

  role producer warps=0..4 regs=24
  role mma0 warps=4..8 regs=240
  role mma1 warps=8..12 regs=240

  pipeline kv stages=2

  // [half of D, rows, 64 columns]: Q 32 KiB, K and V 2 x 32 KiB each.
  smem q_s : bf16[2, BQ, 64] offset=0 swizzle=128B
  smem k_s : bf16[2, BKV, 64] offset=32768 stages=2 swizzle=128B pipeline=kv
  smem v_s : bf16[2, BKV, 64] offset=98304 stages=2 swizzle=128B pipeline=kv

  mbarrier q_full count=1 producers=[producer] consumers=[mma0, mma1]
  mbarrier k_full count=1 producers=[producer] consumers=[mma0, mma1] pipeline=kv
  mbarrier v_full count=1 producers=[producer] consumers=[mma0, mma1] pipeline=kv
  mbarrier kv_empty count=2 producers=[mma0, mma1] consumers=[producer] pipeline=kv
  // FA3's warp-scheduler barriers: whose turn it is on the tensor cores.
  nbarrier sched0 roles=[mma0, mma1]
  nbarrier sched1 roles=[mma0, mma1]

  reg s_acc : f32[64, BKV] scope=warpgroup
  reg p_bf : bf16[64, BKV] scope=warpgroup
  reg o_acc : f32[64, D] scope=warpgroup
  reg o_bf : bf16[64, D] scope=warpgroup
  reg m_i : f32[64] scope=warpgroup
  reg m_blk : f32[64] scope=warpgroup
  reg m_new : f32[64] scope=warpgroup
  reg l_i : f32[64] scope=warpgroup
  reg l_blk : f32[64] scope=warpgroup
  reg lse : f32[64] scope=warpgroup
  reg qk_scale : f32[1] scope=thread
  reg ln2 : f32[1] scope=thread
  reg l_min : f32[1] scope=thread

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
      // Causal: key blocks 0..t.x only (a run-time trip count).
      for j in 0..(t.x + 2) * BQ / BKV pipeline=kv {
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
  on mma0 {
    // log2(e) / sqrt(128): the softmax runs in base 2.
    ew.fill qk_scale value=0.12751743074602467
    ew.fill ln2 value=0.6931471805599453
    ew.fill l_min value=1.0e-30
    for t in tiles {
      ew.fill o_acc value=0.0
      ew.fill m_i value=-3.0e38
      ew.fill l_i value=0.0
      // One CTA per tile: the Q barrier completes exactly once, in phase 0.
      mbarrier.try_wait q_full parity=0
      bar.sync sched0
      // Key blocks below the diagonal: no mask (zero iterations on the first query block).
      for j in 0..t.x * BQ / BKV pipeline=kv {
        mbarrier.try_wait k_full[kv.slot] parity=kv.phase
        wgmma.fence
        wgmma.mma s_acc, q_s[0, 0 +: 64, :], k_s[kv.slot, 0, :, :] accumulate=false
        wgmma.mma s_acc, q_s[1, 0 +: 64, :], k_s[kv.slot, 1, :, :]
        wgmma.commit
        // Issued: the other warpgroup may start its GEMMs while this one waits and softmaxes.
        bar.arrive sched1
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
        // This warpgroup's turn: P V of this block, then Q K^T of the next.
        bar.sync sched0
        wgmma.fence
        wgmma.mma o_acc[:, 0 +: 64], p_bf, v_s[kv.slot, 0, :, :] b_major=mn
        wgmma.mma o_acc[:, 64 +: 64], p_bf, v_s[kv.slot, 1, :, :] b_major=mn
        wgmma.commit
        wgmma.wait pending=0
        mbarrier.arrive kv_empty[kv.slot] scope=warpgroup
      }
      // The diagonal block.
      for j in t.x * BQ / BKV..(t.x + 2) * BQ / BKV pipeline=kv {
        mbarrier.try_wait k_full[kv.slot] parity=kv.phase
        wgmma.fence
        wgmma.mma s_acc, q_s[0, 0 +: 64, :], k_s[kv.slot, 0, :, :] accumulate=false
        wgmma.mma s_acc, q_s[1, 0 +: 64, :], k_s[kv.slot, 1, :, :]
        wgmma.commit
        // Issued: the other warpgroup may start its GEMMs while this one waits and softmaxes.
        bar.arrive sched1
        wgmma.wait pending=0
        // The diagonal block: keys after the query (and past the sequence end) get -inf.
        ew.mask s_acc row=t.x * BQ col=j * BKV seqlen=S causal=true  // expected-blocking: dc-mask-past-sequence-end
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
        // This warpgroup's turn: P V of this block, then Q K^T of the next.
        bar.sync sched0
        wgmma.fence
        wgmma.mma o_acc[:, 0 +: 64], p_bf, v_s[kv.slot, 0, :, :] b_major=mn
        wgmma.mma o_acc[:, 64 +: 64], p_bf, v_s[kv.slot, 1, :, :] b_major=mn
        wgmma.commit
        wgmma.wait pending=0
        mbarrier.arrive kv_empty[kv.slot] scope=warpgroup
      }
      // Pass the token on after the last GEMM.
      bar.arrive sched1
      // LSE = ln 2 * (m + log2 l): -inf for a row without any unmasked key.
      ew.unary lse, l_i fn=log2
      ew.binary lse, lse, m_i fn=add
      ew.binary lse, lse, ln2 fn=mul broadcast=scalar
      epilogue.store LSE[t.y * S + t.x * BQ +: 64], lse
      // O = acc / l, with l clamped so that a fully masked row stores 0, not 0 / 0.
      ew.binary l_i, l_i, l_min fn=max broadcast=scalar
      ew.binary o_acc, o_acc, l_i fn=div broadcast=row
      cast o_bf, o_acc
      epilogue.store O[t.y * S + t.x * BQ +: 64, :], o_bf
    }
  }
  on mma1 {
    // log2(e) / sqrt(128): the softmax runs in base 2.
    ew.fill qk_scale value=0.12751743074602467
    ew.fill ln2 value=0.6931471805599453
    ew.fill l_min value=1.0e-30
    // FA3's mma_init: the first turn on the tensor cores is mma0's.
    bar.arrive sched0
    for t in tiles {
      ew.fill o_acc value=0.0
      ew.fill m_i value=-3.0e38
      ew.fill l_i value=0.0
      // One CTA per tile: the Q barrier completes exactly once, in phase 0.
      mbarrier.try_wait q_full parity=0
      bar.sync sched1
      // Key blocks below the diagonal: no mask (zero iterations on the first query block).
      for j in 0..t.x * BQ / BKV pipeline=kv {
        mbarrier.try_wait k_full[kv.slot] parity=kv.phase
        wgmma.fence
        wgmma.mma s_acc, q_s[0, 64 +: 64, :], k_s[kv.slot, 0, :, :] accumulate=false
        wgmma.mma s_acc, q_s[1, 64 +: 64, :], k_s[kv.slot, 1, :, :]
        wgmma.commit
        // Issued: the other warpgroup may start its GEMMs while this one waits and softmaxes.
        bar.arrive sched0
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
        // This warpgroup's turn: P V of this block, then Q K^T of the next.
        bar.sync sched1
        wgmma.fence
        wgmma.mma o_acc[:, 0 +: 64], p_bf, v_s[kv.slot, 0, :, :] b_major=mn
        wgmma.mma o_acc[:, 64 +: 64], p_bf, v_s[kv.slot, 1, :, :] b_major=mn
        wgmma.commit
        wgmma.wait pending=0
        mbarrier.arrive kv_empty[kv.slot] scope=warpgroup
      }
      // The diagonal block.
      for j in t.x * BQ / BKV..(t.x + 2) * BQ / BKV pipeline=kv {
        mbarrier.try_wait k_full[kv.slot] parity=kv.phase
        wgmma.fence
        wgmma.mma s_acc, q_s[0, 64 +: 64, :], k_s[kv.slot, 0, :, :] accumulate=false
        wgmma.mma s_acc, q_s[1, 64 +: 64, :], k_s[kv.slot, 1, :, :]
        wgmma.commit
        // Issued: the other warpgroup may start its GEMMs while this one waits and softmaxes.
        bar.arrive sched0
        wgmma.wait pending=0
        // The diagonal block: keys after the query (and past the sequence end) get -inf.
        ew.mask s_acc row=t.x * BQ + 64 col=j * BKV seqlen=S causal=true  // expected-blocking: dc-mask-past-sequence-end
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
        // This warpgroup's turn: P V of this block, then Q K^T of the next.
        bar.sync sched1
        wgmma.fence
        wgmma.mma o_acc[:, 0 +: 64], p_bf, v_s[kv.slot, 0, :, :] b_major=mn
        wgmma.mma o_acc[:, 64 +: 64], p_bf, v_s[kv.slot, 1, :, :] b_major=mn
        wgmma.commit
        wgmma.wait pending=0
        mbarrier.arrive kv_empty[kv.slot] scope=warpgroup
      }
      // Pass the token on after the last GEMM.
      bar.arrive sched0
      // LSE = ln 2 * (m + log2 l): -inf for a row without any unmasked key.
      ew.unary lse, l_i fn=log2
      ew.binary lse, lse, m_i fn=add
      ew.binary lse, lse, ln2 fn=mul broadcast=scalar
      epilogue.store LSE[t.y * S + t.x * BQ + 64 +: 64], lse
      // O = acc / l, with l clamped so that a fully masked row stores 0, not 0 / 0.
      ew.binary l_i, l_i, l_min fn=max broadcast=scalar
      ew.binary o_acc, o_acc, l_i fn=div broadcast=row
      cast o_bf, o_acc
      epilogue.store O[t.y * S + t.x * BQ + 64 +: 64, :], o_bf
    }
  }
}
