#!/usr/bin/env python3
"""check_report_json.py - machine checks of retsnoop-report's JSON outputs.

  check_report_json.py schema SCHEMA.json NDJSON_FILE
      validates every line of an NDJSON file against a JSON Schema (the
      subset docs/report.schema.json uses: type incl. type lists, required,
      properties, additionalProperties=false, items, enum, minimum, pattern,
      oneOf, $ref to #/definitions/NAME).
  check_report_json.py perfetto TRACE.json
      checks a Chrome trace-event file: traceEvents array, required fields
      per phase, one thread_name per track, X slices properly nested on each
      track (balanced), B/E pairs balanced, timestamps monotonic per track,
      call slices with args.result/args.error, session slices with an
      args.stack list, failing slices (args.error) and only they marked red.
Exit 0 when valid, 1 with one line per problem otherwise."""
import json
import re
import sys

TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def type_ok(v, t):
    if t == "integer":
        return isinstance(v, int) and not isinstance(v, bool)
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    return isinstance(v, TYPES[t])


def validate(v, s, root, path, errs):
    if "$ref" in s:
        s = root["definitions"][s["$ref"].split("/")[-1]]
    if "oneOf" in s:
        ok = 0
        for b in s["oneOf"]:
            sub = []
            validate(v, b, root, path, sub)
            ok += not sub
        if ok != 1:
            errs.append(f"{path}: matches {ok} of the oneOf branches")
            return
    if "type" in s:
        ts = s["type"] if isinstance(s["type"], list) else [s["type"]]
        if not any(type_ok(v, t) for t in ts):
            errs.append(f"{path}: {json.dumps(v)[:60]} is not {ts}")
            return
    if "enum" in s and v not in s["enum"]:
        errs.append(f"{path}: {v!r} not in {s['enum']}")
    if "minimum" in s and isinstance(v, (int, float)) and v < s["minimum"]:
        errs.append(f"{path}: {v} < {s['minimum']}")
    if "pattern" in s and isinstance(v, str) and not re.search(s["pattern"], v):
        errs.append(f"{path}: {v!r} does not match {s['pattern']}")
    if isinstance(v, dict):
        for k in s.get("required", []):
            if k not in v:
                errs.append(f"{path}: missing required field '{k}'")
        props = s.get("properties", {})
        for k, x in v.items():
            if k in props:
                validate(x, props[k], root, f"{path}.{k}", errs)
            elif s.get("additionalProperties") is False:
                errs.append(f"{path}: undocumented field '{k}'")
    if isinstance(v, list) and "items" in s:
        for i, x in enumerate(v):
            validate(x, s["items"], root, f"{path}[{i}]", errs)


def check_schema(schema_path, data_path):
    root = json.load(open(schema_path))
    errs = []
    n = 0
    for ln, line in enumerate(open(data_path), 1):
        if not line.strip():
            continue
        n += 1
        try:
            obj = json.loads(line)
        except ValueError as e:
            errs.append(f"line {ln}: not JSON: {e}")
            continue
        validate(obj, root, root, f"line {ln}", errs)
    if n == 0:
        errs.append("no JSON object at all")
    return errs


def check_perfetto(path):
    errs = []
    try:
        doc = json.load(open(path))
    except ValueError as e:
        return [f"not JSON: {e}"]
    ev = doc.get("traceEvents") if isinstance(doc, dict) else None
    if not isinstance(ev, list):
        return ["no traceEvents array"]
    names = set()
    tracks = {}
    for i, e in enumerate(ev):
        ph = e.get("ph")
        for k in ("ph", "pid", "tid", "name"):
            if k not in e:
                errs.append(f"event {i}: missing '{k}'")
        if ph == "M":
            if e.get("name") == "thread_name":
                key = (e.get("pid"), e.get("tid"))
                if key in names:
                    errs.append(f"event {i}: second thread_name for {key}")
                names.add(key)
            continue
        if ph not in ("X", "B", "E", "i"):
            errs.append(f"event {i}: unexpected phase {ph!r}")
            continue
        if not isinstance(e.get("ts"), (int, float)):
            errs.append(f"event {i}: ts missing or not a number")
            continue
        if ph == "X" and not (isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0):
            errs.append(f"event {i}: X without a valid dur")
            continue
        tracks.setdefault((e["pid"], e["tid"]), []).append((i, e))
    for key, evs in tracks.items():
        if key not in names:
            errs.append(f"track {key}: no thread_name metadata")
        last = None
        stack = []   # open intervals: end timestamps (X) or names (B)
        for i, e in evs:
            ts = e["ts"]
            if last is not None and ts < last:
                errs.append(f"track {key}: event {i} ts {ts} goes back from {last}")
            last = ts
            if e["ph"] == "i":   # an instant: inside whatever is open
                continue
            if e["ph"] == "E":
                if not stack or stack[-1][0] != "B":
                    errs.append(f"track {key}: event {i}: E without B")
                else:
                    stack.pop()
                continue
            while stack and stack[-1][0] == "X" and stack[-1][1] <= ts + 1e-9:
                stack.pop()
            if e["ph"] == "X":
                end = ts + e["dur"]
                if stack and stack[-1][0] == "X" and end > stack[-1][1] + 1e-6:
                    errs.append(f"track {key}: event {i} ({e['name']}) overlaps its parent")
                stack.append(("X", end))
            else:
                stack.append(("B", e["name"]))
        if any(s[0] == "B" for s in stack):
            errs.append(f"track {key}: B without E")
    for i, e in enumerate(ev):
        if e.get("ph") != "X":
            continue
        a = e.get("args", {})
        if e.get("cat") == "call" and ("result" not in a or "error" not in a):
            errs.append(f"event {i}: call slice without args.result/args.error")
        if e.get("cat") == "session" and not isinstance(a.get("stack"), list):
            errs.append(f"event {i}: session slice without an args.stack list")
        if a.get("error") is True and e.get("cname") != "terrible":
            errs.append(f"event {i}: failing slice not marked (cname)")
        if a.get("error") is False and "cname" in e:
            errs.append(f"event {i}: successful slice marked as failing")
    return errs


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "schema":
        errs = check_schema(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "perfetto":
        errs = check_perfetto(sys.argv[2])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for e in errs[:20]:
        print(e)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
