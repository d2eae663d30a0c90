//! `loggp export`: the measured parameters in the forms simulators read (issue 27), so
//! what-if studies run on the machine the job ran on.
//!
//! - `loggopsim`: LogGOPSim's options (Hoefler, Schneider, Lumsdaine, HPDC 2010) for one
//!   peer class: `-L -o -g -G -O -S`. LogGOPSim takes integers in one time unit; with
//!   G below 1 ns/B here, nanoseconds would round it to 0, so the times are given in
//!   picoseconds (and LogGOPSim's results are then picoseconds). L is the wire latency,
//!   the small-message range's end-to-end time less o_s and o_r (LogGOPSim adds both o's
//!   itself); o is the mean of o_s and o_r there; g is that range's; G and O are the
//!   largest range's (its gap and o_s per byte, the bulk bandwidth and copy cost); S is
//!   the first size of the first rendezvous range (LogGOPSim's rendezvous threshold), or
//!   0 where none was found.
//! - `netgauge`: the per-size table Netgauge writes and CODES' LogGP model-net reads
//!   (`net_config_file`): `size n PRTT(1,0,s) PRTT(n,0,s) PRTT(n,d,s) L o_s o_r g G
//!   g+(s-1)G`, in µs, one line per calibrated size; L = PRTT(1,0,s)/2, g and G from the
//!   range holding s (hoefler2007 §3).
use loggp_report::{CalibrationSet, Mode, PeerClass, Report};

fn set(r: &Report, class: PeerClass) -> Result<&CalibrationSet, String> {
    r.calibration
        .mpi
        .iter()
        .find(|s| s.peer_class == class && s.mode == Mode::Send)
        .ok_or_else(|| {
            format!(
                "no calibration of {class} blocking sends in this report (calibration: {})",
                r.calibration.status
            )
        })
}

/// LogGOPSim's command-line options for `class`.
pub fn loggopsim(r: &Report, class: PeerClass) -> Result<String, String> {
    let s = set(r, class)?;
    let first = s.ranges.first().ok_or("the calibration has no ranges")?;
    let last = s.ranges.last().ok_or("the calibration has no ranges")?;
    let need = |v: Option<f64>, what: &str| {
        v.ok_or_else(|| {
            format!(
                "{what} of {}..{} B is not determined",
                first.size_lo_bytes, first.size_hi_bytes
            )
        })
    };
    let (os, or) = (
        need(first.send_overhead_ns, "o_s")?,
        need(first.recv_overhead_ns, "o_r")?,
    );
    let e2e = need(first.latency_ns, "L")?;
    let g = need(first.gap_ns, "g")?;
    let big_g = last.gap_per_byte_ns.unwrap_or(0.0).max(0.0);
    // o_s per byte over the largest range: its o_s at both ends.
    let big_o = match (s
        .points
        .iter()
        .filter(|p| p.size_bytes >= last.size_lo_bytes && p.size_bytes <= last.size_hi_bytes)
        .filter_map(|p| Some((p.size_bytes as f64, p.send_overhead_ns?)))
        .collect::<Vec<_>>())
    .as_slice()
    {
        [a, .., b] if b.0 > a.0 => ((b.1 - a.1) / (b.0 - a.0)).max(0.0),
        _ => 0.0,
    };
    let rendezvous = s
        .ranges
        .iter()
        .find(|x| x.protocol.as_deref() == Some("rendezvous"))
        .map_or(0, |x| x.size_lo_bytes);
    let ps = |ns: f64| (ns * 1000.0).round().max(0.0) as u64;
    Ok(format!(
        "# loggp export --format loggopsim: {class}, {} ({}); times in picoseconds\n\
         # L = end-to-end {e2e:.0} ns − o_s {os:.0} ns − o_r {or:.0} ns; o = (o_s + o_r)/2 of {}..{} B; g of that range; G, O of {}..{} B; S = the first rendezvous size\n\
         -L {} -o {} -g {} -G {} -O {} -S {}\n",
        r.job.mpi_flavor,
        r.job.mpi_library.lines().next().unwrap_or("").trim(),
        first.size_lo_bytes,
        first.size_hi_bytes,
        last.size_lo_bytes,
        last.size_hi_bytes,
        ps((e2e - os - or).max(0.0)),
        ps((os + or) / 2.0),
        ps(g),
        ps(big_g),
        ps(big_o),
        rendezvous
    ))
}

