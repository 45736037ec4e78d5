# ccdag — see README.md. `make demo` runs the CLI on a bundled session; `make test` runs every test.
GO        ?= go
BIN       := bin/ccdag
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X github.com/ccdag/ccdag/internal/version.Version=$(VERSION)
DEMO      := testdata/sessions/demo/3f1c2a9e-7d4b-4d2b-9a51-6f0e7c8b1d2a.jsonl
FUZZTIME  ?= 30s
# The module's Go packages: not ./..., which also finds the Go package an npm dependency ships in
# editors/vscode/node_modules (flatted) and builds, vets and tests it.
GOPKGS    := ./cmd/... ./internal/... ./scripts/...

.PHONY: build test test-go test-go-all test-go-drop test-resume test-editors test-nvim test-emacs test-node test-html bench bench-lsp fuzz lint demo install test-vscode vsix soak soak-short clean

# Built as released (goreleaser, vsix): static, no cgo. With cgo the binary links libc's resolver
# and user lookup, and each start is ~0.5 ms slower; CGO_ENABLED=1 make build
# still gives one.
build install: export CGO_ENABLED ?= 0
build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/ccdag

install:
	$(GO) install -trimpath -ldflags '$(LDFLAGS)' ./cmd/ccdag

demo: build
	@echo '$$ ccdag check $(DEMO)'
	@$(BIN) check --fail-on never $(DEMO)
	@echo
	@echo '$$ ccdag graph --format mermaid $(DEMO)'
	@$(BIN) graph --format mermaid $(DEMO)

# In CI (CI set) `make test` also runs every fuzz target for FUZZTIME each (CI_FUZZTIME, 10 s: a
# smoke run of every target on every change, whose new finds are reported, not failed on: what 10 s
# finds is luck, and the inputs found before run in every `go test`; `make fuzz` alone runs 30 s and
# fails on a find, `FUZZTIME=10m` for a hunt),
# and builds the release archives (release-snapshot). Each stage is timed (scripts/stages.sh).
CI_FUZZTIME ?= 10s
STAGES := lint-go vet-targets lint-vscode test-go-all test-go-drop soak-short build test-nvim test-emacs test-node test-vscode test-html \
	$(if $(CI),fuzz-ci release-snapshot)
test:
	@MAKE='$(MAKE)' scripts/stages.sh $(STAGES)

# What starts `ccdag serve` or `ccdag sessions` writes the history cache (docs/spec.md §14): a test's
# goes to a folder of the tests' own, never the user's (the Go tests set their own in TestMain).
test-editors test-nvim test-emacs test-node test-vscode test-html soak-short soak: export CCDAG_CACHE_DIR ?= $(or $(TMPDIR),/tmp)/ccdag-test-history-cache

# The second run drops the Detail of every line under 64 KiB (parsed again when read, as the
# engine does for lines under 128 bytes): a reader that bypasses session.Rec.D panics there.
test-go: test-go-all test-go-drop

test-go-all:
	$(GO) test -count=1 -timeout 30m $(GOPKGS)

test-go-drop:
	CCDAG_DROP_DETAIL=65536 $(GO) test -count=1 -short -timeout 30m ./internal/...

# ccdag resume held to the real Claude Code (docs/resume.md; also part of test-go): needs
# .ci/install.d/80-claude-code.sh.
test-resume:
	$(GO) test -count=1 -timeout 40m -run TestClaudeCodeAgrees -v ./internal/resume/oracle

# Real-editor and real-client tests; each script skips with a message when its editor is absent.
test-editors: build test-nvim test-emacs test-node test-vscode test-html
	@true

# Neovim 0.7+ plugin, Emacs + eglot, and VS Code's JSON-RPC stack from node, each against bin/ccdag serve.
test-nvim: build
	bash editors/nvim/test/run.sh
	bash editors/nvim/test/pack.sh

test-emacs: build
	bash editors/emacs/test/run.sh
	bash editors/emacs/test/lint.sh

test-node: build
	bash editors/node-client-test/run.sh

# VS Code: the extension from its .vsix in real VS Code (code-server) driven by Chromium.
test-vscode: build
	bash editors/vscode/test/run.sh

# The graph viewer (editors/graphview) and `ccdag graph --format html`, in Debian's chromium.
test-html: build
	bash editors/graphview/test/run.sh

