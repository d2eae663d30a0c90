#!/usr/bin/env bash
# Two "hosts" on one machine: network namespaces lg-h1 and lg-h2 joined by a veth pair
# (10.77.0.1 and 10.77.0.2), optionally rate-limited with tbf, and a launcher that runs
# a command inside the namespace named like the host, with that host name.
#   scripts/netns-hosts.sh up [RATE]   e.g. up 200mbit
#   scripts/netns-hosts.sh down
#   scripts/netns-hosts.sh launcher    prints the launcher's path (for plm_rsh_agent;
#                                      MPICH's hydra takes it with the suffix -hydra)
set -euo pipefail
launcher=/tmp/loggp-nsrsh
case "${1:-}" in
  up)
    "$0" down >/dev/null 2>&1 || true
    ip netns add lg-h1; ip netns add lg-h2
    ip link add lg-veth1 type veth peer name lg-veth2
    ip link set lg-veth1 netns lg-h1; ip link set lg-veth2 netns lg-h2
    ip -n lg-h1 addr add 10.77.0.1/24 dev lg-veth1; ip -n lg-h2 addr add 10.77.0.2/24 dev lg-veth2
    for h in lg-h1 lg-h2; do ip -n $h link set lo up; done
    ip -n lg-h1 link set lg-veth1 up; ip -n lg-h2 link set lg-veth2 up
    # The rate fixes G. The queue (tbf's latency) holds 400 ms at that rate, more than
    # the sockets' send buffers (tcp_wmem max 4 MiB) of the two or three connections a
    # job opens: with ground-truth.md's 50 ms (1.25 MB at 200 Mbit/s) a long burst of
    # PRTT(n,0,s) overflowed it, a lost tail waited for TCP's retransmission timeouts
    # (one pass at 35734 B took 3.9 s in a CI run), and the stalled sends read as
    # waiting for a late receiver: the eager limit was found at 35734 B, not 65536.
    if [ -n "${2:-}" ]; then
      ip netns exec lg-h1 tc qdisc add dev lg-veth1 root tbf rate "$2" burst 64kb latency 400ms
      ip netns exec lg-h2 tc qdisc add dev lg-veth2 root tbf rate "$2" burst 64kb latency 400ms
    fi
    grep -q ' lg-h1$' /etc/hosts || printf '10.77.0.1 lg-h1\n10.77.0.2 lg-h2\n' >> /etc/hosts
    cat > $launcher <<'EOS'
#!/bin/sh
h=$1; shift
exec ip netns exec "$h" unshare -u sh -c "hostname $h; $*"
EOS
    chmod +x $launcher
    # MPICH's hydra (-launcher ssh -launcher-exec) passes ssh's options before the host.
    cat > $launcher-hydra <<EOS
#!/bin/sh
while [ "\${1#-}" != "\$1" ]; do shift; done
exec $launcher "\$@"
EOS
    chmod +x $launcher-hydra
    ;;
  down)
    ip netns del lg-h1 2>/dev/null || true
    ip netns del lg-h2 2>/dev/null || true
    sed -i '/ lg-h[12]$/d' /etc/hosts
    rm -f $launcher $launcher-hydra
    ;;
  launcher) echo $launcher ;;
  *) echo "usage: $0 up [RATE] | down | launcher" >&2; exit 2 ;;
esac
