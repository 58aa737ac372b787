#!/usr/bin/env python3
"""layer_links.py SOURCE_DIR SCRATCH_DIR [-DNAME=VALUE...] | layer_links.py --self-test - the link
order of the layer libraries (docs/layout.md, "Layers"), read from CMake's own graph.

Configures SOURCE_DIR in SCRATCH_DIR (tests off, so it needs only the build's packages; the
-D settings are the build's own, so the same collectors are found) with `cmake --graphviz` and
reads the link edges between the layer libraries

    rn_util < rn_collectors < rn_assertions < rn_input < {rn_report, rn_history} < rn_check < rn_cli

(rn_report and rn_history are siblings over rn_input; rn_toml, the standalone TOML parser, sits
with rn_input, below it). Every layer library must exist and link the ones right below it (LOWER,
what the linker enforces), and no library may link one it does not sit above: an edge
rn_report -> rn_check (upward) or rn_history -> rn_report (sideways) is a breach. Exit 0 when the graph
holds, else 1 with one line per breach. --self-test checks the rules on planted graphs: the
layers' chain passes, and an upward edge, a missing library and a broken chain are reported.
"""
import os
import re
import subprocess
import sys
import tempfile

# Each layer library and the ones right below it, which it links (runner/CMakeLists.txt).
LOWER = {"rn_util": [], "rn_collectors": ["rn_util"], "rn_assertions": ["rn_collectors"],
         "rn_input": ["rn_assertions"], "rn_report": ["rn_input"], "rn_history": ["rn_input"],
         "rn_check": ["rn_report", "rn_history"], "rn_cli": ["rn_check"]}
LAYERS = list(LOWER)
# Libraries of the tree outside the layers, with the layers they link (rn_toml: rn_util only,
# and rn_input links it).
BESIDE = {"rn_toml": ["rn_util"]}


def below(lib):
    """Every layer library under `lib` (what it may link), or None outside the layers."""
    if lib in BESIDE:
        todo, seen = list(BESIDE[lib]), set()
    elif lib in LOWER:
        todo, seen = list(LOWER[lib]), set()
    else:
        return None
    while todo:
        x = todo.pop()
        if x not in seen:
            seen.add(x)
            todo += LOWER.get(x, []) + BESIDE.get(x, [])
    return seen


def rank(lib):
    """Whether `lib` is a library of the layers (one of LOWER or BESIDE)."""
    return lib if lib in LOWER or lib in BESIDE else None


def read_dot(text):
    """The edges (from, to) between named targets of a `cmake --graphviz` dot file."""
    names = {}
    edges = []
    for line in text.splitlines():
        m = re.match(r'\s*"(node\d+)"\s*\[\s*label\s*=\s*"([^"]+)"', line)
        if m:
            names[m.group(1)] = m.group(2)
            continue
        m = re.match(r'\s*"(node\d+)"\s*->\s*"(node\d+)"', line)
        if m:
            edges.append((m.group(1), m.group(2)))
    return set(names.values()), [(names[a], names[b]) for a, b in edges
                                 if a in names and b in names]


def check(libs, edges):
    """The breaches of the layer rules in a graph of libraries `libs` and link `edges`."""
    breaches = []
    for lib in LAYERS:
        if lib not in libs:
            breaches.append(f"{lib}: no such library (one per layer)")
    for a, b in sorted(set(edges)):
        if rank(a) is None or rank(b) is None:
            continue
        if b == "rn_toml" and a != "rn_toml":
            if a not in ("rn_input",) and "rn_input" not in below(a):
                breaches.append(f"{a} -> {b}: links a layer it does not sit above")
            continue
        if b not in below(a):
            breaches.append(f"{a} -> {b}: links a layer at its own level, beside or above it")
    for above, lows in LOWER.items():
        for low in lows:
            if above in libs and low in libs and (above, low) not in edges:
                breaches.append(f"{above} does not link {low}, a layer right below it")
    return breaches


def graph(src, scratch, settings):
    """Configure `src` in `scratch` with the -D `settings` and --graphviz, and read the graph
    of its libraries."""
    os.makedirs(scratch, exist_ok=True)
    dot = os.path.join(scratch, "layers.dot")
    cmd = ["cmake", "-S", src, "-B", scratch] + settings + ["-DRN_BUILD_TESTS=OFF",
                                                            f"--graphviz={dot}"]
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if run.returncode != 0:
        print(run.stdout)
        raise SystemExit(f"layer_links: {' '.join(cmd)} failed ({run.returncode})")
    with open(dot) as fh:
        return read_dot(fh.read())


def dot_of(edges):
    """A dot file in the shape `cmake --graphviz` writes, for the self-test."""
    nodes = sorted({x for e in edges for x in e})
    ids = {n: f"node{i}" for i, n in enumerate(nodes)}
    lines = ["digraph \"renacer\" {"]
    lines += [f'    "{ids[n]}" [ label = "{n}", shape = octagon ];' for n in nodes]
    lines += [f'    "{ids[a]}" -> "{ids[b]}" [ style = solid ] // {a} -> {b}' for a, b in edges]
    return "\n".join(lines + ["}"]) + "\n"


def self_test():
    chain = [(a, b) for a, lows in LOWER.items() for b in lows]
    chain += [("rn_input", "rn_toml"), ("rn_toml", "rn_util"), ("rn_util", "rn_dep_pcre2-8")]
    cases = [
        ("the layers' chain", chain, None),
        ("an upward edge", chain + [("rn_report", "rn_check")], "rn_report -> rn_check"),
        ("an edge into its own level", chain + [("rn_toml", "rn_input")], "rn_toml -> rn_input"),
        ("an edge sideways", chain + [("rn_history", "rn_report")], "rn_history -> rn_report"),
        ("a missing library", [e for e in chain if "rn_history" not in e],
         "rn_history: no such library"),
        ("a broken chain", [e for e in chain if e != ("rn_cli", "rn_check")]
         + [("rn_cli", "rn_history")], "rn_cli does not link rn_check"),
        ("a layer that skips a sibling", [e for e in chain if e != ("rn_check", "rn_report")],
         "rn_check does not link rn_report"),
    ]
    failures = 0
    for what, edges, expect in cases:
        libs, parsed = read_dot(dot_of(edges))
        found = check(libs, parsed)
        if expect is None and found:
            print(f"self-test: FAIL: {what} reported: {found}")
            failures += 1
        elif expect is not None and not [b for b in found if expect in b]:
            print(f"self-test: FAIL: {what} not reported ({expect!r}); got: {found}")
            failures += 1
    print(f"layer_links self-test: {len(cases)} graphs, {failures} misjudged")
    return 1 if failures else 0


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        return self_test()
    if len(sys.argv) < 3 or not all(a.startswith("-D") for a in sys.argv[3:]):
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    libs, edges = graph(sys.argv[1], sys.argv[2], sys.argv[3:])
    breaches = check(libs, edges)
    for b in breaches:
        print(b)
    layer_edges = [e for e in edges if rank(e[0]) is not None and rank(e[1]) is not None]
    print(f"layer_links: {len(layer_edges)} edges between layer libraries, "
          f"{len(breaches)} breaches")
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
