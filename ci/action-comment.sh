#!/bin/sh
# ci/action-comment.sh - the action's `comment: true` step: post renacer's Markdown report as
# one sticky comment on the pull request, updated in place on every push (found by the marker
# line it starts with), never a new comment per run. Only a comment that this workflow's own
# identity wrote is updated: the token's user (`gh api user`), or github-actions[bot] for the
# job's GITHUB_TOKEN, which cannot read /user. A comment that anyone else starts with the
# marker is left alone (renacer posts its own), so nobody can have the report written into
# their comment.
#
# Environment: RENACER_REPORT (the report written by the check step), GITHUB_EVENT_NAME,
# GITHUB_EVENT_PATH (the event payload), GITHUB_REPOSITORY, GH_TOKEN (the job's token; the job
# needs `permissions: pull-requests: write`). Uses the GitHub CLI `gh`, which GitHub's runners
# have. A pull request from a fork gets a read-only token: no comment, a notice instead (the
# job summary still has the report). Any failure to comment is a warning, never the job's
# failure: the verdict is the check step's.
set -eu
marker='<!-- renacer-report -->'

case ${GITHUB_EVENT_NAME:-} in
pull_request | pull_request_target) ;;
*)
	echo "renacer: not a pull_request event (${GITHUB_EVENT_NAME:-none}): no comment"
	exit 0
	;;
esac
if [ ! -s "${RENACER_REPORT:-}" ]; then
	echo "::warning title=renacer::no report to comment with ('${RENACER_REPORT:-}')"
	exit 0
fi
# number, then "fork" or "same" from the event payload
info=$(python3 - "${GITHUB_EVENT_PATH:-}" "${GITHUB_REPOSITORY:-}" <<'PY'
import json, sys
try:
    ev = json.load(open(sys.argv[1]))
    pr = ev["pull_request"]
    head = (pr.get("head") or {}).get("repo") or {}
    fork = head.get("fork") or (head.get("full_name") not in (None, sys.argv[2]))
    print(pr["number"], "fork" if fork else "same")
except Exception as e:
    print("error", e)
PY
)
set -- $info
if [ "$1" = error ]; then
	echo "::warning title=renacer::cannot read the pull request from GITHUB_EVENT_PATH; no comment"
	exit 0
fi
pr=$1
if [ "$2" = fork ]; then
	echo "::notice title=renacer::pull request #$pr comes from a fork: its token is read-only, so renacer does not comment (the job summary has the report)"
	exit 0
fi
body=$(mktemp)
trap 'rm -f "$body"' EXIT
{
	echo "$marker"
	# GitHub's limit is 65536 characters per comment.
	head -c 65000 "$RENACER_REPORT"
} >"$body"
repo=$GITHUB_REPOSITORY
# who this workflow comments as: a personal or app token's user, else the GITHUB_TOKEN's bot
me=$(gh api user --jq .login 2>/dev/null) || me=
[ -n "$me" ] || me='github-actions[bot]'
# each comment as "ID<TAB>AUTHOR<TAB>STARTS-WITH-MARKER"; the first of ours with the marker
id=$(gh api "repos/$repo/issues/$pr/comments" --paginate \
	--jq ".[] | [.id, .user.login, (.body | startswith(\"$marker\"))] | @tsv" 2>/dev/null |
	awk -F '\t' -v me="$me" '$2 == me && $3 == "true" { print $1; exit }') || id=
if [ -n "$id" ]; then
	if gh api -X PATCH "repos/$repo/issues/comments/$id" -F "body=@$body" >/dev/null; then
		echo "renacer: updated the report comment on pull request #$pr"
	else
		echo "::warning title=renacer::cannot update comment $id on pull request #$pr (does the job have permissions: pull-requests: write?)"
	fi
elif gh api -X POST "repos/$repo/issues/$pr/comments" -F "body=@$body" >/dev/null; then
	echo "renacer: commented the report on pull request #$pr"
else
	echo "::warning title=renacer::cannot comment on pull request #$pr (does the job have permissions: pull-requests: write?)"
fi
