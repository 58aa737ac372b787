#!/usr/bin/env python3
"""Run a composite GitHub Action's steps locally, the way the runner does, and report.

    run-action.py ACTION_YML [--check-only] [--workspace DIR] [--runner-temp DIR]
                  [--with NAME=VALUE]... [--json OUT] [--cache-dir DIR] [--action-ref REF]

It checks the action's structure first (what the runner would reject or silently get wrong:
a run step without shell, an output or expression naming a missing step or input, an input
without a description), then runs each step like the runner: `if:` evaluated (success() is
implied), `${{ }}` expanded in run/env/working-directory/with, the script run with
`bash --noprofile --norc -eo pipefail`, GITHUB_OUTPUT/GITHUB_PATH/GITHUB_ENV/
GITHUB_STEP_SUMMARY as files read back after each step; `uses: actions/upload-artifact` copies
the file under RUNNER_TEMP/artifacts/NAME and answers with a file:// artifact-url;
`uses: actions/cache` restores a directory saved under --cache-dir for its key (output
cache-hit) and saves `path` after the last step on a miss. The expression language is the
subset actions use: contexts inputs, github, runner, steps, env; literals; ! == != && || and
parentheses; success() failure() always() cancelled(). String comparison ignores case, as
GitHub's does.

The JSON report: {"outputs": {...}, "steps": [{"id", "name", "outcome", "log"}],
"summary": "<job summary text>", "failed": bool}. Exit status: 0 when the action could be
simulated (whatever its steps did), 1 when its structure is wrong.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

EXPR = re.compile(r"\$\{\{(.*?)\}\}", re.S)
TOKEN = re.compile(r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<num>-?\d+(?:\.\d+)?)|"
                   r"(?P<op>==|!=|&&|\|\||!|\(|\)|,)|(?P<name>[A-Za-z_][A-Za-z0-9_.-]*))")


class ActionError(Exception):
    pass


def tokenize(text):
    pos, out = 0, []
    text = text.strip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ActionError(f"cannot parse expression at {text[pos:]!r}")
        pos = m.end()
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
    return out


def truthy(v):
    return v not in (None, False, "", 0)


def to_str(v):
    if v is None:
        return ""
    if v is True:
        return "true"
    if v is False:
        return "false"
    return str(v)


def equal(a, b):
    if isinstance(a, str) and isinstance(b, str):
        return a.lower() == b.lower()
    return to_str(a).lower() == to_str(b).lower()


class Evaluator:
    """Recursive descent over the tokens of one expression."""

    def __init__(self, ctx, status):
        self.ctx, self.status = ctx, status

    def eval(self, text):
        self.toks, self.i = tokenize(text), 0
        v = self.or_()
        if self.i != len(self.toks):
            raise ActionError(f"trailing tokens in {text!r}")
        return v

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def take(self, op=None):
        tok = self.peek()
        if op is not None and tok[1] != op:
            raise ActionError(f"expected {op!r}, found {tok[1]!r}")
        self.i += 1
        return tok

    def or_(self):
        v = self.and_()
        while self.peek()[1] == "||":
            self.take()
            rhs = self.and_()
            v = v if truthy(v) else rhs
        return v

    def and_(self):
        v = self.not_()
        while self.peek()[1] == "&&":
            self.take()
            rhs = self.not_()
            v = rhs if truthy(v) else v
        return v

    def not_(self):
        if self.peek()[1] == "!":
            self.take()
            return not truthy(self.not_())
        return self.cmp()

    def cmp(self):
        v = self.primary()
        if self.peek()[1] in ("==", "!="):
            op = self.take()[1]
            rhs = self.primary()
            return equal(v, rhs) if op == "==" else not equal(v, rhs)
        return v

    def primary(self):
        kind, val = self.take()
        if kind == "str":
            return val[1:-1].replace("''", "'")
        if kind == "num":
            return float(val) if "." in val else int(val)
        if val == "(":
            v = self.or_()
            self.take(")")
            return v
        if kind == "name":
            if val in ("true", "false", "null"):
                return {"true": True, "false": False, "null": None}[val]
            if self.peek()[1] == "(":
                self.take("(")
                self.take(")")
                funcs = {"success": self.status == "success", "failure": self.status == "failure",
                         "always": True, "cancelled": False}
                if val not in funcs:
                    raise ActionError(f"unsupported function {val}()")
                return funcs[val]
            obj = self.ctx
            for part in val.split("."):
                if not isinstance(obj, dict):
                    return None
                if part not in obj and obj is self.ctx:
                    raise ActionError(f"unknown context {part!r}")
                obj = obj.get(part)
            return obj
        raise ActionError(f"unexpected token {val!r}")


def expand(text, ev):
    return EXPR.sub(lambda m: to_str(ev.eval(m.group(1))), to_str(text))


def check_structure(action):
    """Raise ActionError for what the runner rejects or quietly gets wrong."""
    for key in ("name", "description", "runs"):
        if key not in action:
            raise ActionError(f"missing top-level key {key!r}")
    runs = action["runs"]
    if runs.get("using") != "composite":
        raise ActionError("runs.using must be 'composite'")
    inputs = action.get("inputs") or {}
    for name, spec in inputs.items():
        if not isinstance(spec, dict) or "description" not in spec:
            raise ActionError(f"input {name!r} has no description")
        if "default" in spec and not isinstance(spec["default"], str):
            raise ActionError(f"input {name!r}: default must be a string")
    ids, seen = [], set()
    for n, step in enumerate(runs.get("steps") or []):
        where = f"step {n + 1} ({step.get('name', step.get('id', '?'))})"
        if "run" in step:
            if "shell" not in step:
                raise ActionError(f"{where}: a run step needs 'shell'")
        elif "uses" not in step:
            raise ActionError(f"{where}: neither run nor uses")
        text = yaml.safe_dump(step)
        for m in re.finditer(r"steps\.([A-Za-z0-9_-]+)\.outputs\.", text):
            if m.group(1) not in seen:
                raise ActionError(f"{where}: refers to step {m.group(1)!r} before it runs")
        for m in re.finditer(r"inputs\.([A-Za-z0-9_-]+)", text):
            if m.group(1) not in inputs:
                raise ActionError(f"{where}: unknown input {m.group(1)!r}")
        if "run" in step and "${{" in step["run"]:
            raise ActionError(f"{where}: expression inside run (pass it through env)")
        if "id" in step:
            if step["id"] in seen:
                raise ActionError(f"{where}: duplicate id {step['id']!r}")
            seen.add(step["id"])
            ids.append(step["id"])
    for name, spec in (action.get("outputs") or {}).items():
        if "description" not in spec or "value" not in spec:
            raise ActionError(f"output {name!r} needs description and value")
        for m in re.finditer(r"steps\.([A-Za-z0-9_-]+)\.outputs\.", spec["value"]):
            if m.group(1) not in seen:
                raise ActionError(f"output {name!r}: no step {m.group(1)!r}")


def read_kv_file(path):
    """name=value lines and name<<DELIM ... DELIM blocks (GITHUB_OUTPUT, GITHUB_ENV)."""
    out = {}
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            value = []
            while i < len(lines) and lines[i] != delim:
                value.append(lines[i])
                i += 1
            if i >= len(lines):
                raise ActionError(f"{path}: unterminated {delim}")
            i += 1
            out[name] = "\n".join(value)
        elif "=" in line:
            name, value = line.split("=", 1)
            out[name] = value
        else:
            raise ActionError(f"{path}: malformed line {line!r}")
    return out


def run(action_path, args):
    with open(action_path, encoding="utf-8") as f:
        action = yaml.safe_load(f)
    check_structure(action)
    if args.check_only:
        return {"outputs": {}, "steps": [], "summary": "", "failed": False}

    action_dir = os.path.dirname(os.path.abspath(action_path))
    workspace = os.path.abspath(args.workspace)
    temp = os.path.abspath(args.runner_temp)
    inputs = {k: to_str(v.get("default", "")) for k, v in (action.get("inputs") or {}).items()}
    for item in args.with_:
        name, value = item.split("=", 1)
        if name not in inputs:
            raise ActionError(f"--with {name}: the action has no such input")
        inputs[name] = value
    ctx = {"inputs": inputs, "steps": {}, "env": {},
           "github": {"action_path": action_dir, "workspace": workspace,
                      "action_ref": args.action_ref},
           "runner": {"temp": temp, "os": "Linux", "arch": "X64"}}
    cache_dir = os.path.abspath(args.cache_dir or os.path.join(temp, "_cache"))
    cache_saves = []
    path_add, env_add = [], {}
    status, steps, summary = "success", [], []
    for n, step in enumerate(action["runs"]["steps"]):
        ev = Evaluator(ctx, status)
        cond = to_str(step.get("if", "")).strip()
        m = EXPR.fullmatch(cond)
        cond = m.group(1) if m else cond
        if not cond:
            cond = "success()"
        elif not re.search(r"\b(success|failure|always|cancelled)\(", cond):
            cond = f"success() && ({cond})"
        rec = {"id": step.get("id"), "name": step.get("name"), "outcome": "skipped", "log": ""}
        steps.append(rec)
        if not truthy(ev.eval(cond)):
            if step.get("id"):
                ctx["steps"][step["id"]] = {"outputs": {}, "outcome": "skipped",
                                            "conclusion": "skipped"}
            continue
        if "uses" in step and step["uses"].startswith("actions/cache@"):
            # actions/cache: a directory per key under --cache-dir; a hit copies it to `path`
            # now, a miss saves `path` after the last step (the action's post step).
            with_ = {k: expand(v, ev) for k, v in (step.get("with") or {}).items()}
            if not with_.get("key") or not with_.get("path"):
                raise ActionError(f"step {n + 1}: actions/cache without key or path")
            saved = os.path.join(cache_dir, re.sub(r"[^A-Za-z0-9_.-]", "_", with_["key"]))
            hit = os.path.isdir(saved)
            if hit:
                shutil.rmtree(with_["path"], ignore_errors=True)
                shutil.copytree(saved, with_["path"], symlinks=True)
            else:
                cache_saves.append((with_["path"], saved))
            rec["outcome"] = "success"
            if step.get("id"):
                ctx["steps"][step["id"]] = {"outputs": {"cache-hit": "true" if hit else "false"},
                                            "outcome": "success", "conclusion": "success"}
            continue
        if "uses" in step:
            # actions/upload-artifact: copy the file under RUNNER_TEMP/artifacts/NAME and answer
            # with a file:// URL in place of the artifact's.
            if not step["uses"].startswith("actions/upload-artifact@"):
                raise ActionError(f"step {n + 1}: cannot simulate 'uses: {step['uses']}'")
            with_ = {k: expand(v, ev) for k, v in (step.get("with") or {}).items()}
            dest = os.path.join(temp, "artifacts", with_.get("name", "artifact"))
            os.makedirs(dest, exist_ok=True)
            src_path = os.path.join(workspace, with_.get("path", ""))
            outputs = {}
            if os.path.isfile(src_path):
                shutil.copy(src_path, dest)
                outputs = {"artifact-id": "1", "artifact-url": "file://" + dest}
            rec["outcome"] = "success"
            if step.get("id"):
                ctx["steps"][step["id"]] = {"outputs": outputs, "outcome": "success",
                                            "conclusion": "success"}
            continue
        files = {k: os.path.join(temp, f"_step{n}_{k}") for k in
                 ("GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_ENV", "GITHUB_STEP_SUMMARY")}
        for p in files.values():
            open(p, "w").close()
        env = dict(os.environ)
        env.update(env_add)
        env["PATH"] = os.pathsep.join(path_add[::-1] + [env.get("PATH", "")])
        env.update({"GITHUB_ACTIONS": "true", "CI": "true", "GITHUB_WORKSPACE": workspace,
                    "GITHUB_ACTION_PATH": action_dir, "RUNNER_TEMP": temp})
        env.update(files)
        for k, v in (step.get("env") or {}).items():
            env[k] = expand(v, ev)
        cwd = os.path.join(workspace, expand(step.get("working-directory", "."), ev))
        script = os.path.join(temp, f"_step{n}.sh")
        with open(script, "w") as f:
            f.write(step["run"])
        if step["shell"] != "bash":
            raise ActionError(f"step {n + 1}: only shell: bash is simulated")
        p = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script], cwd=cwd,
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        rec["log"] = p.stdout.decode("utf-8", "replace")
        sys.stderr.write(f"--- step {n + 1}: {step.get('name')} (exit {p.returncode})\n")
        sys.stderr.write(rec["log"])
        outcome = "success" if p.returncode == 0 else "failure"
        rec["outcome"] = outcome
        if step.get("id"):
            ctx["steps"][step["id"]] = {"outputs": read_kv_file(files["GITHUB_OUTPUT"]),
                                        "outcome": outcome, "conclusion": outcome}
        with open(files["GITHUB_PATH"]) as f:
            path_add += [line for line in f.read().split("\n") if line]
        env_add.update(read_kv_file(files["GITHUB_ENV"]))
        with open(files["GITHUB_STEP_SUMMARY"], encoding="utf-8") as f:
            summary.append(f.read())
        if outcome == "failure":
            status = "failure"
    # actions/cache's post step: a missed key is saved when the job succeeded (as GitHub does).
    for path, saved in cache_saves:
        if status == "success" and os.path.isdir(path) and not os.path.isdir(saved):
            shutil.copytree(path, saved, symlinks=True)
    ev = Evaluator(ctx, status)
    outputs = {k: expand(v["value"], ev) for k, v in (action.get("outputs") or {}).items()}
    return {"outputs": outputs, "steps": steps, "summary": "".join(summary),
            "failed": status == "failure"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("action")
    ap.add_argument("--check-only", action="store_true")
    ap.add_argument("--workspace", default=".")
    ap.add_argument("--runner-temp", default=None)
    ap.add_argument("--with", dest="with_", action="append", default=[])
    ap.add_argument("--json", default=None)
    ap.add_argument("--cache-dir", default=None,
                    help="where actions/cache keeps its entries (default RUNNER_TEMP/_cache)")
    ap.add_argument("--action-ref", default="v0-test", help="github.action_ref")
    args = ap.parse_args()
    own_temp = None
    if args.runner_temp is None:
        own_temp = tempfile.TemporaryDirectory()
        args.runner_temp = own_temp.name
    try:
        result = run(args.action, args)
    except ActionError as e:
        print(f"run-action.py: {args.action}: {e}", file=sys.stderr)
        return 1
    finally:
        if own_temp:
            own_temp.cleanup()
    text = json.dumps(result, indent=2)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
