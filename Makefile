# The two commands: `make run` and `make test`. Both install what they need first.
SHELL := /bin/bash
.DEFAULT_GOAL := help

NPM ?= npm
INSTALL_STAMP := node_modules/.install-stamp

.PHONY: help install build run dev test typecheck lint check-node clean

help: ## list the targets
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | sort | column -t -s $$'\t'

check-node:
	@node -e 'const [major] = process.versions.node.split("."); if (+major < 24) { console.error("Node.js 24 or newer is needed (found " + process.version + ")"); process.exit(1); }'

# Reinstall only when the lock file changes. `npm ci` installs exactly what the lock file says.
$(INSTALL_STAMP): package-lock.json | check-node
	$(NPM) ci --no-audit --no-fund
	@touch $@

install: $(INSTALL_STAMP) ## install dependencies (npm ci)

build: $(INSTALL_STAMP) ## compile TypeScript to dist/
	$(NPM) run build

run: build ## start the service on the embedded SQLite store (port 3000)
	$(NPM) start

dev: $(INSTALL_STAMP) ## start with reload on change
	$(NPM) run dev

typecheck: $(INSTALL_STAMP) ## type-check everything (src, test, bench)
	$(NPM) run typecheck

test: $(INSTALL_STAMP) typecheck ## type-check, then run the test suite (SQLite, plus engines named by TEST_*_URL)
	$(NPM) test

lint: $(INSTALL_STAMP) ## ESLint over the TypeScript
	$(NPM) run lint

clean: ## remove build output and dependencies
	rm -rf dist node_modules coverage
