#!/usr/bin/env python3
# rsr_stacks.py - real captured kernel stacks for the DWARF tests, from
# `retsnoop-report --format json` output of a recording:
#   rsr_stacks.py addrs JSON SLIDE TEXT_LO TEXT_HI
#       prints, for every captured kernel stack entry inside vmlinux text
#       (runtime [TEXT_LO, TEXT_HI), hex), its link-time address minus 1
#       (addr - SLIDE - 1: return addresses, as the stack view looks them up)
#   rsr_stacks.py check NAME JSON SLIDE TEXT_LO TEXT_HI LLVM_OUT
#       compares the report's own source line and inlined frames of those
#       entries with `llvm-symbolizer --inlining` output for the addresses
#       printed by `addrs`: every frame's file (suffix) and line, and the
#       inlined functions' names and order. Prints "NAME: N passed, N failed"
#       (one per stack entry) and the differences.
import json, os, sys

def entries(path, slide, lo, hi):
    out = []
    for line in open(path):
        line = line.strip()
        if not line:
            continue
        d = json.loads(line)
        for k in d.get('kstack') or []:
            a = int(k['addr'], 16)
            if k.get('module') is None and lo <= a < hi:
                out.append((a - slide - 1, k))
    return out

def llvm_blocks(path):
    blocks, cur = [], []
    for l in open(path).read().split('\n'):
        if l == '':
            if cur:
                blocks.append(cur)
            cur = []
            continue
        cur.append(l)
    res = []
    for b in blocks:
        fr = []
        for i in range(0, len(b) - 1, 2):
            p = b[i + 1].rsplit(':', 2)
            fr.append((b[i], os.path.normpath(p[0]), p[1] if len(p) > 1 else '0'))
        res.append(fr)
    return res

def same_file(ours, theirs):
    return theirs == ours or theirs.endswith('/' + ours)

def main():
    cmd = sys.argv[1]
    if cmd == 'addrs':
        path, slide, lo, hi = sys.argv[2], int(sys.argv[3], 0), int(sys.argv[4], 16), int(sys.argv[5], 16)
        for a, _ in entries(path, slide, lo, hi):
            print(hex(a))
        return 0
    name, path = sys.argv[2], sys.argv[3]
    slide, lo, hi = int(sys.argv[4], 0), int(sys.argv[5], 16), int(sys.argv[6], 16)
    ents = entries(path, slide, lo, hi)
    blocks = llvm_blocks(sys.argv[7])
    if len(blocks) != len(ents) or not ents:
        print(f"{name}: {len(ents)} stack entries but {len(blocks)} llvm-symbolizer answers")
        print(f"{name}: 0 passed, 1 failed")
        return 1
    good = bad = 0
    for (a, k), fr in zip(ents, blocks):
        # llvm: innermost first; the report: the real function's location,
        # then the inlined frames outermost first
        want_src = fr[-1]
        want_inl = list(reversed(fr[:-1]))
        src = k.get('source') or {}
        inl = k.get('inlines') or []
        ok = bool(src) and same_file(src.get('file', ''), want_src[1]) and str(src.get('line')) == want_src[2]
        ok = ok and len(inl) == len(want_inl)
        for g, (fn, f, ln) in zip(inl, want_inl):
            if g.get('func') != fn or not same_file(g.get('file', ''), f) or str(g.get('line')) != ln:
                ok = False
        if ok:
            good += 1
        else:
            bad += 1
            print(f"  {k['addr']} ({k.get('symbol')}+{k.get('offset')}): report {src} {inl}; llvm {fr}")
    print(f"{name}: {good} passed, {bad} failed")
    return 0 if not bad else 1

sys.exit(main())
