#!/usr/bin/env python3
# Unit tests of the PTX evaluator behind the back-end differential check: integer semantics,
# scoped inline-asm names, traces, and loud failure on what it cannot model.
# SPDX-License-Identifier: GPL-3.0-or-later
"""python3 tests/lower/test_ptx_eval.py"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ptx_eval as pe  # noqa: E402

HEAD = """
.version 8.0
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 cake_smem[];
.visible .entry k(
	.param .u64 k_param_0,
	.param .align 64 .b8 k_param_1[128]
)
.maxntid 128, 1, 1
{
	.reg .pred %p<4>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<10>;
"""


def trace(body, tid=0, ctaid=0, nctaid=4):
    k = pe.parse(HEAD + body + "\n}\n")
    return pe.Thread(k, ctaid, tid, nctaid, k.maxntid).run()


class EvalTest(unittest.TestCase):
    def test_global_store_address(self):
        t = trace("""
	ld.param.u64 %rd1, [k_param_0];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mad.lo.s32 %r3, %r2, 128, %r1;
	mul.wide.s32 %rd3, %r3, 4;
	add.s64 %rd4, %rd2, %rd3;
	st.global.f32 [%rd4+8], %r1;
	ret;""", tid=5, ctaid=2)
        self.assertEqual(t, [("st", "global", pe.GLOBAL_BASE + (2 * 128 + 5) * 4 + 8, 4)])

    def test_cluster_rank_mask_and_remote_address(self):
        # The multicast guard of tma.load: rank (0 here) against the mask's lowest set bit
        # (brev + bfind.shiftamt = count of trailing zeros); mapa tags the address with the rank.
        t = trace("""
	ld.param.u64 %rd1, [k_param_0];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r9, 64;
	getctarank.shared::cluster.u32 %r1, %r9;
	mov.b32 %r2, 12;
	brev.b32 %r2, %r2;
	bfind.shiftamt.u32 %r3, %r2;
	mov.u32 %r4, 1024;
	mapa.shared::cluster.u32 %r5, %r4, 1;
	st.global.u32 [%rd2], %r1;
	cvt.u64.u32 %rd3, %r3;
	add.s64 %rd4, %rd2, %rd3;
	st.global.u32 [%rd4], %r1;
	cvt.u64.u32 %rd5, %r5;
	add.s64 %rd6, %rd2, %rd5;
	st.global.u32 [%rd6], %r1;
	ret;""")
        stores = [e[2] - pe.GLOBAL_BASE for e in t if e[0] == "st"]
        self.assertEqual(stores, [0, 2, 1024 | (1 << 24)])

    def test_signed_and_unsigned_semantics(self):
        t = trace("""
	mov.u32 %r1, -8;
	shr.s32 %r2, %r1, 1;
	shr.u32 %r3, %r1, 28;
	setp.lt.s32 %p1, %r1, 0;
	setp.lt.u32 %p2, %r1, 0;
	selp.b32 %r4, 64, 0, %p1;
	selp.b32 %r5, 32, 0, %p2;
	add.s32 %r6, %r4, %r5;
	add.s32 %r7, %r2, %r3;
	mov.u32 %r8, cake_smem;
	add.s32 %r9, %r8, %r6;
	add.s32 %r9, %r9, %r7;
	st.shared.b32 [%r9], %r1;
	ret;""")
        # -8 >> 1 = -4 (arithmetic), 0xfffffff8 >> 28 = 15 (logical), 64 + 0 + 11
        self.assertEqual(t, [("st", "shared", pe.SMEM_BASE + 64 + 11, 4)])

    def test_scoped_labels_and_waits(self):
        body = """
	mov.u32 %r1, cake_smem;
	{
	.reg .pred cake_p;
	cake_wait:
	mbarrier.try_wait.parity.shared::cta.b64 cake_p, [%r1+16], 0;
	@!cake_p bra cake_wait;
	}
	{
	.reg .pred cake_p;
	cake_wait:
	mbarrier.try_wait.parity.shared::cta.b64 cake_p, [%r1+24], 1;
	@!cake_p bra cake_wait;
	}
	bar.sync 0;
	barrier.sync 1, 64;
	ret;"""
        t = trace(body)
        self.assertEqual(len(t), 4)
        self.assertEqual(t[0][1:], (("addr", pe.SMEM_BASE + 16), 0))
        self.assertEqual(t[1][1:], (("addr", pe.SMEM_BASE + 24), 1))
        self.assertEqual(t[3], ("bar.sync", 1, 64))

    def test_tensor_operand_and_elect(self):
        t = trace("""
	mov.b64 %rd1, k_param_1;
	cvta.param.u64 %rd2, %rd1;
	mov.u32 %r1, cake_smem;
	mov.u32 %r2, 7;
	{
	.reg .pred cake_e;
	elect.sync _|cake_e, 0xffffffff;
	selp.u32 %r3, 1, 0, cake_e;
	}
	setp.eq.s32 %p1, %r3, 0;
	@%p1 bra $L_done;
	cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd2, {%r2, 64}], [%r1+8];
$L_done:
	ret;""", tid=32)
        self.assertEqual(t[-1][2], ("tensor", pe.PARAM_WINDOW + pe.PARAM_BASE + pe.PARAM_STRIDE,
                                    (7, 64)))
        lane5 = trace("""
	{
	.reg .pred cake_e;
	elect.sync _|cake_e, 0xffffffff;
	@cake_e bar.sync 0;
	}
	ret;""", tid=5)
        self.assertEqual(lane5, [("elect.sync", 0xFFFFFFFF)])

    def test_negative_immediates_are_32_bit_operands(self):
        a = trace("\tbar.warp.sync -1;\n\tret;")
        b = trace("\tbar.warp.sync 0xffffffff;\n\tret;")
        self.assertEqual(a, b)

    def test_loud_failures(self):
        cases = {
            "unknown instruction": "\tfoo.bar.b32 %r1, 1;\n\tret;",
            "opaque address": "\tmov.f32 %f1, 0f3F800000;\n\tmov.b32 %r1, %f1;\n"
                              "\tcvt.rzi.s32.f32 %r2, %f1;\n\tst.shared.b32 [%r2], %r1;\n\tret;",
            "opaque branch": "\tsetp.gt.f32 %p1, %f1, %f2;\n\t@%p1 bra $L;\n$L:\n\tret;",
            "unknown special register": "\tmov.u32 %r1, %clock;\n\tret;",
            "call": "\tcall foo;\n\tret;",
            "unknown symbol": "\tmov.u32 %r1, other_smem;\n\tret;",
            "runaway loop": "$L:\n\tbra $L;",
        }
        for what, body in cases.items():
            with self.subTest(what):
                with self.assertRaises(pe.EvalError):
                    k = pe.parse(HEAD + body + "\n}\n")
                    pe.Thread(k, 0, 0, 1, 128, max_steps=10000).run()

    def test_two_entries_refused(self):
        with self.assertRaises(pe.EvalError):
            pe.parse(HEAD + "\tret;\n}\n.visible .entry k2()\n{\n\tret;\n}\n")


if __name__ == "__main__":
    unittest.main()
