# Podium's front door. `make` lists the targets.
SHELL := /bin/bash
GO    ?= go

.DEFAULT_GOAL := help

.PHONY: help
help: ## List the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z0-9-]+:.*## / {printf "  make %-14s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: run
run: build ## Run the server on 127.0.0.1:8080 (a private PostgreSQL under ./.podium unless DATABASE_URL is set)
	./bin/podium serve

.PHONY: build
build: ## Build bin/podium
	$(GO) build -o bin/podium ./cmd/podium

.PHONY: test
# Tests wait on PostgreSQL more than they compute: running 4 at a time (not one per core) halves
# the wall time on a 2-core machine.
test: lint ## Lint, then run every test against a real PostgreSQL (TEST_DATABASE_URL, 127.0.0.1:5432, or a private cluster)
	$(GO) test -count=1 -timeout 10m -parallel 4 ./...

.PHONY: bench
# W1–W5 run the real binary on the data of `podium seed bench`, loaded over HTTP, next to floors
# measured in the same run (rest/bench_test.go); the email benchmark follows.
bench: ## Benchmarks against floors measured in the same run (prints BENCH lines)
	$(GO) test -tags bench -run '^TestBench$$' -count=1 -v -timeout 30m ./rest/
	$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 30m ./jobs/

.PHONY: generate
generate: ## Regenerate ent and gqlgen code from ent/schema and graph/*.graphqls, and docs/openapi.json
	$(GO) run -mod=mod ./ent/entc.go
	$(GO) tool gqlgen generate
	$(GO) run ./graph/sdlgen.go
	$(GO) run ./rest/openapigen.go

.PHONY: migration
migration: ## Write the next migration for ent/schema changes: make migration NAME=add_something
	@test -n "$(NAME)" || { echo "usage: make migration NAME=what_changed"; exit 2; }
	$(GO) run ./ent/migrate/migrations/new.go $(NAME)

.PHONY: lint
# go vet runs inside golangci-lint (govet), with the bench and reliability tags from .golangci.yml;
# the e2e tag excludes reliability, so cmd/podium is linted a second time with it.
lint: golangci-lint ## gofmt, then golangci-lint (.golangci.yml) with every build tag
	@out=$$(gofmt -l cmd ent graph jobs rest); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GOLANGCI_LINT) run ./...
	$(GOLANGCI_LINT) run --build-tags e2e ./cmd/podium/...

# golangci-lint is pinned: a new release adds checks, and a lint that changes under a commit is
# not a check of that commit. It is built from source into .bin/ (not a system-wide install).
GOLANGCI_LINT_VERSION := v2.15.0
GOLANGCI_LINT         := $(CURDIR)/.bin/golangci-lint

.PHONY: golangci-lint
golangci-lint: ## Install the pinned golangci-lint into .bin/ (when absent or of another version)
	@if ! $(GOLANGCI_LINT) version 2>/dev/null | grep -q "has version $(GOLANGCI_LINT_VERSION:v%=%) "; then \
		echo "Installing golangci-lint $(GOLANGCI_LINT_VERSION) into .bin/ (a few minutes the first time)"; \
		GOBIN=$(CURDIR)/.bin $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION); \
	fi

.PHONY: check
# The fast parts of what tries to break Podium: lint, the whole test suite (hostile values,
# isolation, keys, limits, idempotency, the fuzz corpora as tests) and each fuzz target briefly.
check: test ## Lint, the test suite and 10 s of each fuzz target
	$(MAKE) fuzz FUZZTIME=10s

FUZZTIME ?= 60s
.PHONY: fuzz
fuzz: ## Run each fuzz target for FUZZTIME (default 60s): REST write bodies, GraphQL documents
	$(GO) test -run '^$$' -fuzz '^FuzzRESTBodies$$' -fuzztime $(FUZZTIME) ./rest/
	$(GO) test -run '^$$' -fuzz '^FuzzGraphQL$$' -fuzztime $(FUZZTIME) ./rest/

.PHONY: reliability
reliability: ## Crash, SMTP outage and overload tests against the real binary (about 4 minutes)
	$(GO) test -tags reliability -run . -count=1 -v -timeout 15m ./cmd/podium/

.PHONY: screenshots
screenshots: ## Run the browser checks and refresh the screenshots committed under docs/
	E2E_SCREENSHOTS=$(CURDIR)/docs ./.ci/e2e

.PHONY: e2e
e2e: ## Browser checks in headless Chromium: GraphiQL, River UI, sign-in from emails (installs Debian's chromium if absent)
	./.ci/e2e
