#!/usr/bin/python3
"""Instructions per event of the event pipeline (`rdmaguard replay`: JSON parsing, decoding, the
rule engine, alert building and serialisation, the file output's thread), counted by
valgrind --tool=callgrind, which is deterministic: it counts instructions, not time.

    instructions.py [--check | --update | --json] [--rdmaguard PATH]

Two replays of event files generated from the committed seed (bench/data/seed-events.jsonl,
by bench/gen_events.py) with SMALL and LARGE events; per event = (Ir(LARGE) - Ir(SMALL)) /
(LARGE - SMALL), so start-up (rules, policy, outputs) cancels out. Also splits the cost by
function (inclusive, the same difference): where the time goes.

--check   compare with bench/baseline.json: exit 1 if the alerts per event differ or the count
          rose by more than its tolerance (10%), 0 otherwise (a drop of more than the tolerance
          is reported, so that the baseline can be lowered with --update); 77 when the build
          type or the compiler is not the one the baseline was measured with (instruction
          counts depend on both)
--update  measure and rewrite bench/baseline.json
--json    measure and print the result as JSON (bench/run.sh)
Environment: RG_RDMAGUARD (default build/agent/rdmaguard), RG_SOURCE_ROOT, RG_BUILDTYPE, RG_CC
(meson's compiler id).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SRC = os.environ.get("RG_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEED = os.path.join(SRC, "bench", "data", "seed-events.jsonl")
BASELINE = os.path.join(SRC, "bench", "baseline.json")
GEN = os.path.join(SRC, "bench", "gen_events.py")
SMALL, LARGE = 500, 5500
PY = "/usr/bin/python3"
INCIDENT_RECORD = '"dataset":"rdmaguard.incident"'  # what tells a record from an alert
# "  954,454,307 (39.53%)  build/../agent/engine/engine.c:engine_process [/path/rdmaguard]"
ANN_LINE = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+.*?:([A-Za-z_][\w.]*)(?:'\d+)?(?:\s+\[.*\])?\s*$")

# Inclusive cost of these functions, in order: what each stage of the pipeline costs.
STAGES = [
    ("read", "event_reader_read", "replay: the JSON line read into struct rg_event"),
    ("engine", "engine_process", "engine: process tree, rules, aggregation, alerts (all below)"),
    ("alert", "engine_emit_alert",
     "engine: each alert written as JSON text (common/jsonw) and handed over"),
    ("alert_submit", "outputs_submit_alert", "output: the alert's text copied and queued"),
    ("incident", "engine_incident_add",
     "engine: each alert into its incident (stages, facts, kept log) and its records"),
    ("output_thread", "file_thread", "output: the file output thread (write)"),
]


def replay_args(rg, events, alerts):
    return [rg, "replay", events, "--rules", os.path.join(SRC, "rules"),
            "--policy", os.path.join(SRC, "bench", "data", "policy.json"),
            "--output", "file:" + alerts, "--hostname", "bench-host",
            "--boot-id", "00000000-0000-4000-8000-000000000000",
            "--boot-time", "2026-12-01T00:00:00Z", "--flush-timeout", "30",
            # the incident records to the output too, as the daemon sends them
            "--incidents"]


def callgrind(rg, events, workdir, tag):
    out = os.path.join(workdir, f"callgrind.{tag}")
    alerts = os.path.join(workdir, f"alerts.{tag}.jsonl")
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
                        "--separate-threads=no"] + replay_args(rg, events, alerts),
                       capture_output=True, text=True, timeout=1800)
    if p.returncode not in (0, 1):
        raise RuntimeError(f"replay under callgrind exited {p.returncode}: {p.stderr[-2000:]}")
    total = None
    for line in p.stderr.splitlines():
        if "Collected :" in line:
            total = int(line.rsplit(":", 1)[1].strip())
    if total is None:
        raise RuntimeError("no 'Collected' line from callgrind: " + p.stderr[-2000:])
    ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out],
                         capture_output=True, text=True, timeout=600)
    if ann.returncode != 0:
        raise RuntimeError("callgrind_annotate failed: " + ann.stderr[-2000:])
    incl = {}
    wanted = {fn for _, fn, _ in STAGES}
    for line in ann.stdout.splitlines():
        m = ANN_LINE.match(line)
        if m and m.group(2) in wanted:
            # the first (largest) line of a function is its whole inclusive cost; a recursive
            # function's inner calls ('2) are inside it
            incl.setdefault(m.group(2), int(m.group(1).replace(",", "")))
    with open(alerts, encoding="utf-8") as f:
        n_alerts = sum(1 for l in f if INCIDENT_RECORD not in l)
    return total, incl, n_alerts


def measure(rg):
    if not shutil.which("valgrind") or not shutil.which("callgrind_annotate"):
        raise RuntimeError("valgrind not found: apt-get install valgrind")
    with tempfile.TemporaryDirectory(prefix="rg-instr-") as tmp:
        res = {}
        for tag, n in (("small", SMALL), ("large", LARGE)):
            ev = os.path.join(tmp, f"events.{tag}.jsonl")
            subprocess.run([PY, GEN, SEED, str(n), ev], check=True, capture_output=True)
            res[tag] = callgrind(rg, ev, tmp, tag)
    (t_s, i_s, a_s), (t_l, i_l, a_l) = res["small"], res["large"]
    per = (t_l - t_s) / (LARGE - SMALL)
    stages = {}
    for key, fn, what in STAGES:
        if fn in i_l:
            stages[key] = {"function": fn, "what": what,
                           "per_event": round((i_l[fn] - i_s.get(fn, 0)) / (LARGE - SMALL))}
    return {"instructions_per_event": round(per), "events": [SMALL, LARGE],
            "instructions": [t_s, t_l], "alerts_per_event": round((a_l - a_s) / (LARGE - SMALL), 4),
            "stages": stages}


def main(argv):
    mode = "--json"
    rg = os.environ.get("RG_RDMAGUARD") or os.path.join(SRC, "build", "agent", "rdmaguard")
    i = 1
    while i < len(argv):
        if argv[i] in ("--check", "--update", "--json"):
            mode = argv[i]
        elif argv[i] == "--rdmaguard" and i + 1 < len(argv):
            rg = argv[i + 1]
            i += 1
        else:
            print(__doc__, file=sys.stderr)
            return 2
        i += 1
    with open(BASELINE, encoding="utf-8") as f:
        base = json.load(f)
    buildtype, cc = os.environ.get("RG_BUILDTYPE"), os.environ.get("RG_CC")
    if mode == "--check" and buildtype and buildtype != base["buildtype"]:
        print(f"SKIP: the baseline was measured on a '{base['buildtype']}' build, this one is "
              f"'{buildtype}': instruction counts depend on the optimisation level")
        return 77
    if mode == "--check" and cc and cc != base.get("compiler", cc):
        print(f"SKIP: the baseline was measured with {base['compiler']}, this build uses {cc}: "
              f"instruction counts depend on the compiler")
        return 77
    m = measure(rg)
    if mode == "--json":
        m["baseline"] = base["instructions_per_event"]
        m["tolerance"] = base["tolerance"]
        print(json.dumps(m))
        return 0
    if mode == "--update":
        if buildtype:
            base["buildtype"] = buildtype
        if cc:
            base["compiler"] = cc
        base.update(instructions_per_event=m["instructions_per_event"],
                    alerts_per_event=m["alerts_per_event"], stages=m["stages"])
        with open(BASELINE, "w", encoding="utf-8") as f:
            json.dump(base, f, indent=2)
            f.write("\n")
        print(f"{BASELINE}: {m['instructions_per_event']} instructions per event")
        return 0
    ref, tol, got = base["instructions_per_event"], base["tolerance"], m["instructions_per_event"]
    ratio = got / ref
    print(f"instructions per event: {got} (baseline {ref}, ratio {ratio:.3f}, "
          f"tolerance +{tol:.0%}); alerts per event {m['alerts_per_event']} "
          f"(baseline {base.get('alerts_per_event')})")
    for key, s in m["stages"].items():
        was = base.get("stages", {}).get(key, {}).get("per_event")
        print(f"  {key:14} {s['per_event']:>8} (baseline {was})  {s['what']}")
    # Alerts cost most of the instructions: a pipeline that stops alerting is faster, so a
    # different number of alerts for the same events fails before any count is compared. One
    # alert more or less moves the figure by 1 / (LARGE - SMALL) = 0.0002; the baseline keeps 4
    # decimals.
    want = base.get("alerts_per_event")
    if want is None or abs(m["alerts_per_event"] - want) > 0.5 / (LARGE - SMALL):
        print(f"FAIL: the same events gave {m['alerts_per_event']} alerts per event, the "
              f"baseline {want}: the seed, the rules or the engine changed what alerts; find out "
              f"why, or if it is intended, run bench/instructions.py --update and commit it")
        return 1
    if ratio > 1 + tol:
        print(f"FAIL: the pipeline costs {ratio - 1:.1%} more instructions per event than the "
              f"baseline (bench/baseline.json); find out why, or if it is intended, run "
              f"bench/instructions.py --update and commit the new baseline")
        return 1
    if ratio < 1 - tol:
        print(f"NOTE: {1 - ratio:.1%} fewer instructions than the baseline: lower it with "
              f"bench/instructions.py --update")
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
