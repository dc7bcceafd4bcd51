#!/usr/bin/python3
"""Check a JSON document or a JSON-lines file against expectations (stdlib only).

usage: expect.py FILE [--records PATH] [--quiet]
                 --match JSON [--count N | --min N | --max N | --absent] [--get PATH]
                 [--match JSON ...]...

FILE is a JSON document or JSON lines (one value per line); "-" reads stdin. Records are the
top-level objects: the document itself, the elements of a top-level array, or one per line (a
line holding an array contributes its elements). --records PATH takes the records from the list
at PATH inside each of those instead (e.g. --records findings for an audit report).

Each --match is a JSON object; a record matches when every key matches. Keys are dotted paths:
"rdma.mr.length" walks nested objects ({"rdma": {"mr": {"length": 1}}}), and a key that itself
contains dots ({"rdma.mr.length": 1}) is found too; a numeric part indexes a list, any other part
applied to a list looks into each element. Nested objects in the expectation are paths as well:
{"rdma": {"op": "reg_mr"}} is {"rdma.op": "reg_mr"}. Expected values:
  scalar          equal, type included (1 is not "1", true is not 1; 1 equals 1.0)
  "~REGEX"        a string that re.search finds REGEX in ("~~x" is the literal string "~x")
  [a, b]          a list that contains a match for each of a, b
  {OP: arg}       an object whose keys are all operators: "==" (exact, lists included), "!=",
                  ">", ">=", "<", "<=" (numbers), "=~" (regex), "#" (length of a list, string
                  or object), "|" (matches one of a list of values), "?" (true/false: the path
                  resolves or not). {">=": 1, "<": 10} is a range.
Each --match needs at least one matching record unless followed by --count N (exactly N), --min N,
--max N or --absent (none). --get PATH prints PATH of every matching record, one per line.

Exit status: 0 every expectation holds, 1 one does not (with the closest candidates), 2 usage or
input error (unreadable file, invalid JSON).
"""

import json
import re
import sys

MISSING = object()
OPS = {"==", "!=", ">", ">=", "<", "<=", "=~", "#", "|", "?"}


class UsageError(Exception):
    pass


def show(value, limit=200):
    if value is MISSING:
        return "<missing>"
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def load_records(path, records_path):
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror}") from e
    # (record, where) pairs; where says the line for JSON lines.
    out = []
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        doc = MISSING
    if doc is not MISSING:
        values = [(doc, None)]
    else:
        values = []
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                values.append((json.loads(line), n))
            except json.JSONDecodeError as e:
                raise UsageError(f"{path}:{n}: invalid JSON: {e.msg} at column {e.colno}") from e
    for value, line in values:
        elems = value if isinstance(value, list) else [value]
        for i, elem in enumerate(elems):
            where = f"line {line}" if line is not None else "document"
            if isinstance(value, list):
                where += f", element {i}"
            if records_path is None:
                out.append((elem, where))
                continue
            found = False
            for inner in resolve(elem, records_path.split(".")):
                found = True
                if not isinstance(inner, list):
                    raise UsageError(f"{path}: {where}: --records {records_path} is not a list")
                out.extend((r, f"{where}, {records_path}[{j}]") for j, r in enumerate(inner))
            if not found and line is None:
                raise UsageError(f"{path}: no {records_path} in the document")
    return out


def resolve(obj, parts):
    """Yield every value at the dotted path parts inside obj."""
    if not parts:
        yield obj
        return
    if isinstance(obj, dict):
        # The longest literal key first: "process.pid" may be a key of its own.
        for i in range(len(parts), 0, -1):
            key = ".".join(parts[:i])
            if key in obj:
                yield from resolve(obj[key], parts[i:])
    elif isinstance(obj, list):
        if parts[0].isdigit():
            idx = int(parts[0])
            if idx < len(obj):
                yield from resolve(obj[idx], parts[1:])
        else:
            for elem in obj:
                yield from resolve(elem, parts)


def is_ops(value):
    return isinstance(value, dict) and value and all(k in OPS for k in value)


def flatten(spec, prefix=""):
    """Expectation object -> [(dotted path, expected value)]."""
    if not isinstance(spec, dict):
        raise UsageError(f"--match must be a JSON object, not {show(spec)}")
    out = []
    for key, value in spec.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and value and not is_ops(value):
            out.extend(flatten(value, path + "."))
        else:
            if is_ops(value):
                check_ops(path, value)
            out.append((path, value))
    return out


