#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The Debian package, end to end, as root:

1. builds the .deb with packaging/build-deb.sh (reused while the source tree is unchanged);
2. lintian: no error (warnings and infos are listed);
3. a clean Debian 12 root: `debootstrap --variant=minbase --include=systemd bookworm` from the
   Debian archive this machine's apt uses (/etc/apt/sources.list*), cached under the build
   directory; every run works on a throw-away overlay of it, so the cached tree stays clean;
4. `apt-get install ./rdmaguard_*.deb` there, with its dependencies from the archive;
5. in that root: `rdmaguard version`, `rdmaguard audit` with no configuration and with
   --root / and --policy /etc/rdmaguard/policy.json (JSON report, rules evaluated, alerts valid
   against the installed schema, exit code consistent with the alerts), `policy check` of the
   shipped policies, `rules list|check`, the conffiles, the service enabled, `systemd-analyze
   verify` of the installed unit and its command line with --dry-run (the same hooks as the
   built binary), a real logrotate run of /etc/logrotate.d/rdmaguard, and purge.

Without the Debian archive (no network) the test FAILS saying so: CI has the archive.
Needs root (exit 77 otherwise). Environment: RG_RDMAGUARD (the built binary, to compare
hook plans), RG_SOURCE_ROOT, RG_CACHE_DIR; RG_DEBIAN_MIRROR overrides the archive found in
/etc/apt/sources.list*."""
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import jsonschema

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sandbox  # noqa: E402  (the unit file parser)

SRC = os.environ["RG_SOURCE_ROOT"]
CACHE = os.environ["RG_CACHE_DIR"]
SUITE = "bookworm"
INCLUDE = ["systemd"]  # a Debian 12 system as administrators have it: the unit gets enabled
FAILURES = []
CHROOT_ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8", "HOME": "/root",
              "DEBIAN_FRONTEND": "noninteractive", "TERM": "dumb"}


class Fatal(Exception):
    pass


def check(cond, what, detail=""):
    if cond:
        print(f"ok   {what}")
    else:
        print(f"FAIL {what}" + (f"\n     {detail}" if detail else ""))
        FAILURES.append(what)
    return cond


def run(args, timeout=600, **kw):
    return subprocess.run(args, capture_output=True, text=True, check=False, timeout=timeout,
                          **kw)


def tail(text, n=30):
    return "\n     ".join(text.strip().splitlines()[-n:])


# ---- the archive ----------------------------------------------------------------------------

def apt_sources():
    """(types, uris, suites, components) of every enabled entry of this machine's apt sources."""
    entries = []
    files = ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*.list"))
    for path in files:
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except OSError:
            continue
        for line in lines:
            line = line.split("#", 1)[0].strip()
            m = re.match(r"^(deb|deb-src)\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)\s*(.*)$", line)
            if m:
                entries.append(({m.group(1)}, [m.group(2)], [m.group(3)], m.group(4).split()))
    for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError:
            continue
        for para in re.split(r"\n\s*\n", text):
            fields = {}
            for line in para.splitlines():
                if line.startswith("#") or ":" not in line or line[0].isspace():
                    continue
                k, v = line.split(":", 1)
                fields[k.strip().lower()] = v.strip()
            if fields.get("enabled", "yes").lower() == "no" or "uris" not in fields:
                continue
            entries.append((set(fields.get("types", "").split()), fields["uris"].split(),
                            fields.get("suites", "").split(), fields.get("components", "").split()))
    return entries


def find_archive():
    """The Debian archive and its security archive as this machine's apt has them."""
    mirror = security = None
    fallback = None
    for types, uris, suites, comps in apt_sources():
        if "deb" not in types or "main" not in comps:
            continue
        for uri in uris:
            if SUITE in suites and not mirror:
                mirror = uri
            if f"{SUITE}-security" in suites and not security:
                security = uri
            if not fallback and not any(s.endswith("-security") for s in suites) \
                    and "debian" in uri:
                fallback = uri
    return mirror or fallback, security


# ---- the package ----------------------------------------------------------------------------

