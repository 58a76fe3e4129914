#!/usr/bin/env python3
"""`make mutants`: plants each bug of Tests/Mutants/planted-bugs.txt in a copy of the host's
sources, builds the simulator against it, runs the simulator's default run (`make simulate`:
100,000 sequences), and says which invariant caught it. The last line reads
"K/M planted bugs caught"; the exit status is 1 when one escaped, or a bug no longer applies.

Usage: run.py --swiftc SWIFTC --flags "FLAGS" --build DIR [--sequences N] [--seed S] [--only ID]
       run.py --check     (each bug applies exactly once to the sources as they are; no build)
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def planted_bugs(path):
    """The bugs of the list: id, promise, file, and the replacements (old text, new text)."""
    bugs, bug, block = [], None, None
    for line in open(path, encoding="utf-8").read().split("\n"):
        if line.startswith("== "):
            bug = {"id": line[3:].strip(), "promise": "", "file": "", "edits": []}
            bugs.append(bug)
            block = None
        elif bug is None or line.startswith("#"):
            continue
        elif line.startswith("promise: "):
            bug["promise"] = line[len("promise: "):]
            block = None
        elif line.startswith("in: "):
            bug["file"] = line[len("in: "):]
            block = None
        elif line == "replace:":
            # A bug may span files: each `in:` applies to the replacements after it.
            bug["edits"].append(["", None, bug["file"]])
            block = "old"
        elif line == "with:":
            bug["edits"][-1][1] = ""
            block = "new"
        elif block == "old":
            bug["edits"][-1][0] += line + "\n"
        elif block == "new":
            bug["edits"][-1][1] += line + "\n"
    for bug in bugs:
        for edit in bug["edits"]:
            edit[0] = edit[0].rstrip("\n") + "\n"
            edit[1] = (edit[1] or "").rstrip("\n") + "\n"
    return bugs


def plant(bug, sources):
    """Copies the host's sources to `sources` with the bug in; the reason it does not apply, or None."""
    problem = applies(bug)
    if problem:
        return problem
    if os.path.exists(sources):
        shutil.rmtree(sources)
    shutil.copytree(os.path.join(ROOT, "Sources/PluginHost"), sources)
    for old, new, file in bug["edits"]:
        target = os.path.join(sources, os.path.relpath(file, "Sources/PluginHost"))
        if not os.path.exists(target):
            return f"{file} does not exist"
        text = open(target, encoding="utf-8").read()
        count = text.count(old)
        if count != 1:
            return f"the text to replace is found {count} times in {file}, not once:\n{old}"
        open(target, "w", encoding="utf-8").write(text.replace(old, new))
    return None


def applies(bug):
    """Why `bug` does not apply to the sources as they are, or None: each of its texts must be
    found exactly once in its file, and its replacements must apply in turn."""
    if not bug["edits"]:
        return "it has no replace: block"
    texts = {}
    for old, new, file in bug["edits"]:
        if not file:
            return "it names no file (in:)"
        path = os.path.join(ROOT, file)
        if file not in texts:
            if not os.path.exists(path):
                return f"{file} does not exist"
            texts[file] = open(path, encoding="utf-8").read()
        count = texts[file].count(old)
        if count != 1:
            return f"the text to replace is found {count} times in {file}, not once:\n{old}"
        if old == new:
            return f"a replacement in {file} changes nothing"
        texts[file] = texts[file].replace(old, new)
    return None


def check():
    """`make test`'s check: every planted bug applies, so the list cannot drift from the code."""
    bugs = planted_bugs(os.path.join(HERE, "planted-bugs.txt"))
    ids = [bug["id"] for bug in bugs]
    problems = [f"{bug['id']}: {why}" for bug in bugs if (why := applies(bug))]
    problems += [f"{id}: planted twice" for id in sorted(set(ids)) if ids.count(id) > 1]
    problems += [f"{bug['id']}: no promise: line" for bug in bugs if not bug["promise"]]
    for problem in problems:
        print(f"  {problem}")
    print(f"{len(bugs) - len(problems)}/{len(bugs)} planted bugs apply")
    sys.exit(1 if problems else 0)


