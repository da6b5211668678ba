#!/usr/bin/env bash
# Installs what the project needs from outside npm on a fresh machine of our kind (Debian, root), and starts Redis:
#   chromium  Chromium for the end-to-end tests
#   redis     a Redis server on 127.0.0.1:6379 (the Redis adapter tests; make cluster runs its own redis-server)
#   kafka     Java 17 and Maven, which run the real Kafka broker from the official jars (scripts/kafka/broker.ts)
# With no arguments: all three. Idempotent: does nothing when everything is present.
set -euo pipefail
cd "$(dirname "$0")/.."
want=("$@")
[ ${#want[@]} -gt 0 ] || want=(chromium redis kafka)
has() { local w; for w in "${want[@]}"; do [ "$w" = "$1" ] && return 0; done; return 1; }

need_apt=()
if has chromium; then [ -x /usr/bin/chromium ] || need_apt+=(chromium fonts-liberation); fi
if has redis; then command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server); fi
if has kafka; then
  command -v java >/dev/null 2>&1 || need_apt+=(openjdk-17-jre-headless)
  command -v mvn >/dev/null 2>&1 || need_apt+=(maven)
fi

if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "ensure-system: missing ${need_apt[*]} and not root; install them with apt-get" >&2
    exit 1
  fi
  echo "ensure-system: installing ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# Redis: tests talk to a real server at REDIS_URL or 127.0.0.1:6379.
if has redis && ! (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null; then
  echo "ensure-system: starting redis-server on 127.0.0.1:6379"
  redis-server --port 6379 --bind 127.0.0.1 --save '' --appendonly no --daemonize yes >/dev/null
  for _ in $(seq 1 50); do
    (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null && break
    sleep 0.1
  done
fi

# Kafka: resolve the broker's jars once through Maven (cached in ~/.m2 and .cache/kafka), so the first test
# that needs a broker does not pay for it.
if has kafka && [ -x node_modules/.bin/tsx ]; then
  node_modules/.bin/tsx -e "import('./scripts/kafka/broker.ts').then((m) => m.ensureKafkaJars())" \
    || { echo "ensure-system: could not fetch the Kafka jars with Maven" >&2; exit 1; }
fi
