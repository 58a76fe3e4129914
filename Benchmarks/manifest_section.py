#!/usr/bin/env python3
"""Embedding a manifest in a SwiftPM build: what compiling the constant costs.

`plugin-host embed-manifest` writes a plugin's manifest as a Swift tuple that the compiler
places in the manifest section. The compiler's time grows with the tuple's element count, so
the bytes are packed into 64-bit words. For manifests of SIZES bytes, this compiles (swiftc
-emit-library, one file, best of RUNS) the constant as embed-manifest writes it, and the
same bytes as a tuple of one UInt8 per byte, and prints both times and their ratio."""
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import HOST

SIZES = [int(size) for size in os.environ.get("BENCH_MANIFEST_SIZES", "512,8192").split(",")]
RUNS = int(os.environ.get("BENCH_MANIFEST_RUNS", "3"))


def manifest(size):
    head = '{"name": "Stamp", "version": "1.0.0", "abi": 2, "notes": "'
    tail = '"}'
    return (head + "x" * max(0, size - len(head) - len(tail)) + tail).encode()


def compile_time(source, directory):
    best = None
    for _ in range(RUNS):
        started = time.monotonic()
        subprocess.run(["swiftc", "-parse-as-library", "-emit-library", "-o", os.path.join(directory, "libStamp.so"), source],
                       check=True, stdout=subprocess.DEVNULL)
        elapsed = time.monotonic() - started
        best = elapsed if best is None else min(best, elapsed)
    return best


def main():
    print("manifest section: compiling the embedded manifest (best of %d)" % RUNS)
    with tempfile.TemporaryDirectory() as directory:
        for size in SIZES:
            path = os.path.join(directory, "manifest.json")
            with open(path, "wb") as file:
                file.write(manifest(size))
            words = os.path.join(directory, "Words.swift")
            subprocess.run([HOST, "embed-manifest", path, "--output", words], check=True)
            data = manifest(size)
            bytes_source = os.path.join(directory, "Bytes.swift")
            with open(bytes_source, "w") as file:
                file.write('@section(".plugin_host_manifest") @used\nlet pluginHostManifest: (%s) = (%s)\n'
                           % (", ".join(["UInt8"] * len(data)), ", ".join("0x%02x" % b for b in data)))
            as_words = compile_time(words, directory)
            as_bytes = compile_time(bytes_source, directory)
            print("  %5d bytes: 64-bit words %.2f s, one UInt8 a byte %.2f s (x%.1f)"
                  % (size, as_words, as_bytes, as_bytes / as_words))


if __name__ == "__main__":
    main()