def build(bug, args):
    """Builds the simulator with the bug planted; the simulator's path, or why it did not build."""
    directory = os.path.join(args.build, bug["id"])
    sources = os.path.join(directory, "PluginHost")
    problem = plant(bug, sources)
    if problem:
        return None, problem
    host = sorted(
        os.path.join(folder, name) for folder, _, names in os.walk(sources) for name in names
        if name.endswith(".swift") and name != "PluginHostCommand.swift")
    simulation = sorted(os.path.join(ROOT, "Tests/PluginHostTests/Simulation", name)
                        for name in os.listdir(os.path.join(ROOT, "Tests/PluginHostTests/Simulation")) if name.endswith(".swift"))
    driver = sorted(os.path.join(ROOT, "Tests/Simulate", name)
                    for name in os.listdir(os.path.join(ROOT, "Tests/Simulate")) if name.endswith(".swift"))
    simulator = os.path.join(directory, "simulate")
    command = [args.swiftc] + args.flags.split() + ["-o", simulator] + simulation + driver + host
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if result.returncode != 0:
        errors = [line for line in result.stdout.split("\n") + result.stderr.split("\n") if "error:" in line]
        return None, "does not build: " + ("; ".join(errors[:3]) or result.stderr[-500:])
    return simulator, None


def run(bug, simulator, args):
    """Runs the default simulation; whether the bug was caught, the seed, and what caught it."""
    command = [simulator, str(args.sequences)] + ([str(args.seed)] if args.seed is not None else [])
    started = time.monotonic()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    elapsed = time.monotonic() - started
    output = result.stdout
    first = re.search(r"^simulate: \d+ sequences from seed (\d+)", output, re.M)
    violation = re.search(r"^seed (\d+): (.*)$", output, re.M)
    totals = re.search(r"^(\d+) sequences, (\d+) events, (\d+) invariant violations", output, re.M)
    caught = result.returncode != 0 and violation is not None
    return {
        "caught": caught,
        "first_seed": first.group(1) if first else "?",
        "seed": violation.group(1) if violation else None,
        "violation": violation.group(2) if violation else "",
        "sequences": totals.group(1) if totals else "?",
        "seconds": elapsed,
        "output": output,
    }


def main():
    if sys.argv[1:] == ["--check"]:
        check()
    parser = argparse.ArgumentParser()
    parser.add_argument("--swiftc", default="swiftc")
    parser.add_argument("--flags", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--sequences", type=int, default=100_000)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--only")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    args.build = os.path.abspath(args.build)
    bugs = planted_bugs(os.path.join(HERE, "planted-bugs.txt"))
    if args.only:
        bugs = [bug for bug in bugs if bug["id"] in args.only.split(",")]
    print(f"mutants: {len(bugs)} planted bugs, each against {args.sequences} sequences"
          + (f" from seed {args.seed}" if args.seed is not None else " from a random seed"), flush=True)
    started = time.monotonic()
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        built = {bug["id"]: pool.submit(build, bug, args) for bug in bugs}
        for bug in bugs:
            simulator, problem = built[bug["id"]].result()
            if problem:
                results[bug["id"]] = {"caught": False, "problem": problem}
                print(f"  {bug['id']}: NOT APPLIED: {problem}", flush=True)
                continue
            outcome = run(bug, simulator, args)
            results[bug["id"]] = outcome
            if outcome["caught"]:
                print(f"  {bug['id']}: caught at seed {outcome['seed']} (run from seed {outcome['first_seed']}, "
                      f"{outcome['seconds']:.1f} s): {outcome['violation'][:160]}", flush=True)
            else:
                print(f"  {bug['id']}: ESCAPED {outcome['sequences']} sequences from seed {outcome['first_seed']}: "
                      f"{bug['promise']}", flush=True)
    caught = sum(1 for outcome in results.values() if outcome["caught"])
    print(f"time: {time.monotonic() - started:.0f} s")
    print(f"{caught}/{len(bugs)} planted bugs caught")
    sys.exit(0 if caught == len(bugs) else 1)


if __name__ == "__main__":
    main()
