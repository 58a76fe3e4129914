#!/usr/bin/env bash
# Runs every test, as `make test` does: builds the host (as HOST_BUILD says), the plugins and
# the tests, runs the demo plugins' own tests, the Swift test suites (unit and integration),
# the check of PluginABI's public interface against its published baseline, the check that
# every planted bug still applies, and a short fuzz run of the manifest reader.
# Everything goes to build/test.log; the terminal gets one line per step, the failures in
# full, and a last line "N passed, M failed". With V=1 in the environment, everything is
# shown as it runs as well.
#
# Usage: HOST_BUILD=MODE Tests/run-all.sh MAKE SWIFT TMPDIR
set -u
make=$1 swift=$2 tmp=$3
source "$(dirname "$0")/../Support/build/progress.sh"
log=build/test.log
mkdir -p build "$tmp"
: > "$log"

# step NAME COMMAND...: runs COMMAND, its output to the log (and the terminal with V=1).
step() {
    local name=$1
    shift
    echo "=== $name: $*" >> "$log"
    local start=$SECONDS status
    if [ -n "${V:-}" ]; then
        "$@" 2>&1 | tee -a "$log"
        status=${PIPESTATUS[0]}
    elif [ -t 1 ]; then
        # On a terminal, the step says how long it has run, each second, then clears its line.
        "$@" >> "$log" 2>&1 &
        local pid=$!
        show_progress "$pid" "$(printf '%-14s running' "$name:")"
        wait "$pid"
        status=$?
        printf '\r\033[K'
    else
        "$@" >> "$log" 2>&1
        status=$?
    fi
    echo "=== $name: exit $status" >> "$log"
    last_status=$status
    last_seconds=$((SECONDS - start))
}

passed=0 failed=0

# stop_tree PID: ends the process PID and every process under it.
stop_tree() {
    local child
    for child in $(pgrep -P "$1"); do stop_tree "$child"; done
    kill -TERM "$1" 2>/dev/null
}

# abandon PID: ends a build started in the background, which another's failure made moot.
abandon() {
    stop_tree "$1"
    wait "$1" 2>/dev/null
}

# wait_for PID LOG: waits for a build started in the background, and gives its output and
# status.
wait_for() {
    wait "$1"
    local status=$?
    cat "$2"
    return $status
}

# stop_unless_built WHAT: after a step that builds, ends the run when the step failed, with
# the compiler's errors.
stop_unless_built() {
    [ "$last_status" -eq 0 ] && return
    echo "build of $1 failed:"
    grep -E "error:" "$log" | sort -u | head -40
    echo "(full output: $log)"
    echo "0 passed, 1 failed"
    exit 1
}

# The test bundle (SwiftPM's build, in .build) and the host and plugins (make's, in build/)
# share no file, so they build at once: each alone leaves a processor idle part of the time
# (make compiles the ABI and the demo plugins one file at a time). make's lines go to the
# terminal, as make's own do; SwiftPM's output to the log.
start=$SECONDS
env TMPDIR="$tmp" "$swift" build --build-tests > "$tmp/tests-build.log" 2>&1 &
tests_build=$!
"$make" --no-print-directory $([ -n "${V:-}" ] || echo --silent) test-prerequisites
if [ $? -ne 0 ]; then
    abandon "$tests_build"
    echo "build of the host or the plugins failed (make's errors above)"
    echo "0 passed, 1 failed"
    exit 1
fi
# The fixture plugins, while SwiftPM still builds the tests, and before the suites that read
# them run in several processes: each asks make for them, and must find nothing to build.
"$make" --no-print-directory fixtures FIXTURES_OUT="$PWD/build/fixtures" -j2 > "$tmp/fixtures-build.log" 2>&1 &
fixtures_build=$!
step "build" wait_for "$tests_build" "$tmp/tests-build.log"
[ "$last_status" -eq 0 ] || abandon "$fixtures_build"
stop_unless_built "the tests"
step "fixtures" wait_for "$fixtures_build" "$tmp/fixtures-build.log"
stop_unless_built "the fixture plugins"
echo "build:         host, plugins, tests and fixtures $((SECONDS - start)) s (at once)"

plugin_log=$(mktemp)
step "plugin tests" "$make" --no-print-directory plugin-tests
sed -n '/^=== plugin tests: /,/^=== plugin tests: exit/p' "$log" > "$plugin_log"
plugin_passed=$(grep -c "Tests: passed$" "$plugin_log")
if [ "$last_status" -eq 0 ]; then
    echo "plugin tests:  $plugin_passed passed (${last_seconds} s)"
    passed=$((passed + plugin_passed))
else
    echo "plugin tests:  FAILED (${last_seconds} s)"
    grep -E "error|Fatal|failed|Tests:" "$plugin_log" | head -20 | sed 's/^/  /'
    passed=$((passed + plugin_passed))
    failed=$((failed + 1))
fi
rm -f "$plugin_log"

