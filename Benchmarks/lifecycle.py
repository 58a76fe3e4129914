#!/usr/bin/env python3
"""Concurrent bootstraps: 32 plugins whose bootstrap waits 100 ms, in four levels of eight (each
plugin requires one or two plugins of the level before), so the longest dependency path is
4 plugins and the best possible wall time is 400 ms. Prints wall time / 400 ms."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import HOST, build_fixtures, median_ms, plugin_directory, stamp, wall_times

LEVELS, WIDTH, DELAY_MS, RUNS = 4, 8, 100, 10


def make_directory(template, setting):
    directory = plugin_directory()
    settings = {}
    for level in range(LEVELS):
        for i in range(WIDTH):
            name = "L%dP%d" % (level, i)
            requires = [] if level == 0 else sorted({"L%dP%d" % (level - 1, i), "L%dP%d" % (level - 1, (i * 3 + 1) % WIDTH)})
            stamp(template, directory, name, requires)
            settings[name] = {setting: DELAY_MS}
    config = os.path.join(directory, "config.json")
    with open(config, "w") as f:
        json.dump({"plugins": settings}, f)
    return directory, config


def main():
    fixtures = build_fixtures()
    template = os.path.join(fixtures, "libRecA.so")
    cores = os.cpu_count()
    floor = LEVELS * DELAY_MS
    print("lifecycle: %d plugins in %d levels, each bootstrap waits %d ms; best possible %d ms; %d cores; median of %d runs"
          % (LEVELS * WIDTH, LEVELS, DELAY_MS, floor, cores, RUNS))
    rows = [("async wait (Task.sleep)", "bootstrapDelay"), ("blocking wait (usleep)", "bootstrapBusy")]
    headline = None
    for label, setting in rows:
        directory, config = make_directory(template, setting)
        for jobs in [None, 8, 1]:
            command = [HOST, "--dir", directory, "--config", config] + ([] if jobs is None else ["--jobs", str(jobs)])
            wall = median_ms(wall_times(command, RUNS))
            jobs_text = "default (%d)" % cores if jobs is None else str(jobs)
            print("  %-24s --jobs %-12s wall %7.1f ms   wall/%d ms = %.2f" % (label, jobs_text, wall, floor, wall / floor))
            if headline is None:
                headline = wall / floor
    print("ratio wall/400ms, default --jobs, async bootstraps: %.2f" % headline)


if __name__ == "__main__":
    main()