def check_ops(path, ops):
    for op, arg in ops.items():
        if op in (">", ">=", "<", "<=") and not is_number(arg):
            raise UsageError(f"{path}: {op} needs a number, not {show(arg)}")
        if op == "#" and (not isinstance(arg, int) or isinstance(arg, bool)):
            raise UsageError(f"{path}: # needs an integer length, not {show(arg)}")
        if op == "|" and not isinstance(arg, list):
            raise UsageError(f"{path}: | needs a list of values, not {show(arg)}")
        if op == "=~":
            if not isinstance(arg, str):
                raise UsageError(f"{path}: =~ needs a regular expression string")
            try:
                re.compile(arg)
            except re.error as e:
                raise UsageError(f"{path}: bad regular expression {arg!r}: {e}") from e
        if op == "?" and not isinstance(arg, bool):
            raise UsageError(f"{path}: ? needs true or false")


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def equal(a, b):
    """Deep equality that keeps JSON types apart (true != 1) but lets 1 == 1.0."""
    if is_number(a) and is_number(b):
        return a == b
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    return a == b


def value_matches(expected, actual):
    if is_ops(expected):
        return all(op_matches(op, arg, actual) for op, arg in expected.items() if op != "?")
    if isinstance(expected, str) and expected.startswith("~"):
        if expected.startswith("~~"):
            return actual == expected[1:]
        return isinstance(actual, str) and re.search(expected[1:], actual) is not None
    if isinstance(expected, list):
        return isinstance(actual, list) and all(
            any(value_matches(e, a) for a in actual) for e in expected
        )
    return equal(expected, actual)


def op_matches(op, arg, actual):
    if op == "==":
        return equal(arg, actual)
    if op == "!=":
        return not equal(arg, actual)
    if op in (">", ">=", "<", "<="):
        if not (is_number(actual) and is_number(arg)):
            return False
        return {
            ">": actual > arg,
            ">=": actual >= arg,
            "<": actual < arg,
            "<=": actual <= arg,
        }[op]
    if op == "=~":
        return isinstance(actual, str) and re.search(arg, actual) is not None
    if op == "#":
        return isinstance(actual, (list, str, dict)) and len(actual) == arg
    if op == "|":
        return any(value_matches(a, actual) for a in arg)
    raise AssertionError(op)


def values_at(record, path):
    """The values at path. An alert in ECS's layout (rdmaguard.schema_version 2,
    docs/operations.md) has the event's fields that ECS lacks under rdmaguard.*, and the
    alert's own severity, count, action and rule.action there too: a path the scenarios write
    with the event's names (rdma.op, severity) is looked up there as well."""
    values = list(resolve(record, path.split(".")))
    if not values and isinstance(record, dict) and \
            record.get("rdmaguard", {}).get("schema_version") == 2:
        values = list(resolve(record, ("rdmaguard." + path).split(".")))
    return values


def key_matches(record, path, expected):
    values = values_at(record, path)
    if is_ops(expected) and "?" in expected:
        if bool(values) != bool(expected["?"]):
            return False
        if not values:
            return True
    return any(value_matches(expected, v) for v in values)


def describe_miss(record, path, expected):
    values = values_at(record, path)
    got = show(MISSING) if not values else ", ".join(show(v, 80) for v in values)
    return f"{path}: expected {show(expected, 80)}, got {got}"


def index_key(v):
    """A hashable key under which every value equal() to v files (numbers: 1 and 1.0 alike;
    different values may share a key, never equal ones); None for lists and objects."""
    if isinstance(v, bool):
        return ("b", v)
    if is_number(v):
        return ("n", float(v))
    if isinstance(v, str):
        return ("s", v)
    if v is None:
        return ("z",)
    return None


class Records:
    """The records, with an index per dotted path of the scalar values there (built when first
    asked for): an expectation with a plain value for a path (a pid) only looks at the records
    filed under it, instead of every key of every record. Many expectations on a few thousand
    records took minutes of python under software emulation; this takes seconds."""

    def __init__(self, records):
        self.records = records
        self.index = {}

    def __len__(self):
        return len(self.records)

    def __iter__(self):
        return iter(self.records)

    def by_path(self, path):
        idx = self.index.get(path)
        if idx is None:
            idx = {}
            for i, (r, _) in enumerate(self.records):
                for v in values_at(r, path):  # the ECS layout's rdmaguard.* too
                    k = index_key(v)
                    if k is None:
                        continue
                    bucket = idx.setdefault(k, [])
                    if not bucket or bucket[-1] != i:
                        bucket.append(i)
            self.index[path] = idx
        return idx

    def candidates(self, keys):
        """The records that can match keys (all of them if no key is indexable), in order."""
        best = None
        for path, expected in keys:
            k = None
            if not (isinstance(expected, str) and expected.startswith("~")):
                k = index_key(expected)
            if k is None:
                continue
            bucket = self.by_path(path).get(k, [])
            if best is None or len(bucket) < len(best):
                best = bucket
        if best is None:
            return self.records
        return [self.records[i] for i in best]


