//! Raw transports beneath MPI, calibrated with the same PRTT engine between the same pair
//! of ranks (bell2003 §5.1–5.2 sets MPI beside the lowest API of the same hardware;
//! Netgauge does it with its transport modules in separate runs, we do it inside the job).
//! Connection set-up goes over the private MPI communicator; everything is torn down
//! before MPI_Init returns.
pub mod mpi;
pub mod shm;
pub mod tcp;
pub mod ucx;

/// Transport ids on the control channel.
pub const SHM: u64 = 1;
pub const TCP: u64 = 2;
pub const UCX: u64 = 3;

/// A raw transport a pair can run.
#[derive(Clone, Debug, PartialEq)]
pub enum Raw {
    Shm,
    Tcp,
    /// UCT: a transport name, "verbs" (UCT's verbs transports) or "" (by peer class).
    Ucx(String),
}

impl Raw {
    pub fn id(&self) -> u64 {
        match self {
            Raw::Shm => SHM,
            Raw::Tcp => TCP,
            Raw::Ucx(_) => UCX,
        }
    }
}

/// What a pair should measure: (the name the report gives it, Ok(transport) to run it, or
/// Err(status) saying why not). `wanted` None is auto: where the MPI itself runs over UCX,
/// UCT for every pair (the layer it sits on); otherwise shm inside a node, and across nodes
/// verbs (through UCT) where a device exists, else tcp (verbs' status is still reported).
pub fn plan(
    wanted: Option<&[String]>,
    same_host: bool,
    mpi_over_ucx: bool,
) -> Vec<(String, Result<Raw, String>)> {
    let auto: Vec<String>;
    let list: &[String] = match wanted {
        Some(l) => l,
        None => {
            auto = match (mpi_over_ucx && ucx::unavailable().is_none(), same_host) {
                (true, _) => vec!["ucx".into()],
                (false, true) => vec!["shm".into()],
                (false, false) => vec!["verbs".into(), "tcp".into()],
            };
            &auto
        }
    };
    let mut out = vec![];
    for t in list {
        match t.as_str() {
            "shm" if same_host => out.push((t.clone(), Ok(Raw::Shm))),
            "shm" => out.push((
                t.clone(),
                Err("unavailable: shared memory needs both ranks of the pair on one host".into()),
            )),
            "tcp" => out.push((t.clone(), Ok(Raw::Tcp))),
            "verbs" => match ucx::verbs_unavailable() {
                None => out.push((t.clone(), Ok(Raw::Ucx("verbs".into())))),
                Some(why) if wanted.is_none() => {
                    out.push((t.clone(), Err(format!("{why}; tcp measured instead"))))
                }
                Some(why) => out.push((t.clone(), Err(why))),
            },
            u if u == "ucx" || u.starts_with("ucx:") => {
                let tl = u.strip_prefix("ucx:").unwrap_or_default().to_string();
                match ucx::unavailable() {
                    None => out.push(("ucx".into(), Ok(Raw::Ucx(tl)))),
                    Some(why) => out.push(("ucx".into(), Err(format!("unavailable: {why}")))),
                }
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
        assert_eq!(plan(None, true, false), [("shm".to_string(), Ok(Raw::Shm))]);
        let across = plan(None, false, false);
        assert_eq!(across[1], ("tcp".to_string(), Ok(Raw::Tcp)));
        assert_eq!(across[0].0, "verbs");
        if ucx::rdma_devices().is_empty() {
            let why = across[0].1.clone().unwrap_err();
            assert!(
                why.contains("no RDMA device") && why.contains("tcp measured instead"),
                "{why}"
            );
        }
        let shm_across = plan(Some(&["shm".into()]), false, false);
        assert!(shm_across[0].1.as_ref().unwrap_err().contains("one host"));
        assert!(plan(Some(&[]), true, false).is_empty(), "off");
        let named = plan(Some(&["ucx:tcp".into()]), true, false);
        assert_eq!(named[0].0, "ucx");
        if ucx::unavailable().is_none() {
            assert_eq!(named[0].1, Ok(Raw::Ucx("tcp".into())));
            // Over UCX, auto is UCT for every pair, by class.
            assert_eq!(
                plan(None, false, true),
                [("ucx".to_string(), Ok(Raw::Ucx(String::new())))]
            );
        }
    }
}
