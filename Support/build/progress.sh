# Sourced by the steps that take long (Support/build/with-progress.sh, Tests/run-all.sh).
#
# show_progress PID LABEL: until the process PID ends, rewrites the terminal's line with LABEL
# and how long it has run, each second, so that a long step is never silent.
show_progress() {
    local pid=$1 label=$2 start=$SECONDS
    while kill -0 "$pid" 2>/dev/null; do
        printf '\r%s (%d s)' "$label" $((SECONDS - start))
        sleep 1
    done
}
