#!/bin/sh
# Test wrapper of `meson test --setup valgrind`: runs a test binary under memcheck. An interpreter
# (the python CLI tests) runs as it is, with RG_TEST_WRAPPER set: those tests start rdmaguard
# under it. Any memcheck error, or a definitely or possibly lost block, exits 99
# (not 1 or 2, which are rdmaguard's own exit codes).
here=$(cd "$(dirname "$0")" && pwd)
RG_TEST_WRAPPER="valgrind --quiet --error-exitcode=99 --leak-check=full \
--show-leak-kinds=definite,possible --errors-for-leak-kinds=definite,possible \
--track-fds=no --num-callers=30 --suppressions=$here/valgrind.supp"
export RG_TEST_WRAPPER
case "$(basename "$1")" in
python*)
	exec "$@"
	;;
*)
	# shellcheck disable=SC2086
	exec $RG_TEST_WRAPPER "$@"
	;;
esac
