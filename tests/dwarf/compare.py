#!/usr/bin/env python3
# compare.py - compares `retsnoop-report addr2line -i` output with
# `llvm-symbolizer --inlining` output (or, with --ref-format eu, with
# `eu-addr2line -a -f -i`) for the same address list: per frame the function
# name, the path (ours must be a suffix of the reference's), the line, and
# per address the number of inline frames. --skip-ref-unknown leaves out
# addresses the reference cannot place (innermost line 0) and says how
# many. Prints the agreement and up to --show N disagreements; exits 1
# below --min-pct.
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

def parse_eu(path):
    # `eu-addr2line -a -f -i`: an "0xADDR" line opens each address, then
    # pairs of lines "func[ inlined at FILE:LINE:COL in FUNC]" and
    # "FILE:LINE[:COL]", innermost first
    blocks, cur, pend = [], None, []
    def flush():
        if cur is not None:
            for i in range(0, len(pend) - 1, 2):
                fn = pend[i].split(' inlined at ')[0]
                parts = pend[i + 1].rsplit(':', 2)
                if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
                    f, ln = parts[0], parts[1]
                else:
                    parts = pend[i + 1].rsplit(':', 1)
                    f, ln = parts[0], (parts[1] if len(parts) > 1 else '0')
                cur.append((fn, f, ln))
            blocks.append(cur)
    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        if line.startswith('0x'):
            flush()
            cur, pend = [], []
        else:
            pend.append(line)
    flush()
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
    ap.add_argument('--ref-format', choices=['llvm', 'eu'], default='llvm')
    ap.add_argument('--skip-ref-unknown', action='store_true')
    a = ap.parse_args()
    addrs = [l.strip() for l in open(a.addrs) if l.strip()]
    ours = parse_ours(a.ours)
    theirs = parse_eu(a.llvm) if a.ref_format == 'eu' else parse_llvm(a.llvm)
    if len(ours) != len(addrs) or len(theirs) != len(addrs):
        print(f"{a.name}: block count mismatch: {len(addrs)} addrs, ours {len(ours)}, reference {len(theirs)}")
        print(f"{a.name}: 0 passed, 1 failed")
        return 1
    good = bad = 0
    addr_bad = 0
    skipped = 0
    classes = collections.Counter()
    shown = 0
    for ad, o, t in zip(addrs, ours, theirs):
        if a.skip_ref_unknown and t and t[0][2] == '0':
            skipped += 1
            continue
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
          f"{addr_bad} addresses differ; classes: {dict(classes)}"
          + (f"; {skipped} addresses left out (reference has no line)" if a.skip_ref_unknown else ''))
    ok = pct >= a.min_pct and total > 0
    print(f"{a.name}: {1 if ok else 0} passed, {0 if ok else 1} failed")
    return 0 if ok else 1

sys.exit(main())
