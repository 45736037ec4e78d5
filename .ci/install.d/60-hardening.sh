#!/usr/bin/env bash
# What the hardening tests need: strace, which watches the binary's system calls
# (internal/hostile/syscalls_test.go: reads only the session's files, writes nothing, runs nothing,
# opens no socket).
set -euo pipefail
# And unzip: scripts/release-snapshot.sh opens the windows archives with it.
if command -v apt-get >/dev/null; then
  for p in strace unzip; do
    command -v $p >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $p >/dev/null
  done
fi
