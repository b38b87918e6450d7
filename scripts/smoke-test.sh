#!/usr/bin/env bash
# Smoke test of a running service, with curl only: GET /, health, login, refresh, logout, refresh after
# logout, 404. Uses 4 of the 10 auth requests the rate limit allows per 15 minutes.
#
#   scripts/smoke-test.sh [BASE_URL]     (default http://127.0.0.1:3000)
#   env: SMOKE_EMAIL / SMOKE_PASSWORD (default: the demo user), SMOKE_WAIT (seconds to wait for readiness, 60)
#
# The refresh cookie is `Secure` in production, and curl's cookie jar never sends a Secure cookie over plain
# http. So the script reads `refreshToken` from Set-Cookie itself and sends it back in a Cookie header.
set -euo pipefail

base=${1:-http://127.0.0.1:3000}
base=${base%/}
email=${SMOKE_EMAIL:-demo@example.com}
password=${SMOKE_PASSWORD:-demo-password}
wait_seconds=${SMOKE_WAIT:-60}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
step=0

fail() {
  echo "smoke: FAIL at step $step: $*" >&2
  if [ -s "$work/body" ]; then echo "smoke: last response body: $(head -c 500 "$work/body")" >&2; fi
  exit 1
}

# request METHOD PATH [curl args...]: sets $status; body in $work/body, headers in $work/headers.
request() {
  local method=$1 path=$2
  shift 2
  step=$((step + 1))
  status=$(curl -sS --max-time 10 -X "$method" -o "$work/body" -D "$work/headers" -w '%{http_code}' "$@" "$base$path") ||
    fail "$method $path: no answer"
}

expect_status() {
  [ "$status" = "$1" ] || fail "expected HTTP $1, got $status"
}

expect_body() {
  grep -q -- "$1" "$work/body" || fail "body lacks $1"
}

# The value of a JSON string property (flat, no escaped quotes: tokens are base64url).
json_string() {
  sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p" "$work/body"
}

# The value of a cookie from the Set-Cookie headers of the last response.
set_cookie_value() {
  tr -d '\r' <"$work/headers" | sed -n "s/^[Ss]et-[Cc]ookie: $1=\\([^;]*\\).*/\\1/p" | tail -n 1
}

echo "smoke: waiting up to ${wait_seconds}s for $base/health/ready"
deadline=$((SECONDS + wait_seconds))
until curl -fsS --max-time 2 -o /dev/null "$base/health/ready" 2>/dev/null; do
  [ "$SECONDS" -lt "$deadline" ] || fail "service not ready after ${wait_seconds}s"
  sleep 1
done

request GET /
expect_status 200
expect_body '"status":"success"'
expect_body '"message":"'
echo "smoke: GET / -> 200 success"

request GET /health/live
expect_status 200

request POST /api/auth/login -H 'Content-Type: application/json' \
  --data "{\"email\":\"$email\",\"password\":\"$password\"}"
expect_status 200
expect_body '"status":"success"'
access=$(json_string accessToken)
[ -n "$access" ] || fail "login: no data.accessToken"
refresh_cookie=$(set_cookie_value refreshToken)
[ -n "$refresh_cookie" ] || fail "login: no refreshToken cookie"
grep -qi '^set-cookie: refreshToken=.*httponly' "$work/headers" || fail "login: refresh cookie is not HttpOnly"
if grep -qF -- "$refresh_cookie" "$work/body"; then fail "login: the refresh token is in the body"; fi
secure=no
if grep -qi '^set-cookie: refreshToken=.*; *secure' "$work/headers"; then secure=yes; fi
echo "smoke: login -> 200, access token and HttpOnly refresh cookie (Secure: $secure)"

request POST /api/auth/refresh -H "Cookie: refreshToken=$refresh_cookie"
expect_status 200
refreshed=$(json_string accessToken)
[ -n "$refreshed" ] || fail "refresh: no accessToken"
echo "smoke: refresh -> 200, new access token"

request POST /api/auth/logout -H "Authorization: Bearer $refreshed" -H "Cookie: refreshToken=$refresh_cookie"
expect_status 204
[ ! -s "$work/body" ] || fail "logout: 204 with a body"
echo "smoke: logout -> 204"

request POST /api/auth/refresh -H "Cookie: refreshToken=$refresh_cookie"
expect_status 401
expect_body '"status":"fail"'
echo "smoke: refresh after logout -> 401 (stored token deleted)"

request GET /no/such/route
expect_status 404
expect_body '"status":"fail"'

echo "smoke: all $step checks passed against $base"
