#!/usr/bin/env python3
"""page.py RENACER [--runs N] [--last K] - the report page of a large history store.

Builds a SQLite store of N runs (default 100,000: 3 targets x 6 metrics, 2 verdicts, 12
per-syscall rows and a 3-segment critical path per target and run; two branches, two machines)
with Python's sqlite3 in renacer's layout (schema from renacer), then:
  report    wall clock of `renacer report --html` (median of 3) with --last K (default 200,
            the command's default) and with --last 2000
  size      the page's bytes (with Chart.js inlined when libjs-chart.js is installed, and
            without it: RENACER_CHART_JS=)
  render    ms from navigation to the drawn page in headless Chromium (the page's own
            data-render-ms; median of 3)
The page holds the last K runs whatever the store's size: its size and render time are bounded
by K, not N. --keep FILE keeps the store in FILE (and reuses it when it exists).
"""
import json, os, random, re, sqlite3, statistics, subprocess, sys, tempfile, time

renacer = sys.argv[1]
nruns = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 100000
src = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
browser = next((b for b in ("chromium", "chromium-browser", "google-chrome")
                if subprocess.run(["sh", "-c", "command -v " + b], capture_output=True).returncode == 0), None)

keep = sys.argv[sys.argv.index("--keep") + 1] if "--keep" in sys.argv else None
with tempfile.TemporaryDirectory(prefix="renacer-pagebench.") as tmp:
    db = keep or os.path.join(tmp, "history.db")
    reuse = keep and os.path.exists(keep)
    if not reuse:
        # renacer creates the schema (importing one file); the rows are then written here.
        first = os.path.join(src, "tests", "unit", "assertions", "golden", "json_v1.json")
        subprocess.run([renacer, "history", "--db", db, "import", first],
                       check=True, stdout=subprocess.DEVNULL)
    con = sqlite3.connect(db)
    if reuse:
        nruns = 0
    else:
        con.execute("DELETE FROM results")
        con.execute("DELETE FROM runs")
    rnd = random.Random(1)
    metrics = [("wall_time", "ns", 100e6), ("critical_path", "ns", 95e6), ("cpu_time", "ns", 80e6),
               ("peak_rss", "bytes", 30e6), ("syscalls", "count", 2500), ("processes", "count", 3)]
    sysnames = ["openat", "read", "write", "close", "mmap", "munmap", "brk", "fstat", "execve",
                "wait4", "clone", "exit_group"]
    t0 = time.perf_counter()
    with con:
        runs, results, verdicts, sysc, cps = [], [], [], [], []
        start = 1_700_000_000 * 10**9
        for i in range(1, nruns + 1):
            runs.append((i, start + i * 60 * 10**9, "%040x" % rnd.getrandbits(160),
                         "main" if i % 5 else "feature", "m1" if i % 2 else "m2", "bench",
                         "check", "renacer.toml", "0.1.0", 0, "r%d" % i, "commit %d" % i,
                         start + i * 60 * 10**9 - 10**12, None))
            for t in range(3):
                for name, unit, level in metrics:
                    s = [level * (1 + 0.02 * rnd.gauss(0, 1)) for _ in range(5)]
                    results.append((i, "t%d" % t, name, unit, 5, sorted(s)[2], min(s), max(s),
                                    json.dumps([round(v) for v in s])))
                verdicts.append((i, "t%d" % t, "budget", "critical_path", "PASS", 95.0, 200.0,
                                 None, "ms", "critical path within budget"))
                verdicts.append((i, "t%d" % t, "opens", "span_count", "PASS", 40, 100, None,
                                 "calls", "openat"))
                for k, s in enumerate(sysnames):
                    sysc.append((i, "t%d" % t, s, 10 + k * 7 + rnd.randint(0, 2), 0, None))
                for k in range(3):
                    cps.append((i, "t%d" % t, k, "p%d" % k, 1000 + k, k * 10**7, (k + 1) * 10**7))
        con.executemany("INSERT INTO runs (id, created_ns, commit_sha, branch, machine, "
                        "machine_desc, source, config, renacer_version, exit_code, uid, subject, "
                        "author_ns, rerun_of) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", runs)
        con.executemany("INSERT INTO results (run_id, target, metric, unit, nsamples, median, "
                        "min_value, max_value, samples) VALUES (?,?,?,?,?,?,?,?,?)", results)
        con.executemany("INSERT INTO verdicts (run_id, target, assertion, type, verdict, "
                        "observed, budget, golden, unit, message) VALUES (?,?,?,?,?,?,?,?,?,?)",
                        verdicts)
        con.executemany("INSERT INTO syscalls (run_id, target, syscall, calls, errors, time_ns) "
                        "VALUES (?,?,?,?,?,?)", sysc)
        con.executemany("INSERT INTO critical_path (run_id, target, seq, process, pid, start_ns, "
                        "end_ns) VALUES (?,?,?,?,?,?,?)", cps)
    con.execute("ANALYZE")
    con.close()
    print("store: %d runs, %d results rows, %.0f MB, filled in %.0f s" %
          (nruns, len(results), os.path.getsize(db) / 1e6, time.perf_counter() - t0))

    def report(last, chart):
        page = os.path.join(tmp, "page-%d-%s.html" % (last, chart))
        env = dict(os.environ)
        if not chart:
            env["RENACER_CHART_JS"] = ""
        times = []
        for _ in range(3):
            t = time.perf_counter()
            subprocess.run([renacer, "report", "--db", db, "--last", str(last), "--html", page],
                           check=True, env=env, stderr=subprocess.DEVNULL)
            times.append(time.perf_counter() - t)
        return page, statistics.median(times)

    def render(page):
        if not browser:
            return None
        ms = []
        for _ in range(3):
            prof = tempfile.mkdtemp(dir=tmp)
            out = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                                  "--no-first-run", "--user-data-dir=" + prof,
                                  "--window-size=1200,900", "--dump-dom", "file://" + page],
                                 capture_output=True, text=True, timeout=300,
                                 env=dict(os.environ, HOME=prof)).stdout
            m = re.search(r'data-render-ms="(\d+)"', out)
            ms.append(int(m.group(1)) if m else float("nan"))
        return statistics.median(ms)

    for last in (200, 2000):
        for chart in (True, False):
            page, secs = report(last, chart)
            r = render(page)
            print("--last %5d %-8s: report %.2f s, page %.0f KB, rendered in %s ms" %
                  (last, "Chart.js" if chart else "SVG", secs, os.path.getsize(page) / 1024,
                   "-" if r is None else "%.0f" % r))
