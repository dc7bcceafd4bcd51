# SPDX-License-Identifier: GPL-2.0-or-later
"""The figures of bench/bench.py, one module each (syscall, verbs, pipeline, latency, footprint,
audit), what they share (common, daemon, comparators, vmlab) and the driver that runs them."""
