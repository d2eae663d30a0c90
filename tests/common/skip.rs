//! A test that cannot run fails, unless the reason is on the skip list: the file
//! `tests/skip-list.txt` (one reason per line, `#` comments) or `LOGGP_TEST_SKIP`
//! (comma-separated). Every skip is recorded in `target/test-skips.log`, which
//! `scripts/test.sh` prints at the end with a count, beside the list itself. On a machine
//! set up by `scripts/setup.sh` the list is empty: every test runs.
#![allow(dead_code)]
use std::io::Write;
use std::path::PathBuf;

fn root() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // The workspace root: the shim's crate is at the root, the tools' one below it.
    if here.join("tests/skip-list.txt").exists() {
        here
    } else {
        here.parent().map(PathBuf::from).unwrap_or(here)
    }
}

/// The reasons a test may skip for.
pub fn allowed() -> Vec<String> {
    let file = std::fs::read_to_string(root().join("tests/skip-list.txt")).unwrap_or_default();
    let env = std::env::var("LOGGP_TEST_SKIP").unwrap_or_default();
    file.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim().to_string())
        .chain(env.split(',').map(|s| s.trim().to_string()))
        .filter(|s| !s.is_empty())
        .collect()
}

/// The test cannot run, for `reason` (a short key, e.g. "namespaces") because of `why`:
/// returns where the reason is on the skip list (the caller then returns), panics
/// otherwise.
pub fn cannot_run(reason: &str, why: &str) {
    let test = std::thread::current().name().unwrap_or("?").to_string();
    let ok = allowed().iter().any(|r| r == reason);
    let line = format!(
        "{test}: {reason}: {why}{}\n",
        if ok {
            ""
        } else {
            " (not on the skip list: failed)"
        }
    );
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(root().join("target/test-skips.log"))
    {
        let _ = f.write_all(line.as_bytes());
    }
    if ok {
        eprintln!("SKIPPED ({reason}, on the skip list): {why}");
    } else {
        panic!(
            "this test cannot run here: {why}. A test that cannot run fails; add `{reason}` to tests/skip-list.txt (or LOGGP_TEST_SKIP) to skip it knowingly"
        );
    }
}
