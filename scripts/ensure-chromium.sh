#!/usr/bin/env bash
# Debian's Chromium for the console's browser test (playwright-core downloads no browser).
# Installs it only where it is missing; needs root (or sudo) and Debian's package mirror.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y chromium fonts-noto-color-emoji
