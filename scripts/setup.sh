#!/usr/bin/env bash
# Sets up everything CiteLens needs on a fresh Debian/Ubuntu machine, idempotently:
#   scripts/setup.sh          the companion (Python venv in .venv with the shipped models)
#   scripts/setup.sh --dev    plus test, training and export tools, Node packages and browsers
set -euo pipefail
cd "$(dirname "$0")/.."
dev=0; [[ "${1:-}" == "--dev" ]] && dev=1

python3 -m venv .venv
# torch 2.13.0 (CPU) lies on this kind of machine's disk; elsewhere pip takes it from PyPI.
find_links=(); [[ -d /opt/wheels ]] && find_links=(--find-links /opt/wheels)
.venv/bin/python -m pip install -q --upgrade pip

# The three models, the cascade's reader among them, are committed: nothing is built here, and the
# companion's install needs neither torch nor the exporters (research/training/build_reader.py
# rebuilds the reader in the laboratory).
if (( dev )); then
  .venv/bin/python -m pip install -q "${find_links[@]}" -e ".[test,train,export,ray]"
else
  .venv/bin/python -m pip install -q "${find_links[@]}" .
fi

if (( dev )); then
  # The French language packs: the extension's French words are tested in French browsers.
  # qemu-user: the models' numbers are compared with an emulated AVX2-only CPU (test_cpu_agreement).
  if ! command -v chromium >/dev/null || ! command -v firefox-esr >/dev/null \
      || ! command -v qemu-x86_64 >/dev/null \
      || ! dpkg -s chromium-l10n firefox-esr-l10n-fr >/dev/null 2>&1; then
    sudo_cmd=(); [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq \
      chromium chromium-l10n firefox-esr firefox-esr-l10n-fr qemu-user >/dev/null
  fi
  npm ci --no-audit --no-fund --loglevel=error
fi
