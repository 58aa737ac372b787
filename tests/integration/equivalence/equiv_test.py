#!/usr/bin/env python3
"""equiv_test.py - behaviour equivalence (`renacer diff`, assertions/equivalence.h).

tests/targets/eq_orig.c and its rewrite eq_rewrite.c do the same I/O with other buffering
and thread order: equivalent. eq_orig with one more behaviour (exec git, connect to
127.0.0.1:9, write one more file) is not, and that difference is named first. Each run works
in its own temporary folder, as CI runs would.

Usage: equiv_test.py --renacer PATH --targets DIR
"""
import argparse
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


def record(R, T, work, prog, extra, fmt):
    d = tempfile.mkdtemp(prefix="rn-eqrun-")
    out = os.path.join(work, "%s-%s.%s" % (prog, extra or "plain", fmt))
    args = [R, "trace", "-f", "--format", fmt, "-o", out, "--", os.path.join(T, prog), d]
    if extra:
        args.append(extra)
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=120)
    shutil.rmtree(d, ignore_errors=True)
    check(r.returncode == 0, "%s %s runs: %s" % (prog, extra, r.stderr))
    return out


def diff(R, a, b, *opts):
    r = subprocess.run([R, "diff"] + list(opts) + [a, b], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=60)
    return r.returncode, r.stdout + r.stderr


