//! aqmlab-core: a packet-level discrete-event simulator for active queue management studies.
//!
//! Time is an integer count of nanoseconds; every random number comes from a stream derived from the run
//! seed and the component that uses it; packets live in a slab. See `README.md` for the scenario format.

pub mod aqm;
pub mod net;
pub mod sim;
pub mod traffic;
