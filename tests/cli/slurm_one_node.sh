# A one-node Slurm cluster on loopback for the Slurm test (sourced after lib.sh, not run):
# munged, slurmctld and slurmd from Debian's packages (slurmctld slurmd slurm-client munge,
# tools/setup/install-deps.sh), with every file in $TMP/slurm and free loopback ports, so it
# touches nothing of the machine's own (no /etc/slurm, no systemd units, no cgroups:
# proctrack/linuxproc, task/none) and several can run at once. slurm_one_node_start exports
# SLURM_CONF for the clients (sbatch, squeue, sinfo) and stops the daemons when the test
# exits; it returns 77 with the reason on stdout where the cluster cannot start.
# shellcheck shell=bash

SLURM_DIR=

# At exit: each daemon stopped by its own pid file and waited for (slurmctld writes its state
# as it ends), then $TMP removed as lib.sh does. Never fails: it runs after the verdict.
slurm_one_node_stop() {
  set +e
  local f pid _
  for f in slurmd slurmctld munged; do
    [[ -n $SLURM_DIR && -s "$SLURM_DIR/$f.pid" ]] || continue
    pid=$(cat "$SLURM_DIR/$f.pid")
    kill "$pid" 2>/dev/null
    for _ in $(seq 1 100); do  # gone, or a zombie (a container's init may not reap them)
      [[ $(ps -o stat= -p "$pid" 2>/dev/null) == [!Z]* ]] || break
      sleep 0.1
    done
  done
  rm -rf "$TMP" 2>/dev/null
  return 0
}

# A free loopback TCP port (the kernel's choice; bound and released).
slurm_free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

slurm_one_node_log_tail() {
  local f
  for f in munged.log slurmctld.log slurmd.log; do
    [[ -s "$SLURM_DIR/$f" ]] && { echo "--- $f (last lines) ---"; tail -n 5 "$SLURM_DIR/$f"; }
  done
}

slurm_one_node_start() {
  local d
  for d in munged slurmctld slurmd sbatch sinfo; do
    command -v "$d" >/dev/null || PATH="$PATH:/usr/sbin" command -v "$d" >/dev/null ||
      { echo "SKIP: no $d (Debian packages slurmctld slurmd slurm-client munge)"; return 77; }
  done
  [[ $(id -u) == 0 ]] ||
    { echo "SKIP: the one-node Slurm runs its daemons as root (slurmd starts jobs as their user)"; return 77; }
  PATH="$PATH:/usr/sbin"
  SLURM_DIR="$TMP/slurm-cluster"
  mkdir -p "$SLURM_DIR/state" "$SLURM_DIR/spool"
  trap slurm_one_node_stop EXIT

  # munge: its own key and socket (munged refuses a key readable by others).
  head -c 1024 /dev/urandom >"$SLURM_DIR/munge.key"
  chmod 600 "$SLURM_DIR/munge.key"
  munged --force --socket="$SLURM_DIR/munge.sock" --key-file="$SLURM_DIR/munge.key" \
    --pid-file="$SLURM_DIR/munged.pid" --log-file="$SLURM_DIR/munged.log" \
    --seed-file="$SLURM_DIR/munged.seed" ||
    { echo "SKIP: munged did not start"; slurm_one_node_log_tail; return 77; }

  local host ctld_port node_port cpus
  host=$(hostname -s)  # slurmctld runs only on the host SlurmctldHost names
  ctld_port=$(slurm_free_port)
  node_port=$(slurm_free_port)
  cpus=$(nproc)
  cat >"$SLURM_DIR/slurm.conf" <<EOF
ClusterName=wfotest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$node_port
AuthType=auth/munge
AuthInfo=socket=$SLURM_DIR/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$SLURM_DIR/state
SlurmdSpoolDir=$SLURM_DIR/spool
SlurmctldPidFile=$SLURM_DIR/slurmctld.pid
SlurmdPidFile=$SLURM_DIR/slurmd.pid
SlurmctldLogFile=$SLURM_DIR/slurmctld.log
SlurmdLogFile=$SLURM_DIR/slurmd.log
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
NodeName=wfonode NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=wfo Nodes=wfonode Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF="$SLURM_DIR/slurm.conf"
  slurmctld -f "$SLURM_CONF" -i ||
    { echo "SKIP: slurmctld did not start"; slurm_one_node_log_tail; return 77; }
  slurmd -f "$SLURM_CONF" -N wfonode ||
    { echo "SKIP: slurmd did not start"; slurm_one_node_log_tail; return 77; }
  local _
  for _ in $(seq 1 60); do
    grep -qE '^(idle|mixed)' <<<"$(timeout 5 sinfo -h -o %T 2>/dev/null)" && return 0
    sleep 0.5
  done
  echo "SKIP: the one-node Slurm did not come up in 30 s (sinfo: $(timeout 5 sinfo -h -o %T 2>&1))"
  slurm_one_node_log_tail
  return 77
}
