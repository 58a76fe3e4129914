"""Shared helpers of the plugin-host benchmarks: plugin directories stamped out from one
compiled fixture, and timing of whole host runs."""
import atexit
import json
import os
import shutil
import statistics
import subprocess
import socket
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOST = os.path.join(ROOT, "build", "bin", "plugin-host")


def build_fixtures():
    """Builds the host and the fixture plugins with make; returns the fixture directory."""
    out = os.path.join(ROOT, "build", "bench", "fixtures")
    subprocess.run(["make", "--no-print-directory", "-C", ROOT, "all", "fixtures", "FIXTURES_OUT=" + out, "-j2"],
                   check=True, stdout=subprocess.DEVNULL)
    return out


def stamp(template, directory, name, requires):
    """Copies the plugin `template` into `directory` as lib<name>.so with its own manifest."""
    manifest = os.path.join(directory, name + ".json")
    with open(manifest, "w") as f:
        json.dump({"name": name, "version": "1.0.0", "abi": 2, "requires": requires}, f)
    target = os.path.join(directory, "lib%s.so" % name)
    subprocess.run(["objcopy", "--update-section", ".plugin_host_manifest=" + manifest, template, target], check=True)
    os.chmod(target, 0o755)
    os.remove(manifest)


def plugin_directory():
    """A new temporary directory, removed when the benchmark exits."""
    directory = tempfile.mkdtemp(prefix="plugin-host-bench-")
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    os.chmod(directory, 0o755)
    return directory


def wall_times(command, runs, warmup=1, env=None):
    """Runs `command` warmup + runs times; returns the wall times of the measured runs, in seconds."""
    times = []
    for i in range(warmup + runs):
        start = time.perf_counter()
        result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        elapsed = time.perf_counter() - start
        if result.returncode != 0:
            raise SystemExit("%s failed (%d): %s" % (" ".join(command), result.returncode, result.stderr.decode()[-2000:]))
        if i >= warmup:
            times.append(elapsed)
    return times


def median_ms(times):
    return statistics.median(times) * 1000


class Client(threading.Thread):
    """Connects to a Unix socket every 5 ms and sends `line`; records when each answer came
    and what it said, and what was refused or left unanswered."""

    def __init__(self, path, line=b"ping\n"):
        super().__init__(daemon=True)
        self.path, self.line = path, line
        self.answers, self.said, self.refused, self.unanswered, self.running = [], [], 0, 0, True

    def run(self):
        while self.running:
            began = time.perf_counter()
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                    s.settimeout(10)
                    s.connect(self.path)
                    s.sendall(self.line)
                    answer = s.recv(64)
                    if answer:
                        self.answers.append(time.perf_counter())
                        self.said.append(answer.decode())
                    else:
                        self.unanswered += 1
            except ConnectionRefusedError:
                self.refused += 1
            except OSError:
                self.unanswered += 1
            time.sleep(max(0.0, 0.005 - (time.perf_counter() - began)))

    def stop(self):
        """Stops it; the longest gap between two answers, in seconds."""
        self.running = False
        self.join()
        return max((b - a for a, b in zip(self.answers, self.answers[1:])), default=0.0)
