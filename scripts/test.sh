#!/usr/bin/env bash
# scripts/test.sh — the one test command of Sparrow: bash scripts/test.sh [go test flags]
#
#  1. Makes sure the test services answer on loopback, installing (apt-get)
#     and starting any that does not:
#       MariaDB             127.0.0.1:3306, user root without password over TCP
#       Redis               127.0.0.1:6379
#       NATS with JetStream 127.0.0.1:4222
#     A service whose SPARROW_TEST_* variable is set to a non-default URL is
#     left alone: it is someone else's.
#  2. Exports SPARROW_TEST_MYSQL, SPARROW_TEST_REDIS and SPARROW_TEST_NATS
#     (defaults below) unless already set.
#  3. Runs go vet ./..., staticcheck and the shadow check (each installed
#     with go install at a pinned version), then
#     go test -count=1 -timeout 14m [flags] ./...
#     Extra arguments are go test flags, e.g. -run TestKV -v.
#  4. Runs each go test -fuzz target for SPARROW_FUZZTIME (default 10s; 0
#     skips them, as do extra arguments): the parameter parser, ids and
#     cursors, status text and its HTML.
#  5. Fails if the run left anything on the shared services (Redis keys
#     under a test prefix, test databases, test streams): see
#     internal/testenv/leftovers, whose -delete flag removes them.
#
# Idempotent; when the services already run it only probes their ports.
# Root is needed only to install or start a service (sudo is used if not root).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

readonly DEFAULT_MYSQL="mysql://root@127.0.0.1:3306/"
readonly DEFAULT_REDIS="redis://127.0.0.1:6379/0"
readonly DEFAULT_NATS="nats://127.0.0.1:4222"
readonly WAIT_SECONDS=60
readonly MARIADB_SOCKET=/run/mysqld/mysqld.sock

log() { printf '==> %s\n' "$*" >&2; }
# redact hides the password of a URL (scheme://user:password@host).
redact() { sed -E 's#(//[^:/@]*):[^/@]*@#\1:***@#' <<<"$1"; }
die() { printf 'test.sh: error: %s\n' "$*" >&2; exit 1; }

# as_root runs a command as root: directly if we are root, else through sudo.
as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		die "need root (and there is no sudo) to run: $*"
	fi
}

# probe HOST PORT succeeds if a TCP connection opens, using bash's /dev/tcp.
probe() {
	local cmd="exec 3<>/dev/tcp/$1/$2"
	if command -v timeout >/dev/null 2>&1; then
		timeout 3 bash -c "$cmd" 2>/dev/null
	else
		bash -c "$cmd" 2>/dev/null
	fi
}

# wait_port NAME HOST PORT HINT waits (bounded) until the port answers.
wait_port() {
	local name=$1 host=$2 port=$3 hint=$4 i
	log "$name: waiting for $host:$port (up to ${WAIT_SECONDS}s)"
	for ((i = 0; i < WAIT_SECONDS * 2; i++)); do
		if probe "$host" "$port"; then
			log "$name: up at $host:$port"
			return 0
		fi
		sleep 0.5
	done
	die "$name did not answer on $host:$port within ${WAIT_SECONDS}s; $hint"
}

APT_UPDATED=0
# apt_install PKG installs a Debian package, running apt-get update once.
apt_install() {
	command -v apt-get >/dev/null 2>&1 || die "$1 is missing and there is no apt-get: install it by hand"
	if [ "$APT_UPDATED" -eq 0 ]; then
		log "apt-get update"
		as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
		APT_UPDATED=1
	fi
	log "apt-get install $1"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$1"
}

# managed NAME VAR DEFAULT succeeds if this script should look after the
# service: its variable is unset or holds the default loopback URL.
managed() {
	local name=$1 value=${!2:-} default=$3
	if [ -n "$value" ] && [ "$value" != "$default" ]; then
		log "$name: $2=$(redact "$value") is set; not managing a local server"
		return 1
	fi
}

