//! Whether the machine let the probes run: how long each probing thread was off its CPU,
//! how often it was preempted, and how much of the host's CPU time the hypervisor gave to
//! others meanwhile (steal). A calibration whose ranks waited for the CPU measured those
//! waits too; the report says so and names the cause it can see.
use super::outcome::Outcome;
use std::os::raw::c_int;

/// A larger off-CPU share of the probing time marks the calibration disturbed. Measured on
/// this 2-core VM, 2 ranks, quick mode: undisturbed 0.002–0.015 (Open MPI vader, MPICH),
/// 0.005 for two namespace hosts over TCP; with two CPU-bound processes beside the job
/// 0.34–0.77; with both ranks bound to one core 0.50. (A count of involuntary switches
/// misleads where ranks yield when idle: sched_yield to a runnable task counts as one.)
const OFF_CPU_SHARE_TOLERATED: f64 = 0.10;

/// Without a thread CPU clock: more preemptions per second of probing than this mark the
/// calibration disturbed (and never fewer than `PREEMPTIONS_FLOOR`). Measured on this
/// 2-core VM, 2 ranks, quick mode: undisturbed 9–36 per rank in 0.8 s (≤ 45/s: the
/// launcher's own wake-ups); with two CPU-bound processes beside the job 433–653 in
/// 2.4–3.4 s (≥ 180/s).
const PREEMPTIONS_PER_S_TOLERATED: f64 = 100.0;
const PREEMPTIONS_FLOOR: c_int = 50;

/// The off-CPU time is put down to the hypervisor where the host's steal was at least
/// this share of its off-CPU share: a virtual CPU the host runs elsewhere stops every
/// thread on it without a context switch the guest can count. (Fresh-clone CI at
/// 0507936 and this VM on 2026-11-26 saw ranks off their CPU for 15–77 % of the probes
/// with 5–21 involuntary switches and nothing else running in the guest.)
const STEAL_SHARE_OF_OFF_CPU: f64 = 0.5;

/// What one rank saw while probing, taken at the start and compared at the end.
pub struct Watch {
    preempted0: i64,
    cpu0: Option<u64>,
    steal0: Option<HostTimes>,
}

/// The host's CPU time so far, over all its CPUs (/proc/stat, in clock ticks): the part
/// the hypervisor took (steal) and the whole.
#[derive(Clone, Copy)]
struct HostTimes {
    steal: u64,
    total: u64,
}

/// What all ranks agree on at the end (the most disturbed rank's figures): involuntary
/// switches, off-CPU share and host steal share, the shares in per mille (−1 unknown).
pub type Seen = [c_int; 3];

impl Watch {
    pub fn start() -> Watch {
        Watch {
            preempted0: involuntary_switches(),
            cpu0: thread_cpu_ns(),
            steal0: host_times(),
        }
    }

    /// This rank's figures over `wall_ns` of probing.
    pub fn seen(&self, wall_ns: u64) -> Seen {
        let wall = wall_ns.max(1);
        let preempted = involuntary_switches()
            .saturating_sub(self.preempted0)
            .min(c_int::MAX as i64) as c_int;
        // Wall time the thread did not run, per mille of the probing time.
        let off_cpu = match (self.cpu0, thread_cpu_ns()) {
            (Some(a), Some(b)) => {
                let off = wall.saturating_sub(b.saturating_sub(a));
                (off.saturating_mul(1000) / wall).min(1000) as c_int
            }
            _ => -1,
        };
        let steal = match (self.steal0, host_times()) {
            (Some(a), Some(b)) if b.total > a.total => {
                ((b.steal.saturating_sub(a.steal)) * 1000 / (b.total - a.total)).min(1000) as c_int
            }
            _ => -1,
        };
        [preempted, off_cpu, steal]
    }
}

