#!/usr/bin/env python3
"""check-layout.py — the include graph and the call graph against docs/architecture.md.

Reads the room table of docs/architecture.md (between the `layout-table`
markers): each room owns some folders and headers and may include a list of
other rooms (`room`, or `room:header.h` for one header of it, `*` for any).
Then every tracked C file's `#include "..."` lines are resolved (the
including file's folder, then include/, then the repository root, as the
Makefile's -I flags do) and each edge from one room into another must be
allowed. Also fails when a file belongs to no room, an include resolves to
nothing, or the allowed-direction table itself has a cycle (two rooms that
may include each other, directly or around a loop).

Calls (and references to data) are read from the build's object files,
BUILD/<path>.o for each tracked <path>.c: `nm` gives each object's undefined
symbols and the global symbols each object defines. A reference from an
object of one room to a symbol defined in an object of another room must be
allowed by the same table (for `room:header.h`, the header must name the
symbol), or be listed in the `layout-calls` exceptions of docs/architecture.md
(a listed exception that matches nothing fails too). Symbols defined by no
object of ours (libc, libcurl, ...) are not ours to order. A folder with some
objects must have one for every C file in it, and a build with no objects at
all is reported as such: the call check needs `make` first.

    python3 scripts/check-layout.py               # check the tree and build/; exit 1 on a violation
    python3 scripts/check-layout.py --build DIR   # the objects of another build (build/sanitize, ...)
    python3 scripts/check-layout.py --calls       # also list the cross-room calls, by pair of rooms
    python3 scripts/check-layout.py --self-test   # prove the check fails on planted violations

Prints one line per violation and a last line
"layout: ok (N files, N includes; N objects, N cross-room references)" or
"layout: N violation(s)"."""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN, END = "<!-- layout-table:begin -->", "<!-- layout-table:end -->"
CALLS_BEGIN, CALLS_END = "<!-- layout-calls:begin -->", "<!-- layout-calls:end -->"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def read_table(doc):
    """{room: (owned paths, allowed entries)} from the markdown table."""
    text = open(doc, encoding="utf-8").read()
    if BEGIN not in text or END not in text:
        raise SystemExit(f"layout: {doc} has no {BEGIN} ... {END} table")
    rooms = {}
    for line in text[text.index(BEGIN):text.index(END)].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        name = cells[0].strip("`")
        owns = re.findall(r"`([^`]+)`", cells[1])
        allowed = re.findall(r"`([^`]+)`", cells[2])
        rooms[name] = (owns, allowed)
    if not rooms:
        raise SystemExit(f"layout: the table in {doc} names no room")
    return rooms


def read_exceptions(doc):
    """[(caller path, callee room, symbol pattern)] from the `layout-calls`
    table: link-level references the room table does not allow, each with
    its reason in the document. None when the document has no such table."""
    text = open(doc, encoding="utf-8").read()
    if CALLS_BEGIN not in text or CALLS_END not in text:
        return []
    found = []
    for line in text[text.index(CALLS_BEGIN):text.index(CALLS_END)].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        found.append((cells[0].strip("`"), cells[1].strip("`"), cells[2].strip("`")))
    return found


def room_of(path, rooms):
    """The room owning `path`: the longest match among its folders (`x/`: the
    files directly in x; `x/**`: everything below x) and file patterns."""
    best, best_len = None, -1
    for name, (owns, _) in rooms.items():
        for own in owns:
            if own.endswith("/**"):
                hit = path.startswith(own[:-2])
            elif own.endswith("/"):
                hit = path.startswith(own) and "/" not in path[len(own):]
            elif "*" in own:
                hit = re.fullmatch(re.escape(own).replace(r"\*", "[^/]*"), path) is not None
            else:
                hit = path == own
            if hit and len(own) > best_len:
                best, best_len = name, len(own)
    return best


def cycles(rooms):
    """Pairs (a, b) where a may reach b and b may reach a through the table."""
    edges = {r: {a.split(":")[0] for a in allowed if a != "*" and a.split(":")[0] != r}
             for r, (_, allowed) in rooms.items()}
    found = []
    for start in edges:
        seen, todo = set(), list(edges[start])
        while todo:
            r = todo.pop()
            if r == start:
                found.append(start)
                break
            if r in seen or r not in edges:
                continue
            seen.add(r)
            todo.extend(edges[r])
    return found