def source_files():
    r = run(["git", "-C", SRC, "ls-files", "-z", "--cached", "--others", "--exclude-standard"])
    if r.returncode != 0:
        return None
    return sorted(p for p in r.stdout.split("\0") if p and os.path.lexists(os.path.join(SRC, p)))


def fingerprint(files):
    h = hashlib.sha256()
    for p in files:
        full = os.path.join(SRC, p)
        st = os.lstat(full)
        h.update(f"{p}\0{st.st_mode:o}\0".encode())
        if os.path.islink(full):
            h.update(os.readlink(full).encode())
        else:
            with open(full, "rb") as f:
                h.update(f.read())
    return h.hexdigest()


def build_deb():
    outdir = os.path.join(CACHE, "deb")
    stamp = os.path.join(outdir, "source.sha256")
    files = source_files()
    fp = fingerprint(files) if files else None
    debs = glob.glob(os.path.join(outdir, "rdmaguard_*.deb"))
    if fp and debs and os.path.exists(stamp) and open(stamp).read().strip() == fp:
        print(f"info reusing {debs[0]} (source unchanged)")
        return debs[0]
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    log = os.path.join(outdir, "build.log")
    with open(log, "w") as f:
        # The unit suite runs in CI on its own; the package build skips it (nocheck).
        r = subprocess.run([os.path.join(SRC, "packaging", "build-deb.sh"), "--outdir", outdir,
                            "--nocheck"], stdout=f, stderr=subprocess.STDOUT, timeout=1500,
                           check=False)
    with open(log) as f:
        text = f.read()
    debs = glob.glob(os.path.join(outdir, "rdmaguard_*.deb"))
    if not check(r.returncode == 0 and len(debs) == 1, "packaging/build-deb.sh builds the .deb",
                 f"exit {r.returncode}, log {log}:\n     {tail(text)}"):
        raise Fatal("no package to test")
    if fp:
        with open(stamp, "w") as f:
            f.write(fp + "\n")
    return debs[0]


def lintian(deb):
    changes = glob.glob(os.path.join(os.path.dirname(deb), "rdmaguard_*.changes"))
    target = changes[0] if changes else deb
    r = run(["lintian", "--display-info", "--info", "--tag-display-limit", "0", target],
            timeout=600)
    tags = [l for l in r.stdout.splitlines() if re.match(r"^[EWIPX]: ", l)]
    errors = [l for l in tags if l.startswith("E: ")]
    for l in tags:
        print(f"info lintian {l}")
    # lintian exits non-zero on an error tag (--fail-on error, its default) or when it breaks.
    check(not errors and r.returncode == 0,
          f"lintian {os.path.basename(target)}: no error ({len(tags)} tag(s) listed above)",
          "\n     ".join(errors) or r.stderr.strip())


# ---- the clean root -------------------------------------------------------------------------

def base_tree(mirror, security):
    """debootstrap'd Debian 12, cached: CACHE/bookworm-minbase/root with its apt lists."""
    d = os.path.join(CACHE, f"{SUITE}-minbase")
    root = os.path.join(d, "root")
    stamp = os.path.join(d, "stamp.json")
    r = run(["dpkg-query", "-W", "-f=${Version}", "debootstrap"])
    want = {"suite": SUITE, "mirror": mirror, "security": security, "include": INCLUDE,
            "variant": "minbase", "debootstrap": r.stdout.strip(), "layout": 1}
    try:
        with open(stamp) as f:
            if json.load(f) == want and os.path.isfile(os.path.join(root, "usr/bin/apt-get")):
                print(f"info reusing the Debian {SUITE} tree in {root}")
                return root
    except (OSError, ValueError):
        pass
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    log = os.path.join(d, "debootstrap.log")
    print(f"info debootstrap --variant=minbase --include={','.join(INCLUDE)} {SUITE} from {mirror}")
    with open(log, "w") as f:
        r = subprocess.run(["debootstrap", "--variant=minbase", "--include=" + ",".join(INCLUDE),
                            SUITE, root, mirror], stdout=f, stderr=subprocess.STDOUT,
                           timeout=1500, check=False)
    if r.returncode != 0:
        with open(log) as f:
            text = f.read()
        check(False, f"debootstrap {SUITE} from {mirror}",
              f"the Debian archive is unreachable or refused ({log}); this test needs it (CI "
              f"has it):\n     {tail(text, 15)}")
        raise Fatal("no Debian root")
    with open(os.path.join(root, "etc/apt/sources.list"), "w") as f:
        f.write(f"deb {mirror} {SUITE} {SUITE}-updates main\n")
        if security:
            f.write(f"deb {security} {SUITE}-security main\n")
    with open(stamp, "w") as f:
        json.dump(want, f)
    return root


