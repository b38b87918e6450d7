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
#
# A version is released once: the registry is asked for REGISTRY:VERSION before anything is built or pushed,
# and a version it holds already is refused. Then the order keeps a failure harmless: the commit tag first
# (its digest is what the compose file pins), the compose file written and checked, then the version tag,
# and the channel tag last, so `:stable` never points at a version whose release files were not written.
set -euo pipefail
cd "$(dirname "$0")/.."
# Every failure says what failed: the reason printed by the step, or else the command that stopped the script.
trap 'echo "release: failed (line $LINENO): $BASH_COMMAND" >&2' ERR

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

# The registry, not a local folder, knows what was released. A loopback registry (a test's) speaks plain HTTP.
registry_host=${registry%%/*}
insecure=()
case "$registry_host" in localhost | localhost:* | 127.* | "[::1]" | "[::1]:"*) insecure=(--insecure) ;; esac
if answer=$(docker manifest inspect "${insecure[@]}" "$registry:$version" 2>&1); then
  echo "release: $registry:$version is in the registry already: a version is released once (nothing was pushed)" >&2
  exit 2
# Only the registry's own "no such tag" answers count as absent; anything else (a refusal, no network) stops here.
elif ! grep -qiE 'no such manifest|manifest unknown|name unknown|repository name not known' <<<"$answer"; then
  echo "release: could not ask the registry whether $registry:$version exists (nothing was pushed): $answer" >&2
  exit 1
fi
[ ! -e "$out" ] || { echo "release: $out exists already: remove it, or release another version" >&2; exit 2; }
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
# Built with the commit and version tags; the channel tag is added and pushed last, after the checks below.
tags=("$registry:sha-$short" "$registry:$version")
channel_tag=$registry:$CHANNEL
# shellcheck disable=SC2086 # DOCKER_BUILD_FLAGS is a list of flags
docker build ${DOCKER_BUILD_FLAGS:-} \
  --build-arg VERSION="$version" --build-arg REVISION="$revision" --build-arg CREATED="$created" \
  --build-arg SOURCE="$source_url" --build-arg SBOM_DIGEST="$sbom_digest" \
  "${tags[@]/#/--tag=}" .

push() { docker push --quiet "$1" >/dev/null || { echo "release: pushing $1 failed" >&2; exit 1; }; }
push "$registry:sha-$short"
# The digest the registry holds for this manifest: what the compose file pins. (awk, not grep: no match is
# an empty answer, and the message below, rather than a pipeline that fails under pipefail.)
repo_digests=$(docker image inspect -f '{{range .RepoDigests}}{{println .}}{{end}}' "$registry:sha-$short") ||
  { echo "release: could not read the pushed image's digests" >&2; exit 1; }
digest=$(awk -F@ -v name="$registry" '$1 == name { print $2; exit }' <<<"$repo_digests")
[ -n "$digest" ] || { echo "release: the registry returned no digest for $registry:sha-$short" >&2; exit 1; }
pinned="$registry@$digest"
echo "release: pushed $registry:sha-$short → $pinned"

# The compose file as a user runs it: the app from the registry by digest (still overridable), no build; the
# oidc profile's development provider (built from the source for local work; its block is the last service)
# and the app's settings for it are left out.
sed -e "s#image: \${APP_IMAGE:-koa-api-service:local}#image: \${APP_IMAGE:-$pinned}#" -e '/^  build:$/,/^    context: \.$/d' \
  -e '/^  # ---- OpenID Connect for local work/,/^volumes:$/{/^volumes:$/!d;}' -e '/^  OIDC_DEV_/d' docker-compose.yml >"$out/docker-compose.yml"
if ! grep -qF "$pinned" "$out/docker-compose.yml" || grep -q 'build:' "$out/docker-compose.yml"; then
  echo "release: could not pin the app image in the compose file" >&2
  exit 1
fi
if grep -q '^  oidc-dev:\|^  OIDC_DEV_' "$out/docker-compose.yml"; then
  echo "release: could not leave the oidc profile's development provider out of the compose file" >&2
  exit 1
fi
cp docker/release/env.example "$out/.env.example"
mkdir -p "$out/docker"
cp -r docker/mysql docker/mssql "$out/docker/"

# The release files are written and checked: now the version, and last the channel, point at the digest.
push "$registry:$version"
docker tag "$registry:$version" "$channel_tag"
push "$channel_tag"
echo "release: pushed $registry:$version, then $channel_tag → $pinned"

size=$(docker image inspect -f '{{.Size}}' "$registry:$version")
cat >"$out/release.json" <<JSON
{
  "version": "$version",
  "channel": "$CHANNEL",
  "revision": "$revision",
  "created": "$created",
  "image": "$pinned",
  "tags": ["$registry:$version", "$registry:sha-$short", "$channel_tag"],
  "sbom": { "file": "sbom.cdx.json", "digest": "$sbom_digest" },
  "imageSizeBytes": $size
}
JSON
echo "release: image $(awk -v s="$size" 'BEGIN { printf "%.0f MiB", s / 1048576 }'), layers (newest first):"
docker history --format '  {{.Size}}\t{{.CreatedBy}}' "$registry:$version" | cut -c1-150
echo "release: wrote $out/ ($(cd "$out" && find . -type f | sort | tr '\n' ' '))"
