//! A host whose TCP congestion control paces each connection by the bandwidth it has seen
//! (BBR) keeps what the calibration's bursts taught it for the job's own connections: the
//! calibration runs on a duplicate of the job's communicator, over the same endpoints.
//! Measured here (2026-11-29): 2 ranks on two namespace hosts, MPICH 4.0.2 over UCX 1.13's
//! TCP, 128 KiB ping-pongs right after MPI_Init took 258–266 µs a round trip after a
//! calibration against 77–78 µs without one (three pairs of jobs), and 79–84 µs after a
//! calibration with cubic; BBR's state on the connection read a bandwidth of 35 Gb/s
//! against 104 Gb/s, and pacing gain 1.25 (probing) against 2.89 (start-up). Open MPI's
//! btl tcp on the same hosts was not slowed (65.8 against 66.4 µs). The warning says so
//! once, where a pair on two hosts is calibrated over UCX on such a host.

/// The congestion control of new TCP connections in this process's network namespace.
pub fn tcp_congestion_control() -> Option<String> {
    std::fs::read_to_string("/proc/sys/net/ipv4/tcp_congestion_control")
        .ok()
        .map(|s| s.trim().to_string())
}

/// The warning for a pair on two hosts calibrated over `component` (the transport
/// component, `knob::transport_component`) where TCP's congestion control is `cc`.
pub fn paced_tcp_warning(cc: Option<&str>, component: Option<&str>) -> Option<String> {
    let ucx = matches!(component, Some("ucx") | Some("pml ucx"));
    (ucx && cc == Some("bbr")).then(|| {
        "TCP's congestion control here is bbr: where UCX carries messages between hosts over TCP, BBR paces the job's own connections by what the calibration's bursts showed it, and large messages may run slower all job (MPICH over UCX's TCP, 128 KiB round trips: 3.3 x; not with cubic); LOGGP_CALIBRATE=off avoids it".to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::paced_tcp_warning;

    #[test]
    fn the_warning_needs_bbr_under_ucx() {
        assert!(paced_tcp_warning(Some("bbr"), Some("ucx")).is_some());
        assert!(paced_tcp_warning(Some("bbr"), Some("pml ucx")).is_some());
        assert!(paced_tcp_warning(Some("cubic"), Some("ucx")).is_none());
        assert!(paced_tcp_warning(Some("bbr"), Some("pml ob1")).is_none());
        assert!(paced_tcp_warning(None, Some("ucx")).is_none());
    }
}
