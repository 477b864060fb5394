#!/bin/sh
# Install Debian's Chromium and chromedriver for the browser tests
# (pytest -m browser: the HTML report opened in a headless browser).
# Idempotent: does nothing when both are present. apt-get only; nothing is
# downloaded from elsewhere.
set -eu
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    chromium chromium-driver
