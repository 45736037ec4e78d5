#!/usr/bin/env bash
# goreleaser for `make release-snapshot`, at the version tools/goreleaser/go.mod pins, built once
# and kept under /opt/ccdag-ci/goreleaser/<version>/ (a big build: see scripts/goreleaser.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/goreleaser.sh --install
# scripts/release-snapshot.sh opens the windows archives.
command -v unzip >/dev/null || apt-get install -y -qq unzip >/dev/null
