#!/usr/bin/env python3
"""Mutation testing of the corpus: how many broken reference pipelines does it catch?

Samples classic mutants over reference/*.c (seeded, stratified per file),
compiles each mutated file into a private temporary directory with the exact
command `make` uses for BUILD, swaps that one object into a copy of
BUILD/libgauntlet.a, links a private gauntlet and replays only the corpus
against the reference target. The source tree and BUILD are never written:
a mutant lives in a temporary directory that is removed on exit, Ctrl-C
included, so there is nothing to restore.

A mutant is *killed* only when a case fails. Everything else is reported
apart: `loader` (a case file could not be loaded, exit 2), `crash` (the
runner died on a signal), `timeout` (the run overran), `error` (a case
errored: crashed or timed out inside the target), `stillborn` (does not
compile, or breaks a C constraint: CONSTRAINT_WARNINGS), `equivalent` (listed in scripts/mutation-equivalent.txt, not run).
Score = killed / (mutants - stillborn - equivalent).

Usage: scripts/mutation.py [--build DIR] [--seed N] [--sample N] [--files F...]
                           [--target reference|adapter] [--list] [--only ID...]
                           [--json FILE] [--jobs N] [--self-test] [--stale]
Environment: MUTATION_SEED, MUTATION_SAMPLE, MUTATION_JOBS, MUTATION_FILES (space-separated
basenames), MUTATION_TARGET (reference | adapter), SAN / COV / OPT (passed to
make like the build was made).
See docs/mutation.md.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EQUIVALENT_FILE = os.path.join(ROOT, "scripts", "mutation-equivalent.txt")
# The gate and layer files the corpus is meant to pin down (issue 21).
DEFAULT_FILES = ("parse.c schema_validate.c schema_keywords.c semantic.c policy.c loop.c "
                 "stream.c sse.c repair.c wire_transform.c wire_strict.c")
# No default seed: a run without MUTATION_SEED draws a fresh one (and prints
# it first), so a reported figure is not one the corpus was tuned to.
# Diagnostics of C constraint violations (errors by default from GCC 14 on).
CONSTRAINT_WARNINGS = ("int-conversion", "incompatible-pointer-types", "implicit-function-declaration",
                       "implicit-int")
DEFAULT_SAMPLE = 110
# Reference files the case loader and reports use themselves: the harness
# links unmutated, renamed copies of them (Builder.harness_library).
HARNESS_FILES = ("parse.c", "semantic.c", "schema_registry.c")
# Lines about allocation failure or internal invariants: no case can reach them.
# Case-insensitive: GT_SYNTAX_OUT_OF_MEMORY, GT_ASSERT and OOM are the same
# out-of-contract lines as "out of memory" and assert().
SKIP_LINE = re.compile(r"alloc|strdup|oom|out[ _]of[ _]memory|assert|abort\s*\(", re.IGNORECASE)
# ... and a test of what an allocating call just returned (`p = malloc(...)`,
# `s->sse = gt_sse_parser_new(...)`, then `if (p == NULL || s->sse == NULL)`):
# that `if` only decides whether the allocation failed.
ALLOC_ASSIGN = re.compile(r"([A-Za-z_][\w.>\[\]-]*)\s*=\s*(?:\([^()]*\)\s*)?\w*(?:alloc|strdup|_new)\w*\s*\(")
ALLOC_TEST = re.compile(r"^\s*(?:\}\s*else\s+)?if\s*\((.*)\)\s*\{?\s*$")
ALLOC_LOOKBACK = 4  # code lines


def alloc_failure_test(code, recent):
    """True when `code` is an `if` whose condition only tests, for NULL,
    variables assigned from an allocating call in the last few lines."""
    m = ALLOC_TEST.match(code)
    if not m or not recent:
        return False
    for term in re.split(r"\|\||&&", m.group(1)):
        t = re.sub(r"\s+", "", term).strip("()")
        name = t[:-6] if t.endswith(("==NULL", "!=NULL")) else t[1:] if t.startswith("!") else None
        if name not in recent:
            return False
    return True

# ---------------------------------------------------------------- mutants


def blank_code(lines):
    """Each line with comments, string and char literals replaced by spaces
    (same length, so columns match), and None for preprocessor lines."""
    out, in_comment, in_pp = [], False, False
    for line in lines:
        if not in_comment and (in_pp or line.lstrip().startswith("#")):
            in_pp = line.rstrip().endswith("\\")
            out.append(None)
            continue
        buf, i, n = [], 0, len(line)
        while i < n:
            if in_comment:
                end = line.find("*/", i)
                if end < 0:
                    buf.append(" " * (n - i))
                    i = n
                else:
                    buf.append(" " * (end + 2 - i))
                    i = end + 2
                    in_comment = False
                continue
            c = line[i]
            if line.startswith("/*", i):
                in_comment = True
                buf.append("  ")
                i += 2
            elif line.startswith("//", i):
                buf.append(" " * (n - i))
                i = n
            elif c in "\"'":
                j = i + 1
                while j < n and line[j] != c:
                    j += 2 if line[j] == "\\" else 1
                j = min(j + 1, n)
                buf.append(c + " " * (j - i - 2) + (c if j - i >= 2 else ""))
                i = j
            else:
                buf.append(c)
                i += 1
        out.append("".join(buf)[:n].ljust(n))
    return out


CMP = {"==": ["!="], "!=": ["=="], "<": [">=", "<="], ">": ["<=", ">="],
       "<=": [">", "<"], ">=": ["<", ">"]}
CMP_RE = re.compile(r"(?<![<>=!\-])(==|!=|<=|>=|<|>)(?![<>=])")
LOGIC_RE = re.compile(r"&&|\|\|")
INT_RE = re.compile(r"(?<![\w.])(\d+)(?![\w.])")
COND_RE = re.compile(r"\b(if|while)\s*\(")
CALL_RE = re.compile(r"^\s*[A-Za-z_]\w*\s*\(")
ASSIGN_RE = re.compile(r"^\s*\*?\s*[A-Za-z_]\w*(\s*(\.|->)\s*[A-Za-z_]\w*|\[[^\]]*\])*\s*"
                       r"(=(?!=)|\+=|-=|\*=|/=|\|=|&=|\+\+|--)")
NOT_CALL = {"if", "while", "for", "switch", "return", "sizeof"}


def matching_paren(text, open_at):
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def line_mutants(line, code):
    """(operator, column, mutated line) for one source line and its blanked code."""
    found = []
    for m in CMP_RE.finditer(code):
        op = m.group(1)
        if op == ">" and m.start() > 0 and code[m.start() - 1] == "-":
            continue
        for repl in CMP[op]:
            found.append(("cmp", m.start(), line[:m.start()] + repl + line[m.end():]))
    for m in LOGIC_RE.finditer(code):
        repl = "||" if m.group(0) == "&&" else "&&"
        found.append(("logic", m.start(), line[:m.start()] + repl + line[m.end():]))
    for m in COND_RE.finditer(code):
        open_at = m.end() - 1
        close = matching_paren(code, open_at)
        if close > open_at:
            cond = line[open_at + 1:close]
            found.append(("negate", m.start(), line[:open_at + 1] + "!(" + cond + ")" + line[close:]))
    for m in INT_RE.finditer(code):
        value = int(m.group(1))
        for repl in (value + 1, value - 1):
            if repl >= 0:
                found.append(("const", m.start(), line[:m.start()] + str(repl) + line[m.end():]))
    stripped = code.strip()
    if stripped.endswith(";") and stripped.count("(") == stripped.count(")") and stripped.count(";") == 1:
        call = CALL_RE.match(code)
        word = re.match(r"\s*(\w+)", code)
        if word and word.group(1).startswith("__"):
            call = None
        if (stripped in ("break;", "continue;") or ASSIGN_RE.match(code) or
                re.match(r"^\s*(\+\+|--)", code) or
                (call and word and word.group(1) not in NOT_CALL)):
            indent = len(line) - len(line.lstrip())
            found.append(("delete", indent, line[:indent] + ";"))
    return found


# The text each mutant was drawn from, so a mutant is built from that text even
# when the file changes during a run (a merge, an edit).
SOURCES = {}


def file_mutants(path):
    """Every mutant of one reference file, in source order, each a dict."""
    name = os.path.basename(path)
    with open(path, encoding="utf-8") as f:
        SOURCES[name] = f.read()
    lines = SOURCES[name].split("\n")
    codes = blank_code(lines)
    seen, mutants, recent = {}, [], []
    for number, (line, code) in enumerate(zip(lines, codes), 1):
        if code is None or not code.strip():
            continue
        assigned = {m.group(1) for m in ALLOC_ASSIGN.finditer(line)}
        tests_alloc = alloc_failure_test(code, set().union(*recent))
        recent = (recent + [assigned])[-ALLOC_LOOKBACK:]
        if SKIP_LINE.search(line) or tests_alloc:
            continue
        key = line.strip()
        occurrence = seen.get(key, 0)
        seen[key] = occurrence + 1
        for op, col, mutated in line_mutants(line, code):
            digest = hashlib.sha1("\0".join(
                [name, key, str(occurrence), op, str(col), mutated.strip()]).encode()).hexdigest()[:10]
            mutants.append({"id": digest, "file": name, "line": number, "op": op,
                            "original": line, "mutated": mutated})
    return mutants


def sample_mutants(files, seed, sample, equivalent=frozenset()):
    """A seeded, stratified sample: `sample` mutants spread evenly over `files`
    (each file drawn with its own generator, so adding a file does not
    reshuffle the others), in file then line order.

    Each file's pool is shuffled and read from the front until `count`
    mutants not listed in `equivalent` are taken: a listed mutant met on the
    way is kept in the sample (shown as `equivalent`) but does not take a
    measured mutant's place, so every file is measured on `count` mutants
    whatever the list holds (a listed mutant costs no run, and a list that
    grows does not shrink what is measured)."""
    chosen = []
    per_file = [sample // len(files)] * len(files)
    for i in random.Random(f"{seed}:remainder").sample(range(len(files)), sample % len(files)):
        per_file[i] += 1
    for name, count in zip(files, per_file):
        pool = file_mutants(os.path.join(ROOT, "reference", name))
        random.Random(f"{seed}:{name}").shuffle(pool)
        picked, measured = [], 0
        for m in pool:
            if measured == count:
                break
            picked.append(m)
            measured += m["id"] not in equivalent
        chosen.extend(sorted(picked, key=lambda m: (m["line"], m["id"])))
    return chosen


def shown(mutant):
    """The mutated line as printed (a deleted statement shows what was deleted)."""
    if mutant["op"] == "delete":
        return "(deleted) " + mutant["original"].strip()
    return mutant["mutated"].strip()


def stale_equivalents(equivalent):
    """Ids of scripts/mutation-equivalent.txt that no mutant of any reference
    file has any more (its line was edited or removed)."""
    known = set()
    for name in sorted(os.listdir(os.path.join(ROOT, "reference"))):
        if name.endswith(".c"):
            known.update(m["id"] for m in file_mutants(os.path.join(ROOT, "reference", name)))
    return sorted(i for i in equivalent if i not in known)


def load_equivalent():
    """{mutant id: reason} from scripts/mutation-equivalent.txt."""
    marked = {}
    if os.path.exists(EQUIVALENT_FILE):
        with open(EQUIVALENT_FILE, encoding="utf-8") as f:
            for raw in f:
                raw = raw.split("#", 1)[0].strip() if raw.lstrip().startswith("#") else raw.strip()
                if raw:
                    parts = raw.split(None, 1)
                    marked[parts[0]] = parts[1] if len(parts) > 1 else ""
    return marked

# ---------------------------------------------------------------- building


def make_vars(build):
    extra = [f"{var}={os.environ[var]}" for var in ("SAN", "COV", "OPT") if os.environ.get(var)]
    return [f"BUILD={build}"] + extra


def make_command(build, target, marker):
    """The command line `make` would run to build `target` (the line containing `marker`)."""
    # Not WERROR either (make exports `make WERROR=1 test` to the suite): a
    # mutant that only warns must still compile.
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "WERROR")}
    out = subprocess.run(["make", "-n", "-B", "--no-print-directory"] + make_vars(build) + [target],
                         cwd=ROOT, capture_output=True, text=True, env=env).stdout
    for line in out.splitlines():
        if marker in line:
            return line
    raise SystemExit(f"mutation: cannot find how make builds {target} (no line with '{marker}')")


class Builder:
    """Builds a private gauntlet for one mutant from BUILD's objects."""

    def __init__(self, build, workdir, target="reference"):
        self.build, self.workdir, self.target = build, workdir, target
        self.lib = os.path.join(build, "libgauntlet.a")
        for needed in (self.lib, os.path.join(build, "gauntlet")):
            if not os.path.exists(os.path.join(ROOT, needed)):
                raise SystemExit(f"mutation: {needed} missing: build it first (make BUILD={build})")
        link = make_command(build, f"{build}/gauntlet", f"-o {build}/gauntlet")
        self.app = os.path.join(build, "libgtapp.a")
        self.link = link.replace(f"-o {build}/gauntlet", "-o {out}").replace(self.lib, "{lib}").replace(self.app, "{app}")
        if target == "adapter":
            adapter = f"{build}/adapters/gauntlet-adapter-reference"
            link = make_command(build, adapter, f"-o {adapter} ")
            self.link = link.replace(f"-o {adapter} ", "-o {out} ").replace(self.lib, "{lib}").replace(self.app, "{app}")
        self.compile = {}
        self.harness_lib = self.harness_library()

    def harness_library(self):
        """A copy of BUILD/libgtapp.a (runner, case loader, reports, mock) whose
        objects call unmutated, renamed copies of HARNESS_FILES (parse.c, whose
        gate reads every case file, semantic.c, whose pointer checks the
        loader uses, and schema_registry.c, through which the loader parses
        corpus/schemas/), so a mutant there reaches the reference pipeline but never
        the harness that loads the corpus (objcopy --redefine-syms; the
        target_*.o objects, which run the reference gates, keep calling the
        mutant)."""
        app = os.path.join(ROOT, self.build, "libgtapp.a")
        objs = [os.path.join(ROOT, self.build, "reference", f"{name[:-2]}.o") for name in HARNESS_FILES]
        syms = []
        for obj in objs:
            out = subprocess.run(["nm", "-g", "--defined-only", obj], capture_output=True, text=True).stdout
            syms += [line.split()[2] for line in out.splitlines() if len(line.split()) == 3]
        d = os.path.join(self.workdir, "harness")
        os.makedirs(d, exist_ok=True)
        mapping = os.path.join(d, "syms.map")
        with open(mapping, "w") as f:
            f.writelines(f"{sym} {sym}__harness\n" for sym in syms)
        lib = os.path.join(d, "libgtapp.a")
        shutil.copy(app, lib)
        members = subprocess.run(["ar", "t", lib], capture_output=True, text=True).stdout.split()
        harness = [m for m in members if not m.startswith("target_")]
        subprocess.run(["ar", "x", os.path.abspath(lib)] + harness, cwd=d, check=True)
        renamed = []
        for m in harness:
            subprocess.run(["objcopy", f"--redefine-syms={mapping}", os.path.join(d, m)], check=True)
            renamed.append(os.path.join(d, m))
        for obj in objs:
            copy = os.path.join(d, os.path.basename(obj)[:-2] + "_harness.o")
            subprocess.run(["objcopy", f"--redefine-syms={mapping}", obj, copy], check=True)
            renamed.append(copy)
        subprocess.run(["ar", "rs", lib] + renamed, check=True)
        return lib

    def compile_line(self, name):
        if name not in self.compile:
            obj = f"{self.build}/reference/{name[:-2]}.o"
            line = make_command(self.build, obj, f"-o {obj}")
            # The mutant's copy sits in its own folder, so the headers beside
            # the original (decimal.h, schema_impl.h, ...) are put on the path.
            line = line.replace(f"reference/{name}", "-iquote reference {src}")
            # What C forbids (a constraint violation a compiler must diagnose,
            # and GCC 14 rejects by default) makes a mutant stillborn: `{0}`
            # turned into `{1}` for a struct whose first member is a pointer
            # is not a C program (C11 6.7.9p11, 6.5.16.1p1), only a warning
            # on older compilers. Other warnings still compile.
            line += " " + " ".join("-Werror=" + w for w in CONSTRAINT_WARNINGS)
            self.compile[name] = line.replace(f"-o {obj}", "-o {obj}")
        return self.compile[name]

    def build_mutant(self, mutant):
        """Path of the mutant's gauntlet (with target adapter: of its reference
        adapter), or None when it does not compile."""
        d = os.path.join(self.workdir, mutant["id"])
        os.makedirs(d, exist_ok=True)
        name = mutant["file"]
        lines = SOURCES[name].split("\n")
        lines[mutant["line"] - 1] = mutant["mutated"]
        src, obj = os.path.join(d, name), os.path.join(d, name[:-2] + ".o")
        with open(src, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        lib, out = os.path.join(d, "libgauntlet.a"), os.path.join(d, "gauntlet")
        steps = [self.compile_line(name).replace("{src}", src).replace("{obj}", obj),
                 f"cp {self.lib} {lib} && ar rs {lib} {obj}",
                 self.link.replace("{out}", out).replace("{lib}", lib).replace("{app}", self.harness_lib)]
        for step in steps:
            if subprocess.run(step, shell=True, cwd=ROOT, capture_output=True).returncode != 0:
                return None
        return out

# ---------------------------------------------------------------- running


def replay(gauntlet, corpus, report, timeout, adapter=None, case_id=None):
    """Replay the corpus (or only `case_id` of it) with `gauntlet` (against
    `adapter` when given, else the reference target): (status, failing case ids)."""
    cmd = [gauntlet, "run", corpus, "--quiet", "--timeout", "2s", "--report", f"json:{report}"]
    if case_id is not None:
        cmd += ["--id", case_id]
    if adapter is not None:
        cmd += ["--target", f"adapter:{adapter}"]
    try:
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", []
    if proc.returncode < 0:
        return "crash", []
    try:
        with open(report, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return ("loader" if proc.returncode == 2 else "crash"), []
    if proc.returncode == 2 or data.get("problems"):
        return "loader", []
    failed = [c["id"] for c in data.get("cases", []) if c.get("outcome") == "fail"]
    if failed:
        return "killed", failed
    if any(c.get("outcome") == "error" for c in data.get("cases", [])):
        return "error", []
    return "survived", []


# A file's (or a case's) replay in the fallback after a crash or hang may take
# this long: a hang then costs one file or case, not the mutant's verdict.
FILE_TIMEOUT = 5.0
# ... and either phase of that fallback stops after this many hanging runs in
# a row.
FALLBACK_STREAK = 10


def replay_by_file(gauntlet, lister, corpus, report, tiers=None):
    """Replay every case file of `corpus` on its own, then each case of a file
    that crashed or hung on its own: ("killed", failing case ids) once a
    required-tier case failed (`tiers`: case id -> tier; without it, at the
    first failure), else ("killed", the optional-tier failures) when only
    those failed, else ("survived", []). A failing file whose failures are
    all optional-tier does not end the search: a required case that fails in
    a later file, or in a file that crashed as a whole, is the kill a
    certification rests on, and stopping early would count that mutant as an
    optional-only kill. `lister` is an unmutated gauntlet (it lists a file's
    case ids). Each phase gives up after FALLBACK_STREAK runs in a row that
    hang (a crash costs milliseconds, a hang FILE_TIMEOUT), so a mutant that
    hangs on everything costs minutes, not hours."""
    def required(ids):
        return tiers is None or any(tiers.get(i, "required") == "required" for i in ids)

    files = sorted(os.path.join(d, f) for d, _, names in os.walk(corpus) for f in names if f.endswith(".cases.json"))
    broken, streak, optional = [], 0, []
    for path in files:
        status, failed = replay(gauntlet, path, report, FILE_TIMEOUT)
        if status == "killed":
            if required(failed):
                return status, failed
            optional += failed
        if status in ("crash", "timeout"):
            broken.append(path)
        streak = streak + 1 if status == "timeout" else 0
        if streak >= FALLBACK_STREAK:
            break
    streak = 0
    for path in broken:
        listed = subprocess.run([lister, "run", path, "--list"], cwd=ROOT, capture_output=True, text=True)
        for case_id in listed.stdout.split():
            status, failed = replay(gauntlet, path, report, FILE_TIMEOUT, case_id=case_id)
            if status == "killed":
                if required(failed):
                    return status, failed
                optional += failed
            streak = streak + 1 if status == "timeout" else 0
            if streak >= FALLBACK_STREAK:
                return ("killed", optional) if optional else ("survived", [])
    return ("killed", optional) if optional else ("survived", [])


KINDS = ("killed", "survived", "loader", "crash", "timeout", "error", "stillborn", "equivalent")


def required_kill(result):
    """A kill a required-tier case made (what a certification rests on)."""
    return result["status"] == "killed" and not result.get("optional_only")


DETECTED = ("killed", "crash", "timeout", "error")


def score_table(results, files):
    """Per file and in total: the verdict counts, then side by side the kills,
    the required-tier kills and the detected mutants (killed, crash, timeout
    or error), each as a share of the scored mutants."""
    rows = []
    header = (f"{'file':<20} {'mutants':>7} " + " ".join(f"{k:>9}" for k in KINDS) +
              f" {'req-kill':>9} {'kills':>7} {'required':>8} {'detected':>8}")
    rows.append(header)
    for name in files + ["TOTAL"]:
        mine = results if name == "TOTAL" else [r for r in results if r["file"] == name]
        counts = {k: sum(1 for r in mine if r["status"] == k) for k in KINDS}
        required = sum(1 for r in mine if required_kill(r))
        detected = sum(counts[k] for k in DETECTED)
        scored = len(mine) - counts["stillborn"] - counts["equivalent"]

        def pct(n, width):
            return f"{100.0 * n / scored:{width - 1}.1f}%" if scored else " " * (width - 1) + "-"
        rows.append(f"{name:<20} {len(mine):>7} " + " ".join(f"{counts[k]:>9}" for k in KINDS) +
                    f" {required:>9} {pct(counts['killed'], 7)} {pct(required, 8)} {pct(detected, 8)}")
    return "\n".join(rows)


def run(args):
    files = args.files
    equivalent = load_equivalent()
    mutants = sample_mutants(files, args.seed, args.sample, equivalent)
    if args.only:
        mutants = [m for name in files for m in file_mutants(os.path.join(ROOT, "reference", name)) if m["id"] in args.only]
    if args.list:
        for m in mutants:
            mark = " (listed equivalent)" if m["id"] in equivalent else ""
            print(f"{m['id']} {m['file']}:{m['line']} {m['op']:<6} {shown(m)}{mark}")
        return 0
    stale = stale_equivalents(equivalent)
    if stale:
        print(f"mutation: {len(stale)} line(s) of {os.path.relpath(EQUIVALENT_FILE, ROOT)} name no mutant of "
              f"reference/*.c any more (the line changed): {' '.join(stale)}")
    workdir = tempfile.mkdtemp(prefix="gt-mutation-")
    results = []
    try:
        builder = Builder(args.build, workdir, args.target)
        runner = os.path.join(ROOT, args.build, "gauntlet")
        # a snapshot, so edits to the corpus during a run do not change it
        shutil.copytree(os.path.join(ROOT, args.corpus), os.path.join(workdir, "corpus"))
        args.corpus = os.path.join(workdir, "corpus")
        base_report = os.path.join(workdir, "baseline.json")
        started = time.time()
        base_adapter = os.path.join(ROOT, args.build, "adapters", "gauntlet-adapter-reference") if args.target == "adapter" else None
        status, failed = replay(runner, args.corpus, base_report, 300, base_adapter)
        baseline = time.time() - started
        if status != "survived":
            print(f"mutation: the unmutated corpus run is not clean ({status} {failed[:5]}): fix that first")
            return 2
        timeout = max(20.0, 20 * baseline)
        with open(base_report, encoding="utf-8") as f:
            tiers = {c["id"]: c.get("tier", "required") for c in json.load(f).get("cases", [])}
        print(f"mutation: seed {args.seed}, {len(mutants)} mutants over {len(files)} files, build {args.build}, target {args.target}")
        def measure(m):
            after = None
            if m["id"] in equivalent:
                status, failed = "equivalent", []
            else:
                gauntlet = builder.build_mutant(m)
                if gauntlet is None:
                    status, failed = "stillborn", []
                else:
                    report = os.path.join(workdir, m["id"], "r.json")
                    if args.target == "adapter":
                        status, failed = replay(runner, args.corpus, report, timeout, gauntlet)
                    else:
                        status, failed = replay(gauntlet, args.corpus, report, timeout)
                    if status in ("crash", "timeout") and args.target == "reference":
                        # One crashing or hanging case hides every other
                        # case's answer. Replay file by file, then case by
                        # case inside the files that still crash or hang (a
                        # crash or hang then costs only its own case): the
                        # mutant is killed only if another case fails.
                        again, again_failed = replay_by_file(gauntlet, runner, args.corpus, report, tiers)
                        if again == "killed":
                            after, status, failed = status, again, again_failed
                shutil.rmtree(os.path.join(workdir, m["id"]), ignore_errors=True)
            # required-tier failures first: a kill the certification rests on
            failed = sorted(failed, key=lambda i: tiers.get(i, "required") != "required")
            return dict(m, status=status, failed=failed[:3], after=after,
                        optional_only=status == "killed" and tiers.get(failed[0]) == "optional")

        # --jobs N measures N mutants at once (each in its own folder, with its
        # own report); results are kept in sample order, so a run's table and
        # JSON do not depend on N.
        done = [0]
        lock = threading.Lock()

        def measured(m):
            r = measure(m)
            with lock:
                done[0] += 1
                note = (f" (whole corpus: {r['after']}; a case failed when replayed file by file or case by case)"
                        if r["after"] else "")
                print(f"[{done[0]}/{len(mutants)}] {r['status']:<10} {m['id']} {m['file']}:{m['line']} {m['op']}{note}",
                      flush=True)
            return r

        pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs))
        try:
            futures = [pool.submit(measured, m) for m in mutants]
            for f in futures:
                results.append(f.result())
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    except KeyboardInterrupt:
        print("mutation: interrupted; partial results below")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print()
    print(score_table(results, files))
    rescued = [r for r in results if r.get("after")]
    if rescued:
        print(f"\nkilled file by file or case by case after a whole-corpus {'/'.join(sorted({r['after'] for r in rescued}))} "
              f"({len(rescued)}): " + " ".join(r["id"] for r in rescued))
    optional = [r for r in results if r.get("optional_only")]
    if optional:
        print(f"\nkilled only by optional-tier cases ({len(optional)} of "
              f"{sum(r['status'] == 'killed' for r in results)} kills; gauntlet's own choices, docs/corpus-format.md): "
              + " ".join(f"{r['id']} ({r['file']}: {r['failed'][0]})" for r in optional))
    left = [r for r in results if r["status"] not in ("killed", "stillborn", "equivalent")]
    if left:
        print(f"\nnot killed by a case ({len(left)}):")
        for r in left:
            print(f"  {r['status']:<9} {r['id']} reference/{r['file']}:{r['line']} [{r['op']}]")
            print(f"      - {r['original'].strip()}")
            print(f"      + {r['mutated'].strip()}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"seed": args.seed, "sample": args.sample, "files": files, "results": results}, f, indent=1)
    return 0


def self_test(args):
    """Fast checks for `make test`: the sample is deterministic for a seed, one
    known mutant (the policy gate never finding the caller's role) is killed,
    one that crashes the whole run is killed once replayed file by file, and a
    mutant of a file with a header beside it compiles."""
    problems = []
    first = sample_mutants(["policy.c", "parse.c"], 7, 6)
    again = sample_mutants(["policy.c", "parse.c"], 7, 6)
    other = sample_mutants(["policy.c", "parse.c"], 8, 6)
    if [m["id"] for m in first] != [m["id"] for m in again] or len(first) != 6:
        problems.append("the sample for seed 7 is not deterministic or not 6 mutants")
    if [m["id"] for m in first] == [m["id"] for m in other]:
        problems.append("seeds 7 and 8 drew the same sample")
    for m in first:
        print(f"  {m['id']} {m['file']}:{m['line']} {m['op']:<6} {shown(m)}")
    # A listed (equivalent) mutant stays in the sample but takes no measured place.
    listed = frozenset(m["id"] for m in first[:3])
    redrawn = sample_mutants(["policy.c", "parse.c"], 7, 6, listed)
    if sum(m["id"] not in listed for m in redrawn) != 6 or not listed <= {m["id"] for m in redrawn}:
        problems.append("listed mutants took measured places in the sample (or left it)")
    # Tests of what an allocation returned are not mutated; other NULL tests are.
    after = {"s->sse", "left", "consumed"}
    for code, want in (("    if (s->sse == NULL) {", True), ("if (left == NULL || consumed == NULL)", True),
                       ("if (!left)", True), ("if (left == NULL || n > 3)", False), ("if (other == NULL)", False),
                       ("if (left == NULL) return 1;", False)):
        if alloc_failure_test(code, after) != want:
            problems.append(f"allocation-failure test of {code!r}: expected {want}")
    if {m.group(1) for m in ALLOC_ASSIGN.finditer("    s->sse = gt_sse_parser_new(on_event, s);")} != {"s->sse"}:
        problems.append("an assignment from gt_sse_parser_new( is not seen as an allocation")
    # The out-of-memory filter ignores case (a reason code in capitals is the same path).
    for line in ("return GT_SYNTAX_OUT_OF_MEMORY;", "if (err == GT_ERR_OOM) {", "gt_set_error(e, \"Out of memory\");"):
        if not SKIP_LINE.search(line):
            problems.append(f"the out-of-memory filter mutates {line!r}")
    # The table shows kills, required-tier kills and detected side by side.
    fake = [dict(file="a.c", status="killed", optional_only=False), dict(file="a.c", status="killed", optional_only=True),
            dict(file="a.c", status="crash"), dict(file="a.c", status="survived")]
    total = score_table(fake, ["a.c"]).splitlines()[-1].split()
    if total[-3:] != ["50.0%", "25.0%", "75.0%"]:
        problems.append(f"score table total {total[-3:]}: expected kills 50.0%, required 25.0%, detected 75.0%")
    known = [m for m in file_mutants(os.path.join(ROOT, "reference", "policy.c"))
             if m["op"] == "negate" and "gt_value_equal(roles->u.arr.items[i], role)" in m["original"]]
    if not known:
        problems.append("the known mutant (negated role_listed test in policy.c) is gone: pick another")
    else:
        workdir = tempfile.mkdtemp(prefix="gt-mutation-self-")
        try:
            gauntlet = Builder(args.build, workdir).build_mutant(known[0])
            if gauntlet is None:
                problems.append(f"known mutant {known[0]['id']} did not compile")
            else:
                status, failed = replay(gauntlet, os.path.join(args.corpus, "policy"),
                                        os.path.join(workdir, "r.json"), 120)
                print(f"  known mutant {known[0]['id']} policy.c:{known[0]['line']}: {status} {failed[:3]}")
                if status != "killed":
                    problems.append(f"known mutant {known[0]['id']} was {status}, not killed")
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
    # A mutant that crashes the whole run (compile_properties skipping the
    # first property) is still killed by a case once replayed file by file.
    crasher = [m for m in file_mutants(os.path.join(ROOT, "reference", "schema_keywords.c"))
               if m["op"] == "const" and "for (size_t i = 0; i < v->u.obj.count; i++) {" in m["original"]
               and "size_t i = 1;" in m["mutated"]]
    if not crasher:
        problems.append("the known crashing mutant (compile_properties from index 1) is gone: pick another")
    else:
        workdir = tempfile.mkdtemp(prefix="gt-mutation-self-")
        try:
            gauntlet = Builder(args.build, workdir).build_mutant(crasher[0])
            report = os.path.join(workdir, "r.json")
            whole, _ = replay(gauntlet, args.corpus, report, 300) if gauntlet else ("stillborn", [])
            again, failed = replay_by_file(gauntlet, os.path.join(ROOT, args.build, "gauntlet"), args.corpus, report) \
                if whole == "crash" else (whole, [])
            print(f"  known crashing mutant {crasher[0]['id']} schema_keywords.c:{crasher[0]['line']}: "
                  f"{whole}, then file by file {again} {failed[:3]}")
            if whole != "crash" or again != "killed":
                problems.append(f"known crashing mutant {crasher[0]['id']} was {whole}, then {again}: "
                                "expected crash, then killed file by file")
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
    # A pointer initialised from an integer is not C: stillborn, not run.
    pointer_one = [m for m in file_mutants(os.path.join(ROOT, "reference", "loop.c"))
                   if m["op"] == "const" and m["original"].strip() == "gt_buffer text = {0};"
                   and m["mutated"].strip() == "gt_buffer text = {1};"]
    workdir = tempfile.mkdtemp(prefix="gt-mutation-self-")
    try:
        if not pointer_one:
            problems.append("the known constraint-violating mutant (gt_buffer text = {1}) is gone: pick another")
        elif Builder(args.build, workdir).build_mutant(pointer_one[0]) is not None:
            problems.append(f"mutant {pointer_one[0]['id']} (a pointer initialised from 1) compiled: "
                            "it must be stillborn")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    # A file that includes a private header beside it (parse.c: decimal.h)
    # must compile from the mutant's own folder too: an unchanged copy, built
    # the way a mutant is (with the build's flags, -Werror included).
    file_mutants(os.path.join(ROOT, "reference", "parse.c"))
    first = SOURCES["parse.c"].split("\n")[0]
    copy = {"id": "self-test-copy", "file": "parse.c", "line": 1, "mutated": first}
    workdir = tempfile.mkdtemp(prefix="gt-mutation-self-")
    try:
        if Builder(args.build, workdir).build_mutant(copy) is None:
            problems.append("an unchanged copy of parse.c did not build as a mutant does "
                            "(headers beside reference/parse.c not found?)")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    for p in problems:
        print(f"mutation self-test: FAIL: {p}")
    print("mutation self-test: " + ("FAIL" if problems else "ok"))
    return 1 if problems else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default=os.environ.get("BUILD", "build/mutation"))
    p.add_argument("--seed", type=int, default=int(os.environ["MUTATION_SEED"]) if os.environ.get("MUTATION_SEED") else None,
                   help="the sample's seed (default: a fresh one drawn and printed first)")
    p.add_argument("--sample", type=int, default=int(os.environ.get("MUTATION_SAMPLE", DEFAULT_SAMPLE)))
    p.add_argument("--files", nargs="+", default=(os.environ.get("MUTATION_FILES") or DEFAULT_FILES).split())
    p.add_argument("--corpus", default="corpus")
    p.add_argument("--target", choices=("reference", "adapter"), default=os.environ.get("MUTATION_TARGET", "reference"),
                   help="replay against the mutated reference target (default), or through a mutated reference "
                        "adapter with an unmutated runner (the loader never sees the mutant)")
    p.add_argument("--list", action="store_true", help="print the sampled mutants and run nothing")
    p.add_argument("--only", nargs="+", help="run only these mutant ids")
    p.add_argument("--json", help="write every mutant's result to this file")
    p.add_argument("--jobs", type=int, default=int(os.environ.get("MUTATION_JOBS", "1")),
                   help="mutants measured at once (default MUTATION_JOBS or 1); the results do not depend on it")
    p.add_argument("--self-test", action="store_true")
    p.add_argument("--stale", action="store_true",
                   help="list the lines of scripts/mutation-equivalent.txt that name no mutant any more; exit 1 if any")
    args = p.parse_args()
    if args.stale:
        stale = stale_equivalents(load_equivalent())
        for i in stale:
            print(f"mutation: stale line in {os.path.relpath(EQUIVALENT_FILE, ROOT)}: {i} names no mutant of reference/*.c "
                  "(its line changed: check the new mutant and list it again, or drop the line)")
        return 1 if stale else 0
    if args.seed is None and not args.self_test:
        args.seed = random.SystemRandom().randrange(1, 1000000)
        # first, before any work, so even an interrupted run can be reproduced
        print(f"mutation: fresh seed {args.seed} (reproduce with MUTATION_SEED={args.seed})",
              file=sys.stderr if args.list else sys.stdout, flush=True)
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    return self_test(args) if args.self_test else run(args)


if __name__ == "__main__":
    sys.exit(main())
