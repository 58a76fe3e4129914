#!/usr/bin/env python3
"""The supervisor's own cost: the processor time the supervisor process uses (its workers not
included), as the host reports it (`status --json`: supervisor.cpuSeconds and .events), for
N = 10, 100 and 1000 plugins stamped as for the start-up benchmark.

For each N, RUNS hosts start one after another with --watch (so that they serve until
stopped) and one state directory, as a service restarted on one machine does:

- the first start: the supervisor's processor time from exec until it says READY=1 (to a
  notification socket, as to systemd), read from the one status request that follows less
  what a status request costs; it includes the record's copy of every build (each is new to
  the record);
- per start, the later ones: the same, with the record of the first read and its copies
  checked; the events its state machine took by then, and the time per event;
- per status request: STATUS_REQUESTS requests in a row, and the processor time and events
  they added (a status answers for every plugin: it grows with N, as its answer does).

The last column is what each figure is at N against the smallest N: a cost that grows with the
plugins squared shows as a ratio near (N / 10)^2, one that grows with them as N / 10, and a
flat one as 1. What one event costs the state machine alone, by kind, `make bench` prints from
Benchmarks/Micro ("machine, ..." lines)."""
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import HOST, ROOT
from startup import BENCH, layered_directory

RUNS = int(os.environ.get("BENCH_SUPERVISOR_RUNS", "7"))
SIZES = [int(size) for size in os.environ.get("BENCH_SIZES", "10,100,1000").split(",")]
STATUS_REQUESTS = 50


def ask(path):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(30)
        s.connect(path)
        s.sendall(b'{"command": "status"}\n')
        chunks = []
        while True:
            chunk = s.recv(1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    return json.loads(b"".join(chunks))["status"]


def ready(listener, host, limit=60):
    """Waits for READY=1 on the notification socket."""
    listener.settimeout(limit)
    while True:
        if host.poll() is not None:
            raise SystemExit("the host ended (%d) before it served" % host.returncode)
        if b"READY=1" in listener.recv(65536):
            return


def one_host(directory, state):
    control = os.path.join(state, "control.sock")
    notify = os.path.join(state, "notify.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind(notify)
        host = subprocess.Popen([HOST, "--dir", directory, "--watch", "--control", control, "--state", state],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(os.environ, NOTIFY_SOCKET=notify))
        try:
            ready(listener, host)
            first = ask(control)["supervisor"]
            for _ in range(STATUS_REQUESTS):
                ask(control)
            last = ask(control)["supervisor"]
        finally:
            host.terminate()
            host.wait()
            os.unlink(notify)
    per_request = (last["cpuSeconds"] - first["cpuSeconds"]) / (STATUS_REQUESTS + 1)
    events_per_request = (last["events"] - first["events"]) / (STATUS_REQUESTS + 1)
    return first["cpuSeconds"] - per_request, first["events"] - events_per_request, per_request, events_per_request


def main():
    subprocess.run(["make", "--no-print-directory", "-s", "-C", ROOT, "all", os.path.join("build", "bench", "libStamp.so")], check=True)
    template = os.path.join(BENCH, "libStamp.so")
    print("supervisor: its own processor time (user + system, its workers not included), medians of %d hosts per N" % RUNS)
    print("  %5s  %11s  %14s  %12s  %14s  %16s  %18s  %s" % (
        "N", "first start", "start cpu ms", "start events", "us per event", "status cpu us", "events per status",
        "at N / at N=%d" % SIZES[0]))
    first = None
    for count in SIZES:
        directory = layered_directory(template, count)
        state = tempfile.mkdtemp(prefix="plugin-host-bench-state-")
        try:
            first_start = one_host(directory, state)[0] * 1000
            runs = [one_host(directory, state) for _ in range(RUNS)]
        finally:
            shutil.rmtree(state, ignore_errors=True)
        start_cpu = statistics.median(run[0] for run in runs) * 1000
        start_events = statistics.median(run[1] for run in runs)
        per_event = statistics.median(run[0] / run[1] for run in runs) * 1e6
        per_status = statistics.median(run[2] for run in runs) * 1e6
        events_per_status = statistics.median(run[3] for run in runs)
        figures = (start_cpu, per_event, per_status)
        first = first or figures
        ratios = "start %.2f, per event %.2f, per status %.2f" % tuple(f / b for f, b in zip(figures, first))
        print("  %5d  %11.2f  %14.2f  %12.0f  %14.1f  %16.1f  %18.1f  %s" % (
            count, first_start, start_cpu, start_events, per_event, per_status, events_per_status, ratios))


if __name__ == "__main__":
    main()
