#!/usr/bin/env bash
# CI (called from .ci/run): the prebuilt image, for real, on a clean Docker state.
#   1. a real registry on loopback (Debian's docker-registry, distribution 2.8: no image to pull);
#   2. `make release` to it; the OCI labels and the SBOM checked; the same version released again is refused
#      by the registry's answer (the local release folder set aside), and no tag moves;
#   3. every local copy of the image removed; in an empty folder holding only the release files, the app is
#      pulled by digest and the postgres profile started; the smoke test passes (a user created in it);
#   4. a second release rolled over the first in that folder: the app container is replaced, the database
#      container and its data are kept (the same user logs in).
# Everything it starts is removed afterwards: containers, volumes, images, the registry and its storage.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
shared=../shared/offline-images

"$shared/docker-up.sh"
"$shared/build.sh" node postgres >/dev/null
for tool in docker-registry docker-compose; do
  command -v "$tool" >/dev/null || { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$tool" >/dev/null; }
done

free_port() { node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'; }
work=$(mktemp -d /tmp/release-check.XXXXXX)
site=$work/site # what a user has: the release files, nothing else
project=koa-release-$$
registry_port=$(free_port)
registry=127.0.0.1:$registry_port/koa-api-service
first=1.0.0
second=1.0.1
registry_pid=
compose() { (cd "$site" && docker-compose -p "$project" --profile postgres "$@"); }
# Every local copy of the released images, tagged or pulled by digest only.
remove_local_images() { docker image ls -q --filter "reference=$registry" | sort -u | xargs -r docker image rm -f; }
cleanup() {
  local status=$?
  if [ "$status" != 0 ] && [ -f "$site/docker-compose.yml" ]; then compose logs --no-color --tail 40 >&2 || true; fi
  [ ! -f "$site/docker-compose.yml" ] || compose down -v --remove-orphans >/dev/null 2>&1 || true
  [ -z "$registry_pid" ] || kill "$registry_pid" 2>/dev/null || true
  remove_local_images >/dev/null 2>&1 || true
  rm -rf "$work" "$repo/release/$first" "$repo/release/$second"
  exit "$status"
}
trap cleanup EXIT
rm -rf "release/$first" "release/$second"

echo "== a registry on 127.0.0.1:$registry_port"
cat >"$work/registry.yml" <<YAML
version: 0.1
log: { level: warn }
storage:
  filesystem: { rootdirectory: $work/registry-data }
http:
  addr: 127.0.0.1:$registry_port
YAML
docker-registry serve "$work/registry.yml" >"$work/registry.log" 2>&1 &
registry_pid=$!
for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$registry_port/v2/" >/dev/null && break; sleep 0.2; done

build_flags="--network host --build-arg NODE_HEADERS=npm"
release() { make --no-print-directory release REGISTRY="$registry" VERSION="$1" DOCKER_BUILD_FLAGS="$build_flags"; }

echo "== make release VERSION=$first"
release "$first"
digest=$(node -p "require('./release/$first/release.json').image")
label() { docker image inspect -f "{{index .Config.Labels \"$1\"}}" "$registry:$first"; }
[ "$(label org.opencontainers.image.version)" = "$first" ] || { echo "label version is '$(label org.opencontainers.image.version)'" >&2; exit 1; }
[ "$(label org.opencontainers.image.revision)" = "$(git rev-parse HEAD)" ] || { echo "label revision is wrong" >&2; exit 1; }
[[ "$(label org.opencontainers.image.created)" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T ]] || { echo "label created is not a date" >&2; exit 1; }
[[ "$(label org.opencontainers.image.source)" == https://* ]] || { echo "label source is not a URL" >&2; exit 1; }
[ "$(label org.opencontainers.image.licenses)" = MIT ] || { echo "label licenses is wrong" >&2; exit 1; }
[ "$(label dev.koa-api-service.sbom.digest)" = "$(node -p "require('./release/$first/release.json').sbom.digest")" ] || { echo "the image does not name its SBOM" >&2; exit 1; }
echo "release: OCI labels source, version, revision, created, licenses and the SBOM digest are set"
# shellcheck disable=SC2016 # JavaScript, not shell: the ${…} are template literals
node -e '
  const sbom = require(`./release/${process.argv[1]}/sbom.cdx.json`);
  const pkg = require("./package.json");
  const names = new Set(sbom.components.map((c) => c.name));
  const missing = Object.keys(pkg.dependencies).filter((name) => !names.has(name));
  // A dev dependency may also sit in the production install, pulled in by a production package (the lock says
  // which: "dev": true only for what production never needs); those that do not must not be listed.
  const lock = require("./package-lock.json");
  const dev = Object.keys(pkg.devDependencies).filter((name) => names.has(name) && lock.packages[`node_modules/${name}`]?.dev === true);
  if (sbom.bomFormat !== "CycloneDX" || missing.length || dev.length) { console.error("SBOM: missing", missing, "dev dependencies listed", dev); process.exit(1); }
  console.log(`release: the SBOM (CycloneDX ${sbom.specVersion}) lists all ${Object.keys(pkg.dependencies).length} production dependencies among ${sbom.components.length} components, no dev-only one`);
' "$first"

echo "== make release VERSION=$first again: refused by the registry, no tag moved"
# Every tag of the repository and the digest it points at, as the registry says (its HTTP API).
tag_digests() {
  local base=http://127.0.0.1:$registry_port/v2/koa-api-service tag
  local accept='application/vnd.oci.image.index.v1+json, application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.list.v2+json, application/vnd.docker.distribution.manifest.v2+json'
  for tag in $(curl -sf "$base/tags/list" | node -e 'process.stdin.on("data", (d) => console.log(JSON.parse(d).tags.sort().join(" ")))'); do
    printf '%s %s\n' "$tag" "$(curl -sfI -H "Accept: $accept" "$base/manifests/$tag" | tr -d '\r' | awk -F': ' 'tolower($1) == "docker-content-digest" { print $2 }')"
  done
}
before=$(tag_digests)
grep -q "^$first sha256:" <<<"$before" || { echo "the registry does not list $first: $before" >&2; exit 1; }
mv "release/$first" "$work/first-release" # only the registry can know now
if again=$(release "$first" 2>&1); then echo "a second release of $first was not refused: $again" >&2; exit 1; fi
grep -q "is in the registry already" <<<"$again" || { echo "the second release of $first failed for another reason: $again" >&2; exit 1; }
[ "$(tag_digests)" = "$before" ] || { echo "a refused release moved tags: before $before, after $(tag_digests)" >&2; exit 1; }
[ ! -e "release/$first" ] || { echo "a refused release wrote release/$first" >&2; exit 1; }
mv "$work/first-release" "release/$first"
echo "release: $first again refused by the registry; tags unchanged ($(tr '\n' ' ' <<<"$before"))"

echo "== no local copy of the image; an empty folder with the release files only"
remove_local_images >/dev/null
! docker image inspect "$digest" >/dev/null 2>&1 || { echo "the image is still present locally" >&2; exit 1; }
mkdir -p "$site"
cp -r "release/$first/." "$site/"
secret() { head -c 48 /dev/urandom | base64 | tr -d '\n/+='; }
app_port=$(free_port)
sed -e "s#^JWT_SECRET=.*#JWT_SECRET=$(secret)#" -e "s#^REFRESH_TOKEN_SECRET=.*#REFRESH_TOKEN_SECRET=$(secret)#" \
  -e "s#^POSTGRES_PASSWORD=.*#POSTGRES_PASSWORD=$(secret)#" -e "s#^APP_PORT=.*#APP_PORT=$app_port#" "$site/.env.example" >"$site/.env"
export POSTGRES_IMAGE=local/postgres:15 # this machine's stand-in for postgres:15 (no Docker Hub here)
compose pull --quiet app-postgres
compose up -d
for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$app_port/health/ready" >/dev/null && break; sleep 1; done
[ "$(docker inspect -f '{{.Config.Image}}' "$(compose ps -q app-postgres)")" = "$digest" ] || { echo "the app does not run the pinned digest" >&2; exit 1; }
password="release check harbour $(secret)"
printf '%s' "$password" | compose exec -T app-postgres node dist/cli/user-create.js --email release@example.com --role admin >/dev/null
SMOKE_EMAIL=release@example.com SMOKE_PASSWORD="$password" scripts/smoke-test.sh "http://127.0.0.1:$app_port"
database_container=$(compose ps -q postgres)

echo "== make release VERSION=$second, rolled over the first with the database kept"
release "$second"
next=$(node -p "require('./release/$second/release.json').image")
remove_local_images >/dev/null 2>&1 || true # all but the image the running app uses
! docker image inspect "$next" >/dev/null 2>&1 || { echo "$next is still present locally" >&2; exit 1; }
cp "release/$second/docker-compose.yml" "$site/docker-compose.yml"
compose pull --quiet app-postgres
compose up -d
for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$app_port/health/ready" >/dev/null && break; sleep 1; done
[ "$(docker inspect -f '{{.Config.Image}}' "$(compose ps -q app-postgres)")" = "$next" ] || { echo "the app was not upgraded to $next" >&2; exit 1; }
[ "$(compose ps -q postgres)" = "$database_container" ] || { echo "the database container was replaced" >&2; exit 1; }
SMOKE_EMAIL=release@example.com SMOKE_PASSWORD="$password" scripts/smoke-test.sh "http://127.0.0.1:$app_port"
echo "release: $first ($digest) then $second ($next) pulled from the registry into a folder with no source; the user created under $first signs in under $second"
