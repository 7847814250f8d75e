#!/usr/bin/env bash
# Install ns-2.35 (Debian/Ubuntu package `ns2`) if the `ns` binary is not already on PATH.
# Idempotent: does nothing when `ns` is present. Uses sudo only when not running as root.
set -euo pipefail

if command -v ns >/dev/null 2>&1; then
    echo "ns already installed: $(command -v ns)"
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi

$SUDO apt-get update
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y ns2

command -v ns