def mount(*args):
    r = run(["mount", *args], timeout=60)
    if r.returncode != 0:
        raise Fatal(f"mount {' '.join(args)}: {r.stderr.strip()}")


def scratch_root(base, work):
    """A throw-away root: an overlay of the cached tree, with /proc, /sys, /dev of the host."""
    mount("-t", "tmpfs", "-o", "size=4g,mode=0755", "rg-pkg", work)
    for d in ("upper", "work", "root"):
        os.mkdir(os.path.join(work, d))
    root = os.path.join(work, "root")
    mount("-t", "overlay", "overlay", "-o",
          f"lowerdir={base},upperdir={work}/upper,workdir={work}/work", root)
    mount("-t", "proc", "proc", os.path.join(root, "proc"))
    mount("--rbind", "/sys", os.path.join(root, "sys"))
    mount("--rbind", "/dev", os.path.join(root, "dev"))
    mount("-t", "tmpfs", "-o", "mode=0755", "run", os.path.join(root, "run"))
    # Downloaded packages are kept between runs (and apt's lists refreshed when they go stale).
    archives = os.path.join(CACHE, "apt-archives")
    os.makedirs(os.path.join(archives, "partial"), exist_ok=True)
    mount("--bind", archives, os.path.join(root, "var/cache/apt/archives"))
    shutil.copyfile("/etc/resolv.conf", os.path.join(root, "etc/resolv.conf"))
    return root


def chroot(root, *args, timeout=600):
    return run(["chroot", root, *args], timeout=timeout, env=CHROOT_ENV)


def install(root, deb):
    shutil.copy2(deb, os.path.join(root, "tmp"))
    path = "/tmp/" + os.path.basename(deb)
    r = None
    for attempt in ("cached lists", "fresh lists"):
        if attempt == "fresh lists" or not glob.glob(os.path.join(root, "var/lib/apt/lists/*_Packages*")):
            u = chroot(root, "apt-get", "update")
            if u.returncode != 0:
                check(False, "apt-get update in the Debian root",
                      f"the Debian archive is unreachable ({tail(u.stdout + u.stderr, 10)}); "
                      "this test needs it (CI has it)")
                raise Fatal("no archive")
        r = chroot(root, "apt-get", "install", "-y", path, timeout=900)
        if r.returncode == 0:
            break
    check(r.returncode == 0, "apt-get install ./rdmaguard_*.deb (with its dependencies)",
          tail(r.stdout + r.stderr))
    if r.returncode != 0:
        raise Fatal("not installed")
    setup = [l.split()[2] for l in r.stdout.splitlines() if l.startswith("Setting up")]
    info = [l for l in r.stdout.splitlines() if l.startswith("Setting up rdmaguard")]
    print(f"info installed {len(setup)} packages: {' '.join(setup)}")
    print(f"info {info[0] if info else ''}")


# ---- the checks -----------------------------------------------------------------------------

def shipped_rules():
    return sorted(f for f in os.listdir(os.path.join(SRC, "rules")) if f.endswith(".json"))


def version_of_changelog():
    r = run(["dpkg-parsechangelog", "-l", os.path.join(SRC, "packaging/debian/changelog"),
             "-S", "Version"])
    return r.stdout.strip()


