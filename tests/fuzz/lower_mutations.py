#!/usr/bin/env python3
# Mutation fuzzing of lowering: random edits of the positive corpus kernels (numbers changed,
# lines dropped, duplicated or shortened) through `cake lower --emit ptx|cuda|metadata`; any exit
# status other than 0/1/2 (a crash) or a hang is kept as crash-N-EMIT.cake. With --ptxas, every
# mutant that lowers is also assembled (`--emit cubin`): a ptxas rejection (hw-toolchain-error)
# means lowering emitted invalid PTX for a kernel the verifier accepted; kept as rejected-N.cake.
#
#   tests/fuzz/lower_mutations.py [--cake build/bin/cake] [--seconds 300] [--seed 1] [--ptxas] [--out DIR]
# SPDX-License-Identifier: GPL-3.0-or-later
import argparse, glob, os, random, re, subprocess, sys, tempfile, time

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ap = argparse.ArgumentParser()
ap.add_argument('--cake', default=os.path.join(root, 'build', 'bin', 'cake'))
ap.add_argument('--seconds', type=float, default=300)
ap.add_argument('--seed', type=int, default=1)
ap.add_argument('--ptxas', action='store_true')
ap.add_argument('--out', default=tempfile.mkdtemp(prefix='cake-lower-fuzz-'))
args = ap.parse_args()
random.seed(args.seed)
kernels = sorted(f for f in glob.glob(os.path.join(root, 'corpus', '*', '*.cake')) if '/negative/' not in f)
values = ['0', '1', '2', '3', '4', '8', '16', '32', '64', '96', '128', '256', '1024']


def mutate(lines):
    lines = list(lines)
    for _ in range(random.randint(1, 3)):
        i = random.randrange(len(lines))
        line, r = lines[i], random.random()
        if r < 0.5:
            nums = list(re.finditer(r'\b\d+\b', line))
            if nums:
                m = random.choice(nums)
                v = random.choice(values + [str(int(m.group()) * 2), str(max(1, int(m.group()) // 2))])
                line = line[:m.start()] + v + line[m.end():]
        elif r < 0.7:
            line = ''
        elif r < 0.85:
            line = random.choice(lines)
        else:
            words = line.split(' ')
            if len(words) > 2:
                del words[random.randrange(1, len(words))]
                line = ' '.join(words)
        lines[i] = line
    return lines


def run(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=120)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return 'timeout', b''


os.makedirs(args.out, exist_ok=True)
kernel, out = os.path.join(args.out, 'k.cake'), os.path.join(args.out, 'out')
deadline = time.time() + args.seconds
runs = lowered = crashes = rejected = 0
while time.time() < deadline:
    text = '\n'.join(mutate(open(random.choice(kernels)).read().split('\n')))
    with open(kernel, 'w') as f:
        f.write(text)
    for emit in ['ptx', 'cuda', 'metadata']:
        rc, log = run([args.cake, 'lower', kernel, '--emit', emit, '-o', out])
        runs += 1
        if rc not in (0, 1, 2):
            crashes += 1
            keep = os.path.join(args.out, f'crash-{crashes}-{emit}.cake')
            open(keep, 'w').write(text)
            print(f'CRASH ({rc}) {emit}: {keep}', flush=True)
        elif emit == 'ptx' and rc == 0:
            lowered += 1
            if args.ptxas:
                rc, log = run([args.cake, 'lower', kernel, '--emit', 'cubin', '-o', out + '.cubin'])
                if b'hw-toolchain-error' in log:
                    rejected += 1
                    keep = os.path.join(args.out, f'rejected-{rejected}.cake')
                    open(keep, 'w').write(text)
                    print(f'PTXAS REJECTED: {keep}\n{log[:400].decode(errors="replace")}', flush=True)
print(f'{runs} runs, {lowered} mutants lowered to PTX, {crashes} crashes/hangs, {rejected} ptxas rejections '
      f'(kept in {args.out})')
sys.exit(1 if crashes or rejected else 0)
