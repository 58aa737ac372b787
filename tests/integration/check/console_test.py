#!/usr/bin/env python3
"""console_test.py - the console report of `renacer check` fits the terminal and agrees with
JUnit, and JUnit's WARN rows read as not passed in the test reporters' parsers.

    console_test.py CASE BUILD_DIR

Cases:
  width     every stderr line fits COLUMNS (100 and 60, default and --wide; 100 with no
            COLUMNS and no terminal); a shortened REASON ends with "..." at a word boundary
  agree     every console row's verdict is its JUnit testcase's, and the result line's counts
            are JUnit's
  reporters WARN and NOT JUDGED rows are not passes in dorny/test-reporter's java-junit rule
            (run on node-xml2js, the XML library that parser uses) and GitLab's junit.rb rule

Exit 0 = pass, 1 = fail, 77 = skipped (a missing reporter library).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

LABELS = ("NOT JUDGED", "NO DATA", "PASS", "FAIL", "WARN", "SKIP", "ERROR")


def fail(msg, text=None):
    print("FAIL: " + msg, file=sys.stderr)
    if text:
        sys.stderr.write("".join("  | " + l + "\n" for l in text.splitlines()))
    sys.exit(1)


def setup(build, tmp):
    """A config that yields every verdict kind on one target and a long-named second one."""
    work = os.path.join(build, "targets", "example_work")
    if not os.access(work, os.X_OK):
        fail("'%s' is not built" % work)
    cfg = os.path.join(tmp, "renacer.toml")
    with open(cfg, "w") as f:
        f.write('''[[target]]
name = "work"
command = ["%(work)s", "10"]
runs = 2
[[target]]
name = "a_target_whose_name_is_much_longer_than_any_column"
command = ["%(work)s", "5"]
[[assertion]]
name = "pass_fsync"
type = "span_count"
max_spans = 1000
span_name_pattern = "fsync"
[[assertion]]
name = "fail_fsync_with_a_name_that_no_compact_column_can_hold"
type = "span_count"
max_spans = 1
span_name_pattern = "fsync"
targets = ["work"]
[[assertion]]
name = "warn_fsync"
type = "span_count"
max_spans = 1
span_name_pattern = "fsync"
fail_on_violation = false
[[assertion]]
name = "skip_me"
type = "span_count"
max_spans = 1
span_name_pattern = "fsync"
enabled = false
[[assertion]]
name = "no_data"
type = "span_count"
max_spans = 10
span_name_pattern = "gpu:.*"
targets = ["work"]
[golden]
dir = "%(tmp)s/golden"
[regression]
max_runs = 2
[report]
junit = "%(tmp)s/junit.xml"
''' % {"work": work, "tmp": tmp})
    return cfg


def run(renacer, args, columns, cwd):
    env = dict(os.environ)
    env.pop("COLUMNS", None)
    if columns:
        env["COLUMNS"] = str(columns)
    env["NO_COLOR"] = "1"
    p = subprocess.run([renacer] + args, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                       capture_output=True, text=True)
    return p.returncode, p.stderr


def record_golden(renacer, cfg, tmp):
    rc, err = run(renacer, ["golden", "update", "--config", cfg], 100, tmp)
    if rc != 0:
        fail("golden update exited %d" % rc, err)


def table_rows(err):
    """{(target, assertion): verdict} from the table; names as printed."""
    rows, cols = {}, None
    for line in err.splitlines():
        if line.startswith("TARGET") and "VERDICT" in line:
            cols = (line.index("ASSERTION"), line.index("VERDICT"))
            continue
        if cols is None:
            continue
        if not line.strip():
            if rows:
                break
            continue
        if line.startswith(" "):  # a wrapped REASON
            continue
        a, v = cols
        verdict = next((l for l in LABELS if line[v:].startswith(l)), None)
        if verdict is None:
            fail("a table row without a verdict under VERDICT: %r" % line, err)
        rows[(line[:a].strip(), line[a:v].strip())] = verdict
    return rows


def junit_verdicts(path):
    """{(target, testcase): verdict} as renacer maps verdicts to JUnit (runner/report/junit.h)."""
    out = {}
    for suite in ET.parse(path).getroot().iter("testsuite"):
        for tc in suite.iter("testcase"):
            kids = {c.tag: c for c in tc}
            if "failure" in kids:
                v = "FAIL"
            elif "error" in kids:
                v = kids["error"].get("type")
            elif "skipped" in kids:
                s = kids["skipped"]
                if (s.get("message") or "").startswith("WARN: "):
                    v = "WARN"
                else:
                    v = "NOT JUDGED" if (s.text or "").strip() else "SKIP"
            else:
                v = "PASS"
            out[(suite.get("name"), tc.get("name"))] = v
    return out


def case_width(renacer, cfg, tmp):
    record_golden(renacer, cfg, tmp)
    # --wide keeps names whole, so its lines are as long as the names make them: 200 here.
    for columns, wide in ((100, False), (60, False), (200, True), (None, False)):
        # --verbose at 60: the messages below the table whole, to compare REASON with
        args = ["check", "--config", cfg] + (["--wide"] if wide else []) + \
            (["--verbose"] if columns == 60 else [])
        rc, err = run(renacer, args, columns, tmp)
        if rc != 1:
            fail("check exited %d, expected 1 (a FAIL row)" % rc, err)
        limit = columns or 100
        for line in err.splitlines():
            if len(line) > limit:
                fail("COLUMNS=%s%s: a line of %d columns > %d: %r" %
                     (columns, " --wide" if wide else "", len(line), limit, line), err)
        lines = err.splitlines()
        at = next((i for i, l in enumerate(lines) if l.startswith("TARGET")), None)
        if at is None:
            fail("no table header", err)
        header = lines[at] + (lines[at + 1] if lines[at + 1].startswith("    ") else "")
        # At 60 columns CHANGE gives way (the messages below the table keep it).
        for col in ("MEASURED", "LIMIT", "REASON") + (("CHANGE",) if limit >= 100 else ()):
            if col not in header:
                fail("header lacks %s: %r" % (col, header), err)
        if wide != ("GOLDEN" in header and "BASE" in header):
            fail("GOLDEN and BASE are --wide's columns: %r" % header, err)
        if columns == 100 and not wide:
            # REASON sits on the row, two spaces after CHANGE.
            at_r = header.index("REASON")
            for l in lines[at + 1:]:
                if not l.strip():
                    break
                if l[at_r - 2:at_r] != "  " or l[at_r] == " ":
                    fail("a row's REASON does not start under its header: %r" % l, err)
        if columns == 100 and not wide:
            # Without --verbose a WARN row's message is one line, its statistics left out;
            # a FAIL row's message is followed by its detail.
            at_w = next((i for i, l in enumerate(lines) if l.startswith("WARN work/warn_fsync:")),
                        None)
            if at_w is None or lines[at_w + 1].startswith("    "):
                fail("the WARN row's message is not one line without --verbose", err)
            at_f = next((i for i, l in enumerate(lines) if l.startswith("FAIL work/fail_fsync")),
                        None)
            if at_f is None or not any(l.startswith("    ") for l in lines[at_f + 1:at_f + 4]):
                fail("the FAIL row's message has no detail under it", err)
        if columns == 60 and not wide:
            # REASON shortened at a word boundary: the text before "..." is a prefix of the
            # whole message (printed below the table) that ends a word there.
            # REASON sits on the row, or on a line of its own under it on a narrow terminal.
            at = next((i for i, l in enumerate(lines) if " WARN " in l), None)
            if at is None:
                fail("no WARN row at COLUMNS=60", err)
            row = lines[at + 1] if lines[at + 1].startswith("    ") else lines[at]
            if not row.endswith("..."):
                fail("the WARN row's REASON is not shortened at COLUMNS=60: %r" % row, err)
            row = "  " + row.strip() if row.startswith("    ") else row
            msg = re.search(r"^WARN work/warn_fsync: (.*(?:\n    .*)*)", err, re.M)
            if not msg:
                fail("no WARN message below the table", err)
            whole = re.sub(r"\n    ", " ", msg.group(1))
            head = row[:-3].rsplit("  ", 1)[1]
            if not whole.startswith(head) or whole[len(head)] not in " ,;:":
                fail("REASON %r is not a word-boundary prefix of %r" % (head, whole), err)
        if wide and "fail_fsync_with_a_name_that_no_compact_column_can_hold" not in err:
            fail("--wide cut an assertion name", err)
    print("ok: the console fits 100 and 60 columns (and --wide 200), and 100 without COLUMNS")


def case_agree(renacer, cfg, tmp):
    record_golden(renacer, cfg, tmp)
    rc, err = run(renacer, ["check", "--config", cfg, "--wide"], 1000, tmp)
    rows = table_rows(err)
    junit = junit_verdicts(os.path.join(tmp, "junit.xml"))
    if rows != junit:
        fail("console rows %s != JUnit %s" % (sorted(rows.items()), sorted(junit.items())), err)
    kinds = set(rows.values())
    for k in ("PASS", "FAIL", "WARN", "SKIP", "NO DATA", "NOT JUDGED"):
        if k not in kinds:
            fail("the config yields no %s row (it should yield every kind)" % k, err)
    count = {k: list(junit.values()).count(k) for k in LABELS}
    # the counts that are not zero, failures first, singular or plural
    words = (("FAIL", "failed", "failed"), ("ERROR", "error", "errors"),
             ("NO DATA", "no data", "no data"), ("WARN", "warning", "warnings"),
             ("NOT JUDGED", "not judged", "not judged"), ("PASS", "passed", "passed"),
             ("SKIP", "skipped", "skipped"))
    want = "result: " + ", ".join("%d %s" % (count[k], one if count[k] == 1 else many)
                                  for k, one, many in words if count[k]) + ";"
    if want not in err:
        fail("the result line does not say %r" % want, err)
    # The compact table says the same (a target shortened to fit is a prefix of the whole, an
    # assertion name keeps its head and its tail around "...").
    rc, err = run(renacer, ["check", "--config", cfg], 100, tmp)
    compact = table_rows(err)
    if len(compact) != len(rows):
        fail("compact table has %d rows, wide %d" % (len(compact), len(rows)), err)

    def name_matches(whole, cut):
        head, sep, tail = cut.partition("...")
        return whole == cut or (sep and whole.startswith(head) and whole.endswith(tail) and
                                len(whole) > len(head) + len(tail))

    for (t, a), v in compact.items():
        match = [k for k in rows if k[0].startswith(t.rstrip(".").rstrip()) and
                 name_matches(k[1], a) and rows[k] == v]
        if not match:
            fail("compact row %s %s %s matches no wide row" % (t, a, v), err)
    print("ok: %d console rows agree with JUnit (%s)" % (len(rows), ", ".join(sorted(kinds))))


DORNY = r"""
// dorny/test-reporter's java-junit rule (src/parsers/java-junit/java-junit-parser.ts,
// getTestCaseResult), applied to the document as xml2js parses it, as that parser does.
const fs = require('fs');
const xml2js = require('xml2js');
xml2js.parseStringPromise(fs.readFileSync(process.argv[2], 'utf8')).then(doc => {
  const out = {};
  for (const ts of doc.testsuites.testsuite || [])
    for (const tc of ts.testcase || []) {
      let r = 'success';
      if (tc.failure || tc.error) r = 'failed';
      else if (tc.skipped) r = 'skipped';
      out[ts.$.name.trim() + '/' + tc.$.name.trim()] = r;
    }
  console.log(JSON.stringify(out));
});
"""


def gitlab_status(tc):
    """GitLab's rule (lib/gitlab/ci/parsers/test/junit.rb, create_test_case): the first of
    failure, error, skipped present decides; else success."""
    tags = {c.tag for c in tc}
    for tag, status in (("failure", "failed"), ("error", "error"), ("skipped", "skipped")):
        if tag in tags:
            return status
    return "success"


def case_reporters(renacer, cfg, tmp):
    import json
    record_golden(renacer, cfg, tmp)
    run(renacer, ["check", "--config", cfg], 1000, tmp)
    path = os.path.join(tmp, "junit.xml")
    ours = junit_verdicts(path)
    node = shutil.which("node") or shutil.which("nodejs")
    if not node:
        print("skip: node is not installed")
        sys.exit(77)
    script = os.path.join(tmp, "dorny.js")
    with open(script, "w") as f:
        f.write(DORNY)
    env = dict(os.environ)
    env["NODE_PATH"] = ":".join(p for p in ("/usr/share/nodejs", "/usr/lib/nodejs",
                                            env.get("NODE_PATH", "")) if p)
    p = subprocess.run([node, script, path], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        if "Cannot find module 'xml2js'" in p.stderr:
            print("skip: xml2js is not installed (Debian: node-xml2js)")
            sys.exit(77)
        fail("the dorny rule did not run", p.stderr)
    dorny = json.loads(p.stdout)
    gitlab = {}
    for suite in ET.parse(path).getroot().iter("testsuite"):
        for tc in suite.iter("testcase"):
            gitlab[suite.get("name") + "/" + tc.get("name")] = gitlab_status(tc)
    for (t, a), v in ours.items():
        key = t + "/" + a
        d, g = dorny.get(key), gitlab.get(key)
        if v == "PASS" and (d, g) != ("success", "success"):
            fail("%s PASS reads as %s (dorny), %s (GitLab)" % (key, d, g))
        if v != "PASS" and (d == "success" or g == "success"):
            fail("%s %s reads as a pass: %s (dorny), %s (GitLab)" % (key, v, d, g))
        if v == "WARN" and (d, g) != ("skipped", "skipped"):
            fail("%s WARN reads as %s (dorny), %s (GitLab), not skipped" % (key, d, g))
    print("ok: dorny/test-reporter and GitLab rules read WARN as skipped, never as passed")


def main():
    case, build = sys.argv[1], os.path.abspath(sys.argv[2])
    renacer = os.path.join(build, "renacer")
    if not os.access(renacer, os.X_OK):
        fail("'%s' is not built" % renacer)
    tmp = tempfile.mkdtemp(prefix="renacer-console-")
    try:
        cfg = setup(build, tmp)
        {"width": case_width, "agree": case_agree,
         "reporters": case_reporters}[case](renacer, cfg, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
