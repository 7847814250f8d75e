//! Traffic generators: the applications that drive TCP connections and UDP flows.

pub mod app;
pub mod packmime;
pub mod udp;
pub mod web_users;
