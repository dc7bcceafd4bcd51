# SPDX-License-Identifier: GPL-2.0-or-later
"""The footprint figure: the daemon's memory (RSS, BPF maps) idle and after 10,000 processes
and 100,000 events."""

import os
import re

from .common import CLEANUPS, fmt_bytes, log, run
from .daemon import Daemon


class FootprintFigure:
    """The footprint figure (a mixin of Bench)."""

    @staticmethod
    def memory(pid):
        st = {}
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmRSS", "VmHWM", "RssAnon", "RssFile", "RssShmem"):
                    st[k] = int(v.split()[0]) * 1024
        groups = {}
        name = None
        with open(f"/proc/{pid}/smaps") as f:
            for line in f:
                if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                    parts = line.split(None, 5)
                    path = parts[5].strip() if len(parts) > 5 else ""
                    if path == "anon_inode:bpf-map":
                        name = "BPF ring buffer mapping (data mapped twice)"
                    elif path == "[heap]":
                        name = "heap"
                    elif path == "":
                        name = "anonymous (thread stacks, large allocations)"
                    elif path.endswith("/rdmaguard"):
                        name = "rdmaguard binary"
                    elif ".so" in path:
                        name = "shared libraries"
                    else:
                        name = path
                elif line.startswith("Rss:") and name:
                    groups[name] = groups.get(name, 0) + int(line.split()[1]) * 1024
        maps, seen = 0, set()
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") != "anon_inode:bpf-map":
                    continue
                info = dict(l.split(":", 1) for l in open(f"/proc/{pid}/fdinfo/{fd}")
                            if ":" in l)
            except OSError:
                continue
            mid = info.get("map_id", "").strip()
            if mid and mid not in seen:
                seen.add(mid)
                maps += int(info.get("memlock", "0"))
        return {"status": st, "smaps": groups, "bpf_memlock": maps, "bpf_maps": len(seen)}

    def fig_footprint(self):
        d = Daemon(self).start()
        try:
            pid = d.proc.pid
            s0 = d.status()
            idle = self.memory(pid)
            idle["rss_bytes"] = s0["rss_bytes"]
            spawns, n_events = 10000, 100000
            log(f"footprint: {spawns} processes, {n_events} verbs events")
            # paced at most 100,000 events/s: the footprint after the events, not a loss test
            p = run([os.path.join(self.build, "bench", "event_storm"), "-s", str(spawns),
                     "-n", str(n_events), "-b", "1000", "-p", "10000"], timeout=900)

            def caught_up(st):
                verbs = st["events"]["by_type"].get("verbs", 0) - \
                    s0["events"]["by_type"].get("verbs", 0)
                return verbs + st["sensors"]["lost_total"] - s0["sensors"]["lost_total"] \
                    >= n_events
            d.settle(until=caught_up)
            s1 = d.status()
            loaded = self.memory(pid)
            loaded["rss_bytes"] = s1["rss_bytes"]
        finally:
            d.stop()
            CLEANUPS.remove(d.stop)
        got = s1["events"]["total"] - s0["events"]["total"]
        lost = s1["sensors"]["lost_total"] - s0["sensors"]["lost_total"]
        self.details["footprint"] = {"idle": idle, "loaded": loaded, "events": got, "lost": lost,
                                     "proctree": s1["proctree"], "storm": p.stdout}
        load = f"after {spawns:,} processes and {got:,} events ({lost:,} lost)"
        limit = 16 * 1048576
        self.row("footprint", f"daemon RSS {load} (status rss_bytes)", fmt_bytes(idle["rss_bytes"]),
                 fmt_bytes(loaded["rss_bytes"]), loaded["rss_bytes"] / idle["rss_bytes"],
                 "< 16 MiB", loaded["rss_bytes"] < limit, "baseline: idle")
        rb = "BPF ring buffer mapping (data mapped twice)"
        self.row("footprint", "daemon RSS less the ring buffer's mapping (its BPF map memory, "
                 "mapped twice, counted in the BPF maps below)",
                 fmt_bytes(idle["rss_bytes"] - idle["smaps"].get(rb, 0)),
                 fmt_bytes(loaded["rss_bytes"] - loaded["smaps"].get(rb, 0)), None, "< 16 MiB",
                 loaded["rss_bytes"] - loaded["smaps"].get(rb, 0) < limit)
        self.row("footprint", "daemon private memory (RssAnon: heap, tables, stacks)",
                 fmt_bytes(idle["status"]["RssAnon"]), fmt_bytes(loaded["status"]["RssAnon"]),
                 loaded["status"]["RssAnon"] / idle["status"]["RssAnon"], "(report)", None)
        self.row("footprint", "daemon peak RSS (VmHWM)", fmt_bytes(idle["status"]["VmHWM"]),
                 fmt_bytes(loaded["status"]["VmHWM"]), None, "< 16 MiB",
                 loaded["status"]["VmHWM"] < limit)
        self.row("footprint", "BPF maps (memlock, kernel memory)", fmt_bytes(idle["bpf_memlock"]),
                 fmt_bytes(loaded["bpf_memlock"]), loaded["bpf_memlock"] / idle["bpf_memlock"],
                 "bounded", loaded["bpf_memlock"] == idle["bpf_memlock"],
                 f"{loaded['bpf_maps']} maps")
        if got < n_events:
            self.fail("footprint", f"the daemon saw {got} events, fewer than the {n_events} "
                      "generated")
