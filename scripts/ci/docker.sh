#!/usr/bin/env bash
# CI (called from .ci/run): the container delivery on this machine.
#   1. start the local Docker engine and build the stand-in images (both idempotent);
#   2. make test-image: build the image, check its contents, run it, smoke-test it, stop it gracefully;
#   3. validate every Compose profile with docker-compose (v1) and, when present, docker compose (v2);
#   4. run the postgres (+ redis) and mysql profiles for real on the stand-ins and smoke-test the app in each;
#      the mail profile: a password-reset mail read back from MailDev (scripts/ci/mail-profile.sh); the oidc
#      profile: a sign-in through its development provider (scripts/ci/oidc-profile.sh);
#   5. the three-replica stack (docker-compose.scale.yml, HAProxy): shared rate limit, then a rolling restart
#      under traffic that must lose nothing (`make test-scale`, on the image built in step 2).
# MongoDB and SQL Server have no stand-in here: their profiles are validated, and run for real in the
# GitHub workflow's docker job.
#
# Build flags only this machine needs (docs/deployment.md, "CI and `--network host`"): `--network host`, because the
# registries are reached only through the host's network, not from a build container on the default
# bridge; NODE_HEADERS=npm, because node-gyp (sqlite3 compiles here: its prebuilt binary is on GitHub)
# cannot download Node's headers from nodejs.org, so they come from the npm registry instead.
set -euo pipefail
cd "$(dirname "$0")/../.."
shared=../shared/offline-images

"$shared/docker-up.sh"
"$shared/build.sh" node postgres mysql redis haproxy maildev

if ! command -v docker-compose >/dev/null 2>&1; then
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose >/dev/null
fi

image=koa-api-service:ci-$$
cleanup() {
  docker image rm "$image" >/dev/null 2>&1 || true
}
trap cleanup EXIT

make test-image IMAGE="$image" DOCKER_BUILD_FLAGS="--network host --build-arg NODE_HEADERS=npm"
docker image ls "$image" --format 'image size: {{.Repository}}:{{.Tag}} {{.Size}}'

clients=(docker-compose)
if docker compose version >/dev/null 2>&1; then clients+=("docker compose"); fi
for client in "${clients[@]}"; do
  read -r -a compose <<<"$client"
  for profile in postgres mysql mongo mssql redis mail oidc; do
    "${compose[@]}" --profile "$profile" config -q
  done
  # The scale stack requires its secrets; any value does for validation.
  JWT_SECRET=x REFRESH_TOKEN_SECRET=y POSTGRES_PASSWORD=z "${compose[@]}" -f docker-compose.scale.yml config -q
  echo "docker.sh: all profiles and docker-compose.scale.yml valid for $client ($("${compose[@]}" version --short 2>/dev/null || true))"
done

export APP_IMAGE=$image
export POSTGRES_IMAGE=local/postgres:15 MYSQL_IMAGE=local/mysql:mariadb REDIS_IMAGE=local/redis:7
COMPOSE=docker-compose scripts/compose-smoke.sh postgres redis
COMPOSE=docker-compose scripts/compose-smoke.sh mysql
COMPOSE=docker-compose MAILDEV_IMAGE=local/maildev:2 scripts/ci/mail-profile.sh
COMPOSE=docker-compose DOCKER_BUILD_FLAGS="--network host" scripts/ci/oidc-profile.sh
scale_started=$(date +%s)
HAPROXY_IMAGE=local/haproxy:3 npx tsx scripts/reliability/scale.ts
echo "docker.sh: test-scale took $(($(date +%s) - scale_started)) s"
echo "docker.sh: passed"
