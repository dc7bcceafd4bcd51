#!/usr/bin/env python3
"""The shape of agent/: no C file over 800 lines, no function over 150 lines, no circle of files.

A circle is two or more C files that reach each other through what they use: file A uses file B
when A names a function or global variable that B alone defines, or an inline function of B's own
header (B.h beside B.c). Types and macros tie nobody: a module's sub-files may share its header; a
call back up is what makes a circle.

Folders are layered: the table under "## Layers" in docs/architecture.md gives each folder of agent/
its layer, and a file may include the headers of its own folder and of folders on lower layers
only. So the page and the code cannot part, and no two folders include each other.

The offenders of the day the check was written are listed in layout-known.txt; the check fails on
an offender not listed there and on a listed one that is gone (so the list only shrinks).
Usage: check_layout.py [--root DIR] [--known FILE] [--list]
"""

import argparse
import os
import re
import sys

MAX_FILE_LINES = 800
MAX_FUNC_LINES = 150

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do", "else", "case", "struct",
            "union", "enum", "typedef", "static", "const", "volatile", "inline", "extern",
            "__attribute__", "_Static_assert", "static_assert", "defined", "typeof",
            "__typeof__", "_Alignof", "alignof", "offsetof", "_Generic"}


def strip_c(text):
    """Comments, string and character literals and preprocessor lines blanked, newlines kept."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c in " \t":
            out.append(c)
            i += 1
            continue
        if line_start and c == "#":
            # a directive, with its continuation lines
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append("\n")
                    i += 2
                    continue
                i += 1
            continue
        line_start = False
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j]) + c)
            i = j + 1
        else:
            if c == "\n":
                line_start = True
            out.append(c)
            i += 1
    return "".join(out)


def functions(text):
    """(name, first line, last line, static) of each function definition in C text."""
    s = strip_c(text)
    found = []
    depth = 0
    head_start = 0  # where the text before the next top-level brace began
    i = 0
    while i < len(s):
        c = s[i]
        if depth == 0 and c in ";}":
            head_start = i + 1
        elif c == "{":
            if depth == 0:
                head = s[head_start:i]
                m = function_head(head)
                if m:
                    name, off = m
                    start = s.count("\n", 0, head_start + off) + 1
                    end = matching_brace(s, i)
                    last = s.count("\n", 0, end) + 1
                    found.append((name, start, last, re.search(r"\bstatic\b", head) is not None))
                    i = end + 1
                    head_start = i
                    continue
            depth += 1
        elif c == "}":
            depth -= 1
        i += 1
    return found


def function_head(head):
    """The name of the function that the text before a top-level '{' defines, or None."""
    h = head.rstrip()
    if not h.endswith(")") or "=" in h.replace("==", ""):
        return None
    if re.match(r"\s*(struct|union|enum)\b[^(]*$", h):
        return None
    # the name: the last identifier before the parenthesis that opens the parameter list
    depth = 0
    for k in range(len(h) - 1, -1, -1):
        if h[k] == ")":
            depth += 1
        elif h[k] == "(":
            depth -= 1
            if depth == 0:
                before = h[:k].rstrip()
                m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)$", before)
                if not m or m.group(1) in KEYWORDS:
                    # an attribute list after the parameters: look further left
                    h = before
                    if h.endswith(")"):
                        return function_head(h)
                    return None
                return m.group(1), m.start()
    return None


def matching_brace(s, i):
    depth = 0
    for k in range(i, len(s)):
        if s[k] == "{":
            depth += 1
        elif s[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return len(s) - 1


def globals_defined(s):
    """Names of non-static file-scope variables defined in stripped C text (simple forms)."""
    names = set()
    depth = 0
    stmt = []
    for c in s:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if depth == 0 and c == ";":
            st = "".join(stmt).strip()
            stmt = []
            if (st and not re.match(r"(static|extern|typedef|struct\s+\w+\s*$|enum|union)\b", st)
                    and "(" not in st.split("=")[0]):
                m = re.search(r"([A-Za-z_]\w*)\s*(\[[^\]]*\]\s*)*(=|$)", st.split("=")[0] + "=")
                if m:
                    names.add(m.group(1))
        elif depth == 0 and c != "}":
            stmt.append(c)
        elif depth == 0:
            stmt = []
    return names


class House:
    def __init__(self, root):
        self.root = root
        self.files = {}  # path relative to root -> text
        for d, _, fs in os.walk(os.path.join(root, "agent")):
            for f in fs:
                if f.endswith((".c", ".h")):
                    p = os.path.relpath(os.path.join(d, f), root)
                    with open(os.path.join(root, p), encoding="utf-8", errors="replace") as fh:
                        self.files[p] = fh.read()
        self.c_files = sorted(p for p in self.files if p.endswith(".c"))
        self.funcs = {p: functions(self.files[p]) for p in self.c_files}

    def own_header(self, c):
        h = c[:-2] + ".h"
        return h if h in self.files else None

    def resolve(self, src, inc):
        for cand in (os.path.join(os.path.dirname(src), inc), os.path.join("agent", inc)):
            cand = os.path.normpath(cand)
            if cand in self.files:
                return cand
        return None

    def edges(self):
        """{a: {b: set of names}}: file a uses file b."""
        definer = {}
        for p in self.c_files:
            ext = {n for n, _, _, st in self.funcs[p] if not st}
            ext |= globals_defined(strip_c(self.files[p]))
            h = self.own_header(p)
            if h:
                ext |= {n for n, _, _, _ in functions(self.files[h])}
            for n in ext:
                definer.setdefault(n, set()).add(p)
        unique = {n: next(iter(ps)) for n, ps in definer.items() if len(ps) == 1}
        out = {}
        for a in self.c_files:
            # a struct tag is not its namesake function (struct hw_scan, hw_scan())
            text = re.sub(r"\b(struct|union|enum)\s+\w+", " ", strip_c(self.files[a]))
            words = set(IDENT.findall(text))
            uses = {}
            for w in words:
                b = unique.get(w)
                if b and b != a:
                    uses.setdefault(b, set()).add(w)
            out[a] = uses
        return out

    def circles(self):
        g = self.edges()
        index, low, stack, on, comps = {}, {}, [], set(), []
        counter = [0]

        def visit(v):
            index[v] = low[v] = counter[0]
            counter[0] += 1
            stack.append(v)
            on.add(v)
            for w in g.get(v, {}):
                if w not in index:
                    visit(w)
                    low[v] = min(low[v], low[w])
                elif w in on:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))

        sys.setrecursionlimit(10000)
        for v in sorted(g):
            if v not in index:
                visit(v)
        result = []
        for comp in sorted(comps):
            ties = []
            for a in comp:
                for b in comp:
                    if b in g[a]:
                        ties.append("%s -> %s: %s" % (a, b, ", ".join(sorted(g[a][b])[:4])))
            result.append((comp, ties))
        return result

    def offenders(self):
        """{key: explanation}; a key is what layout-known.txt lists."""
        out = {}
        for p in self.c_files:
            n = self.files[p].count("\n")
            if n > MAX_FILE_LINES:
                out["file %s" % p] = "%d lines (at most %d)" % (n, MAX_FILE_LINES)
            for name, a, b, _ in self.funcs[p]:
                if b - a + 1 > MAX_FUNC_LINES:
                    out["function %s:%s" % (p, name)] = "%d lines at line %d (at most %d)" % (
                        b - a + 1, a, MAX_FUNC_LINES)
        for comp, ties in self.circles():
            out["circle %s" % " ".join(comp)] = "; ".join(ties)
        return out


LAYER_ROW = re.compile(r"^\|\s*(\d+)\s*\|([^|]*)\|")
LAYER_NAME = re.compile(r"`([^`]+)`")


def read_layers(path):
    """{folder: layer} from the "## Layers" table of docs/architecture.md (`x/` or `main.c`)."""
    layers = {}
    section = False
    with open(path, encoding="utf-8") as fh:
        for ln in fh:
            if ln.startswith("## "):
                section = ln.strip() == "## Layers"
                continue
            m = LAYER_ROW.match(ln) if section else None
            if m:
                for name in LAYER_NAME.findall(m.group(2)):
                    layers[name.rstrip("/")] = int(m.group(1))
    return layers


def folder_of(path):
    """agent/hw/pci.c -> hw; agent/main.c -> main.c."""
    parts = path.split(os.sep)
    return parts[1] if len(parts) > 2 else parts[-1]


def layer_offenders(house, layers):
    """{key: explanation}: a folder missing from the table, an include of a folder not below."""
    out = {}
    ups = {}
    for p in sorted(house.files):
        src = folder_of(p)
        if src not in layers:
            out["layer %s" % os.path.dirname(p)] = "not in the table of docs/architecture.md"
            continue
        for inc in INCLUDE.findall(house.files[p]):
            q = house.resolve(p, inc)
            if not q or folder_of(q) == src:
                continue
            dst = folder_of(q)
            if dst in layers and layers[dst] < layers[src]:
                continue
            ups.setdefault((src, dst), []).append("%s includes %s" % (p, inc))
    for (src, dst), why in sorted(ups.items()):
        out["layer agent/%s -> agent/%s" % (src, dst)] = "; ".join(why[:4])
    return out


def read_known(path):
    known = []
    with open(path, encoding="utf-8") as fh:
        for ln in fh:
            ln = ln.split("#", 1)[0].strip()
            if ln:
                known.append(ln)
    return known


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.normpath(os.path.join(here, "..", "..")))
    ap.add_argument("--known", default=os.path.join(here, "layout-known.txt"))
    ap.add_argument("--list", action="store_true", help="print every offender, known or not")
    args = ap.parse_args()

    house = House(args.root)
    found = house.offenders()
    found.update(layer_offenders(house, read_layers(os.path.join(args.root, "docs",
                                                                  "architecture.md"))))
    if args.list:
        for k in sorted(found):
            print("%s\t%s" % (k, found[k]))
        return 0
    known = read_known(args.known)
    bad = 0
    for k in sorted(found):
        if k not in known:
            print("new offender: %s: %s" % (k, found[k]))
            bad += 1
    for k in known:
        if k not in found:
            print("%s: %s is mended: remove it from the list" % (args.known, k))
            bad += 1
    print("%d offenders, %d known, %d problems" % (len(found), len(known), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
