//! Raw transports beneath MPI, calibrated with the same PRTT engine between the same pair
//! of ranks (bell2003 §5.1–5.2 sets MPI beside the lowest API of the same hardware;
//! Netgauge does it with its transport modules in separate runs, we do it inside the job).
//! Connection set-up goes over the private MPI communicator; everything is torn down
//! before MPI_Init returns.
pub mod shm;
pub mod tcp;
pub mod verbs;

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

/// The size header of the client's stop mark on a raw transport (no payload follows).
pub const STOP_HEADER: u64 = u64::MAX;

#[cfg(test)]
mod tests {
    use super::*;

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
