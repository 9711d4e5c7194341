#!/usr/bin/env python3
# compare.py - compares `retsnoop-report addr2line -i` output with
# `llvm-symbolizer --inlining` output for the same address list: per frame
# the function name, the path (ours must be a suffix of llvm's), the line,
# and per address the number of inline frames. Prints the agreement and
# up to --show N disagreements; exits 1 below --min-pct.
import sys, argparse, collections, os

def parse_ours(path):
    blocks, cur = [], []
    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        if line == '':
            blocks.append(cur); cur = []
            continue
        fn, _, loc = line.rpartition(' ')
        f, _, ln = loc.rpartition(':')
        cur.append((fn, f, ln))
    return blocks

def parse_llvm(path):
    blocks, cur, lines = [], [], []
    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        if line == '':
            for i in range(0, len(lines) - 1, 2):
                fn = lines[i]
                parts = lines[i + 1].rsplit(':', 2)
                f, ln = (parts[0], parts[1]) if len(parts) == 3 else (parts[0], parts[1] if len(parts) > 1 else '0')
                cur.append((fn, f, ln))
            blocks.append(cur); cur = []; lines = []
            continue
        lines.append(line)
    return blocks

def norm_fn(fn):
    return fn

def path_ok(ours, theirs):
    if ours == '??' or theirs == '??':
        return ours == theirs or (ours == '??' and theirs.startswith('??'))
    theirs = os.path.normpath(theirs)  # llvm keeps "./" and "x/../" as DWARF has them
    return theirs == ours or theirs.endswith('/' + ours)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('addrs'); ap.add_argument('ours'); ap.add_argument('llvm')
    ap.add_argument('--name', default='dwarf-compare')
    ap.add_argument('--min-pct', type=float, default=99.5)
    ap.add_argument('--show', type=int, default=10)
    a = ap.parse_args()
    addrs = [l.strip() for l in open(a.addrs) if l.strip()]
    ours, theirs = parse_ours(a.ours), parse_llvm(a.llvm)
    if len(ours) != len(addrs) or len(theirs) != len(addrs):
        print(f"{a.name}: block count mismatch: {len(addrs)} addrs, ours {len(ours)}, llvm {len(theirs)}")
        print(f"{a.name}: 0 passed, 1 failed")
        return 1
    good = bad = 0
    addr_bad = 0
    classes = collections.Counter()
    shown = 0
    for ad, o, t in zip(addrs, ours, theirs):
        ok_addr = True
        if len(o) != len(t):
            classes['frame-count'] += 1
            ok_addr = False
        for i in range(max(len(o), len(t))):
            if i >= len(o) or i >= len(t):
                bad += 1
                continue
            (of, op, ol), (tf, tp, tl) = o[i], t[i]
            why = []
            if norm_fn(of) != tf: why.append('func')
            if not path_ok(op, tp): why.append('path')
            if ol != tl: why.append('line')
            if why:
                bad += 1; ok_addr = False
                classes['+'.join(why)] += 1
            else:
                good += 1
        if not ok_addr:
            addr_bad += 1
            if shown < a.show:
                shown += 1
                print(f"  {ad}:\n    ours: {o}\n    llvm: {t}", file=sys.stderr)
    total = good + bad
    pct = 100.0 * good / total if total else 0.0
    print(f"{a.name}: {len(addrs)} addresses, {total} frames, {good} agree ({pct:.2f}%), "
          f"{addr_bad} addresses differ; classes: {dict(classes)}")
    ok = pct >= a.min_pct and total > 0
    print(f"{a.name}: {1 if ok else 0} passed, {0 if ok else 1} failed")
    return 0 if ok else 1

sys.exit(main())
