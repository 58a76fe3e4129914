#!/usr/bin/env python3
"""Upgrades without a gap: a service whose bootstrap takes BOOTSTRAP_MS (1500), upgraded
UPGRADES (10) times under a client that connects every 5 ms, in each order of an upgrade:

- after: the plugin's manifest keeps the default ("upgrade": "after"): the new worker
  bootstraps once the old one has stopped, and connections wait in the backlog meanwhile;
- beside: its manifest says "upgrade": "beside": the new worker bootstraps and gets ready
  while the old one serves, which then drains.

The directory holds Echo alone (the fixture answering on a socket the host holds, told to
take BOOTSTRAP_MS to bootstrap). For each order it prints the cold start (spawn to READY=1),
the median upgrade window (RELOADING=1 to READY=1) and its ratio to the cold start, the
connections refused, and the longest gap between two answers the client got while the
upgrades ran."""
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
from benchlib import HOST, build_fixtures, plugin_directory
from generations import Notifications

UPGRADES = int(os.environ.get("BENCH_UPGRADES", "10"))
BOOTSTRAP_MS = int(os.environ.get("BENCH_BOOTSTRAP_MS", "1500"))


class Client(threading.Thread):
    """Connects to Echo every 5 ms; records when each answer came, and what was refused."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.path, self.answers, self.refused, self.unanswered, self.running = path, [], 0, 0, True

    def run(self):
        while self.running:
            began = time.perf_counter()
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                    s.settimeout(10)
                    s.connect(self.path)
                    s.sendall(b"ping\n")
                    if s.recv(64):
                        self.answers.append(time.perf_counter())
                    else:
                        self.unanswered += 1
            except ConnectionRefusedError:
                self.refused += 1
            except OSError:
                self.unanswered += 1
            time.sleep(max(0.0, 0.005 - (time.perf_counter() - began)))

    def stop(self):
        self.running = False
        self.join()
        return max((b - a for a, b in zip(self.answers, self.answers[1:])), default=0.0)


def build(fixtures, state, order, version):
    """Echo with a manifest of `version` and `order`, as a file beside the directory."""
    manifest = os.path.join(state, "manifest.json")
    with open(manifest, "w") as f:
        json.dump({"name": "Echo", "version": version, "abi": 2, "upgrade": order}, f)
    target = os.path.join(state, "libEcho-%s.so" % version)
    subprocess.run(["objcopy", "--update-section", ".plugin_host_manifest=" + manifest,
                    os.path.join(fixtures, "libEcho.so"), target], check=True)
    os.chmod(target, 0o755)
    return target


def install(source, directory):
    staging = os.path.join(directory, ".libEcho.so.staging")
    shutil.copyfile(source, staging)
    os.chmod(staging, 0o755)
    os.rename(staging, os.path.join(directory, "libEcho.so"))


def run(fixtures, order):
    directory = plugin_directory()
    state = tempfile.mkdtemp(prefix="plugin-host-bench-upgrades-")
    config = os.path.join(state, "config.json")
    with open(config, "w") as f:
        json.dump({"plugins": {"Echo": {"bootstrapMs": BOOTSTRAP_MS}}}, f)
    install(build(fixtures, state, order, "1.0.0"), directory)
    notify = Notifications()
    echo = "/tmp/ph-upgrade-%d.sock" % os.getpid()
    started = time.perf_counter()
    host = subprocess.Popen([HOST, "--dir", directory, "--config", config, "--watch", "--listen", "echo=" + echo, "--trial", "0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=dict(os.environ, NOTIFY_SOCKET=notify.path))
    try:
        cold = notify.wait("READY=1") - started
        client = Client(echo)
        client.start()
        windows = []
        for upgrade in range(1, UPGRADES + 1):
            install(build(fixtures, state, order, "1.%d.0" % upgrade), directory)
            reloading = notify.wait("RELOADING=1")
            windows.append(notify.wait("READY=1") - reloading)
            time.sleep(0.2)
        gap = client.stop()
        host.send_signal(15)
        _, errors = host.communicate(timeout=30)
        if host.returncode != 0:
            raise SystemExit("host ended with %d: %s" % (host.returncode, errors.decode()[-2000:]))
        return cold, statistics.median(windows), client.refused, client.unanswered, gap, len(client.answers)
    finally:
        if host.poll() is None:
            host.kill()
        notify.close()
        shutil.rmtree(state, ignore_errors=True)


def main():
    fixtures = build_fixtures()
    print("upgrades: Echo bootstrapping in %d ms, upgraded %d times, a client connecting every 5 ms" % (BOOTSTRAP_MS, UPGRADES))
    print("  %-7s  %8s  %15s  %14s  %8s  %10s  %8s  %8s" % (
        "order", "cold ms", "upgrade window", "upgrade/cold", "refused", "unanswered", "answers", "max gap"))
    for order in ["after", "beside"]:
        cold, window, refused, unanswered, gap, answers = run(fixtures, order)
        print("  %-7s  %8.1f  %12.1f ms  %14.2f  %8d  %10d  %8d  %5.0f ms" % (
            order, cold * 1000, window * 1000, window / cold, refused, unanswered, answers, gap * 1000))


if __name__ == "__main__":
    main()