def check_files(root):
    r = chroot(root, "dpkg-query", "-W", "-f=${Status}\\n${Conffiles}\\n", "rdmaguard")
    check(r.stdout.startswith("install ok installed"), "dpkg: rdmaguard installed", r.stdout)
    for conf in ("/etc/rdmaguard/policy.json", "/etc/logrotate.d/rdmaguard"):
        check(re.search(rf"^ {re.escape(conf)} [0-9a-f]{{32}}$", r.stdout, re.M),
              f"{conf} is a conffile")
    for path, mode in (("/usr/sbin/rdmaguard", 0o755), ("/etc/rdmaguard/policy.json", 0o644),
                       ("/usr/share/rdmaguard/schema/alert.schema.json", 0o644),
                       ("/usr/share/rdmaguard/policies/lan-cafe.json", 0o644),
                       ("/usr/share/rdmaguard/policies/tournament.json", 0o644),
                       ("/usr/share/rdmaguard/prometheus/rdmaguard.rules.yml", 0o644),
                       ("/usr/share/man/man8/rdmaguard.8.gz", 0o644),
                       ("/usr/bin/rdmaguard-console", 0o755),
                       ("/usr/share/rdmaguard/console/index.html", 0o644),
                       ("/usr/share/rdmaguard/console/console.js", 0o644),
                       ("/usr/share/rdmaguard/console/console.css", 0o644),
                       ("/usr/share/man/man8/rdmaguard-console.8.gz", 0o644),
                       ("/lib/systemd/system/rdmaguard.service", 0o644),
                       ("/etc/logrotate.d/rdmaguard", 0o644)):
        full = os.path.join(root, path.lstrip("/"))
        ok = os.path.isfile(full)
        st = os.stat(full) if ok else None
        check(ok and st.st_uid == 0 and st.st_gid == 0 and (st.st_mode & 0o7777) == mode,
              f"{path}: root:root {mode:o}",
              f"{'missing' if not ok else oct(st.st_mode)} uid {st.st_uid if st else '-'}")
    shipped = shipped_rules()
    installed = sorted(os.listdir(os.path.join(root, "usr/share/rdmaguard/rules")))
    check(installed == shipped, f"the {len(shipped)} default rules are installed",
          f"{installed} != {shipped}")
    with open(os.path.join(SRC, "packaging/systemd/rdmaguard.service"), "rb") as a, \
            open(os.path.join(root, "lib/systemd/system/rdmaguard.service"), "rb") as b:
        check(a.read() == b.read(), "the installed unit is packaging/systemd/rdmaguard.service")
    with open(os.path.join(SRC, "packaging/policy.json"), "rb") as a, \
            open(os.path.join(root, "etc/rdmaguard/policy.json"), "rb") as b:
        check(a.read() == b.read(), "the installed policy is packaging/policy.json")
    check(os.path.islink(os.path.join(
        root, "etc/systemd/system/multi-user.target.wants/rdmaguard.service")),
        "the service is enabled (multi-user.target.wants)")
    # The seat key, made by the postinst (docs/evidence.md).
    for name, mode in (("seat-key.pem", 0o600), ("seat-key.pub", 0o644)):
        full = os.path.join(root, "var/lib/rdmaguard", name)
        st = os.stat(full) if os.path.isfile(full) else None
        check(st and st.st_uid == 0 and (st.st_mode & 0o7777) == mode,
              f"/var/lib/rdmaguard/{name}: made at install, root's, {mode:o}",
              oct(st.st_mode) if st else "missing")


