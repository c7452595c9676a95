# Switchboard. On a fresh machine: `make run` starts the service, `make test` runs every test.
# Everything the targets need (code generators, npm packages) is installed by the targets themselves.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
GO ?= go

SQLC_VERSION         := v1.31.1
OAPI_CODEGEN_VERSION := v2.8.2
GOLANGCI_VERSION     := v2.15.0
BIN    := $(CURDIR)/.bin
SQLC   := $(BIN)/sqlc-$(SQLC_VERSION)/sqlc
OAPI   := $(BIN)/oapi-codegen-$(OAPI_CODEGEN_VERSION)/oapi-codegen
LINT   := $(BIN)/golangci-lint-$(GOLANGCI_VERSION)/golangci-lint
NODE_OK := node_modules/.installed

.PHONY: run demo catalogs check-catalogs catalogs-fetch build test test-short test-times test-mcp generate check-generated lint lint-spec bench fuzz soak tools clean docs-assets

## run: serve on SWITCHBOARD_ADDR (default 127.0.0.1:8080) with embedded SQLite (switchboard.db); the catalogs
## refresh from their upstream sources once a day (SWITCHBOARD_CATALOG_REFRESH, 0 turns it off)
run:
	SWITCHBOARD_CATALOG_REFRESH=$${SWITCHBOARD_CATALOG_REFRESH:-24h} $(GO) run ./cmd/switchboard serve

## demo: the simulator and the service side by side; a provider goes down and recovers within a minute
demo: build
	scripts/demo.sh ./switchboard

build:
	$(GO) build -buildvcs=auto -o switchboard ./cmd/switchboard

## catalogs: rebuild seeds/catalogs offline from the snapshots in sources/ (upstream data sets with their manifests,
## and the providers' official pages curated in sources/official); also writes seeds/catalogs/REPORT.md and the
## failover export's gateway model names (gateway/names.json, from the same snapshots)
catalogs:
	$(GO) run ./cmd/catalogbuild
	$(GO) generate ./gateway

## check-catalogs: rebuild the catalogs and fail when the committed files differ (CI)
check-catalogs: catalogs
	@git diff --exit-code --stat -- seeds/catalogs/ gateway/names.json || { echo "seeds/catalogs or gateway/names.json is not what make catalogs builds: run make catalogs and commit"; exit 1; }
	@test -z "$$(git status --porcelain -- seeds/catalogs/)" || { git status --porcelain -- seeds/catalogs/; echo "untracked files in seeds/catalogs"; exit 1; }

## catalogs-fetch: download fresh upstream snapshots into sources/upstream (CATALOG_SOURCES_BASE_URL overrides the
## hosts, so tests serve them locally) and the newest releases of the npm snapshots from the registry
## (CATALOG_NPM_REGISTRY; only releases the manifest accepts, read as data, never run), verify them, rewrite their
## manifests and print what changed; without the internet the npm part still runs
catalogs-fetch:
	$(GO) run ./cmd/catalogbuild fetch

## test: vet, then every test with the race detector, the store suite's subtests listed so the output shows both
## engines. PostgreSQL tests run when TEST_DATABASE_URL is set (CI sets it). The service binary is built once for
## the packages that run it. The browser test needs a Chromium on PATH (or CHROMIUM=/path): without one, make test
## stops at once and says what to install. The raw `go test -json` goes to $(TEST_JSON).* for `make test-times`.
TEST_BIN  := $(BIN)/switchboard-test
# The catalog build as its own plain binary: the refresh tests run the whole build through it, out of the race
# detector's reach (refreshtest.Build).
CATALOGBUILD_BIN := $(BIN)/catalogbuild-test
TEST_JSON := $(BIN)/test.json
# Packages tested at once: more than the cores, because the end-to-end and fault tests spend most of their time
# waiting on the processes and intervals they run, and a waiting package would hold a core's turn.
TEST_P    ?= 4
# -trimpath keeps the checkout's folder out of the build cache's keys: a fresh clone elsewhere (as CI makes) reuses
# what an earlier run compiled instead of compiling every package again.
TEST_FLAGS := -trimpath -ldflags=-w
TEST_ENV   = SWITCHBOARD_TEST_BINARY=$(TEST_BIN) SWITCHBOARD_CATALOGBUILD_BINARY=$(CATALOGBUILD_BIN) SWITCHBOARD_CHROMIUM=$(CHROMIUM) SWITCHBOARD_REQUIRE_NODE=1 SWITCHBOARD_REQUIRE_BROWSER=1
# NORACE_PKGS are packages whose code and tests start no goroutine (TestNoRacePackagesStartNoGoroutines keeps it
# so): the race detector only sees goroutines that meet, so there it finds nothing and makes their data work
# (the catalog build, the decisions over the whole catalogs) five to ten times slower. Everything else runs
# with -race.
NORACE_PKGS := ./catalog ./catalogbuild/derive ./catalogbuild/gatewaynames ./cmd/catalogbuild \
	./cmd/testreport ./config ./decide ./gateway ./openapi ./poller/parse ./seeds ./tokens
