//! Raw transports beneath MPI, calibrated with the same PRTT engine between the same pair
//! of ranks (bell2003 §5.1–5.2 sets MPI beside the lowest API of the same hardware;
//! Netgauge does it with its transport modules in separate runs, we do it inside the job).
//! Connection set-up goes over the private MPI communicator; everything is torn down
//! before MPI_Init returns.
pub mod shm;
pub mod tcp;
pub mod verbs;

use loggp_report::{MpiOverhead, Point, Range};

/// Transport ids on the control channel.
pub const SHM: u64 = 1;
pub const TCP: u64 = 2;

pub fn name(id: u64) -> &'static str {
    match id {
        SHM => "shm",
        TCP => "tcp",
        _ => "verbs",
    }
}

/// What a pair should measure: (transport, Ok(id) to run it, or Err(status) saying why
/// not). `wanted` None is auto: shm inside a node; across nodes verbs where a device
/// exists, else tcp (verbs' status is still reported).
pub fn plan(
    wanted: Option<&[String]>,
    same_host: bool,
) -> Vec<(&'static str, Result<u64, String>)> {
    let auto: Vec<String>;
    let list: &[String] = match wanted {
        Some(l) => l,
        None => {
            auto = if same_host {
                vec!["shm".into()]
            } else {
                vec!["verbs".into(), "tcp".into()]
            };
            &auto
        }
    };
    let mut out = vec![];
    for t in list {
        match t.as_str() {
            "shm" if same_host => out.push(("shm", Ok(SHM))),
            "shm" => out.push((
                "shm",
                Err("unavailable: shared memory needs both ranks of the pair on one host".into()),
            )),
            "tcp" => out.push(("tcp", Ok(TCP))),
            "verbs" => {
                let why = verbs::unavailable().unwrap_or_default();
                let why = if wanted.is_none() {
                    format!("{why}; tcp measured instead")
                } else {
                    why
                };
                out.push(("verbs", Err(why)));
            }
            _ => {}
        }
    }
    out
}

/// MPI minus raw, per parameter, over the sizes where both have a range (each side's
/// switches split the ranges further). o_s, o_r and L (PRTT(1,0,s)/2) are the median of
/// the per-size differences over the sizes both measured in the span (both use the same
/// schedule), so a span is compared size for size; g and G are differences of the two
/// ranges' fits. Parameters missing on either side stay null.
pub fn overhead(
    class: &str,
    transport: &str,
    mpi: (&[Range], &[Point]),
    raw: (&[Range], &[Point]),
) -> Vec<MpiOverhead> {
    let mut out = vec![];
    for m in mpi.0 {
        for r in raw.0 {
            let lo = m.size_lo_bytes.max(r.size_lo_bytes);
            let hi = m.size_hi_bytes.min(r.size_hi_bytes);
            if lo > hi {
                continue;
            }
            let d = |a: Option<f64>, b: Option<f64>| Some(a? - b?);
            let per_size = |f: &dyn Fn(&Point) -> Option<f64>| {
                let mut v: Vec<f64> = mpi
                    .1
                    .iter()
                    .filter(|p| (lo..=hi).contains(&p.size_bytes))
                    .filter_map(|p| {
                        let q = raw.1.iter().find(|q| q.size_bytes == p.size_bytes)?;
                        d(f(p), f(q))
                    })
                    .collect();
                v.sort_by(f64::total_cmp);
                v.get(v.len() / 2).copied()
            };
            out.push(MpiOverhead {
                peer_class: class.into(),
                transport: transport.into(),
                size_lo_bytes: lo,
                size_hi_bytes: hi,
                send_overhead_ns: per_size(&|p| p.send_overhead_ns),
                recv_overhead_ns: per_size(&|p| p.recv_overhead_ns),
                latency_ns: per_size(&|p| p.prtt_1_0_ns.map(|x| x / 2.0)),
                gap_ns: d(m.gap_ns, r.gap_ns),
                gap_per_byte_ns: d(m.gap_per_byte_ns, r.gap_per_byte_ns),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(lo: u64, hi: u64, o: f64, big_g: f64) -> Range {
        Range {
            size_lo_bytes: lo,
            size_hi_bytes: hi,
            send_overhead_ns: Some(o),
            recv_overhead_ns: Some(o / 2.0),
            gap_per_byte_ns: Some(big_g),
            latency_ns: None,
            ..Default::default()
        }
    }

    fn point(size: u64, o: f64) -> Point {
        Point {
            size_bytes: size,
            send_overhead_ns: Some(o),
            recv_overhead_ns: Some(o / 2.0),
            prtt_1_0_ns: Some(4.0 * o),
            ..Default::default()
        }
    }

    #[test]
    fn overhead_splits_at_both_sides_switches_and_compares_size_for_size() {
        let mpi = [
            range(1, 4040, 50.0, 0.1),
            range(4041, 1 << 20, 6000.0, 0.07),
        ];
        let raw = [
            range(1, 65536, 20.0, 0.05),
            range(65537, 1 << 20, 30.0, 0.06),
        ];
        let sizes = [8u64, 64, 512, 8192, 1 << 17];
        let mp: Vec<Point> = sizes
            .iter()
            .map(|&s| point(s, 100.0 + s as f64 / 100.0))
            .collect();
        // The raw side measured one size fewer.
        let rp: Vec<Point> = sizes[..4]
            .iter()
            .map(|&s| point(s, 40.0 + s as f64 / 200.0))
            .collect();
        let o = overhead("intra_node", "shm", (&mpi, &mp), (&raw, &rp));
        let spans: Vec<(u64, u64)> = o
            .iter()
            .map(|x| (x.size_lo_bytes, x.size_hi_bytes))
            .collect();
        assert_eq!(spans, [(1, 4040), (4041, 65536), (65537, 1 << 20)]);
        // Sizes 8, 64, 512: differences 60.04, 60.32, 62.56 → median 60.32.
        assert!((o[0].send_overhead_ns.unwrap() - 60.32).abs() < 1e-9);
        assert!((o[0].latency_ns.unwrap() - 2.0 * 60.32).abs() < 1e-9);
        assert!((o[1].send_overhead_ns.unwrap() - (181.92 - 80.96)).abs() < 1e-9);
        assert_eq!(o[2].send_overhead_ns, None, "no size both measured");
        assert!((o[2].gap_per_byte_ns.unwrap() - 0.01).abs() < 1e-12);
        assert_eq!(o[0].gap_ns, None, "missing on either side stays null");
    }

    #[test]
    fn auto_plans_shm_inside_a_node_and_says_why_verbs_is_not_run() {
        assert_eq!(plan(None, true), [("shm", Ok(SHM))]);
        let across = plan(None, false);
        assert_eq!(across[1], ("tcp", Ok(TCP)));
        assert_eq!(across[0].0, "verbs");
        if verbs::devices().is_empty() {
            let why = across[0].1.clone().unwrap_err();
            assert!(
                why.contains("no RDMA device") && why.contains("tcp measured instead"),
                "{why}"
            );
        }
        let shm_across = plan(Some(&["shm".into()]), false);
        assert!(shm_across[0].1.as_ref().unwrap_err().contains("one host"));
        assert!(plan(Some(&[]), true).is_empty(), "off");
    }
}
