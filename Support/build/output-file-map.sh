#!/usr/bin/env bash
# output-file-map.sh DIR SOURCE...: prints the output file map with which the Swift driver
# compiles SOURCE... file by file and incrementally: each source's object file and
# dependency record in DIR, named after its path, and the build's own record in DIR.
set -eu
directory=$1
shift
printf '{\n  "": { "swift-dependencies": "%s/build.swiftdeps" }' "$directory"
for source in "$@"; do
    name=$(printf '%s' "${source%.swift}" | tr '/' '_')
    printf ',\n  "%s": { "object": "%s/%s.o", "swift-dependencies": "%s/%s.swiftdeps" }' \
        "$source" "$directory" "$name" "$directory" "$name"
done
printf '\n}\n'
