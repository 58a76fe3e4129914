#!/usr/bin/env python3
"""Start-up: what the host adds to loading its plugins.

For N = 10, 100, 1000: N synthetic plugins (one compiled trivial component, stamped with
real manifests) in a layered graph where each plugin requires up to 3 plugins of earlier
layers. The host (`plugin-host --dir`, output to /dev/null) and the floor (Benchmarks/
floor.c: dlopen the same files in the same order and call each entry point) run
alternately, RUNS times each after a warm-up. Prints, per N, the median wall time of each,
host / floor, the middle half of the ratios of each host run to the floor run after it (how
much the machine moved), and the peak RSS of each (the largest of three runs under
Benchmarks/peakrss.c, apart from the timed runs)."""
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import HOST, ROOT, build_fixtures, plugin_directory, stamp

# 30 runs each: on a shared machine fewer runs leave the ratio noticeably unsettled (see
# docs/performance.md).
RUNS = int(os.environ.get("BENCH_RUNS", "30"))
SIZES = [10, 100, 1000]
FLOOR = os.path.join(ROOT, "build", "bench", "floor")
PEAKRSS = os.path.join(ROOT, "build", "bench", "peakrss")
ABI = os.path.join(ROOT, "build", "lib", "libPluginABI.so")


def layered_directory(template, count, seed=6):
    """`count` plugins in layers of about sqrt(count); each requires up to 3 plugins of
    earlier layers."""
    rng = random.Random(seed)
    directory = plugin_directory()
    width = max(2, int(count ** 0.5))
    names = []
    for index in range(count):
        name = "P%04d" % index
        layer_start = (index // width) * width
        earlier = names[:layer_start]
        requires = sorted(rng.sample(earlier, min(len(earlier), rng.randint(1, 3)))) if earlier else []
        stamp(template, directory, name, requires)
        names.append(name)
    return directory


def measure(command):
    """Wall time (s) of one run."""
    start = time.perf_counter()
    result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit("%s failed: %s" % (command[0], result.stderr.decode()[-2000:]))
    return elapsed


def peak_rss(command, runs=3):
    """The largest peak resident set (KiB) of `runs` runs."""
    peaks = []
    with tempfile.NamedTemporaryFile() as output:
        for _ in range(runs):
            result = subprocess.run([PEAKRSS, output.name] + command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if result.returncode != 0:
                raise SystemExit("%s failed: %s" % (command[0], result.stderr.decode()[-2000:]))
            with open(output.name) as f:
                peaks.append(int(f.read()))
    return max(peaks)


def host_order(directory):
    listed = subprocess.run([HOST, "list", "--dir", directory, "--json"], check=True, capture_output=True).stdout
    return [plugin["file"] for plugin in json.loads(listed)["plugins"] if plugin["loadable"]]


def main():
    fixtures = build_fixtures()
    subprocess.run(["cc", "-O2", "-o", FLOOR, os.path.join(ROOT, "Benchmarks", "floor.c")], check=True)
    subprocess.run(["cc", "-O2", "-o", PEAKRSS, os.path.join(ROOT, "Benchmarks", "peakrss.c")], check=True)
    template = os.path.join(fixtures, "libRecA.so")
    print("startup: host (plugin-host --dir, output to /dev/null) vs floor (dlopen + entry point only); "
          "median of %d alternating runs after a warm-up; %d cores" % (RUNS, os.cpu_count()))
    print("  %6s  %10s  %10s  %8s  %13s  %12s  %12s" % ("N", "host ms", "floor ms", "ratio", "pairs q1-q3", "host RSS MiB", "floor RSS MiB"))
    ratios = {}
    for count in SIZES:
        directory = layered_directory(template, count)
        host = [HOST, "--dir", directory]
        floor = [FLOOR, ABI] + host_order(directory)
        measure(host), measure(floor)  # warm-up
        host_runs, floor_runs = [], []
        for _ in range(RUNS):
            host_runs.append(measure(host))
            floor_runs.append(measure(floor))
        host_ms = statistics.median(host_runs) * 1000
        floor_ms = statistics.median(floor_runs) * 1000
        host_rss = peak_rss(host) / 1024
        floor_rss = peak_rss(floor) / 1024
        ratios[count] = host_ms / floor_ms
        pairs = statistics.quantiles([h / f for h, f in zip(host_runs, floor_runs)], n=4)
        print("  %6d  %10.1f  %10.1f  %8.2f  %6.2f-%-6.2f  %12.1f  %12.1f"
              % (count, host_ms, floor_ms, ratios[count], pairs[0], pairs[2], host_rss, floor_rss))
        if count == SIZES[-1]:
            print("  RSS: host - floor at N=%d: %.1f MiB" % (count, host_rss - floor_rss))
    print("ratio host/floor N=1000: %.2f" % ratios[1000])


if __name__ == "__main__":
    main()
