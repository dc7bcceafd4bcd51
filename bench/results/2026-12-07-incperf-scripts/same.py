#!/usr/bin/python3
"""same.py OUTDIR RDMAGUARD SRC: replay --incidents of the café seat, each rule fixture and
60,000 generated events; outputs normalised (random alert uuids numbered by first appearance,
event.created dropped) into OUTDIR; also `incidents --format json` and `explain` of the café."""
import glob, json, os, re, subprocess, sys
out, rg, src = sys.argv[1:4]
os.makedirs(out, exist_ok=True)
sys.path.insert(0, os.path.join(src, "tests", "integration", "engine"))
import test_incidents
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")
CREATED = re.compile(r'"created":"[^"]*",')
def norm(path):
    m = {}
    def sub(x):
        return "UUID%d" % m.setdefault(x.group(0), len(m))
    with open(path) as f:
        return "".join(UUID.sub(sub, CREATED.sub("", l)) for l in f)
FIXED = ["--hostname", "h", "--boot-id", "11111111-2222-3333-4444-555555555555",
         "--boot-time", "2026-01-10T00:00:00Z"]
fx = os.path.join(src, "tests", "fixtures", "events")
jobs = []
cafe = os.path.join(out, "cafe.events.jsonl")
with open(cafe, "w") as f:
    for e in test_incidents.cafe():
        f.write(json.dumps(e) + "\n")
jobs.append(("cafe", cafe, os.path.join(fx, "policy.json")))
for p in sorted(glob.glob(os.path.join(fx, "*.jsonl"))):
    if p.endswith(".expected.jsonl"):
        continue
    name = os.path.basename(p)[:-6]
    pol = os.path.join(fx, name + ".policy.json")
    jobs.append((name, p, pol if os.path.exists(pol) else os.path.join(fx, "policy.json")))
gen = os.path.join(out, "gen.events.jsonl")
subprocess.run(["/usr/bin/python3", os.path.join(src, "bench", "gen_events.py"),
                os.path.join(src, "bench", "data", "seed-events.jsonl"), "60000", gen], check=True,
               capture_output=True)
jobs.append(("gen60k", gen, os.path.join(src, "bench", "data", "policy.json")))
for name, ev, pol in jobs:
    raw = os.path.join(out, name + ".raw")
    subprocess.run([rg, "replay", ev, "--incidents", "--policy", pol, "--rules",
                    os.path.join(src, "rules"), "--output", "file:" + raw] + FIXED,
                   capture_output=True)
    with open(os.path.join(out, name + ".out"), "w") as f:
        f.write(norm(raw))
    os.unlink(raw)
    if name in ("cafe", "gen60k"):
        r = subprocess.run([rg, "incidents", ev, "--format", "json", "--policy", pol, "--rules",
                            os.path.join(src, "rules")] + FIXED, capture_output=True, text=True)
        tmp = os.path.join(out, name + ".inc.raw")
        with open(tmp, "w") as f:
            f.write(r.stdout + r.stderr)
        with open(os.path.join(out, name + ".incidents"), "w") as f:
            f.write(norm(tmp))
        os.unlink(tmp)
os.unlink(gen)
print("done", len(jobs))
