#!/usr/bin/env bash
# Real editors and clients for `make test-nvim test-emacs test-node`.
set -euo pipefail
cd "$(dirname "$0")/../.."
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -qq neovim emacs-nox elpa-eglot elpa-package-lint >/dev/null
(cd editors/node-client-test && npm ci --no-audit --no-fund)
