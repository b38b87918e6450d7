#!/usr/bin/env bash
# `make release REGISTRY=<host[:port]/name> VERSION=<x.y.z> [CHANNEL=…]`: build the image, push it to the
# registry by version, by commit and by channel, and write what a user downloads to release/<version>/:
#   docker-compose.yml  the stack with the app pinned to the pushed digest (no build context)
#   .env.example        the settings a run needs
#   docker/             the database helper files the compose file mounts (MySQL charset, SQL Server init)
#   sbom.cdx.json       CycloneDX SBOM of the production dependencies (scripts/production-sbom.ts)
#   release.json        version, revision, created, image, digest, tags, SBOM digest, size
# CHANNEL defaults to `stable`, or `next` for a pre-release version (x.y.z-rc.1). The CI release job runs this
# same script (.github/workflows/ci.yml). DOCKER_BUILD_FLAGS adds build flags (this machine: --network host).
set -euo pipefail
cd "$(dirname "$0")/.."

registry=${REGISTRY:?REGISTRY=<host[:port]/name> is required, e.g. ghcr.io/acme/api or 127.0.0.1:5000/koa-api-service}
version=${VERSION:?VERSION=<x.y.z> is required}
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] || { echo "release: VERSION must be x.y.z or x.y.z-pre (semver), not '$version'" >&2; exit 2; }
if [ -z "${CHANNEL:-}" ]; then
  if [[ "$version" == *-* ]]; then CHANNEL=next; else CHANNEL=stable; fi
fi
revision=$(git rev-parse HEAD)
short=$(git rev-parse --short=12 HEAD)
created=$(date -u +%Y-%m-%dT%H:%M:%SZ)
# The image's source label is public: an origin such as https://user:token@host/repo (a CI checkout, a
# credential helper's URL) must leave no user or token in it, nor in any line this script prints.
public_url() {
  sed -E 's#^git@([^:]+):#https://\1/#; s#^ssh://([^@/]+@)?([^/:]+)(:[0-9]+)?/#https://\2/#; s#^(https?://)[^/]*@#\1#; s#\.git$##'
}
source_url=$(printf '%s\n' "${SOURCE_URL:-$(git remote get-url origin 2>/dev/null || true)}" | public_url)
[[ "$source_url" == http* ]] || source_url=https://github.com/OWNER/REPO # a local clone has no public origin
out=release/$version
[ ! -e "$out" ] || { echo "release: $out exists already: a version is released once" >&2; exit 2; }
if ! git diff --quiet HEAD -- src package.json package-lock.json Dockerfile docker-compose.yml; then
  echo "release: uncommitted changes to what the image or the compose file is built from; commit them first" >&2
  exit 2
fi

mkdir -p "$out"
remove_partial() {
  local status=$?
  [ "$status" = 0 ] || rm -rf "$out"
  exit "$status"
}
trap remove_partial EXIT

echo "release: SBOM of the production dependencies"
npx --no-install tsx scripts/production-sbom.ts >"$out/sbom.cdx.json"
sbom_digest=sha256:$(sha256sum "$out/sbom.cdx.json" | cut -d' ' -f1)

echo "release: building $registry:$version ($short, channel $CHANNEL)"
tags=("$registry:$version" "$registry:sha-$short" "$registry:$CHANNEL")
# shellcheck disable=SC2086 # DOCKER_BUILD_FLAGS is a list of flags
docker build ${DOCKER_BUILD_FLAGS:-} \
  --build-arg VERSION="$version" --build-arg REVISION="$revision" --build-arg CREATED="$created" \
  --build-arg SOURCE="$source_url" --build-arg SBOM_DIGEST="$sbom_digest" \
  "${tags[@]/#/--tag=}" .

for tag in "${tags[@]}"; do docker push --quiet "$tag" >/dev/null; done
# The digest the registry holds for this manifest: what the compose file pins.
digest=$(docker image inspect -f '{{range .RepoDigests}}{{println .}}{{end}}' "$registry:$version" | grep -F "$registry@" | head -n 1 | cut -d@ -f2)
[ -n "$digest" ] || { echo "release: the registry returned no digest for $registry:$version" >&2; exit 1; }
pinned="$registry@$digest"
echo "release: pushed ${tags[*]} → $pinned"

# The compose file as a user runs it: the app from the registry by digest (still overridable), no build.
sed -e "s#image: \${APP_IMAGE:-koa-api-service:local}#image: \${APP_IMAGE:-$pinned}#" -e '/^  build:$/,/^    context: \.$/d' docker-compose.yml >"$out/docker-compose.yml"
if ! grep -qF "$pinned" "$out/docker-compose.yml" || grep -q 'build:' "$out/docker-compose.yml"; then
  echo "release: could not pin the app image in the compose file" >&2
  exit 1
fi
cp docker/release/env.example "$out/.env.example"
mkdir -p "$out/docker"
cp -r docker/mysql docker/mssql "$out/docker/"

size=$(docker image inspect -f '{{.Size}}' "$registry:$version")
cat >"$out/release.json" <<JSON
{
  "version": "$version",
  "channel": "$CHANNEL",
  "revision": "$revision",
  "created": "$created",
  "image": "$pinned",
  "tags": ["${tags[0]}", "${tags[1]}", "${tags[2]}"],
  "sbom": { "file": "sbom.cdx.json", "digest": "$sbom_digest" },
  "imageSizeBytes": $size
}
JSON
echo "release: image $(awk -v s="$size" 'BEGIN { printf "%.0f MiB", s / 1048576 }'), layers (newest first):"
docker history --format '  {{.Size}}\t{{.CreatedBy}}' "$registry:$version" | cut -c1-150
echo "release: wrote $out/ ($(cd "$out" && find . -type f | sort | tr '\n' ' '))"
