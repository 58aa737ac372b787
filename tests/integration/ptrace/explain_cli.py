#!/usr/bin/env python3
"""explain_cli.py - `renacer trace` options that explain where time goes: -c --percentiles
(per-syscall latency percentiles), --inject (faults and delays, against strace's own
--inject), -p PID (attach and detach) and --format csv.

Timing bounds stay in tests/bench/ptrace/explain_bench.py; here a percentile must land in the
right class of planted latencies (a 40 ms sleep is never reported below 40 ms, nor as 100 ms).

The original renacer's flags (--function-time, --stats-extended, --chaos) and strace's
-e inject= / --fault: aliases, or the replacement named (original_flags).

Usage: explain_cli.py --renacer PATH --targets DIR
       [--only percentiles,inject,attach,csv,profile,original_flags]
"""
import argparse
import csv
import io
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


def pct_rows(text):
    """syscall -> (calls, p50, p90, p99, max) in us from a -c --percentiles table."""
    rows = {}
    for line in text.splitlines():
        m = re.match(r"^\s*\d+\.\d+\s+\d+\.\d+\s+\d+\s+(\d+)\s+(?:\d+\s+)?"
                     r"(\d+\.\d)\s+(\d+\.\d)\s+(\d+\.\d)\s+(\d+\.\d)\s+(\S+)\s*$", line)
        if m:
            rows[m.group(6)] = (int(m.group(1)),) + tuple(float(m.group(i)) for i in range(2, 6))
    return rows


def test_percentiles(R, T, work):
    sleeps = os.path.join(T, "pt_sleeps")
    # 5 x 40 ms, 4 x 100 ms, 1 x 200 ms: p50 = 40 ms, p90 = 100 ms, p99 = max = 200 ms
    r = run([R, "trace", "-c", "--percentiles", "--", sleeps, "40:5", "100:4", "200:1"])
    text = r.stderr.decode()
    check(r.returncode == 0, "percentiles: exit 0")
    check(re.search(r"^% time +seconds +usecs/call +calls +errors +p50 us +p90 us +p99 us "
                    r"+max us syscall$", text, re.M) is not None, "percentiles: header")
    rows = pct_rows(text)
    sl = rows.get("clock_nanosleep") or rows.get("nanosleep")
    if check(sl is not None, "percentiles: a nanosleep row: %s" % text):
        calls, p50, p90, p99, mx = sl
        check(calls == 10, "percentiles: 10 sleeps (%d)" % calls)
        # the histogram's error is <= 0.4%; a sleep never ends early
        check(40000 * 0.996 <= p50 < 100000 * 0.996, "percentiles: p50 is a 40 ms sleep: %s" % p50)
        check(100000 * 0.996 <= p90 < 200000 * 0.996, "percentiles: p90 is a 100 ms sleep: %s" % p90)
        check(p99 >= 200000 * 0.996 and mx >= 200000, "percentiles: p99/max are the 200 ms one")
        check(p50 <= p90 <= p99 <= mx, "percentiles: ordered")
    check(re.search(r"^100\.00 .* total$", text, re.M) is not None, "percentiles: total line")
    # without --percentiles: strace's layout unchanged
    r = run([R, "trace", "-c", "--", sleeps, "1:1"])
    check(b"p50 us" not in r.stderr and
          b"% time     seconds  usecs/call     calls    errors syscall\n" in r.stderr,
          "no --percentiles: strace's columns only")
    # JSON summary carries them
    out = os.path.join(work, "p.json")
    r = run([R, "trace", "-c", "--percentiles", "--format", "json", "-o", out, "--", sleeps,
             "20:3", "60:1"])
    doc = json.load(open(out))
    row = [s for s in doc["summary"] if s["syscall"] in ("clock_nanosleep", "nanosleep")]
    if check(len(row) == 1, "percentiles json: one sleep row"):
        s = row[0]
        check(20e6 * 0.996 <= s["p50_ns"] < 60e6 * 0.996, "json p50_ns: %d" % s["p50_ns"])
        check(s["p99_ns"] >= 60e6 * 0.996 and s["max_ns"] >= 60e6, "json p99_ns/max_ns")
        check(s["p50_ns"] <= s["p90_ns"] <= s["p99_ns"] <= s["max_ns"], "json: ordered")
    # durations are needed
    r = run([R, "trace", "-c", "--percentiles", "--count-only", "--", "true"])
    check(r.returncode == 2 and b"--percentiles needs durations" in r.stderr,
          "--percentiles --count-only is a usage error: %r" % r.stderr)


