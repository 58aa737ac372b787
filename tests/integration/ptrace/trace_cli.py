#!/usr/bin/env python3
"""trace_cli.py - the strace-compatible face: `renacer trace` and `renacer -c -T -- CMD`.

Checks that trace output never reaches the target's stdout, exit statuses, exec failures,
-o, the JSON and JSONL schema, filtered mode against `strace -e trace=`, --timeout and
SIGINT (every traced process gone, none left in ptrace-stop).

Usage: trace_cli.py --renacer PATH --targets DIR
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL " + what)
    return cond


def run(args, **kw):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120,
                          **kw)


def gone(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            st = f.read()
    except OSError:
        return True
    return st[st.rindex(")") + 2] in "ZX"


def summary(text):
    rows = {}
    for line in text.splitlines():
        m = re.match(r"^\s*\d+\.\d+\s+\d+\.\d+\s+\d+\s+(\d+)\s+(?:(\d+)\s+)?(\S+)\s*$", line)
        if m and m.group(3) != "total":
            rows[m.group(3)] = (int(m.group(1)), int(m.group(2) or 0))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--renacer", required=True)
    ap.add_argument("--targets", required=True)
    a = ap.parse_args()
    R, T = a.renacer, a.targets
    work = tempfile.mkdtemp(prefix="rn-cli-")
    try:
        probe = run([R, "trace", "-c", "--", "true"])
        if probe.returncode != 0 and b"not permitted" in probe.stderr:
            print("SKIP: ptrace is not permitted here")
            return 77

        # trace lines go to stderr, the target's stdout is its own
        r = run([R, "trace", "--", "sh", "-c", "echo out; echo err >&2"])
        check(r.stdout == b"out\n", "stdout holds only the target's output: %r" % r.stdout)
        check(b"execve(\"/usr/bin/sh\"" in r.stderr or b"execve(\"/bin/sh\"" in r.stderr,
              "execve line with the PATH-resolved command")
        check(b"+++ exited with 0 +++" in r.stderr, "exit line")
        check(r.returncode == 0, "exit status 0")

        # the original spelling, no subcommand word
        r = run([R, "-c", "-T", "--", "true"])
        check(r.returncode == 0 and b"% time     seconds  usecs/call     calls    errors "
              b"syscall" in r.stderr, "renacer -c -T -- true prints the summary")

        # exit statuses
        check(run([R, "trace", "-c", "--", "sh", "-c", "exit 7"]).returncode == 7,
              "exit code of the target")
        check(run([R, "trace", "-c", "--", "sh", "-c", "kill -SEGV $$"]).returncode == 139,
              "128 + signal of a target killed by a signal")

        # exec failure: a clear error, no trace
        r = run([R, "trace", "-c", "--", "./no-such-program"], cwd=work)
        check(r.returncode == 4, "exec failure exits 4 (%d)" % r.returncode)
        check(r.stderr.decode() == "renacer: error: target './no-such-program': cannot execute "
              "'./no-such-program': No such file or directory\n",
              "exec failure message: %r" % r.stderr)

        # -o FILE
        out = os.path.join(work, "t.txt")
        r = run([R, "trace", "-f", "-o", out, "--", os.path.join(T, "pt_fileio"),
                 os.path.join(work, "d")])
        text = open(out).read()
        check(r.stderr == b"" and r.stdout == b"", "-o: nothing on stdout/stderr")
        check('openat(AT_FDCWD, "/nonexistent/renacer", O_RDONLY) = -1 ENOENT '
              '(No such file or directory)' in text, "-o: decoded openat line")
        check(re.search(r'rename\("[^"]*/a.txt", "[^"]*/b.txt"\) += 0', text) is not None,
              "-o: rename with both paths")

        # JSON document
        r = run([R, "trace", "-f", "--format", "json", "--", os.path.join(T, "pt_forktree"),
                 "2"])
        doc = json.loads(r.stderr)
        check(doc["schema"] == "renacer-trace" and doc["version"] == 1, "json: schema")
        check(doc["status"] == "ok" and doc["process_count"] == 5, "json: status, 5 processes")
        check(len(doc["processes"]) == 5 and all(p["end"] == "exited"
                                                 for p in doc["processes"]), "json: processes")
        kids = [p for p in doc["processes"] if p["ppid"] == doc["processes"][0]["pid"]]
        check(all(p["reaped_by"] == doc["processes"][0]["pid"] for p in kids),
              "json: children reaped by the root")
        sc = doc["syscalls"]
        check(len(sc) == sum(r_["calls"] for r_ in doc["summary"]) +
              sum(1 for s in sc if s["unfinished"]), "json: every span, counted ones summed")
        check(any(s["name"] == "execve" and s["path"].endswith("pt_forktree") for s in sc),
              "json: execve span with its path")

        # JSONL stream
        r = run([R, "trace", "-f", "--format", "jsonl", "--", os.path.join(T, "pt_forktree"),
                 "1"])
        lines = [json.loads(l) for l in r.stderr.decode().splitlines()]
        check(lines[0]["type"] == "header" and lines[-1]["type"] == "end", "jsonl: header/end")
        check(sum(1 for l in lines if l["type"] == "process" and l["event"] == "exit") == 3,
              "jsonl: 3 exit events")
        check(lines[-1]["syscalls"] == sum(1 for l in lines if l["type"] == "syscall" and
                                           not l["unfinished"]), "jsonl: end counts the spans")

        # filtered mode counts like strace -e trace=
        if shutil.which("strace"):
            sf = os.path.join(work, "s.txt")
            cmd = [os.path.join(T, "pt_fileio"), os.path.join(work, "e")]
            subprocess.run(["strace", "-f", "-c", "-e", "trace=openat,close,%process", "-o",
                            sf, "--"] + cmd, stdout=subprocess.DEVNULL)
            r = run([R, "trace", "-f", "-c", "-e", "trace=openat,close,%process", "--"] + cmd)
            s_rows, r_rows = summary(open(sf).read()), summary(r.stderr.decode())
            check(s_rows == r_rows, "filtered: counts equal strace's: %s vs %s" %
                  (s_rows, r_rows))

        # timeout
        t0 = time.time()
        r = run([R, "trace", "-f", "-c", "--timeout", "0.3", "--", os.path.join(T,
                 "pt_setsid_sleep"), "30"])
        check(r.returncode == 4 and b"timed out after 0.300 s" in r.stderr and
              time.time() - t0 < 10, "--timeout kills the tree (%d)" % r.returncode)

        # SIGINT: every traced process gone, exit 130
        ev = os.path.join(work, "ev.jsonl")
        p = subprocess.Popen([R, "trace", "-f", "--format", "jsonl", "-o", ev, "--",
                              os.path.join(T, "pt_setsid_sleep"), "30"])
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        rc = p.wait(timeout=20)
        check(rc == 130, "SIGINT exits 130 (%d)" % rc)
        pids = [json.loads(l)["pid"] for l in open(ev) if '"event":"fork"' in l]
        check(len(pids) == 3 and all(gone(x) for x in pids), "SIGINT: all 3 processes gone")

        # options: one table, did-you-mean
        r = run([R, "trace", "--fromat", "json", "--", "true"])
        check(r.returncode == 2 and b"did you mean '--format'" in r.stderr, "did-you-mean")
        r = run([R, "trace", "-e", "trace=opnat", "--", "true"])
        check(r.returncode == 2 and b"did you mean 'openat'" in r.stderr, "unknown syscall")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if FAILS:
        return 1
    print("ok   renacer trace: output routing, exit codes, JSON, filtered mode, timeout, SIGINT")
    return 0


if __name__ == "__main__":
    sys.exit(main())
