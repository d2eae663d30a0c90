//! The timestamp source of the hot path and its conversion to nanoseconds.
//!
//! x86-64 with an invariant TSC: `rdtsc` (about 18 ns here, against 33 ns for
//! `clock_gettime`). Its frequency is not trusted from CPUID (VMs often hide it): it is
//! measured against CLOCK_MONOTONIC_RAW over a few milliseconds at MPI_Init and refined
//! over the whole run whenever a report is written. aarch64 reads the virtual counter,
//! whose frequency the architecture publishes in CNTFRQ_EL0. Elsewhere, or with a TSC that
//! is not invariant, the hot path reads CLOCK_MONOTONIC_RAW itself and ticks are ns.
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering::Relaxed};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub enum Source {
    Tsc = 0,
    ArmVirtualCounter = 1,
    ClockGettime = 2,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::Tsc => "tsc",
            Source::ArmVirtualCounter => "cntvct",
            Source::ClockGettime => "clock_gettime",
        }
    }
}

static SOURCE: AtomicU8 = AtomicU8::new(Source::ClockGettime as u8);
static USE_COUNTER: AtomicBool = AtomicBool::new(false);
static INVARIANT: AtomicBool = AtomicBool::new(false);
/// Reference pair taken at setup: counter ticks and CLOCK_MONOTONIC_RAW ns.
static REF_TICKS: AtomicU64 = AtomicU64::new(0);
static REF_NS: AtomicU64 = AtomicU64::new(0);

/// CLOCK_MONOTONIC_RAW in ns. Async-signal-safe.
#[inline]
pub fn monotonic_raw_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid pointer to a timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_RAW, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

#[inline(always)]
fn read_counter() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: rdtsc is available on every x86-64 CPU.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(target_arch = "aarch64")]
    {
        let v: u64;
        // SAFETY: CNTVCT_EL0 is readable from EL0 on Linux.
        unsafe { core::arch::asm!("mrs {}, cntvct_el0", out(reg) v) };
        v
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        monotonic_raw_ns()
    }
}

/// The hot-path timestamp, in ticks of [`source`].
#[inline(always)]
pub fn now() -> u64 {
    if USE_COUNTER.load(Relaxed) {
        read_counter()
    } else {
        monotonic_raw_ns()
    }
}

#[cfg(target_arch = "x86_64")]
fn tsc_is_invariant() -> bool {
    // CPUID 0x8000_0007 EDX bit 8 is the architectural "invariant TSC" flag. Hypervisors
    // often clear it while the kernel still trusts the TSC, so its flags count too.
    // SAFETY: cpuid is always available on x86-64.
    let max_ext = core::arch::x86_64::__cpuid(0x8000_0000).eax;
    if max_ext >= 0x8000_0007 {
        let edx = core::arch::x86_64::__cpuid(0x8000_0007).edx;
        if edx & (1 << 8) != 0 {
            return true;
        }
    }
    std::fs::read_to_string("/proc/cpuinfo")
        .map(|s| {
            let flags = s.lines().find(|l| l.starts_with("flags")).unwrap_or("");
            let has = |f: &str| flags.split_whitespace().any(|w| w == f);
            has("constant_tsc") && has("nonstop_tsc")
        })
        .unwrap_or(false)
}

/// Chooses the source and measures the counter's rate. Called once at MPI_Init; spins
/// for `spin_ms` (a few ms), not seconds.
pub fn setup(spin_ms: u64) {
    #[cfg(target_arch = "x86_64")]
    let (src, invariant) = if tsc_is_invariant() {
        (Source::Tsc, true)
    } else {
        (Source::ClockGettime, false)
    };
    #[cfg(target_arch = "aarch64")]
    let (src, invariant) = (Source::ArmVirtualCounter, true);
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let (src, invariant) = (Source::ClockGettime, false);

    SOURCE.store(src as u8, Relaxed);
    INVARIANT.store(invariant, Relaxed);
    if src == Source::ClockGettime {
        USE_COUNTER.store(false, Relaxed);
        return;
    }
    READ_FLOOR_TICKS.store(read_floor_ticks(), Relaxed);
    let (t0, n0) = paired_read();
    // Only the reference pair is taken here; the rate is measured when it is needed.
    while monotonic_raw_ns() < n0 + spin_ms * 1_000_000 {
        std::hint::spin_loop();
    }
    REF_TICKS.store(t0, Relaxed);
    REF_NS.store(n0, Relaxed);
    USE_COUNTER.store(true, Relaxed);
}

static READ_FLOOR_TICKS: AtomicU64 = AtomicU64::new(0);

/// The shortest interval two successive counter reads report (their 10th percentile over
/// 1000 pairs): no call is timed shorter, and one call's duration is uncertain by about
/// this much. On a VM the counter may also advance in coarse steps (26 ticks, 10 ns, on
/// the development machine), which this includes.
fn read_floor_ticks() -> u64 {
    let mut d = [0u64; 1000];
    for x in d.iter_mut() {
        let a = read_counter();
        *x = read_counter().wrapping_sub(a);
    }
    d.sort_unstable();
    d[d.len() / 10]
}

/// [`read_floor_ticks`] in ns (0 with clock_gettime, whose floor is not measured).
pub fn read_floor_ns() -> f64 {
    READ_FLOOR_TICKS.load(Relaxed) as f64 * ns_per_tick(hz())
}

/// A counter reading and a CLOCK_MONOTONIC_RAW reading taken as close together as the
/// machine allows: the pair with the shortest bracketing interval out of a few tries.
fn paired_read() -> (u64, u64) {
    let mut best = (0u64, 0u64, u64::MAX);
    for _ in 0..5 {
        let a = read_counter();
        let n = monotonic_raw_ns();
        let b = read_counter();
        let width = b.wrapping_sub(a);
        if width < best.2 {
            best = (a + width / 2, n, width);
        }
    }
    (best.0, best.1)
}

pub fn source() -> Source {
    match SOURCE.load(Relaxed) {
        0 => Source::Tsc,
        1 => Source::ArmVirtualCounter,
        _ => Source::ClockGettime,
    }
}

pub fn invariant() -> bool {
    INVARIANT.load(Relaxed)
}

/// Ticks per second, measured over everything since setup: the longer the baseline, the
/// smaller the error of its two endpoint readings (about 10 ns each, so 1e-5 at 2 ms).
/// A run shorter than 2 ms waits until 2 ms have passed. Async-signal-safe.
pub fn hz() -> f64 {
    if !USE_COUNTER.load(Relaxed) {
        return 1e9;
    }
    let n0 = REF_NS.load(Relaxed);
    let t0 = REF_TICKS.load(Relaxed);
    while monotonic_raw_ns() < n0 + 2_000_000 {
        std::hint::spin_loop();
    }
    let (t1, n1) = paired_read();
    t1.wrapping_sub(t0) as f64 * 1e9 / (n1 - n0) as f64
}

/// Nanoseconds per tick at the given rate.
#[inline]
pub fn ns_per_tick(hz: f64) -> f64 {
    if hz > 0.0 {
        1e9 / hz
    } else {
        1.0
    }
}
