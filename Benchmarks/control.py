#!/usr/bin/env python3
"""The control socket: what a status request costs, and what a flood of them costs the
service beside it.

The directory: the demo application and Echo (answers on a socket the host holds, --listen).

- status round trip: connect to the control socket, send {"command": "status"}, read the
  answer to its end; ROUND_TRIPS times while the host serves, and as many while a restart
  backs off (a worker killed from outside twice in a row, --restart-delay 60); median and p99.
  Also `plugin-host status --json`, the whole command, while serving (median).
- Echo's latency (connect, a line, the answer) for SECONDS, alone and then with another
  process sending 1,000 status requests a second to the supervisor; median and p99 of each,
  and their ratio, and the status requests actually sent a second."""
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import HOST, ROOT, build_fixtures, plugin_directory

ROUND_TRIPS = int(os.environ.get("BENCH_CONTROL_ROUND_TRIPS", "1000"))
SECONDS = float(os.environ.get("BENCH_CONTROL_SECONDS", "5"))
RATE = 1000

STATUS = b'{"command": "status"}\n'


def ask(path, request=STATUS):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.connect(path)
        s.sendall(request)
        chunks = []
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    return json.loads(b"".join(chunks))


def round_trips(path, count, expect_state):
    times = []
    for _ in range(count):
        start = time.perf_counter()
        answer = ask(path)
        times.append(time.perf_counter() - start)
        if answer["status"]["state"] != expect_state:
            raise SystemExit("expected the host %s, it is %s" % (expect_state, answer["status"]["state"]))
    return times


def echo_latencies(path, seconds):
    times = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        start = time.perf_counter()
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(5)
            s.connect(path)
            s.sendall(b"ping\n")
            if not s.recv(64):
                raise SystemExit("Echo did not answer")
        times.append(time.perf_counter() - start)
    return times


# A separate process, so that it does not share this one's interpreter lock.
LOADER = r"""
import socket, sys, time
path, rate, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
sent, start = 0, time.perf_counter()
while True:
    now = time.perf_counter() - start
    if now >= seconds:
        break
    due = int(now * rate)
    while sent < due:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.connect(path)
            s.sendall(b'{"command": "status"}\n')
            while s.recv(65536):
                pass
        sent += 1
    time.sleep(0.0005)
print(sent / (time.perf_counter() - start))
"""


def p99(times):
    return statistics.quantiles(times, n=100)[98] * 1000


def median(times):
    return statistics.median(times) * 1000


def wait_for(path, state, limit=30):
    deadline = time.time() + limit
    while time.time() < deadline:
        try:
            answer = ask(path)
            if answer["status"]["state"] == state:
                return answer["status"]
        except OSError:
            pass
        time.sleep(0.01)
    raise SystemExit("the host was not %s within %d s" % (state, limit))


def main():
    fixtures = build_fixtures()
    directory = plugin_directory()
    for name in ["Persistence", "Domain", "Application"]:
        subprocess.run(["cp", os.path.join(ROOT, "plugins", "lib%s.so" % name), directory], check=True)
    subprocess.run(["cp", os.path.join(fixtures, "libEcho.so"), directory], check=True)
    state = tempfile.mkdtemp(prefix="plugin-host-bench-state-")
    config = os.path.join(state, "config.json")
    with open(config, "w") as f:
        json.dump({"plugins": {"Persistence": {"dataDirectory": os.path.join(state, "data")}}}, f)
    control = "/tmp/ph-control-%d.sock" % os.getpid()
    echo = "/tmp/ph-echo-%d.sock" % os.getpid()
    host = subprocess.Popen([HOST, "--dir", directory, "--config", config, "--listen", "echo=" + echo, "--control", control,
                             "--restart-limit", "1000/60", "--restart-delay", "60", "--restart-max-delay", "60"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(control, "serving")
        print("control: %d status round trips each; Echo's latency over %.0f s" % (ROUND_TRIPS, SECONDS))
        round_trips(control, 50, "serving")  # warm-up
        serving = round_trips(control, ROUND_TRIPS, "serving")
        commands = []
        for _ in range(20):
            start = time.perf_counter()
            subprocess.run([HOST, "status", "--json", "--control", control], check=True, stdout=subprocess.DEVNULL)
            commands.append(time.perf_counter() - start)
        print("  status round trip, serving:      median %.3f ms, p99 %.3f ms; `plugin-host status --json`: median %.1f ms" % (
            median(serving), p99(serving), median(commands)))

        echo_latencies(echo, 0.5)  # warm-up
        alone = echo_latencies(echo, SECONDS)
        loader = subprocess.Popen([sys.executable, "-c", LOADER, control, str(RATE), str(SECONDS)], stdout=subprocess.PIPE)
        beside = echo_latencies(echo, SECONDS)
        achieved = float(loader.communicate()[0])
        print("  Echo alone:                      median %.3f ms, p99 %.3f ms (%d requests)" % (median(alone), p99(alone), len(alone)))
        print("  Echo beside %4.0f status/s:       median %.3f ms, p99 %.3f ms (%d requests); with/without: median %.2f, p99 %.2f" % (
            achieved, median(beside), p99(beside), len(beside), median(beside) / median(alone), p99(beside) / p99(alone)))

        # Killed from outside twice in a row: the second restart waits --restart-delay.
        for number in (1, 2):
            status = wait_for(control, "serving")
            os.kill(status["generations"][0]["pid"], signal.SIGKILL)
            if number == 1:
                deadline = time.time() + 30
                while ask(control)["status"]["generations"][0:1] and ask(control)["status"]["generations"][0]["number"] == 1:
                    if time.time() > deadline:
                        raise SystemExit("no second generation")
                    time.sleep(0.01)
        wait_for(control, "backing off")
        backing_off = round_trips(control, ROUND_TRIPS, "backing off")
        print("  status round trip, backing off:  median %.3f ms, p99 %.3f ms" % (median(backing_off), p99(backing_off)))
    finally:
        host.send_signal(signal.SIGTERM)
        try:
            host.wait(timeout=30)
        except subprocess.TimeoutExpired:
            host.kill()
        subprocess.run(["rm", "-rf", state])


if __name__ == "__main__":
    main()