ensure_mariadb() {
	managed MariaDB SPARROW_TEST_MYSQL "$DEFAULT_MYSQL" || return 0
	if probe 127.0.0.1 3306; then
		log "MariaDB: up at 127.0.0.1:3306"
	else
		if [ ! -x /usr/sbin/mariadbd ]; then
			apt_install mariadb-server
		fi
		[ -x /usr/sbin/mariadbd ] || die "mariadb-server is installed but /usr/sbin/mariadbd is missing"
		if [ ! -d /var/lib/mysql/mysql ]; then
			log "MariaDB: initialising /var/lib/mysql"
			as_root mariadb-install-db --user=mysql --datadir=/var/lib/mysql --skip-test-db >/dev/null
		fi
		as_root install -d -o mysql -g mysql /run/mysqld
		log "MariaDB: starting /usr/sbin/mariadbd"
		as_root start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd -- --user=mysql
		wait_port MariaDB 127.0.0.1 3306 "see the MariaDB error log (/var/log/mysql/error.log or syslog)"
	fi
	ensure_mariadb_root
}

# ensure_mariadb_root makes sure root logs in over TCP without a password,
# granting it through the Unix socket (where the OS root is MariaDB's root)
# if needed. It needs the mariadb client, which mariadb-server brings.
ensure_mariadb_root() {
	if ! command -v mariadb >/dev/null 2>&1; then
		log "MariaDB: no mariadb client; not checking the root login"
		return 0
	fi
	local tcp=(mariadb --protocol=tcp -h 127.0.0.1 -P 3306 -u root --connect-timeout=5)
	if "${tcp[@]}" -e 'SELECT 1' >/dev/null 2>&1; then
		log "MariaDB: root logs in over TCP without a password"
		return 0
	fi
	log "MariaDB: enabling password-less root over TCP (via the Unix socket)"
	local i
	for ((i = 0; i < WAIT_SECONDS * 2; i++)); do
		[ -S "$MARIADB_SOCKET" ] && break
		sleep 0.5
	done
	[ -S "$MARIADB_SOCKET" ] || die "MariaDB socket $MARIADB_SOCKET did not appear"
	as_root mariadb --protocol=socket -S "$MARIADB_SOCKET" -u root -e "
		ALTER USER 'root'@'localhost' IDENTIFIED VIA unix_socket OR mysql_native_password USING PASSWORD('');
		CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED VIA mysql_native_password USING PASSWORD('');
		GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;
		FLUSH PRIVILEGES;"
	"${tcp[@]}" -e 'SELECT 1' >/dev/null || die "MariaDB root still cannot log in over TCP without a password"
	log "MariaDB: root logs in over TCP without a password"
}

ensure_redis() {
	managed Redis SPARROW_TEST_REDIS "$DEFAULT_REDIS" || return 0
	if probe 127.0.0.1 6379; then
		log "Redis: up at 127.0.0.1:6379"
		return 0
	fi
	if ! command -v redis-server >/dev/null 2>&1; then
		apt_install redis-server
	fi
	log "Redis: starting redis-server"
	as_root redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no
	wait_port Redis 127.0.0.1 6379 "run redis-server by hand to see why"
}

# nats_jetstream succeeds if the NATS server on 127.0.0.1:4222 announces
# JetStream in its INFO line.
nats_jetstream() {
	local line
	line=$(bash -c 'exec 3<>/dev/tcp/127.0.0.1/4222 && IFS= read -r -t 3 l <&3 && printf "%s" "$l"' 2>/dev/null) || true
	[[ $line == *'"jetstream":true'* ]]
}

