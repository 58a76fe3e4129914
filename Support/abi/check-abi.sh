#!/usr/bin/env bash
# Compares a module's public interface with a baseline interface, as library evolution
# judges it, with the toolchain's swift-api-digester. Additions pass; a declaration removed,
# renamed, moved, or changed in its type, attributes, conformances, requirements, generic
# signature or layout fails, each named on its own line.
#
# Usage: check-abi.sh BASELINE_DIR INTERFACE_DIR MODULE
#   Each directory holds MODULE.swiftinterface: the public interface only (package and
#   internal declarations are not part of what plugins see). Exit 0 compatible, 1 broken,
#   2 when the digester could not read an interface.
set -euo pipefail
digester=${SWIFT_API_DIGESTER:-swift-api-digester}
baseline=$1 interfaces=$2 module=$3

# Each interface is read alone, from a directory of its own, so that the digester never
# picks the binary module or the package interface beside it.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/baseline" "$scratch/current"
cp "$baseline/$module.swiftinterface" "$scratch/baseline/"
cp "$interfaces/$module.swiftinterface" "$scratch/current/"
digest() {
    "$digester" "$@" -abi -module "$module" -use-interface-for-module "$module" 2> "$scratch/errors.txt" || {
        echo "check-abi: swift-api-digester $1 failed:" >&2
        cat "$scratch/errors.txt" >&2
        exit 2
    }
}
digest -dump-sdk -I "$scratch/baseline" -o "$scratch/baseline.json"
digest -diagnose-sdk -baseline-path "$scratch/baseline.json" -I "$scratch/current" -o "$scratch/report.txt"

# The report: a /* Section */ line before each kind of change. A new declaration is reported
# as "... is a new API without '@available'", which matters on Apple's platforms only.
breaks=$(grep -v -e '^/\*' -e '^[[:space:]]*$' -e "is a new API without '@available'" "$scratch/report.txt" || true)
if [ -n "$breaks" ]; then
    echo "$module: the public interface breaks its baseline $baseline/$module.swiftinterface:"
    echo "$breaks" | sed 's/^/  /'
    echo "Keep what was published (add beside it, deprecate instead of removing), or publish a new major version with a new baseline."
    exit 1
fi
added=$(grep -c "is a new API without '@available'" "$scratch/report.txt" || true)
echo "$module: compatible with $baseline/$module.swiftinterface ($added declarations added)"
