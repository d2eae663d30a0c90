//! The report's vocabulary, typed: how a message was sent or received (`Mode`) and where
//! its peer runs (`PeerClass`). The shim records them (`#[repr(u8)]`, in its cell keys),
//! the model and the tools compare them; in JSON they are the strings of the contract
//! (`shared/docs/report-schema.md`).
use serde::{Deserialize, Serialize};

macro_rules! vocabulary {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $v:ident = $n:literal,)* }) => {
        $(#[$doc])*
        #[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
        #[repr(u8)]
        pub enum $name {
            #[default]
            $($(#[$vdoc])* #[serde(rename = $n)] $v,)*
        }

        impl $name {
            /// Every value, in the order of their numbers.
            pub const ALL: &'static [$name] = &[$($name::$v,)*];
            /// The value of a number (`as u8`), the first where out of range.
            #[inline]
            pub fn from_u8(v: u8) -> $name {
                Self::ALL.get(v as usize).copied().unwrap_or(Self::ALL[0])
            }
            /// Its name in the report.
            pub fn name(self) -> &'static str {
                match self { $($name::$v => $n,)* }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        /// Compares with a report name (`mode == "send"`), as scripts and tests read it.
        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.name() == *other
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.name() == other
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                Self::ALL
                    .iter()
                    .copied()
                    .find(|x| x.name() == s)
                    .ok_or_else(|| format!("not a {}: {s:?}", stringify!($name)))
            }
        }
    };
}

vocabulary! {
    /// How a message was sent or received. Persistent requests count under the
    /// nonblocking mode they start; `none`: a call that moves no message (Wait, Probe).
    Mode {
        None = "none",
        Send = "send",
        Ssend = "ssend",
        Bsend = "bsend",
        Rsend = "rsend",
        Isend = "isend",
        Issend = "issend",
        Ibsend = "ibsend",
        Irsend = "irsend",
        Recv = "recv",
        Irecv = "irecv",
        Mrecv = "mrecv",
        Sendrecv = "sendrecv",
        /// MPI_Isendrecv and MPI_Isendrecv_replace (MPI 4.0 §3.10).
        Isendrecv = "isendrecv",
        /// A collective call (MPI 4.0 §6), blocking or not: its bytes are this rank's
        /// send and receive data as the standard defines them for the function.
        Collective = "collective",
    }
}

vocabulary! {
    /// Where the peer of a message runs, relative to the calling rank.
    PeerClass {
        /// Not known (a wildcard receive whose status was not visible, an unknown
        /// communicator).
        Unknown = "unknown",
        /// Its own rank.
        SelfRank = "self",
        IntraNode = "intra_node",
        InterNode = "inter_node",
        /// MPI_PROC_NULL: nothing is transferred.
        ProcNull = "proc_null",
    }
}

impl Mode {
    /// A mode that sends (the switch between eager and rendezvous is a sender's).
    pub fn is_send(self) -> bool {
        matches!(
            self,
            Mode::Send
                | Mode::Ssend
                | Mode::Bsend
                | Mode::Rsend
                | Mode::Isend
                | Mode::Issend
                | Mode::Ibsend
                | Mode::Irsend
        )
    }
    /// A blocking mode (its call is the whole operation; a nonblocking one also costs
    /// its completion).
    pub fn is_blocking(self) -> bool {
        matches!(
            self,
            Mode::Send | Mode::Ssend | Mode::Bsend | Mode::Rsend | Mode::Recv | Mode::Sendrecv
        )
    }
}

impl PeerClass {
    /// A class a message actually travels in (not PROC_NULL, not unknown).
    pub fn is_real(self) -> bool {
        matches!(
            self,
            PeerClass::SelfRank | PeerClass::IntraNode | PeerClass::InterNode
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_json_and_text() {
        for &m in Mode::ALL {
            let j = serde_json::to_string(&m).unwrap();
            assert_eq!(j, format!("\"{}\"", m.name()));
            assert_eq!(serde_json::from_str::<Mode>(&j).unwrap(), m);
            assert_eq!(m.name().parse::<Mode>().unwrap(), m);
            assert_eq!(Mode::from_u8(m as u8), m);
        }
        for &c in PeerClass::ALL {
            assert_eq!(c.name().parse::<PeerClass>().unwrap(), c);
            assert_eq!(PeerClass::from_u8(c as u8), c);
        }
        assert!("bogus".parse::<Mode>().is_err());
    }
}
