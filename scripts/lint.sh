#!/usr/bin/env bash
# Static checks, as CI runs them (scripts/test.sh runs this beside pytest, or before it when given
# arguments):
#   ruff check          lint rules ([tool.ruff.lint] in pyproject.toml)
#   ruff format --check formatting
#   mypy                types ([tool.mypy]: desktop/ and bench/, --strict throughout)
#   lint-imports        layering contracts ([tool.importlinter])
# Every check runs even when an earlier one fails; the summary names the ones that failed.
# Needs the test extra: scripts/setup.sh --test.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=.venv/bin
paths=(desktop tests bench packaging scripts)
failed=()

run() {
  local name=$1
  shift
  echo "== $name"
  if "$@"; then
    echo "-- $name: ok"
  else
    echo "-- $name: FAILED" >&2
    failed+=("$name")
  fi
}

run "ruff check" "$bin/ruff" check "${paths[@]}"
run "ruff format --check" "$bin/ruff" format --check "${paths[@]}"
# Two worker processes (mypy's --num-workers): 53 s -> 38 s on two cores from an empty cache.
# The cache is the user's, not the checkout's, so a fresh clone starts from it (like pip's): its
# entries are checked against each module's contents, and third-party modules, by far the most,
# rarely change. In a fresh clone on two cores: 38 s of CPU from an empty cache, 2 s from the
# previous clone's. mypy replaces its cache files atomically, so two checkouts can share it.
export MYPY_CACHE_DIR=${MYPY_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/nanobot-desktop/mypy}
run "mypy" "$bin/mypy" --num-workers "${NANOBOT_MYPY_WORKERS:-2}"
run "lint-imports" "$bin/lint-imports" --no-cache

if [ "${#failed[@]}" -gt 0 ]; then
  printf -v list '%s, ' "${failed[@]}"
  echo "Static checks failed: ${list%, }" >&2
  exit 1
fi
echo "Static checks passed."