# The VS Code extension: one .vsix per target, each with its own static ccdag (ccdag.exe on win32),
# and a universal one that uses ccdag from PATH (dist/ccdag-<target>-<version>.vsix,
# dist/ccdag-<version>.vsix). dist/ccdag.vsix is the linux-x64 one, which test-vscode installs.
VSIX := dist/ccdag.vsix
VSIX_TARGETS := linux/amd64:linux-x64 linux/arm64:linux-arm64 darwin/amd64:darwin-x64 darwin/arm64:darwin-arm64 windows/amd64:win32-x64 windows/arm64:win32-arm64
editors/vscode/node_modules/.package-lock.json: editors/vscode/package-lock.json
	cd editors/vscode && npm ci --no-audit --no-fund --loglevel=error

vsix: editors/vscode/node_modules/.package-lock.json
	rm -rf dist/vsix-bin
	set -e; for t in $(VSIX_TARGETS); do os=$${t%%/*}; rest=$${t#*/}; arch=$${rest%%:*}; target=$${t#*:}; \
	  exe=ccdag; [ $$os = windows ] && exe=ccdag.exe; \
	  GOOS=$$os GOARCH=$$arch CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o dist/vsix-bin/$$target/$$exe ./cmd/ccdag; \
	done
	cd editors/vscode && node scripts/package.mjs --bins ../../dist/vsix-bin --outdir ../../dist
	cp dist/ccdag-linux-x64-$$(node -p "require('./editors/vscode/package.json').version").vsix $(VSIX)

bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 3x ./internal/...

# The language server's figures alone (docs/PERFORMANCE.md, "LSP"): open to diagnostics, append,
# hover/definition p99, memory, 10 MB vs 100 MB scaling, the real binary over pipes.
bench-lsp:
	$(GO) test -run '^$$' -bench 'Open|Append|HoverDefinition|Memory|Scaling|ServeProcess' -benchtime 3x ./internal/lsp

# Every Go fuzz target for FUZZTIME each (make fuzz FUZZTIME=10m); crashers land in each package's
# testdata/fuzz/FuzzX/ and are kept there as regression cases.
fuzz:
	FUZZTIME=$(FUZZTIME) GO=$(GO) bash scripts/fuzz.sh

.PHONY: fuzz-ci
fuzz-ci:
	FUZZ_FINDS=report FUZZTIME=$(CI_FUZZTIME) GO=$(GO) bash scripts/fuzz.sh

# Sustained load on the language server (internal/lsp/soak_test.go): 60 s, 200 MB; p99 over 10 ms fails.
# soak-short (10 s, 40 MB) runs in `make test`: the same checks of errors, agreement with a fresh
# parse and memory, with latency reported, not failed on (a 10 s run on a shared CI machine is not a
# latency measurement: its p99 is the machine's; `make soak` is).
soak:
	GO=$(GO) bash scripts/soak.sh 60s 200

soak-short:
	CCDAG_SOAK_LATENCY=report GO=$(GO) bash scripts/soak.sh 10s 40

# gofmt, go.mod/go.sum tidy, go vet, staticcheck (pinned: scripts/staticcheck.sh installs it if absent).
lint: lint-go vet-targets lint-vscode

.PHONY: lint-go
lint-go:
	@out=$$(gofmt -l cmd internal scripts); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) mod tidy -diff
	$(GO) vet $(GOPKGS)
	GO=$(GO) scripts/staticcheck.sh $(GOPKGS)
	GO=$(GO) scripts/deadcode.sh

# ESLint on the VS Code extension (editors/vscode/eslint.config.mjs: typescript-eslint, flat config).
.PHONY: lint-vscode
lint-vscode: editors/vscode/node_modules/.package-lock.json
	cd editors/vscode && node node_modules/eslint/bin/eslint.js .

# go vet (every package and test binary built) for linux, darwin, windows × amd64, arm64 (SPEC §9).
.PHONY: vet-targets
vet-targets:
	GO=$(GO) scripts/vet-targets.sh

# The release archives for the six targets with checksums, as a tag would make them, without
# publishing (.goreleaser.yaml; goreleaser pinned in tools/goreleaser/go.mod). Output: dist/goreleaser/.
.PHONY: release-snapshot
release-snapshot:
	GO=$(GO) scripts/release-snapshot.sh

clean:
	rm -rf bin dist
