#!/usr/bin/env python3
"""bowtie_driver.py — play Bowtie's side of the harness protocol (version 1)
against `gauntlet bowtie`, as ../shared/research/conformance.md section 3
describes Bowtie (bowtie-json-schema/bowtie _suite.py, _containers.py,
_commands.py, _report.py):

  suite  GAUNTLET JSTS_ROOT   every dialect's top-level test files (never
         optional/), the registry (remotes filtered to the dialect, as
         http://localhost:1234/<rel>) only for refRemote, dynamicRef and
         vocabulary, the expected `valid` stripped from what is sent; each
         reply read within 2.0 s, 3 attempts; stderr output, a wrong seq, a
         wrong number of results or non-JSON is an uncaught error; skipped and
         errored count against compliance. Prints one line per dialect
         `bowtie DIALECT: N tests, N passed, N failed, N errored, N skipped`
         and exits 1 unless every dialect is at 100%.
  protocol GAUNTLET   one check per protocol rule; prints `ok RULE` or
         `FAIL RULE: why`, exits 1 on any failure.
"""
import json
import os
import select
import subprocess
import sys

READ_TIMEOUT_SEC = 2.0  # Connection.read_timeout_sec
READ_ATTEMPTS = 3       # Connection._retry
REGISTRY_STEMS = {"refRemote", "dynamicRef", "vocabulary"}  # _suite.py

DIALECTS = [  # (folder, URI as Bowtie names it)
    ("draft2020-12", "https://json-schema.org/draft/2020-12/schema"),
    ("draft2019-09", "https://json-schema.org/draft/2019-09/schema"),
    ("draft7", "http://json-schema.org/draft-07/schema#"),
    ("draft6", "http://json-schema.org/draft-06/schema#"),
    ("draft4", "http://json-schema.org/draft-04/schema#"),
]


class Uncaught(Exception):
    pass