def first(out):
    m = re.search(r"first: (.*)", out)
    return m.group(1) if m else ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--renacer", required=True)
    ap.add_argument("--targets", required=True)
    a = ap.parse_args()
    R, T = os.path.abspath(a.renacer), os.path.abspath(a.targets)
    r = subprocess.run([R, "trace", "--", "true"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode != 0 and "ptrace" in r.stderr:
        print("no ptrace permission: " + r.stderr)
        return 77
    work = tempfile.mkdtemp(prefix="rn-eq-")
    try:
        orig = record(R, T, work, "eq_orig", None, "jsonl")
        orig2 = record(R, T, work, "eq_orig", None, "jsonl")
        rew = record(R, T, work, "eq_rewrite", None, "jsonl")
        rew_json = record(R, T, work, "eq_rewrite", None, "json")

        rc, out = diff(R, orig, orig2)
        check(rc == 0 and out.count("equivalent: all") == 1, "orig vs orig: equivalent\n" + out)
        rc, out = diff(R, orig, rew)
        check(rc == 0 and "equivalent: all" in out, "orig vs rewrite: equivalent\n" + out)
        rc, out = diff(R, rew_json, orig)
        check(rc == 0, "rewrite (json) vs orig (jsonl): equivalent\n" + out)

        git = record(R, T, work, "eq_orig", "git", "jsonl")
        rc, out = diff(R, rew, git)
        check(rc == 1 and first(out).startswith("process root/git: only in B"),
              "exec git: not equivalent, the new process first\n" + out)
        check(re.search(r"exec +root/git: only in B: git --version", out) is not None,
              "exec git: its argv is named\n" + out)

        conn = record(R, T, work, "eq_orig", "connect", "jsonl")
        rc, out = diff(R, rew, conn)
        check(rc == 1 and first(out) == "connect root: only in B: inet 127.0.0.1:9",
              "connect: not equivalent, the endpoint first\n" + out)

        extra = record(R, T, work, "eq_orig", "extra", "jsonl")
        rc, out = diff(R, rew, extra)
        check(rc == 1 and re.fullmatch(r"write root: only in B: \S*/out/extra\.txt", first(out))
              is not None, "one more file: not equivalent, the file first\n" + out)
        rc, out = diff(R, extra, rew)
        check(rc == 1 and "only in A" in first(out), "the other way round: only in A\n" + out)
        # an ignored path is not a difference
        rc, out = diff(R, rew, extra, "--ignore", "*/extra.txt")
        check(rc == 0, "--ignore drops the extra file's facts\n" + out)
        # an input that is not a renacer trace: exit 3 (documented), never "not equivalent"
        bad = os.path.join(work, "bad.jsonl")
        with open(bad, "w") as f:
            f.write("garbage\n")
        rc, out = diff(R, orig, bad)
        check(rc == 3 and "not a renacer-trace JSON object" in out, "bad input: exit 3\n" + out)
        rc, out = diff(R, orig, os.path.join(work, "missing.jsonl"))
        check(rc == 3, "missing input: exit 3\n" + out)
        # without normalisation the per-run folders differ
        rc, out = diff(R, orig, rew, "--no-normalize")
        check(rc == 1, "--no-normalize: the run folders differ\n" + out)

        # renacer check: an equivalence assertion against a recorded trace, and the
        # [semantic_equivalence] baseline_dir of the original renacer
        base = os.path.join(work, "base")
        os.makedirs(base)
        shutil.copy(orig, os.path.join(base, "withgit.jsonl"))
        shutil.copy(orig, os.path.join(base, "rewrite.jsonl"))
        d1, d2 = tempfile.mkdtemp(prefix="rn-eqchk-"), tempfile.mkdtemp(prefix="rn-eqchk-")
        toml = os.path.join(work, "renacer.toml")
        with open(toml, "w") as f:
            f.write('[[target]]\nname = "rewrite"\ncommand = ["%s", "%s"]\n\n'
                    '[[target]]\nname = "withgit"\ncommand = ["%s", "%s", "git"]\n\n'
                    '[[assertion]]\nname = "like_golden"\ntype = "equivalence"\n'
                    'golden = "%s"\n\n'
                    '[semantic_equivalence]\nenabled = true\nmin_confidence = 1.0\n'
                    % (os.path.join(T, "eq_rewrite"), d1, os.path.join(T, "eq_orig"), d2,
                       os.path.basename(orig)))
        r = subprocess.run([R, "check", "--config", toml], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=300)
        out = r.stdout + r.stderr
        check(r.returncode == 1, "check: exits 1 (withgit differs)\n" + out)
        check(re.search(r"rewrite\s+like_golden\s+PASS", out) is not None,
              "check: the rewrite passes\n" + out)
        check(re.search(r"withgit\s+like_golden\s+FAIL", out) is not None and
              "first: process root/git: only in B" in out, "check: withgit fails, git named\n" + out)
        check(re.search(r"exec +root/git: only in B: git --version", out) is not None,
              "check: the run's behaviour carries execve argv\n" + out)
        with open(toml, "a") as f:
            f.write('baseline_dir = "base"\n')
        shutil.rmtree(d1)
        shutil.rmtree(d2)
        os.makedirs(d1)
        os.makedirs(d2)
        r = subprocess.run([R, "check", "--config", toml], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=300)
        out = r.stdout + r.stderr
        check(re.search(r"rewrite\s+like_golden\s+PASS", out) is not None,
              "check with baseline_dir: explicit golden still used\n" + out)
        with open(toml, "w") as f:
            f.write('[[target]]\nname = "rewrite"\ncommand = ["%s", "%s"]\n\n'
                    '[semantic_equivalence]\nbaseline_dir = "base"\nmin_confidence = 0.9\n'
                    % (os.path.join(T, "eq_rewrite"), d1))
        shutil.rmtree(d1)
        os.makedirs(d1)
        r = subprocess.run([R, "check", "--config", toml], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=300)
        out = r.stdout + r.stderr
        check(r.returncode == 0 and
              re.search(r"rewrite\s+semantic_equivalence\s+PASS", out) is not None,
              "check: baseline_dir alone compares each target with base/<target>.jsonl\n" + out)
        shutil.rmtree(d1, ignore_errors=True)
        shutil.rmtree(d2, ignore_errors=True)

        bad = os.path.join(work, "bad.jsonl")
        with open(bad, "w") as f:
            f.write("{\"type\":\"header\",\"schema\":\"renacer-trace\"}\nnot json\n")
        rc, out = diff(R, bad, orig)
        check(rc == 3 and "bad.jsonl:2:" in out, "a broken trace is a located error\n" + out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if FAILS:
        print("%d failure(s)" % len(FAILS))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
