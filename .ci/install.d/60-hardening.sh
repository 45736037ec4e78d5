#!/usr/bin/env bash
# What the hardening tests need: strace, which watches the binary's system calls
# (internal/hostile/syscalls_test.go: reads only the session's files, writes nothing, runs nothing,
# opens no socket).
set -euo pipefail
if command -v apt-get >/dev/null && ! command -v strace >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq strace >/dev/null
fi