ensure_nats() {
	managed NATS SPARROW_TEST_NATS "$DEFAULT_NATS" || return 0
	if ! probe 127.0.0.1 4222; then
		if [ ! -x /usr/sbin/nats-server ]; then
			apt_install nats-server
		fi
		[ -x /usr/sbin/nats-server ] || die "nats-server is installed but /usr/sbin/nats-server is missing"
		as_root install -d /var/lib/nats-server
		log "NATS: starting /usr/sbin/nats-server with JetStream"
		as_root start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- \
			-a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server
		wait_port NATS 127.0.0.1 4222 "run /usr/sbin/nats-server -js by hand to see why"
	else
		log "NATS: up at 127.0.0.1:4222"
	fi
	nats_jetstream || die "the NATS server on 127.0.0.1:4222 runs without JetStream; restart it with -js"
	log "NATS: JetStream enabled"
}

command -v go >/dev/null 2>&1 || die "go is not on PATH"

ensure_mariadb
ensure_redis
ensure_nats

export SPARROW_TEST_MYSQL="${SPARROW_TEST_MYSQL:-$DEFAULT_MYSQL}"
export SPARROW_TEST_REDIS="${SPARROW_TEST_REDIS:-$DEFAULT_REDIS}"
export SPARROW_TEST_NATS="${SPARROW_TEST_NATS:-$DEFAULT_NATS}"
log "SPARROW_TEST_MYSQL=$(redact "$SPARROW_TEST_MYSQL")"
log "SPARROW_TEST_REDIS=$(redact "$SPARROW_TEST_REDIS")"
log "SPARROW_TEST_NATS=$(redact "$SPARROW_TEST_NATS")"
log "SPARROW_REQUIRE_SERVICES=${SPARROW_REQUIRE_SERVICES:-} (1: unreachable services fail tests instead of skipping them)"

log "go vet ./..."
go vet ./...

# Lint at a pinned version: staticcheck. go install builds it once; later
# runs find it in GOBIN.
readonly STATICCHECK_VERSION=v0.8.2
GOBIN_DIR="$(go env GOBIN)"
GOBIN_DIR="${GOBIN_DIR:-$(go env GOPATH)/bin}"
if ! "$GOBIN_DIR/staticcheck" -version 2>/dev/null | grep -q "(${STATICCHECK_VERSION#v})"; then
	log "go install honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION"
	go install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION"
fi
log "staticcheck ./..."
"$GOBIN_DIR/staticcheck" ./...

# The shadow check (golang.org/x/tools' shadow analyzer, pinned the same
# way): a variable declared in an inner scope that hides one used after it,
# the bug behind a sweep that reported success after a failure.
readonly XTOOLS_VERSION=v0.52.0
if ! go version -m "$GOBIN_DIR/shadow" 2>/dev/null | grep -q "golang.org/x/tools[[:space:]]*$XTOOLS_VERSION"; then
	log "go install golang.org/x/tools/go/analysis/passes/shadow/cmd/shadow@$XTOOLS_VERSION"
	go install "golang.org/x/tools/go/analysis/passes/shadow/cmd/shadow@$XTOOLS_VERSION"
fi
log "go vet -vettool=shadow ./..."
go vet -vettool="$GOBIN_DIR/shadow" ./...

log "go test -count=1 -timeout 14m $* ./..."
go test -count=1 -timeout 14m "$@" ./...

# The fuzz targets, each for a short budget (go test -fuzz takes one target
# at a time). A failure leaves its input under the package's testdata/fuzz.
FUZZTIME=${SPARROW_FUZZTIME:-10s}
if [ "$#" -eq 0 ] && [ "$FUZZTIME" != "0" ]; then
	for target in ".:FuzzParseID" ".:FuzzPage" "./http:FuzzParams" "./http:FuzzContent" "./service:FuzzStatusText"; do
		pkg=${target%%:*} name=${target#*:}
		log "go test -fuzz $name -fuzztime $FUZZTIME $pkg"
		go test -run '^$' -fuzz "^$name\$" -fuzztime "$FUZZTIME" "$pkg"
	done
fi

# The suite leaves nothing behind on the shared services: no Redis keys
# under a test prefix, no test databases, no test streams.
log "go run ./internal/testenv/leftovers"
go run ./internal/testenv/leftovers
