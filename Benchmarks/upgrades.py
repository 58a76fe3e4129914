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
upgrades ran.

Then rollbacks: the demo's Persistence and Domain with Ticker 0.1.0, upgraded ROLLBACKS (5)
times to a build of Ticker that crashes 300 ms after its service starts, within its trial:
from the supervisor's decision (RELOADING=1 after the crash) to READY=1 of the generation
running 0.1.0 again, and from the upgrade's READY=1 to it (which includes the 300 ms)."""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import HOST, Client, build_fixtures, plugin_directory
from generations import Notifications

UPGRADES = int(os.environ.get("BENCH_UPGRADES", "10"))
BOOTSTRAP_MS = int(os.environ.get("BENCH_BOOTSTRAP_MS", "1500"))
ROLLBACKS = int(os.environ.get("BENCH_ROLLBACKS", "5"))


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


def rollbacks(fixtures):
    """The rollback windows of ROLLBACKS crashing builds of Ticker, in seconds."""
    from benchlib import ROOT
    directory = plugin_directory()
    state = tempfile.mkdtemp(prefix="plugin-host-bench-rollbacks-")
    for name in ["Persistence", "Domain"]:
        shutil.copy(os.path.join(ROOT, "plugins", "lib%s.so" % name), directory)
    shutil.copy(os.path.join(fixtures, "libTicker.so"), directory)
    config = os.path.join(state, "config.json")
    with open(config, "w") as f:
        json.dump({"plugins": {"Persistence": {"dataDirectory": os.path.join(state, "data")},
                               "Ticker": {"nextBuildFails": "crash", "failAfterMs": 300}}}, f)
    notify = Notifications()
    host = subprocess.Popen([HOST, "--dir", directory, "--config", config, "--watch", "--trial", "30", "--restart-limit", "100/60"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=dict(os.environ, NOTIFY_SOCKET=notify.path))
    decided, upgraded = [], []
    try:
        notify.wait("READY=1")
        for round in range(1, ROLLBACKS + 1):
            manifest = os.path.join(state, "manifest.json")
            with open(manifest, "w") as f:
                json.dump({"name": "Ticker", "version": "0.2.%d" % round, "abi": 2, "requires": ["Domain"],
                           "settings": ["log", "trigger", "crashIn", "pollMs", "failsInNextBuild", "printEvery", "nextBuildFails", "failAfterMs"]}, f)
            build = os.path.join(state, "libTicker-%d.so" % round)
            subprocess.run(["objcopy", "--update-section", ".plugin_host_manifest=" + manifest,
                            os.path.join(fixtures, "libTickerNext.so"), build], check=True)
            staging = os.path.join(directory, ".libTicker.so.staging")
            shutil.copyfile(build, staging)
            os.chmod(staging, 0o755)
            os.rename(staging, os.path.join(directory, "libTicker.so"))
            notify.wait("RELOADING=1")
            serving = notify.wait("READY=1")
            decision = notify.wait("RELOADING=1")
            back = notify.wait("READY=1", "running the build before: Ticker 0.1.0")
            decided.append(back - decision)
            upgraded.append(back - serving)
        host.send_signal(15)
        _, errors = host.communicate(timeout=30)
        if host.returncode != 0:
            raise SystemExit("host ended with %d: %s" % (host.returncode, errors.decode()[-2000:]))
        return decided, upgraded
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
    decided, upgraded = rollbacks(fixtures)
    print("rollbacks: Ticker 0.2.x crashing 300 ms after it serves, %d times: back on 0.1.0 (READY=1) after the decision "
          "median %.1f ms (max %.1f ms); after the upgrade served median %.1f ms (max %.1f ms)" % (
              len(decided), statistics.median(decided) * 1000, max(decided) * 1000,
              statistics.median(upgraded) * 1000, max(upgraded) * 1000))


if __name__ == "__main__":
    main()
