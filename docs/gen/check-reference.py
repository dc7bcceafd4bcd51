#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The generated reference pages are what the code and the rules say, and every relative link
in the documentation leads somewhere.

  check-reference.py GEN_EVENT_FIELDS           compare (meson test reference-docs, suite unit)
  check-reference.py --update GEN_EVENT_FIELDS  rewrite docs/reference/ (ninja update-reference)

GEN_EVENT_FIELDS is the built docs/gen/gen-event-fields. Under `meson test --setup valgrind`
(RG_TEST_WRAPPER set) the generator runs under it too. Exit 0 all hold, 1 not."""
import difflib
import glob
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REGEN = "ninja -C build update-reference"


def generate(gen_event_fields):
    wrapper = shlex.split(os.environ.get("RG_TEST_WRAPPER", ""))
    ev = subprocess.run(wrapper + [gen_event_fields], capture_output=True, text=True,
                        check=False, timeout=600)
    if ev.returncode != 0:
        sys.exit(f"{gen_event_fields} failed ({ev.returncode}): {ev.stderr}")
    rules = subprocess.run([sys.executable, os.path.join(ROOT, "docs", "gen", "gen-rules.py")],
                           capture_output=True, text=True, check=False, timeout=60)
    if rules.returncode != 0:
        sys.exit(f"gen-rules.py failed ({rules.returncode}): {rules.stderr}")
    return {"docs/reference/event-fields.md": ev.stdout, "docs/reference/rules.md": rules.stdout}


def doc_files():
    files = ["README.md", "tests/vm/README.md"]
    files += sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))
    files += sorted(glob.glob(os.path.join(ROOT, "bench", "results", "*-notes.md")))
    return [os.path.relpath(os.path.join(ROOT, f), ROOT) for f in files]


def check_links(failures):
    """Every relative link [text](path[#anchor]) of the docs names a file or directory that
    exists; a #anchor into a markdown file names one of its headings."""
    for rel in doc_files():
        path = os.path.join(ROOT, rel)
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        text = re.sub(r"```.*?```", "", text, flags=re.S)
        for m in re.finditer(r"\]\(([^)\s]+)\)", text):
            target = m.group(1)
            if re.match(r"[a-z]+:", target):
                continue
            file_part, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) \
                if file_part else path
            if not os.path.exists(dest):
                failures.append(f"{rel}: link to {target}: no such file")
                continue
            if anchor and dest.endswith(".md") and anchor not in anchors(dest):
                failures.append(f"{rel}: link to {target}: no heading with that anchor")


def anchors(md):
    """GitHub's heading anchors of a markdown file."""
    with open(md, encoding="utf-8") as f:
        text = re.sub(r"```.*?```", "", f.read(), flags=re.S)
    out = set()
    for h in re.findall(r"^#+\s+(.*)$", text, re.M):
        a = re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
        out.add(a)
    return out


def main():
    args = sys.argv[1:]
    update = "--update" in args
    args = [a for a in args if a != "--update"]
    if len(args) != 1:
        sys.exit(__doc__)
    pages = generate(args[0])
    failures = []
    for rel, want in pages.items():
        path = os.path.join(ROOT, rel)
        if update:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(want)
            print(f"wrote {rel}")
            continue
        try:
            with open(path, encoding="utf-8") as f:
                have = f.read()
        except FileNotFoundError:
            have = ""
        if have == want:
            print(f"ok   {rel} is what the code generates")
        else:
            diff = "".join(difflib.unified_diff(have.splitlines(True), want.splitlines(True),
                                                f"a/{rel} (committed)", f"b/{rel} (generated)"))
            print(f"FAIL {rel} differs from what the code generates:\n{diff}")
            failures.append(f"{rel} is out of date: regenerate it with `{REGEN}` and commit it")
    if update:
        return 0
    before = len(failures)
    check_links(failures)
    if len(failures) == before:
        print("ok   every relative link of the docs resolves")
    for f in failures:
        print(f"FAIL {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