def resolve(including, name, exists):
    for base in (os.path.dirname(including), "include", ""):
        candidate = os.path.normpath(os.path.join(base, name))
        if exists(candidate):
            return candidate
    return None


def check(files, read, exists, rooms):
    """Violations (list of text lines) and the number of includes seen."""
    problems = [f"table: room '{r}' is in a cycle of rooms that may include each other" for r in cycles(rooms)]
    for r, (_, allowed) in rooms.items():
        for a in allowed:
            if a != "*" and a.split(":")[0] not in rooms:
                problems.append(f"table: room '{r}' may include unknown room '{a}'")
    seen = 0
    for path in files:
        src = room_of(path, rooms)
        if src is None:
            problems.append(f"{path}: in no room of docs/architecture.md (add its folder to the table)")
            continue
        allowed = rooms[src][1]
        for number, line in enumerate(read(path).splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            seen += 1
            target = resolve(path, m.group(1), exists)
            if target is None:
                problems.append(f"{path}:{number}: #include \"{m.group(1)}\" resolves to no file")
                continue
            dst = room_of(target, rooms)
            if dst is None:
                problems.append(f"{path}:{number}: {target} is in no room")
            elif dst != src and "*" not in allowed and dst not in allowed \
                    and f"{dst}:{os.path.basename(target)}" not in allowed:
                problems.append(f"{path}:{number}: {src} may not include {target} (room {dst}); "
                                f"{src} may include: {', '.join(allowed) or 'nothing'}")
    return problems, seen


def allows(src, dst, allowed, symbol, header_names):
    """Does room `src` (its `allowed` list) may reach `symbol` of room `dst`?
    `header_names(room, header)` is the set of words of that room's header."""
    if dst == src or "*" in allowed or dst in allowed:
        return True
    return any(a.split(":")[0] == dst and symbol in header_names(dst, a.split(":", 1)[1])
               for a in allowed if ":" in a)


def check_calls(objects, rooms, exceptions, header_names):
    """Violations of the call graph and the number of cross-room references.
    `objects`: {source path: ({defined symbol: nm type}, {undefined symbols})},
    one entry per object of the build (a missing object is None)."""
    problems, crossings, pairs = [], 0, {}
    present = {p: syms for p, syms in objects.items() if syms is not None}
    if not present:
        return ["calls: no object files of ours in the build directory: build first (make), "
                "or pass the build directory with --build DIR"], 0, pairs
    folders = {os.path.dirname(p) for p in present}
    for path in sorted(p for p, syms in objects.items() if syms is None and os.path.dirname(p) in folders):
        problems.append(f"{path}: no object in the build directory (other files of {os.path.dirname(path)}/ "
                        f"have one): a partial or stale build, run make")
    definers, kinds = {}, {}
    for path, (defined, _) in present.items():
        for symbol in defined:
            definers.setdefault(symbol, []).append(path)
            kinds[symbol] = defined[symbol]
    used = set()
    for path in sorted(present):
        src = room_of(path, rooms)
        if src is None:
            continue  # reported by the include check
        allowed = rooms[src][1]
        for symbol in sorted(present[path][1]):
            for target in definers.get(symbol, ()):
                dst = room_of(target, rooms)
                if dst is None or dst == src:
                    continue
                crossings += 1
                pairs[(src, dst)] = pairs.get((src, dst), 0) + 1
                if allows(src, dst, allowed, symbol, header_names):
                    continue
                excused = [e for e in exceptions if e[0] == path and e[1] == dst
                           and re.fullmatch(re.escape(e[2]).replace(r"\*", ".*"), symbol)]
                if excused:
                    used.update(excused)
                    continue
                verb = "calls" if kinds.get(symbol) in ("T", "W") else "uses"  # a function, or data (an ops table, ...)
                problems.append(f"{path}: {verb} {symbol} of {target} (room {dst}); "
                                f"{src} may call: {', '.join(allowed) or 'nothing'}")
    for e in exceptions:
        if e not in used:
            problems.append(f"calls: exception `{e[0]}` -> {e[1]} `{e[2]}` (docs/architecture.md) matches no "
                            f"reference any more: remove it")
    return problems, crossings, pairs


def read_objects(build, sources):
    """{source: ({defined: nm type}, {undefined}) or None} for BUILD/<source>.o
    of each C source, by one `nm -P -A` over the objects that exist."""
    objects = {src: None for src in sources}
    paths = {os.path.join(ROOT, build, src[:-2] + ".o"): src for src in sources}
    existing = [p for p in paths if os.path.isfile(p)]
    if not existing:
        return objects
    try:
        out = subprocess.run(["nm", "-P", "-A"] + existing, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise SystemExit(f"layout: cannot read the objects with nm ({e}): install binutils")
    for p in existing:
        objects[paths[p]] = ({}, set())
    for line in out.splitlines():
        head, _, rest = line.partition(": ")
        fields = rest.split()
        if head not in paths or len(fields) < 2:
            continue
        defined, undefined = objects[paths[head]]
        if fields[1] == "U":
            undefined.add(fields[0])
        elif fields[1] in ("T", "D", "B", "R", "C", "V", "W", "G", "S", "u"):  # global definitions
            defined[fields[0]] = fields[1]
    return objects


def header_words(files, rooms, read):
    """header_names(room, header): the identifiers in that room's header."""
    cache = {}

    def names(room, header):
        if (room, header) not in cache:
            words = set()
            for f in files:
                if os.path.basename(f) == header and room_of(f, rooms) == room:
                    words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", read(f)))
            cache[(room, header)] = words
        return cache[(room, header)]
    return names


def tracked():
    out = subprocess.run(["git", "ls-files", "*.c", "*.h"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [f for f in out.stdout.split() if os.path.exists(os.path.join(ROOT, f))]


def read_source(p):
    return open(os.path.join(ROOT, p), encoding="utf-8", errors="replace").read()


def main_check(build, list_calls):
    doc = os.path.join(ROOT, "docs", "architecture.md")
    rooms = read_table(doc)
    files = tracked()
    problems, seen = check(files, read_source, lambda p: os.path.isfile(os.path.join(ROOT, p)), rooms)
    objects = read_objects(build, [f for f in files if f.endswith(".c")])
    call_problems, crossings, pairs = check_calls(objects, rooms, read_exceptions(doc),
                                                  header_words(files, rooms, read_source))
    problems += call_problems
    if list_calls:
        for (src, dst), count in sorted(pairs.items()):
            print(f"layout: calls {src} -> {dst}: {count}")
    for p in problems:
        print(f"layout: {p}")
    if problems:
        print(f"layout: {len(problems)} violation(s)")
        return 1
    built = sum(1 for syms in objects.values() if syms is not None)
    print(f"layout: ok ({len(files)} files, {seen} includes; {built} objects in {build}/, "
          f"{crossings} cross-room references)")
    return 0


def self_test(build):
    """The real table on the real tree plus one planted file per kind of
    violation: each must be reported, and the clean tree must pass. Then the
    same for calls, on the real build's objects plus planted ones."""
    doc = os.path.join(ROOT, "docs", "architecture.md")
    rooms = read_table(doc)
    real = tracked()
    texts = {}
    read = lambda p: texts[p] if p in texts else open(os.path.join(ROOT, p), encoding="utf-8", errors="replace").read()
    exists = lambda p: p in texts or os.path.isfile(os.path.join(ROOT, p))
    failures = 0
    clean, _ = check(real, read, exists, rooms)
    if clean:
        print("layout self-test: FAIL: the tree itself has violations")
        failures += 1
    plants = {
        "reference/planted.c": '#include "runner/smoke.h"\n',                       # library reaching up
        "reports/planted.c": '#include "gauntlet/runner/run.h"\n',                  # reports on the scheduler
        "mocks/planted.c": '#include "runner/cli/cli_io.h"\n',                      # mocks on the CLI
        "runner/planted.c": '#include "runner/targets/target_adapter.h"\n',         # engine on a target
        "runner/targets/planted.c": '#include "runner/cli/commands.h"\n',           # target on the CLI
        "reference/planted2.c": '#include "no/such/header.h"\n',                    # unresolved
        "newroom/planted.c": '#include "gauntlet/parse.h"\n',                       # folder in no room
    }
    for path, text in plants.items():
        texts[path] = text
        found, _ = check(real + [path], read, exists, rooms)
        del texts[path]
        if not any(p.startswith(path) for p in found):
            print(f"layout self-test: FAIL: planted {path} ({text.strip()}) was not reported")
            failures += 1
    looped = dict(rooms)
    looped["reference"] = (rooms["reference"][0], rooms["reference"][1] + ["runner"])
    if not any("cycle" in p for p in check([], read, exists, looped)[0]):
        print("layout self-test: FAIL: a cycle in the table (reference may include runner) was not reported")
        failures += 1
    failures += self_test_calls(build, rooms, read_exceptions(doc), real, read)
    print(f"layout self-test: {'ok' if failures == 0 else f'{failures} failure(s)'} "
          f"({len(plants)} planted include violations, a table cycle, {len(CALL_PLANTS)} planted calls, "
          f"a missing object, an empty build and a stale exception)")
    return 1 if failures else 0


# Planted objects: (source of the planted object, source whose object defines what it calls).
CALL_PLANTS = [
    ("reference/planted.c", "runner/cli/cli.c"),             # library calling the CLI
    ("mocks/planted.c", "runner/cli/cli_io.c"),              # mock calling the CLI
    ("runner/targets/planted.c", "runner/cli/cli.c"),        # target calling the CLI
    ("runner/planted.c", "runner/targets/target_adapter.c"),  # engine calling a target (not its ops table)
    ("reports/planted.c", "runner/run.c"),                   # reports calling the scheduler (not in result.h)
]


def self_test_calls(build, rooms, exceptions, real, read):
    objects = read_objects(build, [f for f in real if f.endswith(".c")])
    names = header_words(real, rooms, read)
    failures = 0
    clean, _, _ = check_calls(objects, rooms, exceptions, names)
    if clean:
        print("layout self-test: FAIL: the build's objects have call violations (or are missing):")
        for p in clean[:5]:
            print(f"layout self-test:   {p}")
        return 1
    for path, callee in CALL_PLANTS:
        dst = room_of(callee, rooms)
        src = room_of(path, rooms)
        defined = objects[callee][0]
        # a function of the callee its room does not allow (for a header entry: one the header does not name)
        symbol = next((s for s in sorted(defined) if defined[s] == "T" and not allows(src, dst, rooms[src][1], s, names)),
                      None)
        if symbol is None:
            print(f"layout self-test: FAIL: {callee} defines nothing {src} may not call: pick another plant")
            failures += 1
            continue
        planted = dict(objects)
        planted[path] = ({}, {symbol})
        found, _, _ = check_calls(planted, rooms, exceptions, names)
        if not any(p.startswith(f"{path}: calls {symbol} ") for p in found):
            print(f"layout self-test: FAIL: planted {path} calling {symbol} ({callee}) was not reported")
            failures += 1
    # a missing object, in a folder whose other files were built
    gone = "runner/cli/cli.c"
    planted = dict(objects)
    planted[gone] = None
    if not any(p.startswith(f"{gone}: no object") for p in check_calls(planted, rooms, exceptions, names)[0]):
        print(f"layout self-test: FAIL: a missing {gone[:-2]}.o was not reported")
        failures += 1
    if not any("no object files" in p for p in check_calls({k: None for k in objects}, rooms, exceptions, names)[0]):
        print("layout self-test: FAIL: a build with no objects was not reported")
        failures += 1
    stale = exceptions + [("runner/run.c", "cli", "gt_no_such_symbol")]
    if not any("matches no reference" in p for p in check_calls(objects, rooms, stale, names)[0]):
        print("layout self-test: FAIL: a stale exception was not reported")
        failures += 1
    return failures


def option(name, default):
    args = sys.argv[1:]
    return args[args.index(name) + 1] if name in args and args.index(name) + 1 < len(args) else default


if __name__ == "__main__":
    build_dir = option("--build", "build").rstrip("/")
    if "--self-test" in sys.argv[1:]:
        sys.exit(self_test(build_dir))
    sys.exit(main_check(build_dir, "--calls" in sys.argv[1:]))
