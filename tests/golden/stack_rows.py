#!/usr/bin/env python3
"""stack_rows.py - reads retsnoop-report's text stack view and checks the
frame-order rules (used by tests/golden/run_vmorder.sh and
tests/vm/scenarios.sh).

  stack_rows.py rows FILE        one line per session: KIND:NAME per row
                                 (K kernel-only, C traced and on the kernel
                                 stack, ! traced and absent, I inline,
                                 ~ BPF frame kept by stacks.unfiltered),
                                 names without offsets
  stack_rows.py rule FILE...     after a `!` row comes a `!` row, a C row or
                                 nothing, never a kernel-only row
  stack_rows.py same FILE...     the files (one recording per attach mode,
                                 same workload) list the functions they
                                 share in the same order, session by session
Exit status 0 when the check holds, 1 with the reason on stderr."""
import re
import sys


def sessions(path):
    sess, rows = [], None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if re.search(r" TID/PID \d+/\d+ ", line):
            rows = []
            sess.append(rows)
            continue
        if rows is None or not line.strip():
            if rows:
                rows = None
            continue
        m = re.match(r"^(.)(.) +(?:(\d+us|\.\.\.) +\[[^\]]*\] +)?([~ ]?[0-9a-f]{16} )?(\S+)", line)
        if not m:
            continue
        mark, dur, addr, sym = m.group(1), m.group(3), m.group(4), m.group(5)
        name = re.sub(r"\+(0x[0-9a-f]+|\d+)$", "", sym)
        kind = "!" if mark == "!" else ("I" if sym == "." else ("C" if dur else "K"))
        if mark == "~" or (addr and addr.startswith("~")):
            kind = "~"
        rows.append((kind, name))
    return sess


def rule(paths):
    for p in paths:
        for i, rows in enumerate(sessions(p)):
            kinds = [k for k, _ in rows if k != "I"]
            for a, b in zip(kinds, kinds[1:]):
                if a == "!" and b not in "!C":
                    sys.exit(f"{p}: session {i}: a {b} row follows a `!` row: {rows}")


def same(paths):
    modes = [sessions(p) for p in paths]
    n = {len(m) for m in modes}
    if len(n) != 1:
        sys.exit(f"session counts differ: {[len(m) for m in modes]}")
    for s in range(len(modes[0])):
        seqs = [[nm for k, nm in m[s] if k in "CK!"] for m in modes]
        for a in range(len(seqs)):
            for b in range(a + 1, len(seqs)):
                common = set(seqs[a]) & set(seqs[b])
                x = [nm for nm in seqs[a] if nm in common]
                y = [nm for nm in seqs[b] if nm in common]
                if len(common) < 4 or x != y:
                    sys.exit(f"session {s}: {paths[a]} and {paths[b]} differ:\n  {x}\n  {y}")


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("rows", "rule", "same"):
        sys.exit(__doc__)
    if sys.argv[1] == "rows":
        for rows in sessions(sys.argv[2]):
            print(" ".join(f"{k}:{n}" for k, n in rows))
    elif sys.argv[1] == "rule":
        rule(sys.argv[2:])
    else:
        same(sys.argv[2:])


main()
