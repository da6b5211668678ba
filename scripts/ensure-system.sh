#!/usr/bin/env bash
# Installs what `make test` needs from outside npm on a fresh machine of our kind (Debian, root):
# Chromium for the end-to-end tests and a Redis server for the Redis adapter tests.
# Idempotent: does nothing when everything is present.
set -euo pipefail

need_apt=()
[ -x /usr/bin/chromium ] || need_apt+=(chromium fonts-liberation)
command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server)

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
if ! (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null; then
  echo "ensure-system: starting redis-server on 127.0.0.1:6379"
  redis-server --port 6379 --bind 127.0.0.1 --save '' --appendonly no --daemonize yes >/dev/null
  for _ in $(seq 1 50); do
    (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null && break
    sleep 0.1
  done
fi
