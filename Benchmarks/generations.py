#!/usr/bin/env python3
"""Worker generations: how long a service is away when a plugin crashes (recovery) or a
plugin file changes (upgrade), against a cold start of the same directory, and the longest
gap between connections a client got answered while it happens.

The directory: the demo application, Echo (answers on a socket held by the host, --listen)
and Ticker (a service that crashes once a trigger file exists, checking every millisecond),
plus EXTRA stamped plugins (0 and 100). Each of RUNS rounds, for each size:

- cold start: from spawning plugin-host (--watch) to READY=1 on its notification socket;
- recovery: from creating Ticker's trigger to READY=1 of the generation without it (the
  crash, the supervisor's verdict, a new worker, its survey, load, bootstrap, readiness);
  Ticker then comes back (its file replaced, added to the running worker);
- upgrade: from RELOADING=1 (the supervisor starts a new worker for Echo's replaced file) to
  READY=1 of that worker (it loads beside the old one, the old one drains and shuts down, it
  bootstraps); and from the file's rename to READY=1, which adds --watch's 200 ms of quiet;
- the longest gap between two answers a client got, connecting in a loop all along.

Prints medians, the ratios to the cold start (of the medians, and the middle half of the
per-round ratios), and the longest gaps.

With BENCH_BASELINE_HOST=PATH (another build of plugin-host, such as one from an earlier
commit), that host runs a round after each of this one's, and the medians of both and their
ratios (this host / the baseline) are printed too."""
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import HOST, ROOT, build_fixtures, plugin_directory, stamp

RUNS = int(os.environ.get("BENCH_GENERATION_RUNS", "10"))
BASELINE = os.environ.get("BENCH_BASELINE_HOST")
EXTRAS = [int(n) for n in os.environ.get("BENCH_GENERATION_EXTRAS", "0,100").split(",")]


class Notifications:
    """A datagram socket listening as systemd's notification socket does."""

    def __init__(self):
        self.path = tempfile.mktemp(prefix="ph-notify-", suffix=".sock", dir="/tmp")
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.socket.bind(self.path)

    def wait(self, prefix, contains="", limit=30.0):
        """The time (perf_counter) the first message starting with `prefix` and holding
        `contains` arrived."""
        deadline = time.perf_counter() + limit
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise SystemExit("no %r notification within %s s" % (prefix, limit))
            self.socket.settimeout(left)
            message = self.socket.recv(4096).decode()
            if message.startswith(prefix) and contains in message:
                return time.perf_counter()

    def close(self):
        self.socket.close()
        os.unlink(self.path)


