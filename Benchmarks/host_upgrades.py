#!/usr/bin/env python3
"""The host upgrading itself under load: an install tree (bin/plugin-host, lib/libPluginABI.so)
serving Keeper (the fixture that counts its clients' lines and hands its count over between
generations), upgraded UPGRADES (10) times with `plugin-host upgrade-host`, each time to
another build installed at bin/plugin-host (the same program with bytes after its end),
while a client connects every 5 ms and sends a line. Each round waits for MAINPID= of the
new host and for the old host's end (its --trial of TRIAL_S, 0.5 s, passed).

It prints, over all rounds: the connections refused (the target: 0), the longest gap
between two answers (the target: at most 50 ms), whether Keeper's count ever went back
(the target: never), the open descriptors of each new supervisor once it serves alone (the
target: flat), and the time from `upgrade-host` to its answer and to MAINPID=."""
import ctypes
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import HOST, ROOT, Client, build_fixtures
from generations import Notifications

UPGRADES = int(os.environ.get("BENCH_HOST_UPGRADES", "10"))
TRIAL_S = os.environ.get("BENCH_HOST_TRIAL", "0.5")


def descriptors(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def main():
    fixtures = build_fixtures()
    # Every host is a descendant of this process, so that each old host's end can be waited for.
    PR_SET_CHILD_SUBREAPER = 36
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    tree = tempfile.mkdtemp(prefix="plugin-host-bench-host-upgrades-")
    try:
        for folder in ["bin", "lib", "plugins"]:
            os.makedirs(os.path.join(tree, folder))
        binary = os.path.join(tree, "bin", "plugin-host")
        shutil.copy(HOST, binary)
        shutil.copy(os.path.join(ROOT, "build", "lib", "libPluginABI.so"), os.path.join(tree, "lib"))
        shutil.copy(os.path.join(fixtures, "libKeeper.so"), os.path.join(tree, "plugins"))
        config = os.path.join(tree, "config.json")
        with open(config, "w") as f:
            json.dump({"plugins": {"Keeper": {"socket": "keeper"}}}, f)
        keeper = "/tmp/ph-host-upgrade-%d.sock" % os.getpid()
        control = os.path.join(tree, "control.sock")
        notify = Notifications()
        host = subprocess.Popen([binary, "--dir", os.path.join(tree, "plugins"), "--config", config, "--listen", "keeper=" + keeper,
                                 "--control", control, "--trial", TRIAL_S, "--state", os.path.join(tree, "state")],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(os.environ, NOTIFY_SOCKET=notify.path))
        serving = host.pid
        try:
            notify.wait("READY=1")
            client = Client(keeper, line=b"x\n")
            client.start()
            answered, told, fds = [], [], [descriptors(serving)]
            for round in range(1, UPGRADES + 1):
                with open(binary, "rb") as f:
                    program = f.read()
                staging = os.path.join(tree, "bin", ".plugin-host.new")
                with open(staging, "wb") as f:
                    f.write(program + ("build %d" % round).encode())
                os.chmod(staging, 0o755)
                os.rename(staging, binary)
                asked = time.perf_counter()
                result = subprocess.run([binary, "upgrade-host", "--control", control], capture_output=True, text=True)
                answered.append(time.perf_counter() - asked)
                if result.returncode != 0:
                    raise SystemExit("upgrade %d failed (%d): %s%s" % (round, result.returncode, result.stdout, result.stderr))
                new = int(result.stdout.split("(pid ")[1].split(")")[0])
                told.append(notify.wait("MAINPID=%d" % new) - asked)
                # The old host ends once the new host's trial passed.
                _, status = os.waitpid(serving, 0)
                if os.waitstatus_to_exitcode(status) != 0:
                    raise SystemExit("the old host (pid %d) ended with %d" % (serving, os.waitstatus_to_exitcode(status)))
                serving = new
                fds.append(descriptors(serving))
            gap = client.stop()
            counts = [int(answer.split()[1]) for answer in client.said]
            went_back = sum(1 for a, b in zip(counts, counts[1:]) if b < a)
            os.kill(serving, 15)
            os.waitpid(serving, 0)
        finally:
            for pid in {host.pid, serving}:
                try:
                    os.kill(pid, 9)
                except ProcessLookupError:
                    pass
            notify.close()
        print("host upgrades: Keeper counting a client's lines, the host upgraded %d times (--trial %s), a client connecting every 5 ms"
              % (UPGRADES, TRIAL_S))
        print("  connections: %d answered, %d refused, %d unanswered; longest gap between answers %.0f ms; Keeper's count went back %d times (last %d)"
              % (len(client.answers), client.refused, client.unanswered, gap * 1000, went_back, counts[-1] if counts else 0))
        print("  upgrade-host answered in median %.0f ms (max %.0f ms); MAINPID= of the new host after median %.0f ms"
              % (statistics.median(answered) * 1000, max(answered) * 1000, statistics.median(told) * 1000))
        print("  open descriptors of each serving supervisor, first to last: %s" % " ".join(str(n) for n in fds))
    finally:
        shutil.rmtree(tree, ignore_errors=True)


if __name__ == "__main__":
    main()
