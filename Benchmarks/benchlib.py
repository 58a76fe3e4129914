"""Shared helpers of the plugin-host benchmarks: plugin directories stamped out from one
compiled fixture, and timing of whole host runs."""
import atexit
import json
import os
import shutil
import statistics
import subprocess
import tempfile
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
