#!/usr/bin/env bash
# Serves the Docker Engine API from Podman on a socket of the project's own, for tests and CI on
# machines without Docker (docs: ../shared/notes/podman.md, docker/README.md).
#   scripts/podman-service.sh start    start the service (if not already answering); prints the socket
#   scripts/podman-service.sh stop     stop the service this script started (and nothing else)
#   scripts/podman-service.sh socket   print the socket path
# XRT_PODMAN_DIR overrides where the socket, pid file and log live (default: $XDG_RUNTIME_DIR or /tmp).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
state="${XRT_PODMAN_DIR:-${XDG_RUNTIME_DIR:-/tmp}/xrepotest-podman-$(id -u)}"
sock="$state/podman.sock"
pidfile="$state/service.pid"
log="$state/service.log"
export CONTAINERS_CONF="$root/docker/podman/containers.conf"

answers() {
  # The Engine API's ping; curl is not everywhere, podman-remote needs the same socket anyway.
  [ -S "$sock" ] && podman --url "unix://$sock" info --format '{{.Host.OCIRuntime.Name}}' >/dev/null 2>&1
}

ours_running() {
  [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null
}

case "${1:-}" in
  start)
    command -v podman >/dev/null || { echo "podman-service: podman is not installed (apt-get install podman runc)" >&2; exit 1; }
    mkdir -p "$state"
    if answers; then echo "$sock"; exit 0; fi
    rm -f "$sock"
    # setsid: the service outlives this script and is not killed by the caller's Ctrl-C on its group.
    setsid podman system service --time=0 "unix://$sock" >"$log" 2>&1 < /dev/null &
    echo $! >"$pidfile"
    for _ in $(seq 1 100); do
      if answers; then echo "$sock"; exit 0; fi
      ours_running || break
      sleep 0.1
    done
    echo "podman-service: the service did not answer on $sock; its log ($log):" >&2
    tail -n 20 "$log" >&2 || true
    exit 1
    ;;
  stop)
    if ours_running; then
      pid="$(cat "$pidfile")"
      kill "$pid"
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
    fi
    rm -f "$pidfile" "$sock"
    ;;
  socket)
    echo "$sock"
    ;;
  *)
    echo "usage: $0 start|stop|socket" >&2
    exit 2
    ;;
esac
