#!/usr/bin/env python3
"""bench.py RENACER [--runs N] - `renacer history show` on a history of N runs (default 100,000).

The store is a SQLite file whose schema renacer creates (importing one renacer-json-v1 file);
the runs are then written directly with Python's sqlite3 in renacer's row layout: 3 targets x
6 metrics with 5 samples each per run (1.8 million results rows at 100,000 runs), 3 verdicts
per run, commits, branches and two machines. It then times, 7 times each, interleaved:
  show      renacer history show t0 wall_time            (every run of the series: 100,000 rows)
  show200   renacer history show --last 200 t0 wall_time
  list      renacer history list
and prints the median and the spread of each: the wall clock of the whole process (output to
/dev/null) and its CPU time (user + system, from getrusage), which a loaded machine inflates
less than the wall clock. The issue's bar: show under 200 ms.
"""
import json, os, random, resource, sqlite3, statistics, subprocess, sys, tempfile, time

renacer = sys.argv[1]
nruns = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 100000
here = os.path.dirname(os.path.abspath(__file__))
src = os.path.normpath(os.path.join(here, "..", "..", ".."))

with tempfile.TemporaryDirectory(prefix="renacer-hbench.") as tmp:
    db = os.path.join(tmp, "history.db")
    subprocess.run([renacer, "history", "--db", db, "import",
                    os.path.join(src, "tests", "unit", "assertions", "golden", "json_v1.json")],
                   check=True, stdout=subprocess.DEVNULL)
    con = sqlite3.connect(db)
    rnd = random.Random(1)
    t0 = time.perf_counter()
    metrics = [("wall_time", "ns", 100e6), ("critical_path", "ns", 95e6),
               ("cpu_time", "ns", 80e6), ("peak_rss", "bytes", 30e6),
               ("syscalls", "count", 2500), ("processes", "count", 3)]
    with con:
        runs, results, verdicts = [], [], []
        start = 1_700_000_000 * 10**9
        for i in range(2, nruns + 2):
            runs.append((i, start + i * 60 * 10**9, "%040x" % rnd.getrandbits(160),
                         "main" if i % 5 else "feature-%d" % (i % 17),
                         "m1" if i % 2 else "m2", "bench machine", "check", "renacer.toml",
                         "0.1.0", 0))
            for t in range(3):
                for name, unit, level in metrics:
                    s = [level * (1 + 0.02 * rnd.gauss(0, 1)) for _ in range(5)]
                    results.append((i, "t%d" % t, name, unit, 5, sorted(s)[2], min(s),
                                    max(s), json.dumps([round(v) for v in s])))
                verdicts.append((i, "t%d" % t, "budget", "critical_path", "PASS", 95.0,
                                 200.0, None, "ms", "critical path within budget"))
        con.executemany("INSERT INTO runs (id, created_ns, commit_sha, branch, machine, "
                        "machine_desc, source, config, renacer_version, exit_code) "
                        "VALUES (?,?,?,?,?,?,?,?,?,?)", runs)
        con.executemany("INSERT INTO results (run_id, target, metric, unit, nsamples, median, "
                        "min_value, max_value, samples) VALUES (?,?,?,?,?,?,?,?,?)", results)
        con.executemany("INSERT INTO verdicts (run_id, target, assertion, type, verdict, "
                        "observed, budget, golden, unit, message) VALUES (?,?,?,?,?,?,?,?,?,?)",
                        verdicts)
    con.execute("ANALYZE")
    con.close()
    print("store: %d runs, %d results rows, %.1f MB, filled in %.1f s" %
          (nruns + 1, len(results), os.path.getsize(db) / 1e6, time.perf_counter() - t0))
    cases = {
        "show": ["history", "--db", db, "show", "t0", "wall_time"],
        "show200": ["history", "--db", db, "show", "--last", "200", "t0", "wall_time"],
        "list": ["history", "--db", db, "list"],
    }
    out = subprocess.run([renacer] + cases["show"], check=True, capture_output=True, text=True)
    rows = len(out.stdout.splitlines()) - 2
    assert rows == nruns, (rows, nruns)
    times = {k: [] for k in cases}
    cpu = {k: [] for k in cases}
    for _ in range(7):
        for k, argv in cases.items():
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            subprocess.run([renacer] + argv, check=True, stdout=subprocess.DEVNULL)
            times[k].append((time.perf_counter() - t) * 1000)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[k].append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000)
    print("load average: %.1f %.1f %.1f on %d CPUs" % (os.getloadavg() + (os.cpu_count(),)))
    for k, v in times.items():
        print("%-8s wall median %7.1f ms (min %.1f, max %.1f); cpu median %7.1f ms (7 runs)" %
              (k, statistics.median(v), min(v), max(v), statistics.median(cpu[k])))
    print("show printed %d rows; bar: show < 200 ms: %s" %
          (rows, "met" if statistics.median(times["show"]) < 200 else "NOT met"))
