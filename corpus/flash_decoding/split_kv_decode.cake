// SPDX-License-Identifier: GPL-3.0-or-later
// Split-KV decode attention (FlashDecoding): one new query token per sequence attends to its
// KV cache of kv_len keys, a run-time scalar kernel argument. The keys are cut into SPLITS
// chunks; each CTA computes the attention of its query heads over one chunk and writes the
// partial output and its log-sum-exp, which a merge-states kernel combines
// (O = sum_s exp(LSE_s - LSE) O_s, LSE = log sum_s exp(LSE_s)).
// BATCH = 8 sequences, one KV head per sequence shared by G = 64 query heads (multi-query
// attention; the absorbed MLA decode of FlashMLA has the same shape), D = 128, a KV cache of
// KV_MAX = 32768 rows per sequence, bf16 in, f32 partial O and LSE out (sm_90a).
// Q is [BATCH * G, D] (heads stacked along rows), K and V are [BATCH * KV_MAX, D], O_part is
// [SPLITS * BATCH * G, D] and LSE_part [SPLITS * BATCH * G] (split-major).
//
// Production kernels it follows (the schedule, not the code):
// - FlashInfer include/flashinfer/attention/decode.cuh (BatchDecodeWithPagedKVCacheKernel with
//   partition_kv: one CTA per (KV head, chunk), the partial state written to tmp_v / tmp_s),
//   include/flashinfer/attention/scheduler.cuh (the host plan: kv_chunk_size from kv_len and
//   the number of chunks) and include/flashinfer/attention/cascade.cuh (MergeStates);
// - FlashMLA csrc/flash_fwd_mla_kernel.h (flash_fwd_splitkv_mla_kernel: the 64 query heads
//   that share one KV head are the M = 64 of the wgmma, a TMA producer warpgroup streams K/V
//   blocks through a ring, the split's block range from the sequence length at run time).
// The schedule:
// - grid [SPLITS, BATCH]: CTA (s, b) owns blocks min(s * C, NB) .. min((s + 1) * C, NB) of
//   sequence b, where NB = cdiv(kv_len, BKV) blocks of BKV keys and C = cdiv(NB, SPLITS)
//   blocks per chunk (FlashInfer's kv_chunk_size): run-time trip counts from the scalar
//   argument, and an empty range for the splits past the end of a short sequence;
// - GQA/MQA packing: the G = 64 query heads of one KV head are the rows of the score tile, so a
//   decode step is a 64 x BKV x D wgmma instead of 64 matrix-vector products;
// - a producer warpgroup (one elected thread) loads Q once and streams K and V blocks through
//   a 2-stage ring with separate K and V barriers; one consumer warpgroup runs the online
//   softmax in base 2 with the sequence-length mask (keys at or past kv_len get -inf) on every
//   block: only the last block of the last non-empty split is partial;
// - 256 threads (two warpgroups): every thread may keep 255 registers, so no setmaxnreg
//   rebalancing (the consumer's O and S accumulators need about 200);
// - an empty split stores O = 0 (l clamped before the division) and LSE = -inf, which the merge
//   weights by exp(-inf) = 0.
// Not expressible yet: the paged KV cache (the page table is a load whose value becomes a TMA
// coordinate); the cache here is contiguous per sequence (a page size of KV_MAX).
kernel flash_decoding_split_kv target=sm_90a {
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
      // This split's blocks of the sequence: a run-time range from kv_len.
      for j in min(t.x * cdiv(cdiv(kv_len, BKV), SPLITS), cdiv(kv_len, BKV))..min((t.x + 1) * cdiv(cdiv(kv_len, BKV), SPLITS), cdiv(kv_len, BKV)) pipeline=kv {
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
