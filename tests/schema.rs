//! The report's JSON Schema (issue 15): shipped, current, and able to reject a report that
//! breaks the contract. Every report the integration tests read is validated against it
//! (`common::read_report`).
mod common;
use common::*;

#[test]
fn the_validator_accepts_the_fixtures_and_rejects_a_broken_report() {
    let fixtures = root().join("tools/tests/fixtures");
    let good: Vec<_> = std::fs::read_dir(&fixtures)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    assert!(!good.is_empty());
    validate_against_schema(&good.iter().map(|p| p.as_path()).collect::<Vec<_>>());

    // A wrong type, a negative size, a missing required object: each is refused.
    let text = std::fs::read_to_string(&good[0]).unwrap();
    let dir = scratch("schema_broken");
    for (name, edit) in [
        ("ranks_text", r#"{"job":{"ranks":"two"}}"#),
        (
            "negative_size",
            r#"{"passive":[{"bins":[{"size_lo_bytes":-1}]}]}"#,
        ),
    ] {
        let mut r: serde_json::Value = serde_json::from_str(&text).unwrap();
        merge(&mut r, &serde_json::from_str(edit).unwrap());
        let p = dir.join(format!("{name}.json"));
        std::fs::write(&p, serde_json::to_string(&r).unwrap()).unwrap();
        let refused = std::panic::catch_unwind(|| validate_against_schema(&[&p])).is_err();
        assert!(refused, "{name} passed the schema");
    }
}

/// Overwrites `into` with `patch` where both are objects, recursively; arrays of one
/// object patch their first element.
fn merge(into: &mut serde_json::Value, patch: &serde_json::Value) {
    use serde_json::Value::*;
    match (into, patch) {
        (Object(a), Object(b)) => {
            for (k, v) in b {
                merge(a.entry(k.clone()).or_insert(Null), v);
            }
        }
        (Array(a), Array(b)) if !a.is_empty() && b.len() == 1 => merge(&mut a[0], &b[0]),
        (slot, v) => *slot = v.clone(),
    }
}

#[test]
fn loggp_schema_prints_the_shipped_file() {
    let o = std::process::Command::new(root().join("target/release/loggp"))
        .arg("schema")
        .output()
        .unwrap();
    assert!(o.status.success());
    let shipped = std::fs::read_to_string(root().join("report/loggp-1.schema.json")).unwrap();
    assert_eq!(stdout(&o).trim_end(), shipped.trim_end());
}
