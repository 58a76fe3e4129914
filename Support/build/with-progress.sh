#!/usr/bin/env bash
# with-progress.sh LABEL COMMAND...: runs COMMAND, whose output passes through. On a terminal
# the line LABEL is rewritten each second with the time it has taken, so that a long step
# (the host's whole-module compile, the build of the tests) is never silent; elsewhere (a CI
# log) LABEL is printed once, as make's other steps print theirs. Exits with COMMAND's status.
label=$1
shift
if [ ! -t 1 ]; then
    printf '%s\n' "$label"
    exec "$@"
fi
source "$(dirname "$0")/progress.sh"
start=$SECONDS
"$@" &
pid=$!
show_progress "$pid" "$label"
wait "$pid"
status=$?
printf '\r%s (%d s)\n' "$label" $((SECONDS - start))
exit "$status"