class Expectation:
    def __init__(self, spec_text):
        try:
            spec = json.loads(spec_text)
        except json.JSONDecodeError as e:
            raise UsageError(f"--match {spec_text}: invalid JSON: {e.msg}") from e
        self.text = json.dumps(spec, sort_keys=True)
        self.keys = flatten(spec)
        if not self.keys:
            raise UsageError("--match {} matches everything: give at least one key")
        self.lo, self.hi = 1, None
        self.lo_given = False
        self.get = None

    def describe_count(self):
        if self.lo == self.hi:
            return "no" if self.lo == 0 else f"exactly {self.lo}"
        if self.hi is None:
            return f"at least {self.lo}"
        if self.lo == 0:
            return f"at most {self.hi}"
        return f"between {self.lo} and {self.hi}"

    def check(self, path, records, quiet):
        matching = [
            (r, w)
            for r, w in records.candidates(self.keys)
            if all(key_matches(r, p, e) for p, e in self.keys)
        ]
        n = len(matching)
        ok = n >= self.lo and (self.hi is None or n <= self.hi)
        if self.get is not None and ok:
            for r, _ in matching:
                for v in resolve(r, self.get.split(".")):
                    print(v if isinstance(v, str) else json.dumps(v))
        if ok:
            if not quiet:
                print(
                    f"expect: ok: {n} record(s) match {self.text} in {path}",
                    file=sys.stderr if self.get is not None else sys.stdout,
                )
            return True
        print(
            f"expect: FAILED: {path}: expected {self.describe_count()} record(s) matching "
            f"{self.text}, found {n} (of {len(records)} records)",
            file=sys.stderr,
        )
        if n > 0:
            print("  matching records:", file=sys.stderr)
            for r, w in matching[:5]:
                print(f"  - {w}: {show(r, 400)}", file=sys.stderr)
            if n > 5:
                print(f"  ... and {n - 5} more", file=sys.stderr)
            return False
        scored = []
        for i, (r, w) in enumerate(records):
            misses = [describe_miss(r, p, e) for p, e in self.keys if not key_matches(r, p, e)]
            scored.append((len(misses), i, r, w, misses))
        scored.sort(key=lambda s: (s[0], s[1]))
        if not scored:
            print("  (the file holds no records)", file=sys.stderr)
        else:
            print("  closest candidates:", file=sys.stderr)
        for nmiss, _, r, w, misses in scored[:3]:
            print(
                f"  - {w}: {len(self.keys) - nmiss} of {len(self.keys)} keys match",
                file=sys.stderr,
            )
            for m in misses:
                print(f"      {m}", file=sys.stderr)
            print(f"      {show(r, 400)}", file=sys.stderr)
        return False


def count_arg(opt, value):
    try:
        n = int(value)
    except (TypeError, ValueError):
        n = -1
    if n < 0:
        raise UsageError(f"{opt} needs a count >= 0, not {value!r}")
    return n


def parse(argv):
    path, records_path, quiet, exps = None, None, False, []
    it = iter(argv)
    for arg in it:
        if arg in ("-h", "--help"):
            print(__doc__)
            sys.exit(0)
        if arg in ("--quiet", "-q"):
            quiet = True
        elif arg == "--records":
            records_path = next(it, None)
            if not records_path:
                raise UsageError("--records needs a path")
        elif arg == "--match":
            spec = next(it, None)
            if spec is None:
                raise UsageError("--match needs a JSON object")
            exps.append(Expectation(spec))
        elif arg in ("--count", "--min", "--max", "--absent", "--get"):
            if not exps:
                raise UsageError(f"{arg} must follow a --match")
            e = exps[-1]
            if arg == "--absent":
                e.lo, e.hi = 0, 0
            elif arg == "--get":
                e.get = next(it, None)
                if not e.get:
                    raise UsageError("--get needs a path")
            else:
                n = count_arg(arg, next(it, None))
                if arg == "--count":
                    e.lo, e.hi = n, n
                elif arg == "--min":
                    e.lo = n
                else:
                    e.hi = n
                    if not e.lo_given:
                        e.lo = 0
                e.lo_given = e.lo_given or arg != "--max"
        elif arg.startswith("-") and arg != "-":
            raise UsageError(f"unknown option {arg}")
        elif path is None:
            path = arg
        else:
            raise UsageError(f"more than one file: {path} and {arg}")
    if path is None:
        raise UsageError("no file given")
    if not exps:
        raise UsageError("no --match given")
    return path, records_path, quiet, exps


def main(argv):
    try:
        path, records_path, quiet, exps = parse(argv)
        records = Records(load_records(path, records_path))
    except UsageError as e:
        print(f"expect: error: {e}", file=sys.stderr)
        print("usage: expect.py FILE [--records PATH] --match JSON [--count N|--min N|--max N|"
              "--absent] [--get PATH]... (--help for more)", file=sys.stderr)
        return 2
    ok = True
    for e in exps:
        ok = e.check(path, records, quiet) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
