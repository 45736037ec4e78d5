#!/usr/bin/env bash
# What internal/resume/oracle needs: the real Claude Code, to hold `ccdag resume` to what it sends
# (docs/resume.md). @anthropic-ai/claude-code from npm, pinned, into a cache folder per version; its
# native binary comes as an optional npm dependency of the package (nothing is downloaded from
# elsewhere). Its code is run by the tests, offline against a mock API, never committed.
set -euo pipefail
CLAUDE_CODE_VERSION=${CLAUDE_CODE_VERSION:-2.1.328}
DIR=${CLAUDE_CODE_DIR:-/opt/ccdag-ci/claude-code-$CLAUDE_CODE_VERSION}
bin="$DIR/node_modules/.bin/claude"
# --version only, in a throw-away HOME: nothing of the machine's own configuration is read or written.
version() {
  local h; h=$(mktemp -d)
  HOME="$h" DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
    timeout 60 "$bin" --version 2>/dev/null || true
  rm -rf "$h"
}
if [ -x "$bin" ] && version | grep -q "^$CLAUDE_CODE_VERSION "; then
  echo "claude-code $CLAUDE_CODE_VERSION already in $DIR"
  exit 0
fi
mkdir -p "$DIR"
npm install --no-audit --no-fund --loglevel=error --prefix "$DIR" "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION"
out=$(version)
echo "$out"
echo "$out" | grep -q "^$CLAUDE_CODE_VERSION " || { echo "claude-code $CLAUDE_CODE_VERSION does not run from $DIR" >&2; exit 1; }
