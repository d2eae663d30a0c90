use super::ring::*;
use super::segment::*;
use super::transport::*;
use crate::calib::engine::Transport;

/// The live-name slot is one per process: these tests take turns.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn rings_carry_messages_of_every_size_both_ways() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let name = segment_name(std::process::id(), 900);
    let max = 300_000;
    let a = Segment::create(&name, ring_bytes(max)).unwrap();
    let b = Segment::open(&name, ring_bytes(max)).unwrap();
    unlink(&name);
    assert!(!std::path::Path::new("/dev/shm/loggp").exists());
    let mut c = ShmTransport::new(a, true, max);
    let mut s = ShmTransport::new(b, false, max);
    let t = std::thread::spawn(move || {
        for size in SIZES {
            assert!(s.recv(size), "server recv {size}");
            assert!(s.rbuf[..size].iter().all(|&x| x == 0xA5));
            assert!(s.send(size));
        }
        // A burst larger than the ring waits for the reader (no reply in between).
        for _ in 0..8 {
            assert!(s.recv(300_000));
        }
        assert!(s.send(1));
    });
    const SIZES: [usize; 7] = [0, 1, 7, 65536, 200_000, 300_000, 5];
    for size in SIZES {
        assert!(c.send(size));
        assert!(c.recv(size), "client recv {size}");
    }
    for _ in 0..8 {
        assert!(c.send(300_000));
    }
    assert!(c.recv(1));
    t.join().unwrap();
    assert!(!std::path::Path::new(&format!("/dev/shm/loggp.{}.900", std::process::id())).exists());
}

/// Round trips reuse the start of the data area (the footprint stays one message),
/// where walking the whole ring made 2–8 KB messages miss the cache every time.
#[test]
fn round_trips_restart_at_the_beginning_of_the_ring() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let name = segment_name(std::process::id(), 903);
    let max = 512 << 10;
    let a = Segment::create(&name, ring_bytes(max)).unwrap();
    let b = Segment::open(&name, ring_bytes(max)).unwrap();
    unlink(&name);
    let mut c = ShmTransport::new(a, true, max);
    let mut s = ShmTransport::new(b, false, max);
    let t = std::thread::spawn(move || {
        for _ in 0..2000 {
            assert!(s.recv(2048));
            assert!(s.send(2048));
        }
        for _ in 0..16 {
            assert!(s.recv(3001));
        }
        assert!(s.send(1));
    });
    let cap = ring_bytes(max) as u64;
    let mut furthest = 0;
    for _ in 0..2000 {
        assert!(c.send(2048));
        furthest = furthest.max(c.writer.pos % cap);
        assert!(c.recv(2048));
    }
    // A burst without answers goes on in the ring, then restarts after the reply.
    for _ in 0..16 {
        assert!(c.send(3001));
    }
    assert!(c.recv(1));
    t.join().unwrap();
    assert!(
        furthest <= 2 * 2080,
        "messages reached offset {furthest} of {cap}"
    );
    assert_eq!(c.writer.pos % ALIGN as u64, 0);
}

/// Large messages go by a single copy from the sender's buffer where both sides can
/// read each other's (here: one process, so both can).
#[test]
fn single_copies_carry_large_messages() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let name = segment_name(std::process::id(), 904);
    let max = 300_000;
    let a = Segment::create(&name, ring_bytes(max)).unwrap();
    let b = Segment::open(&name, ring_bytes(max)).unwrap();
    unlink(&name);
    let mut c = ShmTransport::new(a, true, max);
    let mut s = ShmTransport::new(b, false, max);
    let pid = std::process::id() as i32;
    let (ca, sa) = (c.sbuf.as_ptr() as u64, s.sbuf.as_ptr() as u64);
    assert!(c.meet(pid, sa) && s.meet(pid, ca));
    c.single_copy_from = SINGLE_COPY_FROM;
    s.single_copy_from = SINGLE_COPY_FROM;
    s.sbuf.fill(0x3C);
    let t = std::thread::spawn(move || {
        for size in [8192, 100_000, 300_000, 100] {
            assert!(s.recv(size));
            assert!(s.rbuf[..size].iter().all(|&x| x == 0xA5), "{size}");
            assert!(s.send(size));
        }
    });
    for size in [8192, 100_000, 300_000, 100] {
        assert!(c.send(size));
        assert!(c.recv(size));
        assert!(c.rbuf[..size].iter().all(|&x| x == 0x3C), "{size}");
    }
    t.join().unwrap();
}

#[test]
fn a_size_mismatch_is_a_failure_not_a_hang() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let name = segment_name(std::process::id(), 901);
    let a = Segment::create(&name, ring_bytes(100)).unwrap();
    let b = Segment::open(&name, ring_bytes(100)).unwrap();
    unlink(&name);
    let mut c = ShmTransport::new(a, true, 100);
    let mut s = ShmTransport::new(b, false, 100);
    assert!(c.send(10));
    assert!(!s.recv(11));
    // Larger than the buffers: refused at once.
    assert!(!c.send(1000));
}

#[test]
fn cleanup_unlinks_a_live_segment() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let name = segment_name(std::process::id(), 902);
    let _a = Segment::create(&name, 64 << 10).unwrap();
    let path = format!("/dev/shm/loggp.{}.902", std::process::id());
    assert!(std::path::Path::new(&path).exists());
    cleanup();
    assert!(!std::path::Path::new(&path).exists());
}

/// Single copies start where the two ways' lines cross between the trials, not at the
/// first trial they won (a ring 2 µs faster at 16 KiB and 6 µs slower at 64 KiB crosses
/// a quarter of the way, at 28 KiB).
#[test]
fn single_copies_start_where_the_lines_cross() {
    let sizes = [16 << 10, 64 << 10, 256 << 10];
    let took = [[10_000, 12_000], [30_000, 24_000], [100_000, 70_000]];
    assert_eq!(crossover(&sizes, &took, 1), 28 << 10);
    assert_eq!(crossover(&sizes, &took, 0), 16 << 10);
    // A tie at the trial before: from there.
    let tie = [[10_000, 10_000], [30_000, 24_000], [100_000, 70_000]];
    assert_eq!(crossover(&sizes, &tie, 1), 16 << 10);
}
