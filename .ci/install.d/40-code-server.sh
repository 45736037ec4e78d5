#!/usr/bin/env bash
# Installs what `make test-vscode` needs: Debian's chromium (driven by playwright-core), ripgrep and
# libkrb5-dev (code-server's install needs them), and code-server@4.100.3 from npm into a cache dir
# (CODE_SERVER_DIR, default /opt/ccdag-ci/code-server), so reruns are fast. code-server carries
# VS Code itself: nothing is downloaded from anywhere but Debian and npm.
set -euo pipefail
CODE_SERVER_VERSION=4.100.3
DIR=${CODE_SERVER_DIR:-/opt/ccdag-ci/code-server}

if command -v apt-get >/dev/null; then
  need=()
  for p in chromium libkrb5-dev ripgrep; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
  done
  if [ ${#need[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  fi
fi

bin="$DIR/node_modules/.bin/code-server"
# code-server writes a default config under XDG_CONFIG_HOME even for --version: keep it out of $HOME.
cfg=$(mktemp -d)
version() { XDG_CONFIG_HOME="$cfg" "$bin" --version 2>/dev/null; }
if [ -x "$bin" ] && version | grep -q "^$CODE_SERVER_VERSION "; then
  echo "code-server $CODE_SERVER_VERSION already in $DIR"
else
  # @vscode/ripgrep downloads rg from GitHub unless its cache already holds it: seed the cache with
  # Debian's rg under the name it looks for.
  tmp=$(mktemp -d)
  mkdir -p "$tmp/rgseed" "$tmp/vscode-ripgrep-cache-1.15.11"
  cp "$(command -v rg)" "$tmp/rgseed/rg"
  tar czf "$tmp/vscode-ripgrep-cache-1.15.11/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$tmp/rgseed" rg
  mkdir -p "$DIR"
  # unsafe_perm: root install check; yes: npx prompts inside node-pty's build.
  TMPDIR="$tmp" npm_config_yes=true npm_config_unsafe_perm=true \
    npm install --no-audit --no-fund --loglevel=error --prefix "$DIR" "code-server@$CODE_SERVER_VERSION"
  rm -rf "$tmp"
  version
fi
rm -rf "$cfg"

# The extension's own build and test dependencies (esbuild, vsce, playwright-core, ...).
cd "$(dirname "$0")/../../editors/vscode"
npm ci --no-audit --no-fund --loglevel=error
