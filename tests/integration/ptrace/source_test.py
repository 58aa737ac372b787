#!/usr/bin/env python3
"""source_test.py - `renacer trace --source`: file:line and function of each call from DWARF.

tests/targets/src_lines.c is built with -g -O1; its calls sit on lines marked @read,
@write_inlined (inlined into report() at @call_inlined). Checked: the text lines after the
calls, the JSON "source" member, a copy stripped of everything whose debug information lives
in a separate file of the build-id layout (objcopy --only-keep-debug) under --debug-dir, and
that the same stripped copy without --debug-dir has no file:line (so the file was used).
Exits 77 without objcopy/strip or ptrace permission.

Usage: source_test.py --renacer PATH --targets DIR --source-dir DIR
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL " + what)
    return cond


def run(args, **kw):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120,
                          text=True, **kw)


def marker_lines(src):
    lines = {}
    with open(src) as f:
        for i, text in enumerate(f, 1):
            for m in re.finditer(r"@(\w+)", text):
                lines[m.group(1)] = i
    return lines


def frames_after(text, call_re):
    """The ' > ' lines after each per-call line matching call_re, one list per call."""
    out, cur = [], None
    for line in text.splitlines():
        if line.startswith(" > "):
            if cur is not None:
                cur.append(line[3:])
            continue
        cur = None
        if re.match(call_re, line):
            cur = []
            out.append(cur)
    return out


def check_text(text, L, what):
    # open() keeps a stack frame in glibc: its caller comes from libc's CFI
    opens = frames_after(text, r'^openat\(AT_FDCWD, "/etc/hostname"')
    check(len(opens) == 1 and opens[0] and re.fullmatch(
        r"load_hosts \(\S*src_lines\.c:%d\)" % L["open"], opens[0][0]),
        "%s: open attributed to load_hosts at line %d: %r" % (what, L["open"], opens))
    opens = frames_after(text, r'^openat\(AT_FDCWD, "/dev/zero"')
    check(len(opens) == 1 and opens[0] and re.fullmatch(
        r"main \(\S*src_lines\.c:%d\)" % L["fopen"], opens[0][0]),
        "%s: fopen's open attributed to main at line %d: %r" % (what, L["fopen"], opens))
    # stdio's first read of the stream: the fstat is made some nine frames of libc deep
    # (fgets -> _IO_getline -> ... -> _IO_file_doallocate -> fstat): the CFI walk reaches main
    after = text.split('openat(AT_FDCWD, "/dev/zero"', 1)[-1]
    stats = frames_after(after, r'^newfstatat\(\d+, ""')
    check(len(stats) >= 1 and stats[0] and re.fullmatch(
        r"main \(\S*src_lines\.c:%d\)" % L["fgets"], stats[0][0]),
        "%s: fgets's fstat attributed to main at line %d: %r" % (what, L["fgets"], stats[:1]))
    zreads = frames_after(after, r"^read\(\d+, 0x[0-9a-f]+, 4096\)")
    check(len(zreads) >= 1 and zreads[0] and re.fullmatch(
        r"main \(\S*src_lines\.c:%d\)" % L["fgets"], zreads[0][0]),
        "%s: fgets's read attributed to main at line %d: %r" % (what, L["fgets"], zreads[:1]))
    opens = frames_after(text, r'^openat\(AT_FDCWD, "/dev/null"')
    check(len(opens) == 1 and opens[0] and re.fullmatch(
        r"main \(\S*src_lines\.c:%d\)" % L["open_main"], opens[0][0]),
        "%s: open attributed to main at line %d: %r" % (what, L["open_main"], opens))
    reads = frames_after(text, r"^read\(\d+, 0x[0-9a-f]+, 256\)")
    check(len(reads) == 2, "%s: two read calls, got %d" % (what, len(reads)))
    for fr in reads:
        check(fr and re.fullmatch(r"load_hosts \(\S*src_lines\.c:%d\)" % L["read"], fr[0]),
              "%s: read attributed to load_hosts at line %d: %r" % (what, L["read"], fr))
    writes = frames_after(text, r"^write\(")
    check(len(writes) == 3, "%s: three write calls, got %d" % (what, len(writes)))
    for fr in writes:
        check(len(fr) >= 2 and re.fullmatch(
            r"put_marker \(\S*src_lines\.c:%d\) \[inlined\]" % L["write_inlined"], fr[0]) and
            re.fullmatch(r"report \(\S*src_lines\.c:%d\)" % L["call_inlined"], fr[1]),
            "%s: write in put_marker inlined into report: %r" % (what, fr))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--renacer", required=True)
    ap.add_argument("--targets", required=True)
    ap.add_argument("--source-dir", required=True)
    a = ap.parse_args()
    R = os.path.abspath(a.renacer)
    target = os.path.join(os.path.abspath(a.targets), "src_lines")
    L = marker_lines(os.path.join(a.source_dir, "tests", "targets", "src_lines.c"))
    for tool in ("objcopy", "strip", "readelf"):
        if not shutil.which(tool):
            print("%s not found" % tool)
            return 77
    work = tempfile.mkdtemp(prefix="rn-src-")
    try:
        r = run([R, "trace", "--", "true"])
        if r.returncode != 0 and "ptrace" in r.stderr:
            print("no ptrace permission: " + r.stderr)
            return 77

        # -g -O1 build
        r = run([R, "trace", "--source", "-o", os.path.join(work, "t.txt"), "--", target, "3"])
        check(r.returncode == 0, "trace --source exits 0: %s" % r.stderr)
        text = open(os.path.join(work, "t.txt")).read()
        check_text(text, L, "-g -O1")

        # without --source: no frames
        r = run([R, "trace", "-o", os.path.join(work, "p.txt"), "--", target, "3"])
        check(" > " not in open(os.path.join(work, "p.txt")).read(),
              "no source lines without --source")

        # JSON
        r = run([R, "trace", "--source", "--format", "json", "-o", os.path.join(work, "t.json"),
                 "--", target, "1"])
        doc = json.load(open(os.path.join(work, "t.json")))
        reads = [s for s in doc["syscalls"] if s["name"] == "read" and int(s["args"][2], 16) == 256]
        check(len(reads) == 2, "json: two reads")
        for s in reads:
            fr = (s.get("source") or {}).get("frames") or [{}]
            check(fr[0].get("function") == "load_hosts" and fr[0].get("line") == L["read"] and
                  fr[0].get("file", "").endswith("src_lines.c") and fr[0].get("inlined") is False,
                  "json: read source is load_hosts:%d: %r" % (L["read"], s.get("source")))
        writes = [s for s in doc["syscalls"] if s["name"] == "write"]
        fr = (writes[0].get("source") or {}).get("frames") if writes else None
        check(bool(fr) and len(fr) >= 2 and fr[0]["inlined"] and fr[0]["line"] == L["write_inlined"]
              and fr[1]["function"] == "report" and fr[1]["line"] == L["call_inlined"],
              "json: inlined write frames: %r" % fr)

        # JSONL: the source member on the line of each call
        r = run([R, "trace", "--source", "--format", "jsonl", "-o", os.path.join(work, "t.jsonl"),
                 "--", target, "1"])
        lines = [json.loads(x) for x in open(os.path.join(work, "t.jsonl"))]
        reads = [x for x in lines if x.get("type") == "syscall" and x["name"] == "read" and
                 int(x["args"][2], 16) == 256]
        check(len(reads) == 2 and all((x.get("source") or {}).get("frames", [{}])[0].get("line")
                                      == L["read"] for x in reads),
              "jsonl: read lines carry source: %r" % [x.get("source") for x in reads])

        # OTLP (renacer check with every syscall span exported): code.* attributes
        cdir = os.path.join(work, "check")
        os.makedirs(cdir)
        with open(os.path.join(cdir, "renacer.toml"), "w") as f:
            f.write('[[target]]\nname = "src"\ncommand = ["%s", "1"]\n\n[report]\n'
                    'otlp_file = "spans.jsonl"\n\n[otlp]\nsyscall_spans = "all"\n' % target)
        r = run([R, "check", "--config", os.path.join(cdir, "renacer.toml")])
        check(r.returncode == 0, "check with OTLP spans exits 0: %s" % r.stderr)
        code = {}
        with open(os.path.join(cdir, "spans.jsonl")) as f:
            for line in f:
                for rs in json.loads(line).get("resourceSpans", []):
                    for ss in rs.get("scopeSpans", []):
                        for sp in ss.get("spans", []):
                            attrs = {a["key"]: list(a["value"].values())[0]
                                     for a in sp.get("attributes", [])}
                            if "code.lineno" in attrs:
                                code.setdefault(sp["name"], []).append(attrs)
        check(any(a.get("code.function") == "load_hosts" and
                  int(a["code.lineno"]) == L["read"] and
                  a["code.filepath"].endswith("src_lines.c") for a in code.get("read", [])),
              "otlp: a read span carries code.function/filepath/lineno: %r" % code.get("read"))

        # stripped, with a separate debug file in the build-id layout
        stripped = os.path.join(work, "src_lines_stripped")
        dbg = os.path.join(work, "src_lines.debug")
        subprocess.check_call(["objcopy", "--only-keep-debug", target, dbg])
        shutil.copy(target, stripped)
        subprocess.check_call(["strip", "--strip-all", stripped])
        notes = run(["readelf", "-n", stripped]).stdout
        m = re.search(r"Build ID: ([0-9a-f]+)", notes)
        if not check(m is not None, "the target has a build-id"):
            return 1
        bid = m.group(1)
        ddir = os.path.join(work, "debug", ".build-id", bid[:2])
        os.makedirs(ddir)
        os.rename(dbg, os.path.join(ddir, bid[2:] + ".debug"))
        out = os.path.join(work, "s.txt")
        r = run([R, "trace", "--source", "--debug-dir", os.path.join(work, "debug"), "-o", out,
                 "--", stripped, "3"])
        check(r.returncode == 0, "stripped: exits 0: %s" % r.stderr)
        check_text(open(out).read(), L, "stripped + build-id debug file")
        r = run([R, "trace", "--source", "-o", out, "--", stripped, "3"])
        check("src_lines.c" not in open(out).read(),
              "stripped without --debug-dir: no file:line (the debug file was what was read)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if FAILS:
        print("%d failure(s)" % len(FAILS))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
