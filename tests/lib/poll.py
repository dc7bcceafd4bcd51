# SPDX-License-Identifier: GPL-2.0-or-later
"""Waiting on a condition in the Python tests that go on after a failed check (tap.py).

    poll(fn, timeout[, interval])  calls fn until it returns something true or timeout seconds
                                   have passed; returns fn's last value (false on a timeout),
                                   which the caller hands to check()

The tests that stop at the first failure (tests/integration/output, tests/integration/fleet) raise
instead.
"""
import time


def poll(fn, timeout, interval=0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        res = fn()
        if res:
            return res
        time.sleep(interval)
    return fn()
