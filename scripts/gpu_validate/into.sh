#!/bin/sh
# into.sh FILE CMD ARGS...: runs CMD with its standard output in FILE (its standard error
# stays where it was: the step's log). Lets scripts/gpu-validate.sh keep a command's JSON
# apart from its log without a quoted `sh -c` string, so the logged command reads as run.
file=$1
shift
exec "$@" > "$file"
