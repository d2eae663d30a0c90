//! Local operations the collective model prices beside the messages (issue 26), each
//! timed per call on rank 0 at MPI_Finalize: a copy, MPI_Reduce_local, and a derived
//! datatype's setup and teardown. The MPIs' collective
//! algorithms make them in every call (Open MPI's `coll_base_*.c`), and at small sizes
//! they, not the messages, set an algorithm's cost against another's.
use crate::base::mpi;
use loggp_model::stats::median;
use std::os::raw::c_int;
use std::sync::OnceLock;

/// The local operations' costs, `[bytes, ns]` per size (see `per_call_ns`).
#[derive(Clone)]
pub struct LocalOps {
    pub reduce_ns: Vec<[f64; 2]>,
    pub copy_ns: Vec<[f64; 2]>,
    pub datatype_setup_ns: Option<f64>,
}

/// Rank 0's timing at MPI_Init, right after the calibration (`time_at_init`).
static AT_INIT: OnceLock<LocalOps> = OnceLock::new();

fn measure() -> LocalOps {
    LocalOps {
        reduce_ns: reduce_local_ns(),
        copy_ns: copy_local_ns(),
        datatype_setup_ns: datatype_setup_ns(),
    }
}

/// Times the local operations once at MPI_Init (rank 0, about 15 ms here), to be set
/// against the same timing at MPI_Finalize (`at_finalize`).
pub fn time_at_init() {
    let _ = AT_INIT.set(measure());
}

/// The local operations timed at MPI_Finalize, each size's cost the lesser of that and
/// the timing at MPI_Init where there was one. Each timing lasts milliseconds, and a
/// phase of the machine that long only adds time: one fresh-clone CI job's MPI_Reduce_local
/// read 288 ns at 8 B and 116 µs at 256 KiB, against 14–38 ns and 9–32 µs in the 17
/// other jobs of its test, and every Allreduce of that job was priced 1.4–2.3 × its
/// measured cost (2 ranks, Open MPI vader, 2026-11-27); the job's Bcasts, which reduce
/// nothing, held. Two timings seconds or hours apart seldom share such a phase.
pub fn at_finalize() -> LocalOps {
    let now = measure();
    let Some(init) = AT_INIT.get() else {
        return now;
    };
    let least = |a: &[[f64; 2]], b: &[[f64; 2]]| -> Vec<[f64; 2]> {
        a.iter()
            .map(|&[bytes, ns]| {
                let other = b.iter().find(|x| x[0] == bytes).map_or(ns, |x| x[1]);
                [bytes, ns.min(other)]
            })
            .collect()
    };
    LocalOps {
        reduce_ns: least(&now.reduce_ns, &init.reduce_ns),
        copy_ns: least(&now.copy_ns, &init.copy_ns),
        datatype_setup_ns: match (now.datatype_setup_ns, init.datatype_setup_ns) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        },
    }
}

/// ns of one `op(bytes)`: the median of 5 timed windows, each of enough calls to cover
/// 64 KiB (at most 1024), less a window's own cost (two clock reads, timed the same way),
/// per call. One call a window priced an 8-byte memcpy at 40 ns and an 8-byte
/// MPI_Reduce_local at 30 ns, the clock reads' own cost, and so every 8-byte Allgather,
/// Alltoall and Allreduce of a 2-rank job 1.2-1.5 x its measured cost (the collective
/// model adds both to each exchange). None where a call fails.
fn per_call_ns(bytes: usize, mut op: impl FnMut(usize) -> bool) -> Option<f64> {
    let now = crate::base::clock::monotonic_raw_ns;
    let calls = (65536 / bytes.max(1)).clamp(1, 1024);
    let empty: Vec<f64> = (0..5)
        .map(|_| {
            let t0 = now();
            let t1 = now();
            t1.saturating_sub(t0) as f64
        })
        .collect();
    let mut windows = Vec::with_capacity(5);
    for _ in 0..5 {
        let t0 = now();
        for _ in 0..calls {
            if !op(bytes) {
                return None;
            }
        }
        let t1 = now();
        windows.push(t1.saturating_sub(t0) as f64);
    }
    let (window, empty) = (median(&windows)?, median(&empty)?);
    Some(((window - empty) / calls as f64).max(0.0))
}