# DATA_ONLY_PKGS run in both: their tests that work on the whole catalogs in one goroutine sit in files marked
# //go:build !race, which the -race run leaves out and the plain run takes (the same check keeps those files free
# of goroutines); the rest of the package runs with -race as everywhere else.
DATA_ONLY_PKGS := ./refresh ./catalogbuild
# EARLY_RACE_PKGS hold the longest chain of tests that cannot run side by side (refresh's tests install catalog sets
# process-wide, one after another, on one core): they start with -race right after the builds, beside the plain
# pass and npm ci, instead of after them. They need no node.
EARLY_RACE_PKGS := ./refresh
# The slowest of the rest start first (go test runs them in the order given): the last to finish sets the time.
SLOW_FIRST := e2e impl server store tools faults
EARLY_RACE_IMPORTS = $(EARLY_RACE_PKGS:./%=github.com/switchboard/switchboard/%)
RACE_PKGS = $(filter-out $(EARLY_RACE_IMPORTS),$(addprefix github.com/switchboard/switchboard/,$(SLOW_FIRST))) $(filter-out $(addprefix github.com/switchboard/switchboard/,$(SLOW_FIRST)) $(NORACE_PKGS:./%=github.com/switchboard/switchboard/%) $(EARLY_RACE_IMPORTS),$(shell $(GO) list ./...))
CHROMIUM  ?= $(firstword $(foreach b,chromium chromium-browser google-chrome google-chrome-stable,$(shell command -v $(b) 2>/dev/null)))
# npm ci (about 40 s in a fresh clone) runs in the background beside vet, the builds, the plain pass and the early
# race packages, none of which needs node; the race pass of the rest (e2e, web and errs need node) starts once it
# has finished. Its output is shown when it ends, and a failed install stops make test with npm's words and status.
# Whatever fails, make test waits for what it started in the background before it exits.
NPM_LOG := $(BIN)/npm-ci.log
# Named through a variable, not written as $(MAKE) in the recipe: a recipe line that names $(MAKE) runs even under
# make -n, and this one runs every test.
NODE_INSTALL = $(MAKE) --no-print-directory $(NODE_OK)
test:
	@test -n "$(CHROMIUM)" || { echo "make test: no Chromium for the browser test; install it (Debian: apt-get install chromium) or set CHROMIUM=/path/to/chromium"; exit 1; }
	@mkdir -p $(BIN)
	@$(NODE_INSTALL) >$(NPM_LOG) 2>&1 & npm=$$!; \
	trap 'wait' EXIT; \
	echo "$(GO) vet $(TEST_FLAGS) ./... (npm ci beside it: $(NPM_LOG))"; \
	$(GO) vet $(TEST_FLAGS) ./...; \
	$(GO) build $(TEST_FLAGS) -o $(TEST_BIN) ./cmd/switchboard; \
	$(GO) build $(TEST_FLAGS) -o $(BIN)/testreport ./cmd/testreport; \
	$(GO) build $(TEST_FLAGS) -o $(CATALOGBUILD_BIN) ./cmd/catalogbuild; \
	echo "go test -count=1 -race \$$EARLY_RACE_PKGS (beside the rest)"; \
	{ $(TEST_ENV) $(GO) test $(TEST_FLAGS) -count=1 -race -json $(EARLY_RACE_PKGS) | $(BIN)/testreport run -o $(TEST_JSON).race-early; } & early=$$!; \
	echo "go test -count=1 \$$NORACE_PKGS \$$DATA_ONLY_PKGS (no goroutines: no -race)"; \
	$(TEST_ENV) $(GO) test $(TEST_FLAGS) -count=1 -json $(NORACE_PKGS) $(DATA_ONLY_PKGS) | $(BIN)/testreport run -o $(TEST_JSON).norace; \
	rc=0; wait $$npm || rc=$$?; cat $(NPM_LOG); \
	if [ $$rc -ne 0 ]; then echo "make test: npm ci failed (exit $$rc)"; exit $$rc; fi; \
	echo "go test -count=1 -race (every other package)"; \
	$(TEST_ENV) $(GO) test $(TEST_FLAGS) -count=1 -race -p $(TEST_P) -json $(RACE_PKGS) | $(BIN)/testreport run -o $(TEST_JSON).race -list '/store$$'; \
	wait $$early

## test-short: the inner loop, in under a minute: no race detector, SQLite only, and -short skips what needs
## PostgreSQL, node, a browser, the built binary or the whole catalog build (each skip says why)
test-short:
	env -u TEST_DATABASE_URL $(GO) test -count=1 -short ./...

