# SPDX-License-Identifier: GPL-2.0-or-later
"""The latency figure: from ibv_reg_mr() returning to the alert line in the output file, in the
VM lab."""

from .common import BenchError, fmt_ns, pct


class LatencyFigure:
    """The latency figure (a mixin of Bench)."""

    def fig_latency(self, lab=None, where="VM"):
        """lab: the TCG lab (self.vm) or, with --quick, the -icount lab, whose clock advances a
        nanosecond per instruction executed and skips idle time to the next timer."""
        ms = [m for m in (lab or self.vm)["measurements"] if m["what"] == "latency"]
        if not ms:
            raise BenchError(f"no latency measurements from the {where} lab")
        d = ms[0]["data"]
        line, created = d["line_ns"], d["created_ns"]
        if not line:
            raise BenchError(f"no alert came for any of {d['lost']} samples")
        note = f"{len(line)} samples" + (f", {d['lost']} lost" if d["lost"] else "")
        self.row("latency", f"ibv_reg_mr() returns → RDMA-005 alert line in the file, p50 "
                 f"({where})", "—", fmt_ns(pct(line, 50)), None, "(report)", None, note)
        self.row("latency", f"the same, p99 ({where})", "—", fmt_ns(pct(line, 99)), None,
                 "(report)", None, note)
        self.row("latency", "ibv_reg_mr() returns → the engine builds the alert "
                 f"(event.created), p50 ({where})", "—", fmt_ns(pct(created, 50)), None,
                 "(report)", None, note)
        self.details["latency"] = d
        if d["lost"]:
            self.fail("latency", f"{d['lost']} samples without an alert")
