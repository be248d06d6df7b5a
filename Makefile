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
reliability: ## Crash, SMTP outage and overload tests against the real binary (about 9 minutes on 2 cores)
	$(GO) test -tags reliability -run . -count=1 -v -timeout 15m ./cmd/podium/

.PHONY: screenshots
screenshots: ## Run the browser checks and refresh the screenshots committed under docs/
	E2E_SCREENSHOTS=$(CURDIR)/docs ./.ci/e2e

# MinIO, the S3-compatible server the S3 backend's tests run against, is built from the module
# proxy once per machine (GOBIN into the cache directory; about 13 minutes on 2 busy cores), so it
# is kept out of make test: make test-s3 builds it when absent and runs those tests. Keep the
# version equal to graph/files/filestest.MinIOVersion.
MINIO_VERSION := v0.0.0-20260212201848-7aac2a2c5b7c
MINIO_DIR     := $(HOME)/.cache/podium/minio-$(MINIO_VERSION)

.PHONY: minio
minio: ## Build MinIO into ~/.cache/podium once per machine (for make test-s3)
	@if [ ! -x $(MINIO_DIR)/minio ]; then \
		echo "Building MinIO $(MINIO_VERSION) into $(MINIO_DIR) (once per machine; many minutes)"; \
		mkdir -p $(MINIO_DIR) && GOBIN=$(MINIO_DIR) GOFLAGS=-mod=mod $(GO) install github.com/minio/minio@$(MINIO_VERSION); \
	fi

.PHONY: test-s3
test-s3: minio ## The S3 file store's tests against a real MinIO started on a loopback port (docs/files.md)
	$(GO) test -tags s3 -count=1 -timeout 10m -run 'S3' ./graph/files/ ./rest/

.PHONY: e2e
e2e: ## Browser checks in headless Chromium: GraphiQL, River UI, sign-in from emails (installs Debian's chromium if absent)
	./.ci/e2e
