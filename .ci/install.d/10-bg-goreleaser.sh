#!/usr/bin/env bash
# goreleaser for `make release-snapshot`, at the version tools/goreleaser/go.mod pins, built once
# and kept under /opt/ccdag-ci/goreleaser/<version>/ (a big build: see scripts/goreleaser.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/goreleaser.sh --install
# (unzip, which scripts/release-snapshot.sh opens the windows archives with, comes from
# 60-hardening.sh: this one runs in the background beside the apt installs.)
