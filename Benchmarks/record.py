#!/usr/bin/env python3
"""The record of what the host proved, as a service starts: what keeping it costs, and how big
it gets.

For N = 10, 100, 1000 plugins stamped from the project `plugin-host new Stamp` writes (as
startup.py stamps them, without requirements), the host starts as a service (--watch, a notification socket as
systemd's) and is timed from spawn to READY=1 and the record written, then stopped with SIGTERM:

- none:   --state names a file, so no record can be kept (said once): the host as it ran before
          it kept a record;
- first:  an empty state directory: every build is permanent, copied into the record;
- later:  the state directory the first start left: the record read, each copy checked and held.

RUNS rounds (default 10, 5 at N=1000), the three in turn each round; prints the medians and
first/none, later/none with the middle half of the per-round ratios.

Then UPGRADES (1000) upgrades of one plugin through the real binary, --trial 0 (each build
permanent as it serves): the size of the record and of its copies after them, against the bound
docs/operations.md gives (per plugin: 8 builds left out, 3 permanent with their copies, 1 on
trial)."""
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import HOST, ROOT, plugin_directory, stamp
from generations import Notifications

SIZES = [int(size) for size in os.environ.get("BENCH_SIZES", "10,100,1000").split(",")]
RUNS = int(os.environ.get("BENCH_RUNS", "10"))
UPGRADES = int(os.environ.get("BENCH_UPGRADES", "1000"))


def record_file(state):
    names = [name for name in os.listdir(state) if name.startswith("record-")] if os.path.isdir(state) else []
    return os.path.join(state, names[0]) if names else None


def start(directory, state):
    """Spawn to READY=1 and (with a state directory) the record on disk, in seconds."""
    notifications = Notifications()
    began = time.perf_counter()
    host = subprocess.Popen([HOST, "--dir", directory, "--state", state, "--watch"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=dict(os.environ, NOTIFY_SOCKET=notifications.path))
    try:
        notifications.wait("READY=1")
        # The record is written in the step that serves, after READY=1 is sent: wait for it.
        while os.path.isdir(state) and record_file(state) is None:
            time.sleep(0.0005)
        return time.perf_counter() - began
    finally:
        host.send_signal(signal.SIGTERM)
        host.wait()
        notifications.close()


def quartiles(values):
    q = statistics.quantiles(values, n=4)
    return "%.2f-%.2f" % (q[0], q[2])


def startup(template):
    print("start-up as a service, spawn to READY=1 and the record written (median ms of %d rounds)" % RUNS)
    print("%6s %9s %9s %9s %11s %13s %11s %13s" % ("N", "none", "first", "later", "first/none", "pairs q1-q3", "later/none", "pairs q1-q3"))
    for count in SIZES:
        directory = plugin_directory()
        for index in range(count):
            stamp(template, directory, "P%04d" % index, [])
        blocked = tempfile.mktemp(prefix="plugin-host-no-state-")
        open(blocked, "w").close()
        runs = RUNS if count < 1000 else max(3, RUNS // 2)
        times = {"none": [], "first": [], "later": []}
        start(directory, blocked)  # warm-up
        for _ in range(runs):
            state = tempfile.mkdtemp(prefix="plugin-host-state-")
            shutil.rmtree(state)
            times["none"].append(start(directory, blocked))
            times["first"].append(start(directory, state))
            times["later"].append(start(directory, state))
            shutil.rmtree(state, ignore_errors=True)
        os.remove(blocked)
        ms = {key: statistics.median(value) * 1000 for key, value in times.items()}
        first = [f / n for f, n in zip(times["first"], times["none"])]
        later = [l / n for l, n in zip(times["later"], times["none"])]
        print("%6d %9.1f %9.1f %9.1f %11.2f %13s %11.2f %13s" % (
            count, ms["none"], ms["first"], ms["later"], ms["first"] / ms["none"], quartiles(first), ms["later"] / ms["none"], quartiles(later)))
    print("targets: first/none <= 1.5, later/none <= 1.05")


def upgrades(template):
    directory = plugin_directory()
    stamp(template, directory, "Counter", [])
    state = tempfile.mkdtemp(prefix="plugin-host-state-")
    notifications = Notifications()
    host = subprocess.Popen([HOST, "--dir", directory, "--state", state, "--watch", "--trial", "0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=dict(os.environ, NOTIFY_SOCKET=notifications.path))
    began = time.perf_counter()
    try:
        notifications.wait("READY=1")
        staging = plugin_directory()
        for number in range(UPGRADES):
            stamp(template, staging, "Counter", [])
            os.rename(os.path.join(staging, "libCounter.so"), os.path.join(directory, "libCounter.so"))
            notifications.wait("RELOADING=1")
            notifications.wait("READY=1")
        elapsed = time.perf_counter() - began
        record = record_file(state)
        deadline = time.perf_counter() + 10
        # The last upgrade's record is written in the step that serves it.
        while time.perf_counter() < deadline and open(record).read().count("permanent\tCounter\t") < 3:
            time.sleep(0.01)
        text = open(record).read()
        copies = [os.path.join(dp, f) for dp, _, fs in os.walk(state) for f in fs if f.endswith(".so")]
        counter = [line for line in text.splitlines() if "\tCounter\t" in line]
        print("record after %d upgrades of one plugin (%.0f s): %d bytes, %d lines of the plugin (bound: 12), "
              "%d copies of it, %d bytes of copies (bound: 3 copies)" % (
                  UPGRADES, elapsed, len(text.encode()), len(counter),
                  sum(1 for path in copies if os.path.basename(path).startswith("Counter-")), sum(os.path.getsize(p) for p in copies)))
    finally:
        host.send_signal(signal.SIGTERM)
        host.wait()
        notifications.close()
        shutil.rmtree(state, ignore_errors=True)


if __name__ == "__main__":
    subprocess.run(["make", "--no-print-directory", "-s", "-C", ROOT, "all", os.path.join("build", "bench", "libStamp.so")], check=True)
    template = os.path.join(ROOT, "build", "bench", "libStamp.so")
    startup(template)
    upgrades(template)