class Client(threading.Thread):
    """Connects to Echo again and again; records when each answer came."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.path, self.answers, self.refused, self.running = path, [], 0, True

    def run(self):
        while self.running:
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                    s.settimeout(5)
                    s.connect(self.path)
                    s.sendall(b"ping\n")
                    if s.recv(64):
                        self.answers.append(time.perf_counter())
            except ConnectionRefusedError:
                self.refused += 1
            except OSError:
                pass

    def longest_gap(self):
        self.running = False
        self.join()
        return max((b - a for a, b in zip(self.answers, self.answers[1:])), default=0.0)


def replace(source, target):
    """Puts a copy of `source` at `target` by rename: a new inode."""
    staging = target + ".staging"
    shutil.copyfile(source, staging)
    os.chmod(staging, 0o755)
    os.rename(staging, target)


def service_directory(fixtures, template, extra):
    directory = plugin_directory()
    for name in ["Persistence", "Domain", "Application"]:
        shutil.copy(os.path.join(ROOT, "plugins", "lib%s.so" % name), directory)
    for name in ["Echo", "Ticker"]:
        shutil.copy(os.path.join(fixtures, "lib%s.so" % name), directory)
    for index in range(extra):
        stamp(template, directory, "X%03d" % index, ["X%03d" % (index - 1)] if index % 10 else [])
    state = tempfile.mkdtemp(prefix="plugin-host-bench-state-")
    config = os.path.join(state, "config.json")
    with open(config, "w") as f:
        json.dump({"plugins": {
            "Persistence": {"dataDirectory": os.path.join(state, "data")},
            "Ticker": {"trigger": os.path.join(state, "crash"), "crashIn": "run", "pollMs": 1},
        }}, f)
    return directory, config, state


def round_of(fixtures, directory, config, state, executable=HOST):
    notify = Notifications()
    echo = "/tmp/ph-echo-%d.sock" % os.getpid()
    started = time.perf_counter()
    host = subprocess.Popen([executable, "--dir", directory, "--config", config, "--watch", "--listen", "echo=" + echo,
                             "--restart-limit", "1000/60"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=dict(os.environ, NOTIFY_SOCKET=notify.path))
    try:
        cold = notify.wait("READY=1") - started
        client = Client(echo)
        client.start()
        trigger = os.path.join(state, "crash")
        crashed = time.perf_counter()
        open(trigger, "w").close()
        recovery = notify.wait("READY=1", "left out: Ticker") - crashed
        os.remove(trigger)
        replace(os.path.join(fixtures, "libTicker.so"), os.path.join(directory, "libTicker.so"))
        notify.wait("STATUS=Added plugin Ticker")
        changed = time.perf_counter()
        replace(os.path.join(fixtures, "libEcho.so"), os.path.join(directory, "libEcho.so"))
        reloading = notify.wait("RELOADING=1")
        ready = notify.wait("READY=1")
        gap = client.longest_gap()
        host.send_signal(15)
        _, errors = host.communicate(timeout=30)
        if host.returncode != 0 or client.refused:
            raise SystemExit("host ended with %d, %d connections refused: %s" % (host.returncode, client.refused, errors.decode()[-2000:]))
        return {"cold": cold, "recovery": recovery, "upgrade": ready - reloading, "change": ready - changed, "gap": gap}
    finally:
        if host.poll() is None:
            host.kill()
        notify.close()


def quartiles(values):
    q = statistics.quantiles(values, n=4)
    return "%.2f-%.2f" % (q[0], q[2])


def main():
    fixtures = build_fixtures()
    subprocess.run(["make", "--no-print-directory", "-s", "-C", ROOT, os.path.join("build", "bench", "libStamp.so")], check=True)
    template = os.path.join(ROOT, "build", "bench", "libStamp.so")
    print("generations: median of %d rounds; the demo, Echo behind --listen, Ticker, and EXTRA stamped plugins" % RUNS)
    print("  %5s  %8s  %9s  %9s  %9s  %14s  %14s  %11s  %9s" % (
        "EXTRA", "cold ms", "recovery", "upgrade", "change", "recovery/cold", "upgrade/cold", "pairs q1-q3", "max gap"))
    for extra in EXTRAS:
        directory, config, state = service_directory(fixtures, template, extra)
        round_of(fixtures, directory, config, state)  # warm-up: the manifest cache, the page cache
        rounds, baseline = [], []
        for _ in range(RUNS):
            rounds.append(round_of(fixtures, directory, config, state))
            if BASELINE:
                baseline.append(round_of(fixtures, directory, config, state, BASELINE))
        ms = {key: statistics.median(r[key] for r in rounds) * 1000 for key in rounds[0]}
        recovery_pairs = [r["recovery"] / r["cold"] for r in rounds]
        upgrade_pairs = [r["upgrade"] / r["cold"] for r in rounds]
        print("  %5d  %8.1f  %9.1f  %9.1f  %9.1f  %14.2f  %14.2f  %11s  %7.0f ms" % (
            extra, ms["cold"], ms["recovery"], ms["upgrade"], ms["change"], ms["recovery"] / ms["cold"], ms["upgrade"] / ms["cold"],
            quartiles(upgrade_pairs), max(r["gap"] for r in rounds) * 1000))
        print("         recovery/cold pairs q1-q3 %s; longest gap between answers: median %.0f ms, largest %.0f ms" % (
            quartiles(recovery_pairs), statistics.median(r["gap"] for r in rounds) * 1000, max(r["gap"] for r in rounds) * 1000))
        if baseline:
            before = {key: statistics.median(r[key] for r in baseline) * 1000 for key in baseline[0]}
            print("         baseline: cold %.1f ms, recovery %.1f ms, upgrade %.1f ms; recovery/cold %.2f, upgrade/cold %.2f" % (
                before["cold"], before["recovery"], before["upgrade"], before["recovery"] / before["cold"], before["upgrade"] / before["cold"]))
            print("         host / baseline: cold %.2f, recovery %.2f, upgrade %.2f, change %.2f" % (
                ms["cold"] / before["cold"], ms["recovery"] / before["recovery"], ms["upgrade"] / before["upgrade"],
                ms["change"] / before["change"]))
        shutil.rmtree(state, ignore_errors=True)


if __name__ == "__main__":
    main()
