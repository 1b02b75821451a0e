// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: producer and consumer of the K/V ring disagree on the run-time trip count,
// but only when kv_len is not a multiple of the block. The split-KV decode
// (corpus/flash_decoding/split_kv_decode.cake) with the producer's block range ending at the
// whole blocks (kv_len / BKV) while the consumer ends at cdiv(kv_len, BKV): at the bound value
// kv_len = KV_MAX (a multiple of BKV) both agree; the verifier's sampled values of the launch
// contract range (kv_len = 1, 129, ...) leave a partial last block and expose it: the consumer
// waits for a block the producer never loads.
kernel split_kv_trip_count_floor target=sm_90a {
  const BATCH = 8
  const G = 64
  const D = 128
  const KV_MAX = 32768
  const BKV = 128
  const SPLITS = 16
  const QROWS = BATCH * G
  const KV_ROWS = BATCH * KV_MAX

  param Q : bf16[QROWS, D] role=input align=16
  param K : bf16[KV_ROWS, D] role=input align=16
  param V : bf16[KV_ROWS, D] role=input align=16
  param O_part : f32[SPLITS * QROWS, D] role=output align=16
  param LSE_part : f32[SPLITS * QROWS] role=output align=16
  param kv_len : i32 role=scalar range=[1, KV_MAX]

  tensormap tQ : bf16[G, 64] source=Q swizzle=128B
  tensormap tK : bf16[BKV, 64] source=K swizzle=128B
  tensormap tV : bf16[BKV, 64] source=V swizzle=128B

  grid tiles=[SPLITS, BATCH]

  role producer warps=0..4
  role mma warps=4..8

  pipeline kv stages=2

  // [half of D, rows, 64 columns]: Q 16 KiB, K and V 2 x 32 KiB each.
  smem q_s : bf16[2, G, 64] offset=0 swizzle=128B
  smem k_s : bf16[2, BKV, 64] offset=16384 stages=2 swizzle=128B pipeline=kv
  smem v_s : bf16[2, BKV, 64] offset=81920 stages=2 swizzle=128B pipeline=kv

  mbarrier q_full count=1 producers=[producer] consumers=[mma]
  mbarrier k_full count=1 producers=[producer] consumers=[mma] pipeline=kv
  mbarrier v_full count=1 producers=[producer] consumers=[mma] pipeline=kv
  mbarrier kv_empty count=1 producers=[mma] consumers=[producer] pipeline=kv

  reg s_acc : f32[64, BKV] scope=warpgroup
  reg p_bf : bf16[64, BKV] scope=warpgroup
  reg o_acc : f32[64, D] scope=warpgroup
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
      mbarrier.arrive_expect_tx q_full bytes=16384
      tma.load q_s[0, :, :], tQ[t.y * G, 0], q_full
      tma.load q_s[1, :, :], tQ[t.y * G, 64], q_full
      // The bug: whole blocks only (kv_len / BKV), the consumer counts the partial one too.
      for j in min(t.x * cdiv(cdiv(kv_len, BKV), SPLITS), kv_len / BKV)..min((t.x + 1) * cdiv(cdiv(kv_len, BKV), SPLITS), kv_len / BKV) pipeline=kv {  // expected-blocking: ps-trip-count-mismatch {{with kv_len = 1}}
        mbarrier.try_wait kv_empty[kv.slot] parity=kv.phase ^ 1
        mbarrier.arrive_expect_tx k_full[kv.slot] bytes=32768
        tma.load k_s[kv.slot, 0, :, :], tK[t.y * KV_MAX + j * BKV, 0], k_full[kv.slot]
        tma.load k_s[kv.slot, 1, :, :], tK[t.y * KV_MAX + j * BKV, 64], k_full[kv.slot]
        mbarrier.arrive_expect_tx v_full[kv.slot] bytes=32768
        tma.load v_s[kv.slot, 0, :, :], tV[t.y * KV_MAX + j * BKV, 0], v_full[kv.slot]
        tma.load v_s[kv.slot, 1, :, :], tV[t.y * KV_MAX + j * BKV, 64], v_full[kv.slot]
      }
    }
  }
  on mma {
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
      for j in min(t.x * cdiv(cdiv(kv_len, BKV), SPLITS), cdiv(kv_len, BKV))..min((t.x + 1) * cdiv(cdiv(kv_len, BKV), SPLITS), cdiv(kv_len, BKV)) pipeline=kv {
        mbarrier.try_wait k_full[kv.slot] parity=kv.phase
        wgmma.fence
        wgmma.mma s_acc, q_s[0, :, :], k_s[kv.slot, 0, :, :] accumulate=false
        wgmma.mma s_acc, q_s[1, :, :], k_s[kv.slot, 1, :, :]
        wgmma.commit
        wgmma.wait pending=0
        // Keys at or past the end of the sequence get -inf (the last block may be partial).
        ew.mask s_acc row=0 col=j * BKV seqlen=kv_len causal=false
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
      // LSE = ln 2 * (m + log2 l): -inf for an empty split.
      ew.unary lse, l_i fn=log2
      ew.binary lse, lse, m_i fn=add
      ew.binary lse, lse, ln2 fn=mul broadcast=scalar
      epilogue.store LSE_part[(t.x * BATCH + t.y) * G +: 64], lse
      // O = acc / l, with l clamped so that an empty split stores 0, not 0 / 0.
      ew.binary l_i, l_i, l_min fn=max broadcast=scalar
      ew.binary o_acc, o_acc, l_i fn=div broadcast=row
      epilogue.store O_part[(t.x * BATCH + t.y) * G +: 64, :], o_acc
    }
  }
}
