# SPDX-License-Identifier: GPL-2.0-or-later
"""The check of the Python tests that go on after a failed check (TAP-style lines).

    check(cond, what[, detail])  prints "ok - WHAT" or "not ok - WHAT" (and "  # DETAIL")
    failed()                     how many checks failed so far
    summary()                    prints "PASS/FAIL: N failure(s)"; returns the exit status (0/1)

Each test adds tests/lib to sys.path and imports it; the state is the test process's own.
"""

_failures = 0


def check(cond, what, detail=None):
    global _failures
    if cond:
        print(f"ok - {what}")
        return True
    _failures += 1
    print(f"not ok - {what}")
    if detail is not None:
        print(f"  # {str(detail)[:3000]}")
    return False


def failed():
    return _failures


def summary():
    print(f"{'FAIL' if _failures else 'PASS'}: {_failures} failure(s)")
    return 1 if _failures else 0
