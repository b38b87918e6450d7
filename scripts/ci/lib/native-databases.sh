#!/usr/bin/env bash
# Functions to run throw-away PostgreSQL and MariaDB servers from Debian's packages, each in its own data
# directory under a temp dir, listening on 127.0.0.1 only, on a free port, as an unprivileged user.
# Sourced by scripts/ci/databases.sh (and handy by hand: `source ...; native_db_start; env | grep TEST_`).
# After native_db_start: TEST_POSTGRES_URL and TEST_MYSQL_URL are exported. native_db_stop stops both and
# removes their files; it is safe to call twice. NATIVE_MARIADB_BUFFER_POOL sizes MariaDB's buffer pool (64M: the
# test suites' tables are small; the scale bench asks for more), NATIVE_POSTGRES_SHARED_BUFFERS PostgreSQL's
# shared buffers (its default, 128MB, unless the scale bench asks for more).

NATIVE_DB_DIR=${NATIVE_DB_DIR:-}

native_db_install() {
  local missing=()
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
  command -v mariadbd >/dev/null 2>&1 || command -v mysqld >/dev/null 2>&1 || missing+=(mariadb-server)
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "databases: installing ${missing[*]} from Debian"
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # Debian's packages start a system-wide server; the tests use their own, so stop those again.
  if command -v service >/dev/null 2>&1; then
    service postgresql stop >/dev/null 2>&1 || true
    service mariadb stop >/dev/null 2>&1 || true
  fi
}

# A TCP port nobody listens on right now (the kernel picks it).
native_db_free_port() {
  node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}

# Runs a command as the given system user when we are root (servers refuse to run as root), else as ourselves.
native_db_as() {
  local user=$1; shift
  if [ "$(id -u)" = 0 ]; then setpriv --reuid="$user" --regid="$user" --init-groups -- "$@"; else "$@"; fi
}

native_db_secret() { head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n'; }

native_db_start_postgres() {
  local bin port dir=$NATIVE_DB_DIR/postgres password
  bin=$(dirname "$(compgen -G '/usr/lib/postgresql/*/bin/initdb' | sort -V | tail -n 1)")
  port=$(native_db_free_port)
  password=$(native_db_secret)
  mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
  printf '%s\n' "$password" >"$dir/pwfile"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir/pwfile"
  native_db_as postgres "$bin/initdb" -D "$dir/data" -U postgres --pwfile="$dir/pwfile" \
    --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; return 1; }
  native_db_as postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c shared_buffers=${NATIVE_POSTGRES_SHARED_BUFFERS:-128MB}" start >/dev/null \
    || { cat "$dir/server.log" >&2; return 1; }
  native_db_as postgres "$bin/psql" -h "$dir" -p "$port" -U postgres -v ON_ERROR_STOP=1 -q \
    -c "CREATE ROLE app LOGIN PASSWORD '$password'" -c "CREATE DATABASE app OWNER app" >/dev/null
  export TEST_POSTGRES_URL="postgres://app:$password@127.0.0.1:$port/app"
  NATIVE_PG_STOP="$bin/pg_ctl -D $dir/data -m fast -w stop"
  echo "databases: PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port"
}

native_db_start_mariadb() {
  local server install port dir=$NATIVE_DB_DIR/mariadb password
  server=$(command -v mariadbd || command -v mysqld)
  install=$(command -v mariadb-install-db || command -v mysql_install_db)
  port=$(native_db_free_port)
  password=$(native_db_secret)
  mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown mysql:mysql "$dir"
  native_db_as mysql "$install" --no-defaults --datadir="$dir/data" --auth-root-authentication-method=normal \
    --skip-test-db >"$dir/install.log" 2>&1 || { cat "$dir/install.log" >&2; return 1; }
  # utf8mb4 as the server charset; millisecond DATETIME(3) columns come from the migrations.
  native_db_as mysql "$server" --no-defaults --datadir="$dir/data" --socket="$dir/mysqld.sock" \
    --pid-file="$dir/mysqld.pid" --log-error="$dir/server.log" --bind-address=127.0.0.1 --port="$port" \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci --skip-name-resolve \
    --innodb-flush-log-at-trx-commit=0 --innodb-buffer-pool-size="${NATIVE_MARIADB_BUFFER_POOL:-64M}" >/dev/null 2>&1 &
  local ready=0
  for _ in $(seq 1 60); do
    if mariadb-admin --no-defaults --socket="$dir/mysqld.sock" -uroot ping >/dev/null 2>&1; then ready=1; break; fi
    sleep 1
  done
  [ $ready = 1 ] || { cat "$dir/server.log" >&2; return 1; }
  mariadb --no-defaults --socket="$dir/mysqld.sock" -uroot -e "
    CREATE DATABASE app CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
    CREATE USER 'app'@'127.0.0.1' IDENTIFIED BY '$password';
    GRANT ALL ON app.* TO 'app'@'127.0.0.1';"
  export TEST_MYSQL_URL="mysql://app:$password@127.0.0.1:$port/app"
  NATIVE_MARIADB_STOP="mariadb-admin --no-defaults --socket=$dir/mysqld.sock -uroot shutdown"
  echo "databases: MariaDB $("$server" --version | awk '{print $3}') on 127.0.0.1:$port"
}

native_db_start() {
  NATIVE_DB_DIR=$(mktemp -d /tmp/native-databases.XXXXXX)
  chmod 755 "$NATIVE_DB_DIR"
  native_db_install
  native_db_start_postgres
  native_db_start_mariadb
}

native_db_stop() {
  if [ -n "${NATIVE_PG_STOP:-}" ]; then
    # shellcheck disable=SC2086 # the stored command is split into words on purpose
    native_db_as postgres $NATIVE_PG_STOP >/dev/null 2>&1 || true
    NATIVE_PG_STOP=
  fi
  if [ -n "${NATIVE_MARIADB_STOP:-}" ]; then
    # shellcheck disable=SC2086
    $NATIVE_MARIADB_STOP >/dev/null 2>&1 || true
    NATIVE_MARIADB_STOP=
  fi
  if [ -n "$NATIVE_DB_DIR" ] && [ -d "$NATIVE_DB_DIR" ]; then rm -rf "$NATIVE_DB_DIR"; fi
  NATIVE_DB_DIR=
  unset TEST_POSTGRES_URL TEST_MYSQL_URL
}