# The Swift suites run in three processes at once: Swift Testing runs as many tests at a time
# as the machine has processors, and most tests here wait on the processes they start, so one
# process leaves the processors half idle. The plugins built with SwiftPM and the unit tests;
# the integration suites from A to L; those from M to Z.
shards=("SwiftPMPlugin|PluginHostTests|PluginABITests" 'IntegrationTests\.[A-L]' 'IntegrationTests\.[M-Z]')
skips=("" "" "SwiftPMPlugin")
# The test bundle runs directly: `swift test` holds a lock on .build for its whole run, so two
# of them wait for each other. The suites are all Swift Testing's.
swift_tests() {
    local pids=() index status=0 bundle
    bundle="$("$swift" build --show-bin-path)/plugin-hostPackageTests.xctest"
    for index in "${!shards[@]}"; do
        env TMPDIR="$tmp" XDG_CACHE_HOME="$tmp/cache" XDG_STATE_HOME="$tmp/state" XDG_DATA_HOME="$tmp/data" \
            "$bundle" --testing-library swift-testing --filter "${shards[$index]}" ${skips[$index]:+--skip "${skips[$index]}"} \
            > "$tmp/swift-test-$index.log" 2>&1 &
        pids+=($!)
    done
    for index in "${!pids[@]}"; do
        wait "${pids[$index]}" || status=1
        echo "--- swift test --filter ${shards[$index]}${skips[$index]:+ --skip ${skips[$index]}}"
        cat "$tmp/swift-test-$index.log"
    done
    return $status
}
# The fuzzer builds while the suites run, at the lowest priority: the suites wait on the
# processes they start often enough to leave the processors idle a fifth of the time.
nice -n 19 "$make" --no-print-directory fuzzer > "$tmp/fuzzer-build.log" 2>&1 &
fuzzer_build=$!
step "swift test" swift_tests
swift_status=$last_status
swift_log=$(mktemp)
sed -n '/^=== swift test: /,/^=== swift test: exit/p' "$log" > "$swift_log"
# Swift Testing's own summary of each process: "Test run with N tests in M suites passed|failed ...".
runs=$(grep -cE "Test run with [0-9]+ tests?" "$swift_log")
total=$(grep -E "Test run with [0-9]+ tests?" "$swift_log" | sed -E 's/.*Test run with ([0-9]+) tests?.*/\1/' | awk '{ n += $1 } END { print n + 0 }')
failing=$(grep -cE "^✘ Test \".*failed after" "$swift_log")
if [ "$runs" -ne "${#shards[@]}" ]; then
    echo "swift test:    did not finish (exit $swift_status; see $log)"
    tail -20 "$swift_log" | sed 's/^/  /'
    failed=$((failed + 1))
else
    echo "swift test:    $((total - failing)) passed, $failing failed (${last_seconds} s)"
    passed=$((passed + total - failing))
    failed=$((failed + failing))
    [ "$swift_status" -ne 0 ] && [ "$failing" -eq 0 ] && failed=$((failed + 1))
fi
if [ "$failing" -gt 0 ] || [ "$swift_status" -ne 0 ]; then
    echo "failures:"
    # Each issue in full: its line, and the lines that continue it, up to the next event.
    awk '/^✘ Test .* recorded an issue/ { show = 1 } /^(◇|✔|✘ (Suite|Test run)|✘ Test .* failed after)/ && !/recorded an issue/ { show = 0 } show' "$swift_log" | sed 's/^/  /'
fi
rm -f "$swift_log"

step "abi" "$make" --no-print-directory abi-check
if [ "$last_status" -eq 0 ]; then
    echo "abi:           1 passed, $(grep -E "^PluginABI: compatible" "$log" | tail -1 | sed 's/^PluginABI: //')"
    passed=$((passed + 1))
else
    echo "abi:           FAILED"
    sed -n '/^=== abi: /,/^=== abi: exit/p' "$log" | grep -v "^===" | head -20 | sed 's/^/  /'
    failed=$((failed + 1))
fi

step "mutants" "$make" --no-print-directory mutants-check
if [ "$last_status" -eq 0 ]; then
    echo "mutants:       1 passed, $(grep -E "planted bugs apply$" "$log" | tail -1)"
    passed=$((passed + 1))
else
    echo "mutants:       FAILED: a planted bug no longer applies (Tests/Mutants/planted-bugs.txt)"
    sed -n '/^=== mutants: /,/^=== mutants: exit/p' "$log" | grep -v "^===" | head -20 | sed 's/^/  /'
    failed=$((failed + 1))
fi

wait "$fuzzer_build"
{ echo "=== fuzzer build, while the suites ran:"; cat "$tmp/fuzzer-build.log"; } >> "$log"
step "fuzz" env TMPDIR="$tmp" "$make" --no-print-directory fuzz-smoke
if [ "$last_status" -eq 0 ]; then
    runs=$(grep -E "^stat::number_of_executed_units:" "$log" | tail -1 | awk '{print $2}')
    echo "fuzz:          1 passed, ${runs:-?} inputs without a crash (${last_seconds} s)"
    passed=$((passed + 1))
elif [ ! -x build/fuzz/manifest-fuzzer ]; then
    echo "fuzz:          FAILED (${last_seconds} s): the fuzzer did not build"
    sed -n '/^=== fuzz: /,/^=== fuzz: exit/p' "$log" | grep -E "error:" | sort -u | head -10 | sed 's/^/  /'
    failed=$((failed + 1))
else
    echo "fuzz:          FAILED (${last_seconds} s): a crashing input is in build/fuzz/"
    grep -E "ERROR|SUMMARY|crash-" "$log" | tail -10 | sed 's/^/  /'
    failed=$((failed + 1))
fi

echo "(full output: $log; V=1 shows it as it runs)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