def fsync_lines(text):
    return [l.strip() for l in text.splitlines() if l.startswith("fsync(")]


def test_inject(R, T, work):
    sleeps = os.path.join(T, "pt_sleeps")
    # error=EIO reaches the program: its exit status says EIO (5)
    r = run([R, "trace", "-c", "-o", os.devnull, "--inject=fsync:error=EIO", "--", sleeps,
             "fsync", "3"])
    check(r.returncode == 5 and b"fsync: Input/output error" in r.stderr,
          "inject error=EIO: the program sees EIO (exit %d, %r)" % (r.returncode, r.stderr))
    # a delay after each of 100 fsyncs: the tracer holds the task 10 ms each (a lower bound
    # only: the run cannot be shorter)
    t0 = time.monotonic()
    r = run([R, "trace", "-c", "-o", os.path.join(work, "d.txt"),
             "--inject=fsync:delay_exit=10ms", "--", sleeps, "fsync", "100"])
    took = time.monotonic() - t0
    check(r.returncode == 0 and r.stdout == b"100 fsyncs\n", "inject delay: the program ran")
    check(took >= 1.0, "inject delay_exit=10ms x 100 fsyncs takes >= 1 s (%.3f s)" % took)
    m = re.search(r"^\s*\d+\.\d+\s+(\d+\.\d+)\s+\d+\s+100\s+fsync$",
                  open(os.path.join(work, "d.txt")).read(), re.M)
    check(m is not None, "inject delay: 100 fsyncs counted")
    # bad rules are usage errors with the reason
    r = run([R, "trace", "--inject=fsync:error=EOI", "--", "true"])
    check(r.returncode == 2 and b"unknown errno 'EOI'" in r.stderr, "inject: bad errno")
    r = run([R, "trace", "--inject=fsync:error=EIO:retval=1", "--", "true"])
    check(r.returncode == 2 and b"exclude each other" in r.stderr, "inject: error+retval")
    r = run([R, "trace", "--inject=fsnc:error=EIO", "--", "true"])
    check(r.returncode == 2 and b"did you mean 'fsync'" in r.stderr, "inject: bad syscall")

    # parity with strace's own --inject: the same rules give the same fsync results, the same
    # program output and the same exit status
    if not shutil.which("strace"):
        print("note: strace not installed: parity cases skipped")
        return
    cases = [
        ["--inject=fsync:error=EIO:when=2"],
        ["--inject=fsync:retval=42:when=1"],
        ["--inject=fsync:error=ENOSPC:when=3+"],
        ["--inject=fsync:error=EPERM:when=2..3"],
        ["--inject=fsync:retval=0:when=1+2", "--inject=write:error=EAGAIN:when=4"],
        ["--inject=fsync:signal=SIGUSR1:when=2"],
        ["--inject=fsync:error=EIO:signal=SIGUSR2:when=3"],
        ["--inject=fsync:delay_enter=2ms:when=1", "--inject=%desc:error=EBADF:when=6"],
        ["--inject=fsync:retval=7", "--inject=fsync:error=EACCES:when=2"],  # the last wins
    ]
    # full tracing: invocations are counted from the exec on, as strace counts them (the
    # dynamic loader's calls included)
    for rule in ["%desc:error=EBADF:when=6", "%file:error=ENOENT:when=2", "fsync:error=EIO:when=4"]:
        cmd = [sleeps, "fsync", "5"]
        so, ro = os.path.join(work, "sf.txt"), os.path.join(work, "rf.txt")
        s = run(["strace", "-qq", "-o", so, "--inject=" + rule, "--"] + cmd)
        r = run([R, "trace", "-o", ro, "--inject=" + rule, "--"] + cmd)
        inj = lambda f: re.findall(r"^(\w+)\(.*\)\s+= (-?\d+ ?\w*).* \(INJECTED\)$",
                                   open(f).read(), re.M)
        check(r.returncode == s.returncode and r.stdout == s.stdout and r.stderr == s.stderr,
              "parity (full) %s: exit %d/%d, output %r/%r" % (rule, r.returncode, s.returncode,
                                                             r.stderr, s.stderr))
        check(len(inj(so)) >= 1 and inj(ro) == inj(so), "parity (full) %s: injected %s, strace's %s" % (
            rule, inj(ro), inj(so)))
    # calls outside -e trace= are not tampered with (strace's rule)
    r = run([R, "trace", "-e", "trace=fsync", "-o", os.devnull,
             "--inject=write:error=EAGAIN:when=4", "--", sleeps, "fsync", "5"])
    check(r.returncode == 0 and r.stdout == b"5 fsyncs\n", "inject: untraced write untouched")
    for rules in cases:
        cmd = [sleeps, "fsync", "5"]
        so = os.path.join(work, "strace.txt")
        s = run(["strace", "-qq", "-e", "trace=fsync", "-o", so] + rules + ["--"] + cmd)
        ro = os.path.join(work, "renacer.txt")
        r = run([R, "trace", "-e", "trace=fsync", "-o", ro] + rules + ["--"] + cmd)
        what = "parity %s" % " ".join(rules)
        # strace dies by the signal that killed the program; renacer exits 128 + signal
        want = 128 - s.returncode if s.returncode < 0 else s.returncode
        check(r.returncode == want,
              "%s: exit %d, strace's %d" % (what, r.returncode, s.returncode))
        check(r.stdout == s.stdout and r.stderr == s.stderr,
              "%s: program output %r/%r, strace's %r/%r" % (what, r.stdout, r.stderr, s.stdout,
                                                           s.stderr))
        sl, rl = fsync_lines(open(so).read()), fsync_lines(open(ro).read())
        check(sl == rl, "%s: fsync lines\n  renacer %s\n  strace  %s" % (what, rl, sl))