/// Netgauge's / CODES' per-size LogGP table for `class`.
pub fn netgauge(r: &Report, class: PeerClass) -> Result<String, String> {
    let s = set(r, class)?;
    let us = |v: Option<f64>| v.map_or(0.0, |x| x / 1000.0);
    let mut o = format!(
        "# loggp export --format netgauge: {class}, {}; times in microseconds\n\
         # size n PRTT(1,0,s) PRTT(n,0,s) PRTT(n,d,s) L o_s o_r g G g+(s-1)G\n",
        r.job.mpi_flavor
    );
    for p in &s.points {
        let Some(prtt) = p.prtt_1_0_ns else {
            continue;
        };
        let range = s
            .ranges
            .iter()
            .find(|x| x.size_lo_bytes <= p.size_bytes && p.size_bytes <= x.size_hi_bytes);
        o += &format!(
            "{} {} {:.6} {:.6} {:.6} {:.6} {:.6} {:.6} {:.6} {:.9} {:.6}\n",
            p.size_bytes,
            s.n,
            prtt / 1000.0,
            us(p.prtt_n_0_ns),
            us(p.prtt_n_d_ns),
            prtt / 2000.0,
            us(p.send_overhead_ns),
            us(p.recv_overhead_ns),
            us(range.and_then(|x| x.gap_ns)),
            us(range.and_then(|x| x.gap_per_byte_ns)),
            us(p.gap_all_ns),
        );
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use loggp_report::{Point, Range};

    /// A report with known parameters: every exported number is checked against them.
    fn known() -> Report {
        let mut r = Report::default();
        let range = |lo, hi, l, os, or, g, gg, proto: &str| Range {
            size_lo_bytes: lo,
            size_hi_bytes: hi,
            latency_ns: Some(l),
            send_overhead_ns: Some(os),
            recv_overhead_ns: Some(or),
            gap_ns: Some(g),
            gap_per_byte_ns: Some(gg),
            protocol: Some(proto.into()),
            ..Default::default()
        };
        let point = |s: u64, prtt: f64, os: f64| Point {
            size_bytes: s,
            prtt_1_0_ns: Some(prtt),
            prtt_n_0_ns: Some(prtt * 4.0),
            prtt_n_d_ns: Some(prtt * 8.0),
            send_overhead_ns: Some(os),
            recv_overhead_ns: Some(50.0),
            gap_all_ns: Some(100.0),
            ..Default::default()
        };
        r.calibration.mpi.push(CalibrationSet {
            peer_class: PeerClass::IntraNode,
            mode: Mode::Send,
            n: 16,
            ranges: vec![
                range(1, 4040, 600.0, 100.0, 80.0, 200.0, 0.25, "eager"),
                range(
                    4041,
                    1 << 20,
                    3000.0,
                    2000.0,
                    1900.0,
                    1500.0,
                    0.0625,
                    "rendezvous",
                ),
            ],
            points: vec![
                point(1, 1200.0, 100.0),
                point(8192, 6000.0, 2000.0),
                point(1 << 20, 130000.0, 67504.0),
            ],
            ..Default::default()
        });
        r
    }

    #[test]
    fn loggopsim_options_are_the_reports_parameters_in_picoseconds() {
        let out = loggopsim(&known(), PeerClass::IntraNode).unwrap();
        let line = out.lines().last().unwrap();
        // L = 600 − 100 − 80 = 420 ns; o = 90 ns; g = 200 ns; G = 0.0625 ns/B;
        // O = (67504 − 2000)/(2^20 − 8192) ns/B = 0.0630…; S = 4041.
        assert_eq!(line, "-L 420000 -o 90000 -g 200000 -G 63 -O 63 -S 4041");
    }

    #[test]
    fn netgauge_table_has_a_line_per_size_in_microseconds() {
        let out = netgauge(&known(), PeerClass::IntraNode).unwrap();
        let rows: Vec<&str> = out.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(rows.len(), 3);
        let f: Vec<&str> = rows[1].split(' ').collect();
        assert_eq!(f.len(), 11);
        assert_eq!(
            (f[0], f[1], f[2], f[5], f[6]),
            ("8192", "16", "6.000000", "3.000000", "2.000000")
        );
        // g and G of the rendezvous range.
        assert_eq!((f[8], f[9]), ("1.500000", "0.000062500"));
        assert!(loggopsim(&Report::default(), PeerClass::IntraNode).is_err());
    }
}
