#!/usr/bin/env bash
# CI (from scripts/ci/docker.sh): the Compose `mail` profile for real. The postgres and mail profiles up
# (MailDev: MAILDEV_IMAGE, this machine's stand-in local/maildev:2), a user created, a password-reset link
# asked for, and the mail read back from MailDev's REST API (/api/email): sent to that user, with the link.
# Everything is removed afterwards. APP_IMAGE must exist already.
set -euo pipefail
cd "$(dirname "$0")/../.."
project=koa-mail-$$
free_port() { node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'; }
export APP_PORT MAIL_UI_PORT
APP_PORT=$(free_port)
MAIL_UI_PORT=$(free_port)
export SMTP_URL=smtp://maildev:1025 PUBLIC_URL=http://localhost:3000 USER_STORE=database
if [ -z "${COMPOSE:-}" ]; then
  if docker compose version >/dev/null 2>&1; then COMPOSE="docker compose"; else COMPOSE=docker-compose; fi
fi
read -r -a compose_cli <<<"$COMPOSE"
compose=("${compose_cli[@]}" -p "$project" --profile postgres --profile mail)
# shellcheck disable=SC2317 # called by the EXIT trap
down() {
  local status=$?
  [ "$status" = 0 ] || "${compose[@]}" logs --no-color --tail 30 >&2 || true
  "${compose[@]}" down -v --remove-orphans >/dev/null 2>&1 || true
  exit "$status"
}
trap down EXIT

"${compose[@]}" up -d --no-build
for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$APP_PORT/health/ready" >/dev/null && break; sleep 1; done
printf '%s' 'mail profile check harbour lantern 7' | "${compose[@]}" exec -T app-postgres node dist/cli/user-create.js --email mail-check@example.com >/dev/null
status=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' -d '{"email":"mail-check@example.com"}' "http://127.0.0.1:$APP_PORT/api/auth/forgot-password")
[ "$status" = 202 ] || { echo "mail-profile: forgot-password answered $status" >&2; exit 1; }
for _ in $(seq 1 40); do
  mails=$(curl -sf "http://127.0.0.1:$MAIL_UI_PORT/api/email" || echo '[]')
  if node -e 'const m = JSON.parse(process.argv[1]); process.exit(m.some((x) => x.to?.[0]?.address === "mail-check@example.com" && /reset-password\?token=/.test(x.text)) ? 0 : 1)' "$mails"; then
    echo "mail-profile: MailDev received the reset mail for the user, link included (UI at 127.0.0.1:$MAIL_UI_PORT)"
    exit 0
  fi
  sleep 0.5
done
echo "mail-profile: no reset mail reached MailDev" >&2
exit 1
