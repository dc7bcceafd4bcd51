#!/usr/bin/python3
"""summarize.py ROUNDS.txt: per label, events per CPU-second (1M / (user+sys)) per round, the
median, and the median of the per-round ratios to 'noinc' and 'before'."""
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) != 5:
        continue
    r, label, u, s, _ = p
    runs.setdefault(label, {})[int(r)] = float(u) + float(s)
for label, d in runs.items():
    rates = [1e6 / d[r] / 1e6 for r in sorted(d)]
    line = f"{label:8} M/s " + " ".join(f"{x:.3f}" for x in rates) + f"  median {statistics.median(rates):.3f}  max {max(rates):.3f}"
    for ref in ("noinc", "before"):
        if ref in runs and ref != label:
            rat = [runs[ref][r] / d[r] for r in sorted(d) if r in runs[ref]]
            line += f"  rate/{ref} median {statistics.median(rat):.3f}"
    print(line)
