#!/usr/bin/env bash
# The whole test suite on a fresh machine: set-up, static checks, Python tests, extension tests.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
# Each phase says when it starts, so that a CI log shows where its minutes go.
phase() { echo "== $1 (at $(( $(date +%s) - start )) s)"; }
scripts/setup.sh --dev
. .venv/bin/activate

phase "static checks"
ruff check companion scripts research tests
mypy
npm run --silent lint

phase "python tests (real model, real servers on 127.0.0.1)"
# Two workers, a test file each at a time: most tests wait on servers, subprocesses and timeouts
# more than on the cores. The tests marked `alone` need both cores and run after, by themselves.
python -m pytest -q -p no:cacheprovider --ignore=tests/packaging -n 2 --dist loadfile -m "not alone"
python -m pytest -q -p no:cacheprovider --ignore=tests/packaging -m alone

phase "extension unit tests"
npm run --silent test:unit
phase "extension end-to-end tests (Chromium, Firefox ESR)"
PATH="$PWD/.venv/bin:$PATH" npm run --silent test:e2e

phase "packages (the wheel, installed with pipx and run from a temporary folder; the store zips, web-ext lint)"
python -m pytest -q -p no:cacheprovider tests/packaging

echo "== all passed in $(( $(date +%s) - start )) s"
