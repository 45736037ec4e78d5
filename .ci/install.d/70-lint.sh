#!/usr/bin/env bash
# Linters for `make lint` (staticcheck) and the closing dead-code pass (deadcode -test ./...), at
# pinned versions, from the Go module proxy into $(go env GOPATH)/bin.
set -euo pipefail
go install honnef.co/go/tools/cmd/staticcheck@v0.8.2
go install golang.org/x/tools/cmd/deadcode@v0.52.0