def test_attach(R, T, work):
    sleeps = os.path.join(T, "pt_sleeps")
    out_path = os.path.join(work, "tick.out")
    trace = os.path.join(work, "attach.txt")
    with open(out_path, "wb") as out:
        # 40 ticks 50 ms apart: about 2 s; attached from 0.3 s to about 1.5 s (the child is
        # forked at tick 20, about 1 s in)
        target = subprocess.Popen([sleeps, "tick", "40", "50"], stdout=out)
    try:
        time.sleep(0.3)
        tr = subprocess.Popen([R, "trace", "-p", str(target.pid), "-o", trace],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(1.2)
        tr.send_signal(signal.SIGINT)
        _, err = tr.communicate(timeout=30)
        check(tr.returncode == 0, "attach: SIGINT detaches, exit 0 (%d, %r)" % (tr.returncode,
                                                                              err))
        check(target.poll() is None, "attach: the target still runs after the detach")
        with open("/proc/%d/status" % target.pid) as f:
            check("TracerPid:\t0\n" in f.read(), "attach: the target is no longer traced")
        check(target.wait(timeout=30) == 0, "attach: the target exits 0")
    finally:
        if target.poll() is None:
            target.kill()
            target.wait()
    lines = open(out_path).read().splitlines()
    check(lines == ["tick %d" % i for i in range(21)] + ["child"] +
          ["tick %d" % i for i in range(21, 40)], "attach: the target's output is intact: %s" %
          lines)
    text = open(trace).read()
    tids = set(re.findall(r"^\[pid +(\d+)\] ", text, re.M))
    check(len(tids) >= 3, "attach: both threads and the child were traced: %s" % tids)
    check(re.search(r'write\(1, .*\) += 6$', text, re.M) is not None,
          "attach: the child's write of \"child\\n\" was seen")
    check(re.search(r"clock_nanosleep\(", text) is not None, "attach: the sleeps were seen")
    # a process that does not exist: the error names it
    r = run([R, "trace", "-p", "999999999"])
    check(r.returncode != 0 and b"cannot attach to process 999999999" in r.stderr,
          "attach: a missing process is an error: %r" % r.stderr)
    r = run([R, "trace", "-p", "1", "--", "true"])
    check(r.returncode == 2, "attach: -p and a command are a usage error")


def test_csv(R, T, work):
    sleeps = os.path.join(T, "pt_sleeps")
    # per-call records: a path with a comma, a quote and a newline comes back whole
    odd = os.path.join(work, 'a,b "c"\nd')
    out = os.path.join(work, "t.csv")
    r = run([R, "trace", "--format", "csv", "-o", out, "--", "cat", odd])
    with open(out, newline="") as f:
        rows = list(csv.reader(f))
    check(rows[0] == ["start_ns", "pid", "tid", "syscall", "nr", "arg0", "arg1", "arg2",
                      "arg3", "arg4", "arg5", "ret", "errno", "duration_ns", "path", "path2",
                      "flags"], "csv: header %s" % rows[0])
    check(all(len(row) == 17 for row in rows), "csv: 17 fields in every record")
    hit = [row for row in rows[1:] if row[3] == "openat" and row[14] == odd]
    check(len(hit) == 1 and hit[0][11] == "-2" and hit[0][12] == "ENOENT",
          "csv: the odd path's openat, quoted and parsed back: %s" % hit)
    check(any(row[3] == "exit_group" and row[16] == "unfinished" and row[11] == ""
              for row in rows), "csv: exit_group is unfinished, no return value")
    # the summary, with percentiles
    r = run([R, "trace", "-c", "--percentiles", "--format", "csv", "--", sleeps, "5:4"])
    rows = list(csv.DictReader(io.StringIO(r.stderr.decode())))
    sl = [row for row in rows if row["syscall"] in ("clock_nanosleep", "nanosleep")]
    if check(len(sl) == 1, "csv summary: a sleep row"):
        check(sl[0]["calls"] == "4" and int(sl[0]["p50_ns"]) >= 5e6 * 0.996,
              "csv summary: 4 sleeps, p50 >= 5 ms: %s" % sl[0])
    check(rows[-1]["syscall"] == "total" and
          int(rows[-1]["calls"]) == sum(int(x["calls"]) for x in rows[:-1]),
          "csv summary: the total row sums the calls")
    # injected calls are flagged
    r = run([R, "trace", "--format", "csv", "-o", out, "-e", "trace=fsync",
             "--inject=fsync:error=EIO", "--", sleeps, "fsync", "1"])
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    check(len(rows) == 1 and rows[0]["flags"] == "injected" and rows[0]["errno"] == "EIO",
          "csv: an injected call: %s" % rows)
    js = os.path.join(work, "i.jsonl")
    r = run([R, "trace", "--format", "jsonl", "-o", js, "-e", "trace=fsync",
             "--inject=fsync:error=EIO:delay_enter=1ms", "--", sleeps, "fsync", "1"])
    sc = [json.loads(l) for l in open(js) if '"type":"syscall"' in l]
    check(len(sc) == 1 and sc[0].get("injected") is True and sc[0].get("delayed") is True and
          sc[0]["errno"] == "EIO" and sc[0]["duration_ns"] >= 1000000,
          "jsonl: injected and delayed marks, the entry delay in the duration: %s" % sc)
    # paths that a spreadsheet would evaluate are neutralized (OWASP: a leading single quote),
    # invalid UTF-8 becomes U+FFFD; numbers keep their sign (ret -2)
    formulas = ["=1+1", "+1", "-1", "@SUM(A1)", "\t=1", "\r=1"]
    r = run([R, "trace", "--format", "csv", "-o", out, "-e", "trace=openat", "--", "cat",
             "--"] + formulas + ["a=1", b"x\xff"], cwd=work)
    raw = open(out, "rb").read()
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8"), newline=""), strict=True))
    paths = [row[14] for row in rows[1:] if row[3] == "openat"]
    for f in formulas:
        check(("'" + f) in paths, "csv: a path %r is neutralized: %s" % (f, paths))
    check("a=1" in paths, "csv: a path with '=' inside is as it is: %s" % paths)
    check(not any(p[:1] in ("=", "+", "-", "@", "\t", "\r") for p in paths),
          "csv: no path cell starts a formula: %s" % paths)
    check(b"\xff" not in raw and "x\ufffd" in paths,
          "csv: the invalid byte is U+FFFD: %s" % paths)
    check(any(row[11] == "-2" for row in rows[1:] if row[3] == "openat"),
          "csv: a negative return value stays a number")
    # -C: one table per file (the calls in -o FILE, the summary in FILE.summary.csv)
    summ = out + ".summary.csv"
    r = run([R, "trace", "-C", "--format", "csv", "-o", out, "--", "true"])
    check(r.returncode == 0, "csv -C: exit 0 (%r)" % r.stderr)
    with open(out, newline="") as f:
        rows = list(csv.reader(f))
    check(all(len(row) == 17 for row in rows) and rows[0][0] == "start_ns",
          "csv -C: the calls file holds the calls table alone")
    with open(summ, newline="") as f:
        rows = list(csv.reader(f))
    check(rows[0][0] == "syscall" and rows[-1][0] == "total" and
          len(set(len(row) for row in rows)) == 1,
          "csv -C: the summary file holds the summary table alone: %s" % rows[:2])
    r = run([R, "trace", "-C", "--format", "csv", "--", "true"])
    check(r.returncode == 2 and b"-o FILE" in r.stderr,
          "csv -C without -o: a usage error (%d)" % r.returncode)


def folded(path):
    out = []
    for line in open(path).read().splitlines():
        stack, value = line.rsplit(" ", 1)
        out.append((stack.split(";"), int(value)))
    return out


def test_profile(R, T, work):
    import xml.dom.minidom
    prefix = os.path.join(work, "prof")
    r = run([R, "trace", "-c", "-o", os.devnull, "--profile", prefix, "--",
             os.path.join(T, "pt_hot"), "250", "2000"])
    check(r.returncode == 0, "profile: exit 0 (%r)" % r.stderr)
    # (a) syscall time by stack: the planted openat loop is load_cfg's
    sc = folded(prefix + ".syscalls.folded")
    opens = sorted([(v, st) for st, v in sc if st[-1] == "openat"], reverse=True)
    check(opens and opens[0][1][-2:] == ["load_cfg", "openat"],
          "profile: the openat time is load_cfg's: %s" % opens[:2])
    check(all(st[0] == "pt_hot" for st, _ in sc), "profile: stacks start at the process")
    for kind in ("syscalls", "cpu"):
        doc = xml.dom.minidom.parse(prefix + "." + kind + ".svg")
        check(doc.documentElement.tagName == "svg", "profile: %s.svg is an SVG" % kind)
    check("load_cfg" in open(prefix + ".syscalls.svg").read(), "profile: load_cfg in the SVG")
    # (b) on-CPU samples: the planted hot function holds most of them
    if b"no on-CPU samples" in r.stderr:
        print("note: sampling unavailable here (%s): on-CPU checks skipped" %
              r.stderr.decode().strip())
        return
    cpu = folded(prefix + ".cpu.folded")
    total = sum(v for _, v in cpu)
    hot = sum(v for st, v in cpu if "hot_loop" in st)
    cold = sum(v for st, v in cpu if "cold_loop" in st)
    check(total >= 10, "profile: samples were taken (%d)" % total)
    check(hot * 2 >= total and hot > cold, "profile: hot_loop has most samples: %d of %d "
          "(cold_loop %d)" % (hot, total, cold))
    m = re.search(rb"(\d+) samples at 99 Hz", r.stderr)
    check(m is not None and int(m.group(1)) == total,
          "profile: the note counts the samples written: %r" % r.stderr)
    # one long process: its samples cover its CPU time, no note
    check(b"thin on-CPU profile" not in r.stderr and
          b"THIN COVERAGE" not in open(prefix + ".cpu.svg", "rb").read(),
          "profile: no thin-coverage note for one long process: %r" % r.stderr)
    # many short processes, each under one sampling period of CPU (10 ms at 99 Hz): few
    # samples for their CPU time, and the profile says so, on the console and on the graph
    short = os.path.join(work, "short")
    r = run([R, "trace", "-c", "-o", os.devnull, "--profile", short, "--", "sh", "-c",
             "for i in $(seq 300); do /bin/true; done"])
    check(r.returncode == 0, "profile of short processes: exit 0 (%r)" % r.stderr)
    m = re.search(rb"thin on-CPU profile: (\d+) samples at 99 Hz stand for (\d+) ms of the "
                  rb"(\d+) ms of (user )?CPU time", r.stderr)
    check(m is not None and int(m.group(2)) * 2 < int(m.group(3)),
          "profile of short processes: a thin-coverage warning: %r" % r.stderr)
    check(b"THIN COVERAGE" in open(short + ".cpu.svg", "rb").read(),
          "profile of short processes: the flame graph says the coverage is thin")
    # explain: a base and a head run; the grown openat loop and the grown hot function rank
    # first in the syscall and CPU comparisons
    hot = os.path.join(T, "pt_hot")
    for name, args in (("base", ["40", "200"]), ("head", ["40", "3000"]),
                       ("cbase", ["20", "0"]), ("chead", ["250", "0"])):
        r = run([R, "trace", "-c", "-o", os.devnull, "--source", "--profile",
                 os.path.join(work, name), "--", hot] + args)
        check(r.returncode == 0, "explain: %s profile" % name)
    svg = os.path.join(work, "diff.svg")
    r = run([R, "explain", "--svg", svg, "--top", "3", os.path.join(work, "base.syscalls.folded"),
             os.path.join(work, "head.syscalls.folded")])
    lines = r.stdout.decode().splitlines()
    check(r.returncode == 0 and len(lines) >= 3 and
          re.match(r"^  1\. \+[\d.]+ [mu]?s in openat, from load_cfg \(\S*pt_hot\.c:\d+\) "
                   r"\(\d+% of the growth\)$", lines[1]) is not None,
          "explain: openat from load_cfg (file:line) first: %s" % lines)
    doc = xml.dom.minidom.parse(svg)
    check(doc.documentElement.tagName == "svg" and "load_cfg" in open(svg).read(),
          "explain: the differential flame graph")
    r = run([R, "explain", os.path.join(work, "cbase.cpu.folded"),
             os.path.join(work, "chead.cpu.folded")])
    lines = r.stdout.decode().splitlines()
    if b"no on-CPU samples" not in r.stderr:
        check(len(lines) >= 3 and " samples " in lines[1] and "hot_loop" in lines[2],
              "explain: the hot function's samples first: %s" % lines)
    # the unit follows the file: CPU samples renamed (or from stackcollapse) are samples, never
    # "ns"; a profile with its .calls.folded beside it (check's, golden's) is nanoseconds
    for name in ("old", "new"):
        shutil.copy(os.path.join(work, "c%s.cpu.folded" % ("base" if name == "old" else "head")),
                    os.path.join(work, name + ".folded"))
    r = run([R, "explain", os.path.join(work, "old.folded"), os.path.join(work, "new.folded")])
    out = r.stdout.decode()
    check(r.returncode == 0 and " samples," in out.splitlines()[0] and " ns" not in out,
          "explain: renamed CPU profiles count samples: %r" % out[:300])
    shutil.copy(os.path.join(work, "head.syscalls.folded"), os.path.join(work, "g.folded"))
    open(os.path.join(work, "g.calls.folded"), "w").write("")
    r = run([R, "explain", os.path.join(work, "base.syscalls.folded"),
             os.path.join(work, "g.folded")])
    check(r.returncode == 0 and " ns," in r.stdout.decode().splitlines()[0],
          "explain: a profile with its calls beside it is ns: %r" % r.stdout[:200])
    # check's and golden update's time-on-CPU profiles (NAME.oncpu.folded) are nanoseconds
    shutil.copy(os.path.join(work, "head.syscalls.folded"), os.path.join(work, "h.oncpu.folded"))
    r = run([R, "explain", os.path.join(work, "base.syscalls.folded"),
             os.path.join(work, "h.oncpu.folded")])
    check(r.returncode == 0 and " ns," in r.stdout.decode().splitlines()[0],
          "explain: an .oncpu.folded profile is ns: %r" % r.stdout[:200])
    bad = os.path.join(work, "bad.folded")
    open(bad, "w").write("a;b 3\na;c x\n")
    r = run([R, "explain", bad, bad])
    check(r.returncode == 3 and b"line 2 is not folded stacks" in r.stderr,
          "explain: a malformed profile: %r" % r.stderr)
    r = run([R, "trace", "--profile", os.path.join(work, "no/such/dir/p"), "--", "true"])
    check(r.returncode == 6 and r.stderr.startswith(b"renacer: error: cannot write the profile"),
          "profile: an unwritable prefix is an output error before the run (%d, %r)" % (
              r.returncode, r.stderr))


def test_original_flags(R, T, work):
    """The original renacer's flags and strace's injection spellings: aliases where renacer
    has the equivalent, else one line naming the replacement and the usage exit code (2)."""
    sleeps = os.path.join(T, "pt_sleeps")
    # strace's -e inject= is --inject
    r = run([R, "trace", "-o", os.devnull, "-e", "inject=fsync:error=EIO", "--", sleeps,
             "fsync", "3"])
    check(r.returncode == 5 and b"fsync: Input/output error" in r.stderr,
          "-e inject=: the program sees EIO (exit %d, %r)" % (r.returncode, r.stderr))
    # strace's --fault=SET is --inject=SET:error=ENOSYS; with an error= it is that error
    for args in (["--fault=fsync"], ["-e", "fault=fsync:when=1"]):
        r = run([R, "trace", "-o", os.devnull] + args + ["--", sleeps, "fsync", "3"])
        check(r.returncode != 0 and b"fsync: Function not implemented" in r.stderr,
              "%s: the program sees ENOSYS (exit %d, %r)" % (args, r.returncode, r.stderr))
    r = run([R, "trace", "-o", os.devnull, "--fault=fsync:error=EIO:when=2", "--", sleeps,
             "fsync", "3"])
    check(r.returncode == 5, "--fault with error=EIO: EIO (exit %d)" % r.returncode)
    r = run([R, "trace", "--fault=fsnc", "--", "true"])
    check(r.returncode == 2 and b"did you mean 'fsync'" in r.stderr, "--fault: bad syscall")
    # --stats-extended is --percentiles, also without the subcommand word
    for cmd in ([R, "trace", "-c", "--stats-extended"], [R, "-c", "--stats-extended"]):
        r = run(cmd + ["--", sleeps, "1:2"])
        check(r.returncode == 0 and b"p50 us" in r.stderr and b"p99 us" in r.stderr,
              "%s: percentile columns (%r)" % (cmd[1:], r.stderr[-300:]))
    # no equivalent: one line naming the replacement, exit 2, the target never runs
    marker = os.path.join(work, "ran")
    for flag, repl in (("--function-time", b"--profile PREFIX"), ("--chaos", b"--inject="),
                       ("--chaos=aggressive", b"--inject=")):
        for cmd in ([R, "trace", flag], [R, "-c", flag]):
            r = run(cmd + ["--", "touch", marker])
            lines = r.stderr.decode().splitlines()
            check(r.returncode == 2 and len(lines) == 1 and repl.decode() in lines[0] and
                  ("'%s'" % flag.split("=")[0]) in lines[0],
                  "%s: one line naming %s, exit 2 (%d, %r)" % (cmd[1:], repl, r.returncode,
                                                               r.stderr))
            check(not os.path.exists(marker), "%s: the target did not run" % flag)
    # all of them are in the option table: --help names them
    r = run([R, "trace", "--help"])
    for flag in (b"--fault", b"--stats-extended", b"--function-time", b"--chaos"):
        check(flag in r.stdout, "trace --help names %s" % flag.decode())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--renacer", required=True)
    ap.add_argument("--targets", required=True)
    ap.add_argument("--only", default="percentiles,inject,attach,csv,profile")
    a = ap.parse_args()
    only = a.only.split(",")
    R, T = a.renacer, a.targets
    work = tempfile.mkdtemp(prefix="rn-explain-")
    try:
        probe = run([R, "trace", "-c", "--", "true"])
        if probe.returncode != 0 and b"not permitted" in probe.stderr:
            print("SKIP: ptrace is not permitted here")
            return 77
        for name, fn in (("percentiles", test_percentiles), ("inject", test_inject),
                         ("attach", test_attach), ("csv", test_csv), ("profile", test_profile),
                         ("original_flags", test_original_flags)):
            if name in only:
                fn(R, T, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if FAILS:
        print("%d check(s) failed" % len(FAILS))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
