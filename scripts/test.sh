#!/usr/bin/env bash
# The whole test suite on a fresh machine: set-up, static checks, Python tests, extension tests.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
scripts/setup.sh --dev
. .venv/bin/activate

echo "== static checks"
ruff check companion scripts tests
mypy
npm run --silent lint

echo "== python tests (real model, real servers on 127.0.0.1)"
python -m pytest -q -p no:cacheprovider --ignore=tests/packaging

echo "== extension unit tests"
npm run --silent test:unit
echo "== extension end-to-end tests (Chromium, Firefox ESR)"
PATH="$PWD/.venv/bin:$PATH" npm run --silent test:e2e

echo "== packages (the wheel, installed with pipx and run from a temporary folder; the store zips, web-ext lint)"
python -m pytest -q -p no:cacheprovider tests/packaging

echo "== all passed in $(( $(date +%s) - start )) s"
