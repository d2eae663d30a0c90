//! Function ids: one per row of the function table (`table/`), in table order, and the
//! pseudo records at the top of the id space. A statistics cell is keyed by an id; the
//! reduce step turns it into the function's name and role (`loggp_report::Cell`).
use loggp_report::{Mode, Role};

/// Upper bound on ids (8 bits of a cell key, `record::stats::make_key`).
pub const MAX_FUNCS: usize = 256;

macro_rules! func_ids {
    (
        [$call:ident, $ierr:ident]
        $(
            $name:ident {
                role: $role:ident, mode: $mode:ident, entry: $entry:ident,
                $(cfg: $cfg:meta,)?
                c: $($rest:tt)*
            }
        )*
    ) => {
        /// Every function loggp intercepts, in table order: the id of a statistics cell.
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        #[repr(u8)]
        pub enum Func { $($(#[cfg($cfg)])? $name,)* }

        /// Names of [`Func`] by id.
        pub const FUNC_NAMES: &[&str] = &[$($(#[cfg($cfg)])? stringify!($name),)*];
        /// Roles of [`Func`] by id.
        pub const FUNC_ROLES: &[Role] = &[$($(#[cfg($cfg)])? Role::$role,)*];
        /// The mode each function's messages count under, by id (`None`: the request's, or
        /// no message).
        pub const FUNC_MODES: &[Mode] = &[$($(#[cfg($cfg)])? Mode::$mode,)*];
    };
}

mpi_functions!(func_ids);

/// Pseudo records, beside the functions' own ids.
pub const REQ_COMPLETED: u8 = (MAX_FUNCS - 4) as u8;
pub const REQ_CANCELLED: u8 = (MAX_FUNCS - 3) as u8;
pub const REQ_FREED: u8 = (MAX_FUNCS - 2) as u8;
/// The spacing between the starts of back-to-back sends to one peer (the passive g).
pub const BURST_GAP: u8 = (MAX_FUNCS - 1) as u8;
const _: () = assert!(FUNC_NAMES.len() < REQ_COMPLETED as usize);

/// The name a cell of this id carries in the report.
pub fn name(id: u8) -> &'static str {
    match id {
        REQ_COMPLETED => "request_completed",
        REQ_CANCELLED => "request_cancelled",
        REQ_FREED => "request_freed",
        BURST_GAP => "burst_gap",
        _ => FUNC_NAMES.get(id as usize).copied().unwrap_or("unknown"),
    }
}

/// An intercepted function (not a pseudo record).
pub fn is_function(id: u8) -> bool {
    (id as usize) < FUNC_NAMES.len()
}

/// The role of a cell of this id.
pub fn role(id: u8) -> Role {
    match id {
        BURST_GAP => Role::BurstGap,
        _ => FUNC_ROLES.get(id as usize).copied().unwrap_or(Role::Other),
    }
}

const fn starts_with(s: &str, prefix: &str) -> bool {
    let (s, p) = (s.as_bytes(), prefix.as_bytes());
    if s.len() < p.len() {
        return false;
    }
    let mut i = 0;
    while i < p.len() {
        if s[i] != p[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The neighbourhood collectives (MPI 4.0 §8.6) by id: each member waits only for its
/// in-neighbours, so the waits' sample numbers them on their topology and keeps the
/// rank's neighbours (`record::neighbours`) (built from the table's names at compile
/// time: one load on the hot path).
static NEIGHBORHOOD: [bool; MAX_FUNCS] = {
    let mut t = [false; MAX_FUNCS];
    let mut i = 0;
    while i < FUNC_NAMES.len() {
        t[i] = starts_with(FUNC_NAMES[i], "MPI_Neighbor_")
            || starts_with(FUNC_NAMES[i], "MPI_Ineighbor_");
        i += 1;
    }
    t
};

/// A neighbourhood collective (blocking, nonblocking or persistent, any count width).
#[inline(always)]
pub fn is_neighborhood(id: u8) -> bool {
    NEIGHBORHOOD[id as usize]
}

impl Func {
    #[inline(always)]
    pub const fn id(self) -> u8 {
        self as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbourhood_collectives_are_known_by_id() {
        let id = |n: &str| FUNC_NAMES.iter().position(|x| *x == n).unwrap() as u8;
        assert!(is_neighborhood(id("MPI_Neighbor_alltoallv")));
        assert!(is_neighborhood(id("MPI_Ineighbor_allgather")));
        assert!(!is_neighborhood(id("MPI_Allgather")));
        assert!(!is_neighborhood(id("MPI_Iallgather")));
        assert!(!is_neighborhood(REQ_COMPLETED));
        let n = (0..FUNC_NAMES.len() as u8)
            .filter(|&i| is_neighborhood(i))
            .count();
        assert!(n >= 10, "{n}");
    }

    #[test]
    fn ids_names_and_roles_agree() {
        assert_eq!(FUNC_NAMES.len(), FUNC_ROLES.len());
        assert_eq!(FUNC_NAMES.len(), FUNC_MODES.len());
        assert_eq!(name(Func::MPI_Send.id()), "MPI_Send");
        assert_eq!(role(Func::MPI_Send.id()), Role::Initiates);
        assert_eq!(FUNC_MODES[Func::MPI_Issend.id() as usize], Mode::Issend);
        assert_eq!(role(Func::MPI_Waitall.id()), Role::Completes);
        assert_eq!(role(BURST_GAP), Role::BurstGap);
        assert_eq!(name(REQ_FREED), "request_freed");
        let mut names = FUNC_NAMES.to_vec();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), FUNC_NAMES.len(), "a function is listed twice");
    }
}
