#!/usr/bin/env python3
"""image_memory.py - memory metrics follow the process image that owns them.

An exec starts a new image (the old mappings and program break are gone), a process's peak is
the largest of its images', threads share their process's image and a fork child starts with a
copy of its parent's. Checked on real programs reached through exec'ing wrappers
(`sh -c 'exec gzip ...'`, `env`, a shim script that execs python3) against the same programs
run directly, and on tests/targets/pt_imagemem with known sizes, in the full-trace and the
count-only (seccomp) modes.

Usage: image_memory.py --renacer PATH --targets DIR
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

MIB = 1 << 20
FAILS = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILS.append(what)
    return cond


def trace(R, work, mode, argv):
    out = os.path.join(work, "t.json")
    args = [R, "trace", "-f", "--format", "json", "-o", out]
    if mode == "count-only":
        args.append("--count-only")
    r = subprocess.run(args + ["--"] + argv, cwd=work, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, timeout=300)
    if r.returncode != 0:
        check(False, "%s %s exits 0 (%d: %s)" % (mode, argv, r.returncode, r.stderr[-300:]))
        return None
    with open(out) as f:
        return json.load(f)


def ratio(a, b):
    return max(a, b) / max(1, min(a, b))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--renacer", required=True)
    ap.add_argument("--targets", required=True)
    a = ap.parse_args()
    R, T = os.path.abspath(a.renacer), os.path.abspath(a.targets)
    py = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else shutil.which("python3")
    work = tempfile.mkdtemp(prefix="rn-imgmem-")
    try:
        ptrace_ok = subprocess.run([R, "trace", "-c", "--", "true"], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL).returncode
        if ptrace_ok == 5:
            print("skip: no ptrace permission")
            return 77
        with open(os.path.join(work, "data.bin"), "wb") as f:
            f.write(os.urandom(2 * MIB))
        shim = os.path.join(work, "python3-shim")
        with open(shim, "w") as f:
            f.write('#!/bin/sh\n# a version-manager shim: exec the interpreter\n'
                    'exec %s "$@"\n' % py)
        os.chmod(shim, 0o755)
        img = os.path.join(T, "pt_imagemem")
        for mode in ("full", "count-only"):
            # gzip through `sh -c 'exec ...'` against gzip alone: the wrapper's program break
            # must not leak into gzip's image (it gave alloc_peak of hundreds of GB)
            direct = trace(R, work, mode, ["gzip", "-c", "data.bin"])
            wrapped = trace(R, work, mode, ["sh", "-c", "exec gzip -c data.bin"])
            if direct and wrapped:
                d, w = direct["alloc_peak_bytes"], wrapped["alloc_peak_bytes"]
                check(d > 0 and ratio(d, w) <= 2.0,
                      "%s: alloc_peak of sh -c 'exec gzip' %d within 2x of gzip's own %d"
                      % (mode, w, d))
                d, w = direct["peak_rss_bytes"], wrapped["peak_rss_bytes"]
                check(d > 0 and ratio(d, w) <= 2.0,
                      "%s: peak_rss of sh -c 'exec gzip' %d within 2x of gzip's own %d"
                      % (mode, w, d))
            direct = trace(R, work, mode, ["true"])
            wrapped = trace(R, work, mode, ["env", "LC_ALL=C", "true"])
            if direct and wrapped:
                d, w = direct["alloc_peak_bytes"], wrapped["alloc_peak_bytes"]
                check(w < 16 * MIB and ratio(d, w) <= 4.0,
                      "%s: alloc_peak of env LC_ALL=C true %d is near true's own %d"
                      % (mode, w, d))
            code = "x = bytearray(24 << 20); print(len(x))"
            direct = trace(R, work, mode, [py, "-c", code])
            wrapped = trace(R, work, mode, [shim, "-c", code])
            if direct and wrapped:
                d, w = direct["alloc_peak_bytes"], wrapped["alloc_peak_bytes"]
                check(d >= 24 * MIB and ratio(d, w) <= 2.0,
                      "%s: alloc_peak of python3 through a shim %d within 2x of its own %d"
                      % (mode, w, d))
            # threads share one image: both threads' mappings are in the one process
            t = trace(R, work, mode, [img, "thread"])
            if t:
                # (plus the thread's stack, whose size is the stack limit's)
                check(len(t["processes"]) == 1 and t["processes"][0]["alloc_peak_bytes"]
                      >= 16 * MIB and t["alloc_peak_bytes"] >= 16 * MIB,
                      "%s: threads share an image: its alloc_peak %d >= 16 MiB"
                      % (mode, t["alloc_peak_bytes"]))
            # fork: the child starts with a copy (its own peak holds the 8 MiB), which the
            # tree does not count twice; its own 2 MiB are counted
            t = trace(R, work, mode, [img, "fork"])
            if t and check(len(t["processes"]) == 2, "%s: fork makes 2 processes" % mode):
                child = t["processes"][1]
                check(child["alloc_peak_bytes"] >= 8 * MIB,
                      "%s: the fork child's image is a copy: its alloc_peak %d >= 8 MiB"
                      % (mode, child["alloc_peak_bytes"]))
                check(10 * MIB <= t["alloc_peak_bytes"] < 14 * MIB,
                      "%s: tree alloc_peak %d in [10, 14) MiB (the copy is not counted twice)"
                      % (mode, t["alloc_peak_bytes"]))
            # exec: the process's peak is the larger image's (32 MiB of break), and the small
            # image's accounting starts from zero, not from the old break
            t = trace(R, work, mode, [img, "exec"])
            if t:
                p = t["processes"][0]
                check(32 * MIB <= p["alloc_peak_bytes"] < 40 * MIB,
                      "%s: exec: the process's alloc_peak %d is its largest image's (32 MiB)"
                      % (mode, p["alloc_peak_bytes"]))
                check(32 * MIB <= t["alloc_peak_bytes"] < 40 * MIB,
                      "%s: exec: the tree's alloc_peak %d in [32, 40) MiB"
                      % (mode, t["alloc_peak_bytes"]))
                check(p["vm_hwm_bytes"] >= 32 * MIB,
                      "%s: exec: peak RSS %d includes the image before the exec (32 MiB touched)"
                      % (mode, p["vm_hwm_bytes"]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if FAILS:
        print("%d check(s) failed" % len(FAILS))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
