#!/usr/bin/env python3
"""guide_test.py BUILD_DIR SOURCE_DIR [DOC [HEADING]] - every command of a tutorial, run in order.

DOC is the Markdown file, relative to SOURCE_DIR (default docs/guide.md); with HEADING, only
the blocks after the line that is exactly HEADING count (README.md's quick start comes after
its opening commands, which set up a machine and are not run here).

The guide's conventions: a fenced block whose info string is `c FILE` (or any language then a
file name) is written to FILE in the project directory; every line of an `sh` block is one
command, run with `bash -c` in the project directory (a scratch directory inside a scratch
parent, so `../base` stays inside it), with BUILD_DIR first on PATH (`renacer`) and a private
git identity. A command ending in `# exits N` must exit N; every other must exit 0. `yaml`
blocks must parse (PyYAML, when installed). Fails when the guide has no command at all, or
when HEADING is not in it.
Exit 0 = every command did what the guide says, 1 = one did not, 77 = no C compiler.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```(\S*)\s*(\S*)\s*$")


def blocks(text):
    """(info, filename, lines) of every fenced block."""
    out, cur = [], None
    for line in text.splitlines():
        m = FENCE.match(line)
        if m and cur is None:
            cur = (m.group(1), m.group(2), [])
        elif line.startswith("```") and cur is not None:
            out.append(cur)
            cur = None
        elif cur is not None:
            cur[2].append(line)
    return out


def main():
    build, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    doc = sys.argv[3] if len(sys.argv) > 3 else os.path.join("docs", "guide.md")
    heading = sys.argv[4] if len(sys.argv) > 4 else None
    renacer = os.path.join(build, "renacer")
    if not os.access(renacer, os.X_OK):
        print("FAIL: '%s' is not built" % renacer)
        return 1
    if not shutil.which("cc"):
        print("skip: no C compiler (cc)")
        return 77
    with open(os.path.join(src, doc), encoding="utf-8") as f:
        guide = f.read()
    if heading is not None:
        lines = guide.splitlines()
        if heading not in lines:
            print("FAIL: %s has no line '%s'" % (doc, heading))
            return 1
        guide = "\n".join(lines[lines.index(heading) + 1:])
    top = tempfile.mkdtemp(prefix="renacer-guide-")
    proj = os.path.join(top, "project")
    os.makedirs(proj)
    env = dict(os.environ)
    env["PATH"] = build + os.pathsep + env.get("PATH", "")
    env.update({"GIT_AUTHOR_NAME": "guide", "GIT_AUTHOR_EMAIL": "guide@localhost",
                "GIT_COMMITTER_NAME": "guide", "GIT_COMMITTER_EMAIL": "guide@localhost",
                "GIT_CONFIG_NOSYSTEM": "1", "HOME": top, "COLUMNS": "100", "NO_COLOR": "1"})
    for k in ("GITHUB_ACTIONS", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"):
        env.pop(k, None)
    ran = 0
    try:
        for info, name, lines in blocks(guide):
            if name and info != "sh":
                with open(os.path.join(proj, name), "w") as f:
                    f.write("\n".join(lines) + "\n")
                continue
            if info == "yaml":
                try:
                    import yaml
                except ImportError:
                    continue
                yaml.safe_load("\n".join(lines))
                continue
            if info != "sh":
                continue
            for cmd in lines:
                if not cmd.strip() or cmd.lstrip().startswith("#"):
                    continue
                m = re.search(r"#\s*exits (\d+)\s*$", cmd)
                want = int(m.group(1)) if m else 0
                p = subprocess.run(["bash", "-c", cmd], cwd=proj, env=env,
                                   stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                   timeout=300)
                ran += 1
                if p.returncode != want:
                    print("FAIL: %s: `%s` exited %d, the guide says %d"
                          % (doc, cmd, p.returncode, want))
                    sys.stdout.write("".join("  | " + l + "\n"
                                             for l in (p.stdout + p.stderr).splitlines()))
                    return 1
                # Every line of the console report fits the 100 columns the guide runs at
                # (warnings and notes, "renacer: ...", are one line each, unwrapped, and so
                # is the "head vs base" list of --baseline, runner/check/baseline.c).
                if "--baseline" in cmd:
                    continue
                for l in p.stderr.splitlines():
                    if len(l) > 100 and not l.startswith("renacer: "):
                        print("FAIL: `%s`: a line of %d columns: %r" % (cmd, len(l), l))
                        return 1
    finally:
        shutil.rmtree(top, ignore_errors=True)
    if not ran:
        print("FAIL: %s has no command" % doc)
        return 1
    print("ok: %d commands of %s did what it says" % (ran, doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