/// The sizes the local operations are timed at, the model interpolating linearly between
/// them: a factor of 4 apart from 1 KiB, so that no line spans a cache level. With 64 KiB
/// and 1 MiB alone, a 256 KiB copy was priced at 18–26 µs on the line between them (the
/// 1 MiB copy leaves the 2 MiB L2 of this Intel Xeon VM: 55–82 µs, 1.5–2× its share),
/// where it takes 7.6–8.0 µs (a C program timing memcpy the same way, 2026-11-26); every
/// 256 KiB Allgather and Alltoall, which begin with that copy, was priced 10–18 µs high.
const LOCAL_SIZES_BYTES: [usize; 8] = [8, 1024, 4096, 16384, 65536, 262144, 1 << 20, 4 << 20];

/// A memcpy at `LOCAL_SIZES_BYTES` (the MPIs' local copy of contiguous bytes), per call
/// (`per_call_ns`).
fn copy_local_ns() -> Vec<[f64; 2]> {
    let most = LOCAL_SIZES_BYTES[LOCAL_SIZES_BYTES.len() - 1];
    let a = vec![1u8; most];
    let mut b = vec![2u8; most];
    LOCAL_SIZES_BYTES
        .into_iter()
        .filter_map(|bytes| {
            let ns = per_call_ns(bytes, |n| {
                b[..n].copy_from_slice(std::hint::black_box(&a[..n]));
                std::hint::black_box(&mut b);
                true
            })?;
            Some([bytes as f64, ns])
        })
        .collect()
}

/// MPI_Reduce_local of MPI_DOUBLE with MPI_SUM at `LOCAL_SIZES_BYTES`, per call
/// (`per_call_ns`).
fn reduce_local_ns() -> Vec<[f64; 2]> {
    let doubles = LOCAL_SIZES_BYTES[LOCAL_SIZES_BYTES.len() - 1] / 8;
    let mut a = vec![1.0f64; doubles];
    let mut b = vec![2.0f64; doubles];
    LOCAL_SIZES_BYTES
        .into_iter()
        .filter_map(|bytes| {
            let ns = per_call_ns(bytes, |n| {
                // SAFETY: both buffers hold n / 8 doubles.
                let rc = unsafe {
                    mpi::PMPI_Reduce_local(
                        a.as_mut_ptr() as *const _,
                        b.as_mut_ptr() as *mut _,
                        (n / 8) as c_int,
                        mpi::dt_double(),
                        mpi::op_sum(),
                    )
                };
                rc == mpi::success()
            })?;
            Some([bytes as f64, ns])
        })
        .collect()
}

/// An indexed datatype of one block built, committed and freed, per call
/// (`per_call_ns`): Bruck's Alltoall builds one in each of its ⌈log2 n⌉ steps to send
/// the blocks whose index has the step's bit set (Open MPI's
/// `ompi_coll_base_alltoall_intra_bruck`, MPICH's `MPIR_Alltoall_intra_brucks`). 2 ranks,
/// 8 B, Open MPI vader, 2026-11-26, without the shim: 670–975 ns against 445–486 ns for
/// the pairwise exchange; the datatype's cycle alone took 526–623 ns.
fn datatype_setup_ns() -> Option<f64> {
    let (block, displacement): (c_int, c_int) = (1, 1);
    per_call_ns(8, |_| {
        let mut t = mpi::dt_byte();
        // SAFETY: one block of one length and one displacement; the type made is freed.
        unsafe {
            if mpi::PMPI_Type_indexed(1, &block, &displacement, mpi::dt_byte(), &mut t)
                != mpi::success()
            {
                return false;
            }
            let ok = mpi::PMPI_Type_commit(&mut t) == mpi::success();
            mpi::PMPI_Type_free(&mut t) == mpi::success() && ok
        }
    })
}
