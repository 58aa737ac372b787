#!/usr/bin/env python3
"""links.py SOURCE_DIR | --self-test - every relative link of README.md and docs/*.md resolves.

A link is Markdown's inline `[text](target)` or a reference definition `[label]: target`,
outside fenced and indented code blocks and code spans. Links with a scheme (https:, mailto:)
are left alone. The rest must name a file or folder that exists, relative to the page (a bare
`#anchor` names the page itself); an anchor into a Markdown page must be one of its headings'
anchors as GitHub makes them (lower case, punctuation but `-` and `_` dropped, spaces as `-`,
`-1`, `-2`... on repeats) or an explicit `<a name=...>`/`id=...`.
--self-test plants a missing file, a missing anchor and a link in code in a scratch tree and
checks that exactly the first two are reported. Exit 0 = every link resolves, 1 = not.
"""
import os
import re
import sys
import tempfile

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
INLINE = re.compile(r"\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
CODESPAN = re.compile(r"(`+)(.+?)\1")
HTML_ANCHOR = re.compile(r"<a\s+[^>]*(?:name|id)\s*=\s*\"([^\"]+)\"", re.I)
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def prose_lines(text):
    """(line number, line) of the lines outside fenced and indented code blocks."""
    fence = None
    prev_blank = True
    for n, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if fence is not None:
            if m and m.group(1) == fence:
                fence = None
            prev_blank = False
            continue
        if m:
            fence = m.group(1)
            continue
        if (line.startswith("    ") or line.startswith("\t")) and prev_blank:
            continue  # an indented code block (stays one while its lines stay indented)
        prev_blank = not line.strip() or (prev_blank and line.startswith(("    ", "\t")))
        yield n, line


def slug(heading):
    """GitHub's anchor of a heading's text."""
    text = CODESPAN.sub(lambda m: m.group(2), heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link's text
    text = re.sub(r"[*_]{1,3}([^*_]+)[*_]{1,3}", r"\1", text)  # emphasis
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    """The set of anchors of a Markdown page."""
    if path not in cache:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        seen, out = {}, set(HTML_ANCHOR.findall(text))
        for _, line in prose_lines(text):
            m = HEADING.match(line)
            if not m:
                continue
            s = slug(m.group(2))
            k = seen.get(s, 0)
            seen[s] = k + 1
            out.add(s if k == 0 else "%s-%d" % (s, k))
        cache[path] = out
    return cache[path]


def links(text):
    """(line number, target) of every link of a page."""
    for n, line in prose_lines(text):
        m = REFDEF.match(line)
        if m:
            yield n, m.group(1)
            continue
        for m in INLINE.finditer(CODESPAN.sub(lambda c: " " * len(c.group(0)), line)):
            yield n, m.group(1)


def check(root):
    """The broken links of README.md and docs/*.md under root, as 'page:line: message'."""
    pages = [os.path.join(root, "README.md")]
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        pages += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))
    bad = []
    for page in pages:
        if not os.path.exists(page):
            bad.append("%s: missing" % os.path.relpath(page, root))
            continue
        with open(page, encoding="utf-8") as f:
            text = f.read()
        where = os.path.relpath(page, root)
        for n, target in links(text):
            if SCHEME.match(target):
                continue
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(dest):
                bad.append("%s:%d: %s: no such file" % (where, n, target))
            elif anchor and dest.endswith(".md") and os.path.isfile(dest):
                if anchor not in anchors(dest):
                    bad.append("%s:%d: %s: %s has no heading with that anchor"
                               % (where, n, target, os.path.relpath(dest, root)))
    return pages, bad


def self_test():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "docs"))
        with open(os.path.join(root, "README.md"), "w") as f:
            f.write("# Top\n\nSee [a](docs/a.md#the-rules-v2), [gone](docs/gone.md), "
                    "[self](#top) and `[in code](nowhere.md)`.\n\n    [indented](nowhere.md)\n"
                    "\n```\n[fenced](nowhere.md)\n```\n[ref]: docs/a.md#rules\n")
        with open(os.path.join(root, "docs", "a.md"), "w") as f:
            f.write("# A\n\n## The `rules` (v2)\n\n## Rules\n\n[back](../README.md#top), "
                    "[wrong](../README.md#bottom), [web](https://example.org/x.md)\n")
        _, bad = check(root)
    want = ["README.md:3: docs/gone.md: no such file",
            "docs/a.md:7: ../README.md#bottom: README.md has no heading with that anchor"]
    if bad != want:
        print("FAIL: self-test: reported %r, expected %r" % (bad, want))
        return 1
    print("ok: the self-test's missing file and anchor were reported, nothing else")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    pages, bad = check(os.path.abspath(sys.argv[1]))
    for b in bad:
        print("FAIL: " + b)
    if bad:
        return 1
    print("ok: every relative link of %d pages resolves" % len(pages))
    return 0


if __name__ == "__main__":
    sys.exit(main())