class Harness:
    def __init__(self, gauntlet):
        self.proc = subprocess.Popen([gauntlet, "bowtie"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.buf = b""

    def send(self, obj):
        self.proc.stdin.write(json.dumps(obj).encode() + b"\n")
        self.proc.stdin.flush()

    def _stderr(self):
        ready, _, _ = select.select([self.proc.stderr], [], [], 0)
        return os.read(self.proc.stderr.fileno(), 65536) if ready else b""

    def read(self):
        """One reply line, as Bowtie reads it: 3 attempts of 2.0 s."""
        for _ in range(READ_ATTEMPTS):
            while b"\n" not in self.buf:
                ready, _, _ = select.select([self.proc.stdout], [], [], READ_TIMEOUT_SEC)
                if not ready:
                    break
                chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
                if not chunk:
                    err = self._stderr()
                    raise Uncaught("harness closed stdout" + (f"; stderr: {err!r}" if err else ""))
                self.buf += chunk
            if b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                err = self._stderr()
                if err:
                    raise Uncaught(f"GotStderr: {err!r}")
                try:
                    return json.loads(line)
                except ValueError:
                    raise Uncaught(f"not JSON: {line[:200]!r}")
            err = self._stderr()
            if err:
                raise Uncaught(f"GotStderr: {err!r}")
        raise Uncaught("no reply within 3 reads of 2.0 s")

    def request(self, obj):
        self.send(obj)
        return self.read()

    def stop(self):
        self.send({"cmd": "stop"})
        self.proc.stdin.close()
        rc = self.proc.wait(timeout=5)
        err = self.proc.stderr.read()
        return rc, err


def remotes_registry(root, folder):
    """The remotes as Bowtie's registry: every file but other dialects' folders."""
    remotes = os.path.join(root, "remotes")
    others = {f for f, _ in DIALECTS if f != folder}
    registry = {}
    for base, dirs, files in os.walk(remotes):
        rel_base = os.path.relpath(base, remotes)
        if rel_base.split(os.sep)[0] in others:
            dirs[:] = []
            continue
        for name in sorted(files):
            if name.endswith(".json"):
                rel = os.path.normpath(os.path.join(rel_base, name)).replace(os.sep, "/")
                with open(os.path.join(base, name), encoding="utf-8") as f:
                    registry["http://localhost:1234/" + rel] = json.load(f)
    return registry


def suite(gauntlet, root):
    all_ok = True
    for folder, uri in DIALECTS:
        directory = os.path.join(root, "tests", folder)
        registry = remotes_registry(root, folder)
        h = Harness(gauntlet)
        started = h.request({"cmd": "start", "version": 1})
        if uri not in started["implementation"]["dialects"]:
            print(f"bowtie {folder}: FAIL dialect not announced by start")
            all_ok = False
            continue
        if h.request({"cmd": "dialect", "dialect": uri}) != {"ok": True}:
            print(f"bowtie {folder}: FAIL dialect not acknowledged")
            all_ok = False
            continue
        total = passed = failed = errored = skipped = 0
        seq = 0
        for name in sorted(os.listdir(directory)):  # top-level files only, as _glob(version_path, "*.json")
            path = os.path.join(directory, name)
            if not name.endswith(".json") or not os.path.isfile(path):
                continue
            with open(path, encoding="utf-8") as f:
                groups = json.load(f)
            stem = name[:-5]
            for group in groups:
                seq += 1
                expected = [t["valid"] for t in group["tests"]]
                case = {"description": group["description"], "schema": group["schema"],
                        "tests": [{"description": t["description"], "instance": t["data"]} for t in group["tests"]]}
                if "comment" in group:
                    case["comment"] = group["comment"]
                if stem in REGISTRY_STEMS:
                    case["registry"] = registry
                total += len(expected)
                why = None
                try:
                    reply = h.request({"cmd": "run", "seq": seq, "case": case})
                    if reply.get("seq") != seq:
                        why = "mismatched seq"
                    elif reply.get("errored"):
                        why = "errored: " + json.dumps(reply.get("context"))
                        errored += len(expected)
                    elif reply.get("skipped"):
                        why = "skipped: " + str(reply.get("message"))
                        skipped += len(expected)
                    elif len(reply.get("results", [])) != len(expected):
                        why = "wrong number of responses"
                except Uncaught as e:
                    why = f"uncaught: {e}"
                    h = Harness(gauntlet)  # a restart replays start and dialect
                    h.request({"cmd": "start", "version": 1})
                    h.request({"cmd": "dialect", "dialect": uri})
                if why is not None:
                    if not why.startswith(("errored", "skipped")):
                        errored += len(expected)
                    print(f"  {folder}/{name} | {group['description']}: {why}")
                    continue
                for test, want, got in zip(group["tests"], expected, reply["results"]):
                    if got.get("skipped"):
                        skipped += 1
                    elif got.get("errored"):
                        errored += 1
                    elif got.get("valid") != want:
                        failed += 1
                    else:
                        passed += 1
                        continue
                    print(f"  {folder}/{name} | {group['description']} | {test['description']}: {json.dumps(got)}")
        rc, err = h.stop()
        unsuccessful = failed + errored + skipped
        compliance = 100.0 * (1 - unsuccessful / total) if total else 0.0
        print(f"bowtie {folder}: {total} tests, {passed} passed, {failed} failed, {errored} errored, "
              f"{skipped} skipped ({compliance:.2f}%)")
        if rc != 0 or err:
            print(f"bowtie {folder}: FAIL stop gave exit {rc}, stderr {err!r}")
            all_ok = False
        if unsuccessful or total == 0:
            all_ok = False
    return 0 if all_ok else 1


def protocol(gauntlet):
    checks = []

    def check(rule, ok, why=""):
        checks.append(ok)
        print(f"ok {rule}" if ok else f"FAIL {rule}: {why}")

    def raw(lines):
        p = subprocess.run([gauntlet, "bowtie"], input="".join(l + "\n" for l in lines).encode(),
                           capture_output=True, timeout=10)
        out = [json.loads(l) for l in p.stdout.decode().splitlines()]
        return p.returncode, out, p.stderr.decode()

    start = json.dumps({"cmd": "start", "version": 1})
    h = Harness(gauntlet)
    r = h.request({"cmd": "start", "version": 1})
    impl = r.get("implementation", {})
    required = {"language", "name", "version", "homepage", "issues", "source", "dialects"}
    allowed = required | {"documentation", "links", "os", "os_version", "language_version"}
    check("start: version 1 and every required implementation field",
          r.get("version") == 1 and required <= impl.keys() and impl.keys() <= allowed, json.dumps(r))
    check("start: language c, a real version", impl.get("language") == "c" and impl.get("version")
          and not any(w in impl.get("version", "") for w in ("main", "master", "trunk")), json.dumps(impl))
    check("start: all five dialects", sorted(impl.get("dialects", [])) == sorted(u for _, u in DIALECTS),
          json.dumps(impl.get("dialects")))
    check("dialect: ok true", h.request({"cmd": "dialect", "dialect": DIALECTS[2][1]}) == {"ok": True})
    # The implicit dialect: draft 7 ignores `dependentRequired`; 2020-12 applies it.
    case = {"schema": {"dependentRequired": {"a": ["b"]}}, "tests": [{"instance": {"a": 1}}]}
    r = h.request({"cmd": "run", "seq": 1, "case": case})
    check("dialect: schemas without $schema follow it (draft7)", r == {"seq": 1, "results": [{"valid": True}]},
          json.dumps(r))
    h.request({"cmd": "dialect", "dialect": DIALECTS[0][1]})
    r = h.request({"cmd": "run", "seq": 2, "case": case})
    check("dialect: switching back to 2020-12", r == {"seq": 2, "results": [{"valid": False}]}, json.dumps(r))
    check("dialect: unknown dialect answers ok false",
          h.request({"cmd": "dialect", "dialect": "https://example.com/dialect"}) == {"ok": False})
    h.request({"cmd": "dialect", "dialect": DIALECTS[0][1]})
    for seq in ["a string", {"nested": [1, None]}, 1.5, None, -7, [3]]:
        r = h.request({"cmd": "run", "seq": seq, "case": {"schema": {}, "tests": [{"instance": 1}]}})
        check(f"run: seq {json.dumps(seq)} echoed exactly", "seq" in r and r["seq"] == seq
              and type(r["seq"]) is type(seq), json.dumps(r))
    r = h.request({"cmd": "run", "seq": 9, "case": {"schema": {"type": 12}, "tests": [{"instance": 1}]}})
    check("run: a schema that does not compile answers errored with seq",
          r.get("seq") == 9 and r.get("errored") is True and isinstance(r.get("context", {}).get("message"), str),
          json.dumps(r))
    r = h.request({"cmd": "run", "seq": 10, "case": {"schema": {"$ref": "http://localhost:1234/x.json"},
                                                     "tests": [{"instance": 1}]}})
    check("run: an unresolvable $ref answers errored with seq", r.get("seq") == 10 and r.get("errored") is True,
          json.dumps(r))
    r = h.request({"cmd": "run", "seq": 11, "case": {
        "schema": {"$ref": "http://localhost:1234/x.json"},
        "registry": {"http://localhost:1234/x.json": {"type": "string"}},
        "tests": [{"instance": 1}, {"instance": "s"}]}})
    check("run: the registry resolves $ref", r == {"seq": 11, "results": [{"valid": False}, {"valid": True}]},
          json.dumps(r))
    r = h.request({"cmd": "run", "seq": 12, "output": "annotations",
                   "case": {"schema": {}, "tests": [{"instance": 1}]}})
    check("run: output annotations answered skipped with seq", r.get("seq") == 12 and r.get("skipped") is True
          and isinstance(r.get("message"), str), json.dumps(r))
    r = h.request({"cmd": "run", "seq": 13, "case": {"schema": {}, "tests": "x"}})
    check("run: a malformed case answers errored with seq", r.get("seq") == 13 and r.get("errored") is True,
          json.dumps(r))
    deep = {"pattern": "^(a+)+$"}
    r = h.request({"cmd": "run", "seq": 14, "case": {"schema": deep, "tests": [{"instance": "a" * 40000 + "!"}]}})
    check("run: a hostile case answers within the read timeout", r.get("seq") == 14 and len(r.get("results", [])) == 1,
          json.dumps(r)[:300])
    rc, err = h.stop()
    check("stop: exit 0, nothing on stderr", rc == 0 and err == b"", f"exit {rc}, stderr {err!r}")
    rc, out, err = raw(["{\"cmd\":\"frobnicate\"}"])
    check("unknown command: exit 2 with a clear line", rc == 2 and "unknown command" in err and "line 1" in err
          and out == [], f"exit {rc}, stderr {err!r}")
    rc, out, err = raw([start, "{not json"])
    check("malformed line: exit 2 naming the line", rc == 2 and "stdin line 2: not JSON" in err and len(out) == 1,
          f"exit {rc}, stderr {err!r}")
    rc, out, err = raw([json.dumps({"cmd": "run", "seq": 1, "case": {"schema": {}, "tests": []}})])
    check("run before start: exit 2", rc == 2 and "no start" in err, f"exit {rc}, stderr {err!r}")
    rc, out, err = raw([start, json.dumps({"cmd": "run", "case": {"schema": {}, "tests": []}})])
    check("run without seq: exit 2", rc == 2 and "no seq" in err, f"exit {rc}, stderr {err!r}")
    rc, out, err = raw([start])
    check("end of stdin: exit 0", rc == 0 and err == "", f"exit {rc}, stderr {err!r}")
    return 0 if all(checks) else 1


KNOWN_INSTRUCTIONS = {"FROM", "RUN", "CMD", "LABEL", "MAINTAINER", "EXPOSE", "ENV", "ADD", "COPY", "ENTRYPOINT",
                      "VOLUME", "USER", "WORKDIR", "ARG", "ONBUILD", "STOPSIGNAL", "HEALTHCHECK", "SHELL"}


def containerfile(path):
    """Parse the image build file's instructions (no hadolint in Debian):
    known instructions only, FROM first, every stage named, COPY --from names
    an earlier stage, the last instruction ENTRYPOINT ["gauntlet", "bowtie"]
    in exec form, Debian base images."""
    problems = []
    instructions = []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        start = i + 1
        text = lines[i].strip()
        i += 1
        if not text or text.startswith("#"):
            continue
        while text.endswith("\\") and i < len(lines):
            text = text[:-1] + " " + lines[i].strip()
            i += 1
        word, _, rest = text.partition(" ")
        instructions.append((start, word, rest.strip()))
    stages = []
    for n, (line, word, rest) in enumerate(instructions):
        if word not in KNOWN_INSTRUCTIONS:
            problems.append(f"{path}:{line}: unknown instruction {word}")
        if n == 0 and word not in ("FROM", "ARG"):
            problems.append(f"{path}:{line}: the first instruction must be FROM")
        if word == "FROM":
            parts = rest.split()
            named = len(parts) == 3 and parts[1].upper() == "AS"
            if not named:
                problems.append(f"{path}:{line}: stage not named (FROM IMAGE AS NAME)")
            stages.append(parts[2] if named else None)
            if not parts or not parts[0].startswith("debian:"):
                problems.append(f"{path}:{line}: base image is not Debian")
        if word == "COPY" and "--from=" in rest:
            name = rest.split("--from=", 1)[1].split()[0]
            if name not in stages[:-1]:
                problems.append(f"{path}:{line}: COPY --from={name} names no earlier stage")
    if not instructions or instructions[-1][1] != "ENTRYPOINT":
        problems.append(f"{path}: the last instruction must be ENTRYPOINT")
    else:
        line, _, rest = instructions[-1]
        try:
            if json.loads(rest) != ["gauntlet", "bowtie"]:
                problems.append(f"{path}:{line}: ENTRYPOINT must be [\"gauntlet\", \"bowtie\"]")
        except ValueError:
            problems.append(f"{path}:{line}: ENTRYPOINT is not in exec (JSON array) form")
    if len([s for s in stages if s]) < 2:
        problems.append(f"{path}: not a multi-stage build")
    for p in problems:
        print(p)
    print(f"containerfile {path}: {len(instructions)} instructions, {len(stages)} stages, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "containerfile":
        sys.exit(containerfile(sys.argv[2]))
    if len(sys.argv) == 4 and sys.argv[1] == "suite":
        sys.exit(suite(sys.argv[2], sys.argv[3]))
    if len(sys.argv) == 3 and sys.argv[1] == "protocol":
        sys.exit(protocol(sys.argv[2]))
    print("usage: bowtie_driver.py suite GAUNTLET JSTS_ROOT | protocol GAUNTLET | containerfile PATH", file=sys.stderr)
    sys.exit(2)
