#!/usr/bin/env bash
# make bench-scale: lists at scale (docs/performance.md, "Lists at scale"). Starts throw-away PostgreSQL and
# MariaDB servers on 127.0.0.1 (scripts/ci/lib/native-databases.sh) for the engines named in
# BENCH_SCALE_ENGINES that have no TEST_POSTGRES_URL / TEST_MYSQL_URL already (a URL given is used as is,
# and must point at an empty database), runs bench/scale/run.ts, and stops and removes the servers it
# started whatever happens.
set -euo pipefail
cd "$(dirname "$0")/../.."

engines=",${BENCH_SCALE_ENGINES:-sqlite,postgres,mysql},"
given_postgres=${TEST_POSTGRES_URL:-}
given_mysql=${TEST_MYSQL_URL:-}
start_postgres=0
start_mariadb=0
if [[ $engines == *,postgres,* && -z $given_postgres ]]; then start_postgres=1; fi
if [[ $engines == *,mysql,* && -z $given_mysql ]]; then start_mariadb=1; fi

if [ "$start_postgres" = 1 ] || [ "$start_mariadb" = 1 ]; then
  # shellcheck source=scripts/ci/lib/native-databases.sh
  source scripts/ci/lib/native-databases.sh
  trap native_db_stop EXIT
  trap 'exit 130' INT TERM # through the EXIT trap: the servers stop on Ctrl-C too
  # native_db_start, for only the servers this run needs.
  NATIVE_DB_DIR=$(mktemp -d /tmp/native-databases.XXXXXX)
  chmod 755 "$NATIVE_DB_DIR"
  native_db_install
  if [ "$start_postgres" = 1 ]; then
    # As for MariaDB below: a production-like cache, so a page's rows are read from memory, not the OS's file cache.
    export NATIVE_POSTGRES_SHARED_BUFFERS=${BENCH_SCALE_POSTGRES_SHARED_BUFFERS:-1GB}
    native_db_start_postgres
    echo "databases: PostgreSQL shared_buffers=$NATIVE_POSTGRES_SHARED_BUFFERS"
  fi
  if [ "$start_mariadb" = 1 ]; then
    # A production-like buffer pool: the seeded tables (a million rows each) fit, as on a sized server.
    export NATIVE_MARIADB_BUFFER_POOL=${BENCH_SCALE_MARIADB_BUFFER_POOL:-1G}
    native_db_start_mariadb
    echo "databases: MariaDB innodb_buffer_pool_size=$NATIVE_MARIADB_BUFFER_POOL"
  fi
fi

npx tsx bench/scale/run.ts
