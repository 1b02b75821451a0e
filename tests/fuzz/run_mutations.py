#!/usr/bin/env python3
# How many verifier-accepted mutants of the corpus kernels does the CPU run catch? Every
# manifest case with `expect.run.correct = true` is mutated systematically, one edit per mutant,
# in the three classes of issue 14: wrong offsets (t.x <-> t.y, a tile index shifted by one
# block, an instance variable dropped), wrong loop bounds (a range one short or one long), and
# swapped operands (the two sources of an MMA, of a binary elementwise op, of a copy's
# subscripts). A mutant the verifier refuses (`cake check` exit 1) is not counted; an accepted
# one is "caught" when `cake run` exits 1 (a wrong result, a timing disagreement, a deadlock or
# an access the interpreter refuses). Survivors are listed so that each can be judged (some
# mutants are equivalent: an extra prologue stage the steady state reloads with the same data).
# Measured on the 8 corpus kernels (before commutative swaps were skipped): 190 mutants, 86
# accepted by the verifier, 79 caught; the 7 survivors were 6 swaps of add/max/mul sources and
# one extra prologue stage of the Ampere GEMM, all equivalent.
#
#   tests/fuzz/run_mutations.py [--cake build/bin/cake] [--limit N] [--survivors]
# SPDX-License-Identifier: GPL-3.0-or-later
import argparse, json, os, re, subprocess, sys, tempfile

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ap = argparse.ArgumentParser()
ap.add_argument('--cake', default=os.path.join(root, 'build', 'bin', 'cake'))
ap.add_argument('--limit', type=int, default=0, help='mutants per kernel (0: all)')
ap.add_argument('--survivors', action='store_true', help='print every surviving mutant')
args = ap.parse_args()
manifest = json.load(open(os.path.join(root, 'corpus', 'manifest.json')))


def mutants(lines):
    """(description, line index, new line) for every single-edit mutant of the op lines."""
    for i, line in enumerate(lines):
        s = line.strip()
        if not s or s.startswith('//') or s.split(' ')[0] in (
                'const', 'param', 'tensormap', 'grid', 'role', 'pipeline', 'smem', 'tmem', 'reg',
                'mbarrier', 'nbarrier', 'kernel', 'on', '}'):
            continue
        # wrong offsets
        for a, b in (('t.x', 't.y'), ('t.y', 't.x')):
            for m in re.finditer(re.escape(a), line):
                yield f'offset {a}->{b}', i, line[:m.start()] + b + line[m.end():]
        for m in re.finditer(r'\[([^\[\]]*?)\b(\w+) \* (\w+) \+:', line):
            yield 'offset +1 block', i, line[:m.start(2)] + f'({m.group(2)} + 1)' + line[m.end(2):]
        for m in re.finditer(r'\b(warp|wg|tid) \* ', line):
            yield f'offset drops {m.group(1)}', i, line[:m.start()] + '0 * ' + line[m.end():]
        # wrong loop bounds
        m = re.match(r'(\s*for \w+ in )(.+?)\.\.(.+?)( pipeline=\w+)? \{', line)
        if m and m.group(2) != 'tiles':
            yield 'bound -1', i, f'{m.group(1)}{m.group(2)}..{m.group(3)} - 1{m.group(4) or ""} {{'
            yield 'bound +1', i, f'{m.group(1)}{m.group(2)}..{m.group(3)} + 1{m.group(4) or ""} {{'
            yield 'start +1', i, f'{m.group(1)}{m.group(2)} + 1..{m.group(3)}{m.group(4) or ""} {{'
        # swapped operands
        m = re.match(r'(\s*)(mma\.sync|wgmma\.mma|tcgen05\.mma|ew\.binary) (\S+), (\S+(?:\[[^\]]*\])?), (\S+(?:\[[^\]]*\])?)(.*)$', line)
        # (commutative ew.binary functions are skipped: swapping their sources is equivalent)
        commutative = re.search(r'fn=(add|mul|max|min)\b', line)
        if m and m.group(4) != m.group(5) and not (m.group(2) == 'ew.binary' and commutative):
            yield f'swap {m.group(2)} sources', i, f'{m.group(1)}{m.group(2)} {m.group(3)}, {m.group(5)}, {m.group(4)}{m.group(6)}'
        m = re.search(r'\[([^,\[\]]+), ([^,\[\]]+)\]', line)
        if m and ('+:' in m.group(1) or '+:' in m.group(2)) and m.group(1) != m.group(2):
            yield 'swap subscripts', i, line[:m.start()] + f'[{m.group(2)}, {m.group(1)}]' + line[m.end():]


def run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, timeout=300).returncode
    except subprocess.TimeoutExpired:
        return 'timeout'


total = accepted = caught = 0
survivors = []
per_kernel = {}
with tempfile.TemporaryDirectory() as tmp:
    for case in manifest['cases']:
        run_expect = case['expect'].get('run')
        if not run_expect or not run_expect.get('correct'):
            continue
        path = os.path.join(root, 'corpus', case['path'])
        workload = os.path.join(root, 'corpus', case['workload'])
        lines = open(path).read().split('\n')
        k_total = k_acc = k_caught = 0
        for n, (what, i, new) in enumerate(mutants(lines)):
            if args.limit and n >= args.limit:
                break
            text = '\n'.join(lines[:i] + [new] + lines[i + 1:])
            mutant = os.path.join(tmp, os.path.basename(path))
            open(mutant, 'w').write(text)
            k_total += 1
            if run([args.cake, 'check', mutant]) != 0:
                continue
            k_acc += 1
            rc = run([args.cake, 'run', mutant, '--workload', workload])
            if rc == 1 or rc == 'timeout':
                k_caught += 1
            else:
                survivors.append(f'{case["id"]}:{i + 1}: {what}: {new.strip()}')
        per_kernel[case['id']] = (k_total, k_acc, k_caught)
        total += k_total
        accepted += k_acc
        caught += k_caught
        print(f'{case["id"]:28} {k_total:4} mutants, {k_acc:4} accepted by the verifier, '
              f'{k_caught:4} caught by the CPU run', flush=True)
print(f'total: {total} mutants, {accepted} accepted, {caught} caught '
      f'({100.0 * caught / max(1, accepted):.1f}% of the accepted)')
if args.survivors:
    for s in survivors:
        print('survivor', s)
