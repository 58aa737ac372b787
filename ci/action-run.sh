#!/bin/sh
# ci/action-run.sh - the check step of the renacer GitHub Action (ci/action.yml): run
# `renacer check` in GitHub mode, make sure the step outputs exist even when renacer stopped
# early, and turn the verdict into the step's result according to fail-on.
#
# Runs locally too, outside GitHub Actions:
#
#     RENACER=build/renacer RENACER_FAIL_ON=warn ci/action-run.sh --config renacer.toml.example
#
# There the outputs go to a scratch file and are printed at the end, and annotations are off
# unless RENACER_GITHUB_ANNOTATIONS asks for them.
#
# Environment (the action maps its inputs to these; every one is optional):
#   RENACER                     renacer binary (default: renacer on PATH, else build/renacer)
#   RENACER_CONFIG              config file (default renacer.toml)
#   RENACER_JUNIT               JUnit XML path; empty: the config's [report] junit
#   RENACER_FAIL_ON             fail | warn | never (default fail; see ci/action.yml)
#   RENACER_GITHUB_ANNOTATIONS  annotations per kind, 0..10 (read by renacer)
#   RENACER_GITHUB_REPORT       Markdown report path (read by renacer)
#   RENACER_OTLP_ENDPOINT       passed as --otlp-endpoint
#   RENACER_BENCH_JSON          passed as --bench-json
#   RENACER_ARGS                more arguments, split at whitespace
#   RENACER_SHARD               K/N: check only shard K of N (--shard)
#   RENACER_RESULTS             write the results file for renacer merge (--results)
#   RENACER_MERGE               results files (whitespace-separated, globs expanded): run
#                               `renacer merge` on them instead of `renacer check`
#   RENACER_BASELINE            root of a built base checkout, passed as --baseline
# Arguments given to this script go to `renacer check` after all of those.
#
# Exit status: 0 when the step passes under fail-on; otherwise renacer's exit code, or 1 for
# WARN verdicts under fail-on=warn, or 2 for a bad fail-on value or no renacer binary.
set -u

me=action-run.sh

# A message for the log: a workflow command on GitHub, a plain line elsewhere.
say() {
	if [ "${GITHUB_ACTIONS:-}" = true ]; then
		printf '::%s title=renacer::%s\n' "$1" "$2"
	else
		printf '%s: %s: %s\n' "$me" "$1" "$2" >&2
	fi
}

fail_on=${RENACER_FAIL_ON:-fail}
case $fail_on in
fail | warn | never) ;;
*)
	say error "fail-on must be fail, warn or never, found '$fail_on'"
	exit 2
	;;
esac

renacer=${RENACER:-}
if [ -z "$renacer" ]; then
	if command -v renacer >/dev/null 2>&1; then
		renacer=renacer
	elif [ -x "$(dirname "$0")/../build/renacer" ]; then
		renacer=$(dirname "$0")/../build/renacer
	else
		say error "no renacer binary: set RENACER or put renacer on PATH"
		exit 2
	fi
fi

# Step outputs: GitHub's file, or a scratch file printed at the end.
scratch=
outputs=${GITHUB_OUTPUT:-}
if [ -z "$outputs" ]; then
	scratch=$(mktemp "${TMPDIR:-/tmp}/renacer-outputs.XXXXXX") || exit 2
	outputs=$scratch
	trap 'rm -f "$scratch"' EXIT
	if [ -z "${RENACER_GITHUB_ANNOTATIONS+set}" ]; then
		RENACER_GITHUB_ANNOTATIONS=0
		export RENACER_GITHUB_ANNOTATIONS
	fi
fi
# What renacer appends starts after what the file holds now.
skip=0
if [ -f "$outputs" ]; then
	skip=$(wc -c <"$outputs")
fi

# The command line: our options first, then RENACER_ARGS, then this script's arguments (which
# may end with `-- CMD ARGS`). RENACER_ARGS is split at whitespace with globbing off.
set -f
# shellcheck disable=SC2086 # splitting RENACER_ARGS is the point
set -- ${RENACER_ARGS:-} "$@"
set +f
if [ -n "${RENACER_BASELINE:-}" ]; then
	set -- --baseline "$RENACER_BASELINE" "$@"
fi
if [ -n "${RENACER_BENCH_JSON:-}" ]; then
	set -- --bench-json "$RENACER_BENCH_JSON" "$@"
fi
if [ -n "${RENACER_OTLP_ENDPOINT:-}" ]; then
	set -- --otlp-endpoint "$RENACER_OTLP_ENDPOINT" "$@"
fi
if [ -n "${RENACER_JUNIT:-}" ]; then
	set -- --junit "$RENACER_JUNIT" "$@"
fi
if [ -n "${RENACER_RESULTS:-}" ]; then
	set -- --results "$RENACER_RESULTS" "$@"
fi
if [ -n "${RENACER_MERGE:-}" ]; then
	# The merge job: the shards' results files after the options (globs expanded here). The
	# config only adds [report], [otlp] and annotation lines, so a job without a checkout
	# merges without it.
	if [ -f "${RENACER_CONFIG:-renacer.toml}" ]; then
		set -- --config "${RENACER_CONFIG:-renacer.toml}" "$@"
	fi
	# shellcheck disable=SC2086 # splitting and globbing RENACER_MERGE is the point
	set -- merge --github "$@" $RENACER_MERGE
else
	if [ -n "${RENACER_SHARD:-}" ]; then
		set -- --shard "$RENACER_SHARD" "$@"
	fi
	set -- check --github --config "${RENACER_CONFIG:-renacer.toml}" "$@"
fi

GITHUB_OUTPUT=$outputs "$renacer" "$@"
rc=$?

# The last value renacer wrote for output $1 (single-line form).
new=$(tail -c +"$((skip + 1))" "$outputs" 2>/dev/null)
get() {
	printf '%s\n' "$new" | sed -n "s/^$1=//p" | tail -n 1
}
result=$(get result)
warnings=$(get warnings)
if [ -z "$result" ]; then
	# renacer stopped before its report (bad usage, crash): the outputs still say so.
	result=error
	warnings=0
	printf 'result=error\nfailed=0\nwarnings=0\nexit_code=%s\n' "$rc" >>"$outputs"
fi
if [ -n "${RENACER_JUNIT:-}" ] && [ -z "$(get junit)" ] && [ -f "$RENACER_JUNIT" ]; then
	case $RENACER_JUNIT in
	*'
'*) ;;
	*) printf 'junit=%s\n' "$RENACER_JUNIT" >>"$outputs" ;;
	esac
fi

status=$rc
case $fail_on in
warn)
	if [ "$rc" -eq 0 ] && [ "${warnings:-0}" -gt 0 ]; then
		say error "$warnings assertion(s) reported WARN and fail-on is warn"
		status=1
	fi
	;;
never)
	# Verdicts never fail the step; renacer being unable to judge still does.
	case $rc in
	1 | 4)
		say notice "the check's result is '$result' (exit $rc); the step passes because fail-on is never"
		status=0
		;;
	esac
	;;
esac

if [ -n "$scratch" ]; then
	printf '%s: outputs:\n' "$me" >&2
	sed 's/^/  /' "$scratch" >&2
fi
exit "$status"