## test-times: each package's time in the last make test, slowest first, and the slowest tests
test-times:
	@test -f $(TEST_JSON).race || { echo "no $(TEST_JSON).race: run make test first"; exit 1; }
	@$(GO) run ./cmd/testreport times $(wildcard $(TEST_JSON).norace $(TEST_JSON).race-early) $(TEST_JSON).race

## test-mcp: the MCP clients others wrote, alone (part of test): the TypeScript SDK over HTTP and stdio, the
## Inspector CLI, and the conformance suite's scenarios for a tools-only server (on npm's Node 22)
test-mcp: $(NODE_OK)
	SWITCHBOARD_REQUIRE_NODE=1 $(GO) test -count=1 -v -run '^TestMCP' ./e2e | grep -E '^(\s*--- |ok|FAIL|PASS)|Passed:'

## generate: regenerate gen/ from openapi/ and queries/ (committed; CI fails on drift)
generate: $(SQLC) $(OAPI)
	$(SQLC) generate
	$(OAPI) -config oapi-codegen.yaml openapi/openapi.yaml

check-generated: generate
	@git diff --exit-code --stat -- gen/ || { echo "gen/ is out of date: run make generate and commit"; exit 1; }
	@test -z "$$(git status --porcelain -- gen/)" || { git status --porcelain -- gen/; echo "untracked files in gen/"; exit 1; }
	$(GO) mod tidy -diff

## docs-assets: copy Swagger UI (pinned in package-lock.json) into web/assets/swagger, which the binary embeds;
## commit the result (a test fails when the copies differ from node_modules)
docs-assets: $(NODE_OK)
	cp node_modules/swagger-ui-dist/{swagger-ui-bundle.js,swagger-ui.css,LICENSE,NOTICE} web/assets/swagger/

## lint: golangci-lint v2 with .golangci.yml: the default linters plus errorlint, gocritic, bodyclose, noctx,
## misspell and depguard rules that keep the layers (generated queries and drivers inside the store, no handler
## imports below the handlers, no catalog build in the server, nothing importing cmd/)
lint: $(LINT)
	$(LINT) run ./...

## lint-spec: @redocly/cli (pinned in package-lock.json) on the OpenAPI document
lint-spec: $(NODE_OK)
	node_modules/.bin/redocly lint openapi/openapi.yaml

## bench: Go benchmarks (poll cycles, request overhead, one event to 10,000 webhook subscriptions), then the
## service under loadgen at 64 connections on SQLite and on PostgreSQL (BENCH_DATABASE_URL; empty skips it)
BENCH_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/test?sslmode=disable
bench: build
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 3x ./poller/
	$(GO) test -run '^$$' -bench . -benchmem ./server/
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 3x ./webhooks/
	$(GO) build -o loadgen ./cmd/loadgen
	BENCH_DATABASE_URL='$(BENCH_DATABASE_URL)' scripts/bench.sh ./switchboard ./loadgen

## fuzz: the contract fuzzer at FUZZ_REQUESTS requests (counts by status at the end), then every go-fuzz
## target (status-page parsers, X-PAYMENT decoder) for FUZZ_TIME each
FUZZ_REQUESTS ?= 100000
FUZZ_TIME ?= 30s
fuzz:
	SWITCHBOARD_FUZZ_REQUESTS=$(FUZZ_REQUESTS) $(GO) test -count=1 -v -timeout 2h -run '^TestContract$$' ./contractfuzz
	for t in $$($(GO) test -list '^Fuzz' ./poller/parse | grep ^Fuzz); do \
		$(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZ_TIME) ./poller/parse || exit 1; done
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeHeader$$' -fuzztime $(FUZZ_TIME) ./x402

## soak: 10 minutes at a steady 1,000 requests/s while the simulator flaps providers and webhooks deliver
## (SOAK_DURATION, SOAK_RATE); fails on errors or on growth of goroutines, memory or open files
soak: build
	$(GO) build -o loadgen ./cmd/loadgen
	$(GO) build -o webhook-receiver ./examples/webhook-receiver
	scripts/soak.sh ./switchboard ./loadgen ./webhook-receiver

tools: $(SQLC) $(OAPI) $(LINT)

$(SQLC):
	GOBIN=$(dir $@) $(GO) install github.com/sqlc-dev/sqlc/cmd/sqlc@$(SQLC_VERSION)

$(OAPI):
	GOBIN=$(dir $@) $(GO) install github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@$(OAPI_CODEGEN_VERSION)

$(LINT):
	GOBIN=$(dir $@) $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_VERSION)

$(NODE_OK): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

clean:
	rm -rf $(BIN) node_modules switchboard loadgen webhook-receiver e2e/ts/generated e2e/ts/dist
