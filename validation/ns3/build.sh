#!/usr/bin/env bash
# Build the ns-3.37 twin programs of validation/compare_ns3.py against Debian's libns3-dev, installing it
# when missing (sudo only when not root). Output: validation/ns3/build/<program>; rebuilt only when its
# source is newer.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

if [ ! -e /usr/include/ns3/core-module.h ]; then
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y libns3-dev g++
fi

mkdir -p "$here/build"
for src in "$here"/*.cc; do
    bin="$here/build/$(basename "$src" .cc)"
    if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
        echo "building $bin"
        g++ -std=c++17 -O2 -o "$bin" "$src" -DNS3_LOG_ENABLE=0 \
            -lns3-core -lns3-network -lns3-internet -lns3-point-to-point -lns3-applications \
            -lns3-traffic-control
    fi
done
