//! Call sites (`call_sites`): where in the application each MPI call was made, as
//! addresses inside the loaded objects; `loggp` turns them into function, file and line
//! offline (nothing is symbolized in the job).
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct CallSites {
    /// "done", or why there are none.
    pub status: String,
    /// The objects the sites lie in (executable, shared libraries).
    pub objects: Vec<LoadedObject>,
    pub sites: Vec<CallSite>,
    /// Calls not placed at a site (a thread's table full, or a thread without one):
    /// counted in `ranks[].calls`, not here.
    pub dropped: u64,
}

/// An object a call site lies in, as the dynamic linker loaded it in the rank that
/// first reported it.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct LoadedObject {
    pub path: String,
    /// The GNU build id (hex), to check that the file symbolized is the one that ran.
    pub build_id: Option<String>,
    /// Where it was loaded (its load bias), in that rank.
    pub load_address: u64,
}

/// Calls of one function from one place, summed over the ranks.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct CallSite {
    pub function: String,
    /// Index into `objects`.
    pub object: u32,
    /// The return address of the call, in the object's own addresses (the runtime
    /// address less the load address): the instruction after the call.
    pub address: u64,
    pub count: u64,
    pub bytes: u64,
    pub time_ns: f64,
    /// Ranks that called from here.
    pub ranks: u32,
}

/// Adds `from` to `into`: objects unified by (path, build id), sites of the same
/// (function, object, address) summed.
pub fn merge_call_sites(into: &mut CallSites, from: CallSites) {
    if into.status.is_empty() {
        into.status = from.status.clone();
    }
    into.dropped += from.dropped;
    let mut index: BTreeMap<(String, Option<String>), u32> = into
        .objects
        .iter()
        .enumerate()
        .map(|(i, o)| ((o.path.clone(), o.build_id.clone()), i as u32))
        .collect();
    let mut remap = Vec::with_capacity(from.objects.len());
    for o in from.objects {
        let key = (o.path.clone(), o.build_id.clone());
        let i = *index.entry(key).or_insert_with(|| {
            into.objects.push(o);
            into.objects.len() as u32 - 1
        });
        remap.push(i);
    }
    let mut by: BTreeMap<(String, u32, u64), CallSite> = std::mem::take(&mut into.sites)
        .into_iter()
        .map(|s| ((s.function.clone(), s.object, s.address), s))
        .collect();
    for mut s in from.sites {
        s.object = remap.get(s.object as usize).copied().unwrap_or(s.object);
        let e = by
            .entry((s.function.clone(), s.object, s.address))
            .or_insert_with(|| CallSite {
                function: s.function.clone(),
                object: s.object,
                address: s.address,
                ..Default::default()
            });
        e.count += s.count;
        e.bytes += s.bytes;
        e.time_ns += s.time_ns;
        e.ranks += s.ranks;
    }
    into.sites = by.into_values().collect();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sites_of_two_ranks_merge_by_object_and_address() {
        let obj = |p: &str, at| LoadedObject {
            path: p.into(),
            build_id: Some("ab".into()),
            load_address: at,
        };
        let site = |object, address, count| CallSite {
            function: "MPI_Send".into(),
            object,
            address,
            count,
            bytes: 8 * count,
            time_ns: 1.0,
            ranks: 1,
        };
        let mut a = CallSites {
            status: "done".into(),
            objects: vec![obj("/app", 0x1000)],
            sites: vec![site(0, 0x40, 3)],
            dropped: 1,
        };
        let b = CallSites {
            status: "done".into(),
            objects: vec![obj("/lib.so", 0x7f00), obj("/app", 0x2000)],
            sites: vec![site(1, 0x40, 2), site(0, 0x10, 1)],
            dropped: 0,
        };
        merge_call_sites(&mut a, b);
        assert_eq!(a.objects.len(), 2);
        assert_eq!(a.sites.len(), 2);
        let app = a.sites.iter().find(|s| s.object == 0).unwrap();
        assert_eq!((app.count, app.bytes, app.ranks), (5, 40, 2));
        assert_eq!(a.dropped, 1);
    }
}
