# Loopback ports for the integration tests (sourced, not run): free_port picks a port nothing
# listens on and reserves it across test processes until this script exits, so a test that
# binds, releases and re-binds the same port (a second wfo-replay on one feed endpoint) cannot
# lose it to another test that ctest -j runs beside it. release_ports (call it from the
# sourcing script's EXIT trap) drops this process's reservations.
# shellcheck shell=bash

# Reservations are directories under one shared folder: mkdir is atomic, so two processes
# never both win a port. Each holds its owner's pid; a reservation whose owner is gone (a test
# killed with -9) is taken over.
PORT_LOCKS="${TMPDIR:-/tmp}/wfod_it_ports.$(id -u)"
mkdir -p "$PORT_LOCKS" 2>/dev/null
# Drawn below the kernel's ephemeral range so an outgoing connection cannot hold the port.
EPHEMERAL_LOW=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
PORT_SPAN=$((EPHEMERAL_LOW - 20000))
((PORT_SPAN > 1000)) || PORT_SPAN=12000

# reserve_port P: 0 when this process now holds P (and nobody else did), 1 otherwise.
reserve_port() {
  local lock="$PORT_LOCKS/$1" owner
  if mkdir "$lock" 2>/dev/null; then
    echo "$$" >"$lock/owner"
    return 0
  fi
  owner=$(cat "$lock/owner" 2>/dev/null) || return 1  # being created right now
  [[ -n "$owner" ]] || return 1
  if [[ "$owner" != "$$" ]] && ! kill -0 "$owner" 2>/dev/null; then
    # A dead owner's lock: take it over only if it is still the same one.
    if mv "$lock" "$lock.stale.$$" 2>/dev/null; then
      rm -rf "$lock.stale.$$"
      reserve_port "$1"
      return
    fi
  fi
  return 1
}

# free_port: prints a loopback port nothing listens on, reserved for this process.
free_port() {
  local p
  for _ in $(seq 1 400); do
    p=$((20000 + RANDOM % PORT_SPAN))
    reserve_port "$p" || continue
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return 0
    fi
    rm -rf "${PORT_LOCKS:?}/$p"  # something listens there: not ours to hold
  done
  return 1
}

# release_ports: drops every reservation this process holds.
release_ports() {
  local owner_file
  for owner_file in "$PORT_LOCKS"/*/owner; do
    [[ -f "$owner_file" ]] || continue
    [[ "$(cat "$owner_file" 2>/dev/null)" == "$$" ]] && rm -rf "$(dirname "$owner_file")"
  done
  return 0
}