/// Sets the outcome's off-CPU and steal shares from what all ranks agreed on, and its
/// disturbance where the probes waited for the CPU, or stalled (`stall_ms`: the longest
/// stall of any rank's probes, see `engine::Client::note_stall`) with the ranks on it.
pub fn judge(agreed: Seen, stall_ms: c_int, out: &mut Outcome) {
    let [preempted, off_cpu, steal] = agreed;
    out.off_cpu_share = (off_cpu >= 0).then(|| off_cpu as f64 / 1000.0);
    out.steal_share = (steal >= 0).then(|| steal as f64 / 1000.0);
    // Disturbed: the probing thread was off its CPU for more than a tenth of the probing
    // time (where the thread CPU clock is missing: preempted more often than tolerated).
    let tolerated =
        (PREEMPTIONS_PER_S_TOLERATED * out.duration_ns / 1e9).max(PREEMPTIONS_FLOOR as f64);
    let off_cpu_disturbed = match out.off_cpu_share {
        Some(share) => share > OFF_CPU_SHARE_TOLERATED,
        None => preempted as f64 > tolerated,
    };
    let stalled = stall_ms as u64 * 1_000_000 >= super::engine::STALL_NS;
    let mut said = vec![];
    if off_cpu_disturbed {
        let share = out
            .off_cpu_share
            .map(|x| format!(" and off its CPU for {:.0} % of the time", x * 100.0))
            .unwrap_or_default();
        let cause = match (out.steal_share, out.off_cpu_share) {
            (Some(st), Some(off)) if st > 0.0 && st >= STEAL_SHARE_OF_OFF_CPU * off => format!(
                "the hypervisor ran other work on this virtual machine's CPUs (steal: {:.0} % of its CPU time)",
                st * 100.0
            ),
            _ => "other processes competed for its core".into(),
        };
        said.push(format!(
            "a rank was preempted {preempted} times (involuntary context switches){share} during {:.0} ms of probes: {cause}, so the probes' times include waits for the CPU; switches located by them are not exact and the intervals are wider",
            out.duration_ns / 1e6
        ));
    }
    if stalled {
        said.push(format!(
            "one repetition of a probe took {stall_ms} ms longer than the fastest of its kind{}: the machine or the network paused, and the budget that took was not spent measuring",
            if off_cpu_disturbed { "" } else { ", with the ranks on their CPUs (neither preemption nor steal accounts for it)" }
        ));
    }
    if !said.is_empty() {
        out.disturbance = Some(said.join("; "));
    }
}

/// CPU time of the calling thread so far (CLOCK_THREAD_CPUTIME_ID), in ns.
fn thread_cpu_ns() -> Option<u64> {
    // SAFETY: clock_gettime fills the struct we own.
    unsafe {
        let mut ts: libc::timespec = std::mem::zeroed();
        (libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) == 0)
            .then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
    }
}

/// Involuntary context switches of the calling thread so far (getrusage, RUSAGE_THREAD).
fn involuntary_switches() -> i64 {
    // SAFETY: getrusage fills the struct we own.
    unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_THREAD, &mut ru) == 0 {
            ru.ru_nivcsw
        } else {
            0
        }
    }
}

/// The host's steal and total CPU time from the first line of /proc/stat ("cpu user nice
/// system idle iowait irq softirq steal …"); None where it cannot be read (not Linux, no
/// procfs). Read at the start and the end of the calibration only, never on the hot path.
fn host_times() -> Option<HostTimes> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    parse_host_times(text.lines().next()?)
}

fn parse_host_times(line: &str) -> Option<HostTimes> {
    let mut f = line.split_whitespace();
    if f.next()? != "cpu" {
        return None;
    }
    // user, nice, system, idle, iowait, irq, softirq, steal (guest time is inside user).
    let v: Vec<u64> = f.take(8).map(|x| x.parse().ok()).collect::<Option<_>>()?;
    (v.len() == 8).then(|| HostTimes {
        steal: v[7],
        total: v.iter().sum(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steal_is_read_from_the_cpu_line() {
        let t =
            parse_host_times("cpu  3415816 2489 707554 2367781 6141 0 13271 15184 0 0").unwrap();
        assert_eq!(t.steal, 15184);
        assert_eq!(
            t.total,
            3415816 + 2489 + 707554 + 2367781 + 6141 + 13271 + 15184
        );
        assert!(parse_host_times("cpu0 1 2 3 4 5 6 7 8").is_none());
        assert!(parse_host_times("cpu 1 2 3").is_none());
    }

    #[test]
    fn the_cause_named_is_the_one_measured() {
        let mut out = Outcome {
            duration_ns: 800e6,
            ..Default::default()
        };
        judge([5, 650, 400], 0, &mut out);
        let d = out.disturbance.unwrap();
        assert!(d.contains("hypervisor") && d.contains("steal: 40 %"), "{d}");
        let mut out = Outcome {
            duration_ns: 800e6,
            ..Default::default()
        };
        judge([300, 500, 10], 0, &mut out);
        assert!(out.disturbance.unwrap().contains("other processes"));
        let mut out = Outcome {
            duration_ns: 800e6,
            ..Default::default()
        };
        judge([5, 20, 0], 0, &mut out);
        assert!(out.disturbance.is_none());
        assert_eq!(out.steal_share, Some(0.0));
        // A stall with the ranks on their CPUs: disturbed, for that reason alone.
        let mut out = Outcome {
            duration_ns: 1000e6,
            ..Default::default()
        };
        judge([5, 20, 0], 49, &mut out);
        assert!(out.disturbance.is_none());
        judge([5, 20, 0], 812, &mut out);
        let d = out.disturbance.unwrap();
        assert!(d.contains("812 ms") && d.contains("on their CPUs"), "{d}");
        assert!(!d.contains("preempted"), "{d}");
    }
}
