# The service image: a build stage that compiles TypeScript and the native modules, and a runtime stage
# that holds only production node_modules and dist/. Works with the classic builder and with BuildKit
# (no RUN --mount, no heredocs), so `docker build .` works everywhere.
#
#   docker build -t koa-api-service:local .
#   docker run --rm -p 127.0.0.1:3000:3000 -e JWT_SECRET=... -e REFRESH_TOKEN_SECRET=... koa-api-service:local
#
# NODE_IMAGE swaps the base (a mirror, a pinned digest); both stages use it so the native modules are
# compiled against the exact Node.js that runs them.
ARG NODE_IMAGE=node:24-bookworm-slim

# ---- build ------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS build
# Toolchain for native modules: argon2 ships prebuilt binaries, but sqlite3 falls back to node-gyp when its
# prebuilt download is unreachable (and on any platform it has no prebuild for).
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 make g++ >/dev/null \
 && rm -rf /var/lib/apt/lists/*
# node-gyp compiles against Node's headers, which it downloads from nodejs.org. On a network that reaches
# only the npm registry, build with --build-arg NODE_HEADERS=npm: the headers then come from the npm package
# of the same Node release (node-linux-<arch>). sqlite3 is a Node-API addon either way.
ARG NODE_HEADERS=nodejs.org
RUN if [ "$NODE_HEADERS" = npm ]; then \
      cd /tmp && npm pack --silent "node-linux-$(node -p process.arch)@$(node -p 'process.version.slice(1)')" >/dev/null \
      && mkdir -p /opt/node-headers && tar xzf node-linux-*.tgz -C /opt/node-headers --strip-components=1 package/include \
      && rm -f node-linux-*.tgz && rm -rf /root/.npm; \
    fi
WORKDIR /app
# Dependencies first: this layer is reused until the lock file changes.
# `npm ci` runs the install scripts of argon2 and sqlite3 (approved in package.json "allowScripts"); JOBS=max
# lets node-gyp compile sqlite3 on every core when no prebuilt binary can be fetched.
COPY package.json package-lock.json ./
RUN if [ -d /opt/node-headers ]; then export npm_config_nodedir=/opt/node-headers; fi \
 && JOBS=max npm ci --no-audit --no-fund \
 && node -e "require('sqlite3'); require('argon2')"
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# Compile, then slim node_modules: drop dev dependencies; sqlite3's compile leftovers (objects, static libs,
# C sources: only build/Release/node_sqlite3.node is loaded); and files nothing reads at run time (source
# maps, type declarations, markdown), about 45 MB.
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && cd node_modules/sqlite3 \
 && mv build/Release/node_sqlite3.node /tmp/ && rm -rf build deps src \
 && mkdir -p build/Release && mv /tmp/node_sqlite3.node build/Release/ \
 && cd /app \
 && find node_modules -type f \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.md' \) -delete \
 && node -e "require('sqlite3'); require('argon2')"

# ---- runtime ----------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ARG VERSION=0.0.0-dev
ARG REVISION=unknown
ARG CREATED=unknown
ARG SOURCE=https://github.com/OWNER/REPO
# The digest of the release's SBOM (release/<version>/sbom.cdx.json, scripts/release.sh), so the image names
# the dependency list it was built with.
ARG SBOM_DIGEST=none
LABEL org.opencontainers.image.title="koa-api-service" \
      org.opencontainers.image.description="Koa + TypeScript JSON API: JWT auth with refresh cookie, role-based routes, rate limit; SQLite, PostgreSQL, MySQL, SQL Server or MongoDB" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.source="${SOURCE}" \
      dev.koa-api-service.sbom.digest="${SBOM_DIGEST}"
# glibc malloc: one arena for every thread. argon2 allocates its 19 MiB in whichever libuv pool thread
# runs it; with glibc's per-thread arenas each pool thread that ever hashed kept its buffer resident (RSS
# settled at ~204 MiB after a login burst instead of ~127 MiB). Fixing the mmap threshold instead returned
# the memory too, but every hash then faulted in 19 MiB of fresh pages: +15 ms CPU per login. One arena
# keeps the buffers reusable and bounded (docs/performance.md, "Memory"). hugetlb=1: malloc's heap in
# transparent huge pages where the host allows them (THP "madvise" or "always"): argon2 walks its 19 MiB
# with a hundredth of the TLB misses (6-11 % less CPU a verify), and a buffer glibc gave back and faults in
# again costs ten 2 MiB faults instead of 4,864.
# NODE_OPTIONS: V8 lets its young generation grow to 128 MiB under load whatever the heap limit; 16 MiB a
# semi-space keeps the peak ~50 MiB lower at no measurable CPU cost. Keep the flag if you set NODE_OPTIONS.
# HOST: every interface, so the container is reachable (outside the image the default is loopback). Set
# explicitly rather than left to NODE_ENV: docker-compose.yml runs the image in development by default.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    GLIBC_TUNABLES=glibc.malloc.arena_max=1:glibc.malloc.hugetlb=1 \
    NODE_OPTIONS=--max-semi-space-size=16
WORKDIR /app
# Code and dependencies stay owned by root: the service user can read them but not rewrite them.
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The only writable place: the default embedded SQLite file (DATABASE_URL unset) lives in /app/data.
# Mount a volume there to keep it across containers.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
# Node itself probes liveness (no curl/wget in the image). Liveness, not readiness: a database outage
# should show as 503 on /health/ready, not get the container killed and restarted.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Exec form: node is PID 1 and receives SIGTERM directly. The service installs SIGTERM/SIGINT handlers
# (drain, close stores, exit 0), so no init process is needed for signals; it spawns no child processes,
# so there are no zombies to reap. (`docker run --init` still works if a platform insists on tini.)
STOPSIGNAL SIGTERM
CMD ["node", "dist/server.js"]