def schema_validator(root):
    with open(os.path.join(root, "usr/share/rdmaguard/schema/alert.schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def check_audit(root, validator, args, what):
    r = chroot(root, "rdmaguard", "audit", *args)
    check(r.returncode in (0, 1), f"{what}: exits 0 or 1 (got {r.returncode})", r.stderr.strip())
    try:
        rep = json.loads(r.stdout)
    except ValueError as e:
        check(False, f"{what}: prints one JSON document", f"{e}: {r.stdout[:300]!r}")
        return None
    ev = rep.get("evaluation", {})
    check(rep.get("schema_version") == 1 and rep.get("tool", {}).get("name") == "rdmaguard",
          f"{what}: report schema_version 1 by rdmaguard")
    for section in ("summary", "devices", "pci", "modules", "processes", "alerts"):
        check(section in rep, f"{what}: report has {section}")
    n = len(shipped_rules())
    check(ev.get("rules_evaluated") is True and ev.get("rules_dir") ==
          "/usr/share/rdmaguard/rules" and ev.get("rules") == n,
          f"{what}: the {n} installed rules were evaluated", json.dumps(ev))
    alerts = rep.get("alerts", [])
    bad = [str(e.message) for a in alerts for e in validator.iter_errors(a)]
    check(not bad, f"{what}: {len(alerts)} alert(s), valid against the installed schema",
          "; ".join(bad[:5]))
    at = ev.get("at_or_above_threshold")
    check(at == len([a for a in alerts if ["info", "low", "medium", "high", "critical"].index(
          a["rdmaguard"]["severity"]) >= ["info", "low", "medium", "high", "critical"].index(
          ev.get("threshold", "medium"))]) and r.returncode == (1 if at else 0),
          f"{what}: exit {r.returncode} matches {at} alert(s) at or above {ev.get('threshold')}")
    print(f"info {what}: {rep['summary'].get('processes_scanned')} processes scanned, rules "
          + ", ".join(sorted({a['rule']['id'] for a in alerts})) if alerts else
          f"info {what}: no alert")
    return rep


def check_commands(root):
    r = chroot(root, "rdmaguard", "version")
    check(r.returncode == 0 and r.stdout.startswith(f"rdmaguard {version_of_changelog()}\n"),
          f"rdmaguard version: {r.stdout.splitlines()[0] if r.stdout else r.stderr.strip()}")
    r = chroot(root, "rdmaguard-console", "--version")
    check(r.returncode == 0 and r.stdout == f"rdmaguard-console {version_of_changelog()}\n",
          f"rdmaguard-console --version: {r.stdout.strip() or r.stderr.strip()}")
    # beyond loopback without TLS and accounts it refuses before touching the database
    r = chroot(root, "rdmaguard-console", "serve", "--db", "dbname=none", "--listen",
               "0.0.0.0:8443")
    check(r.returncode == 3 and "without TLS and accounts" in r.stderr,
          f"rdmaguard-console on 0.0.0.0 without TLS: exit {r.returncode}", r.stderr.strip())
    validator = schema_validator(root)
    check(True, "the installed alert schema is a valid JSON Schema 2020-12")
    rep = check_audit(root, validator, [], "rdmaguard audit (no configuration)")
    if rep:
        check(rep["evaluation"].get("policy_file") is None and rep["evaluation"].get("threshold")
              == "medium", "rdmaguard audit: built-in policy, threshold medium")
    check_audit(root, validator, ["--root", "/"], "rdmaguard audit --root /")
    rep = check_audit(root, validator, ["--policy", "/etc/rdmaguard/policy.json"],
                      "rdmaguard audit --policy /etc/rdmaguard/policy.json")
    if rep:
        check(rep["evaluation"].get("policy_file") == "/etc/rdmaguard/policy.json",
              "the shipped policy file was used")
    r = chroot(root, "rdmaguard", "audit", "--format", "text")
    check(r.returncode in (0, 1) and "RDMA" in r.stdout, "rdmaguard audit --format text",
          r.stderr.strip())
    r = chroot(root, "rdmaguard", "policy", "check", "/etc/rdmaguard/policy.json")
    check(r.returncode == 0 and r.stdout == "/etc/rdmaguard/policy.json: ok (role managed, 0 games,"
          " 0 allow entries, 0 rule overrides, threshold medium)\n",
          "rdmaguard policy check /etc/rdmaguard/policy.json", r.stdout + r.stderr)
    r = chroot(root, "rdmaguard", "policy", "check", "--no-owner-check",
               "/usr/share/rdmaguard/policies/lan-cafe.json",
               "/usr/share/rdmaguard/policies/tournament.json")
    check(r.returncode == 0 and r.stdout.count(": ok (") == 2,
          "rdmaguard policy check: the example policies", r.stdout + r.stderr)
    r = chroot(root, "rdmaguard", "rules", "list", "--format", "json")
    try:
        rules = json.loads(r.stdout)
    except ValueError:
        rules = []
    n = len(shipped_rules())
    check(r.returncode == 0 and len(rules) == n, f"rdmaguard rules list: {n} rules",
          r.stderr.strip())
    r = chroot(root, "rdmaguard", "rules", "check", "/usr/share/rdmaguard/rules")
    check(r.returncode == 0, "rdmaguard rules check /usr/share/rdmaguard/rules", r.stderr.strip())
    r = chroot(root, "rdmaguard", "policy", "check", "/nonexistent.json")
    check(r.returncode == 2 and "/nonexistent.json" in r.stderr,
          "a missing policy: exit 2 naming it", r.stderr.strip())
    # The installed binary knows no source tree: no path of this checkout or of the package's
    # build in it, and without its rules directory it says so instead of looking elsewhere.
    with open(os.path.join(root, "usr/sbin/rdmaguard"), "rb") as f:
        binary = f.read()
    # build-deb.sh builds in CACHE/deb/src/rdmaguard-VERSION (a copy of SRC).
    baked = [p for p in {SRC, os.path.realpath(SRC), os.path.join(CACHE, "deb", "src")}
             if p.encode() in binary]
    check(not baked, "no source or build path in /usr/sbin/rdmaguard",
          ", ".join(baked))
    rules = os.path.join(root, "usr/share/rdmaguard/rules")
    os.rename(rules, rules + ".away")
    try:
        r = chroot(root, "rdmaguard", "rules", "list")
    finally:
        os.rename(rules + ".away", rules)
    check(r.returncode == 2 and r.stdout == "" and r.stderr ==
          "/usr/share/rdmaguard/rules: cannot open rules directory: No such file or directory\n",
          "without /usr/share/rdmaguard/rules, rules list fails naming it (no fallback)",
          f"exit {r.returncode}: {r.stderr.strip()!r}")


def check_unit(root):
    env = dict(os.environ, MANPATH=os.path.join(root, "usr/share/man"), SYSTEMD_LOG_COLOR="0")
    r = run(["systemd-analyze", "verify", f"--root={root}", "rdmaguard.service"], env=env)
    out = (r.stdout + r.stderr).strip()
    check(r.returncode == 0 and not out, "systemd-analyze verify of the installed unit", out)
    # The installed unit's command line, with --dry-run, in the installed system: the shipped
    # policy, rules and output, and the sensors' plan with Debian 12's libbpf. The directories
    # are systemd's to create (StateDirectory= etc.): made here as it would.
    unit = sandbox.parse(os.path.join(root, "lib/systemd/system/rdmaguard.service"))
    for path, mode, _ in sandbox.service_dirs(unit):
        os.makedirs(os.path.join(root, path.lstrip("/")), mode=mode, exist_ok=True)
    argv = sandbox.exec_argv(unit) + ["--dry-run"]
    r = chroot(root, *argv)
    try:
        doc = json.loads(r.stdout)
    except ValueError:
        doc = {}
    hooks = doc.get("sensors", {}).get("hooks", {})
    check(r.returncode == 0 and doc.get("policy") == "/etc/rdmaguard/policy.json"
          and doc.get("rules_dir") == "/usr/share/rdmaguard/rules"
          and doc.get("outputs") == ["file:/var/log/rdmaguard/alerts.jsonl"],
          f"{' '.join(argv)}: the shipped policy, rules and output",
          f"exit {r.returncode}: {r.stderr.strip()[-800:]} "
          f"{json.dumps({k: doc.get(k) for k in ('policy', 'rules_dir', 'outputs')})}")
    # The packaged binary with Debian 12's libbpf chooses what the build tree's does.
    h = run([os.environ["RG_RDMAGUARD"], "daemon", "--dry-run"])
    try:
        want = json.loads(h.stdout).get("sensors", {}).get("hooks")
    except ValueError:
        want = None
    check(hooks and hooks == want, "the installed daemon plans the same hooks as the built one",
          f"installed {hooks}\n     built {want}")
    if hooks:
        print("info hooks: " + ", ".join(f"{k}={v.get('active')}" for k, v in hooks.items()))


def check_logrotate(root):
    if not check(os.path.exists(os.path.join(root, "usr/sbin/logrotate")),
                 "logrotate installed (Recommends)"):
        return
    logdir = os.path.join(root, "var/log/rdmaguard")
    os.makedirs(logdir, mode=0o700, exist_ok=True)
    with open(os.path.join(logdir, "alerts.jsonl"), "w") as f:
        f.write('{"rule":{"id":"RDMA-001"}}\n')
    r = chroot(root, "logrotate", "-v", "-f", "-s", "/tmp/logrotate.state",
               "/etc/logrotate.d/rdmaguard")
    out = r.stdout + r.stderr
    check(r.returncode == 0 and "error" not in out.lower(),
          "logrotate -f /etc/logrotate.d/rdmaguard runs clean", tail(out))
    check(os.path.exists(os.path.join(logdir, "alerts.jsonl.1"))
          and not os.path.exists(os.path.join(logdir, "alerts.jsonl")),
          "alerts.jsonl rotated to alerts.jsonl.1 (the daemon recreates it on SIGUSR1)",
          str(os.listdir(logdir)))
    # Its command (systemctl kill ... USR1) fails quietly here, where systemd does not run;
    # test_service.py checks what the daemon does with the signal.
    check("running postrotate script" in out, "the postrotate script ran", tail(out))


def check_purge(root):
    r = chroot(root, "apt-get", "purge", "-y", "rdmaguard")
    check(r.returncode == 0, "apt-get purge rdmaguard", tail(r.stdout + r.stderr))
    left = [p for p in ("usr/sbin/rdmaguard", "usr/share/rdmaguard", "etc/rdmaguard/policy.json",
                        "etc/logrotate.d/rdmaguard", "lib/systemd/system/rdmaguard.service",
                        "etc/systemd/system/multi-user.target.wants/rdmaguard.service")
            if os.path.lexists(os.path.join(root, p))]
    check(not left, "purge leaves nothing of the package behind", ", ".join(left))


def main():
    if os.geteuid() != 0:
        print("SKIP: installs into a chroot and mounts: needs root")
        return 77
    if os.environ.get("RG_PKG_NS") != "1":
        # Everything below runs in a private mount namespace: its mounts vanish with it.
        os.environ["RG_PKG_NS"] = "1"
        os.execvp("unshare", ["unshare", "--mount", "--propagation", "private", "--",
                              sys.executable, os.path.abspath(__file__)])
    missing = [t for t in ("debootstrap", "dpkg-buildpackage", "dh", "lintian", "chroot",
                           "systemd-analyze", "unshare") if not shutil.which(t)]
    if missing:
        print(f"FAIL missing tools: {', '.join(missing)} (packaging/bootstrap.sh --deps)")
        return 1
    os.makedirs(CACHE, exist_ok=True)
    try:
        mirror, security = find_archive()
        if os.environ.get("RG_DEBIAN_MIRROR"):
            mirror = os.environ["RG_DEBIAN_MIRROR"]
        if not check(mirror, "the Debian archive from /etc/apt/sources.list*",
                     "no 'deb' entry for Debian main in /etc/apt/sources.list*"):
            raise Fatal("no archive")
        print(f"info archive {mirror}, security {security}")
        deb = build_deb()
        lintian(deb)
        base = base_tree(mirror, security)
        work = tempfile.mkdtemp(prefix="run-", dir=CACHE)
        try:
            root = scratch_root(base, work)
            install(root, deb)
            check_files(root)
            check_commands(root)
            check_unit(root)
            check_logrotate(root)
            check_purge(root)
        finally:
            # The host /dev and /sys are bound below work: unmount before removing anything.
            if run(["umount", "-R", work]).returncode != 0:
                run(["umount", "-R", "-l", work])
            if not os.path.ismount(work):
                os.rmdir(work)
    except Fatal as e:
        print(f"FAIL stopped: {e}")
        FAILURES.append(str(e))
    except subprocess.TimeoutExpired as e:
        print(f"FAIL timed out: {e}")
        FAILURES.append("timeout")
    print(f"{'FAIL' if FAILURES else 'PASS'}: {len(FAILURES)} failure(s)")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
