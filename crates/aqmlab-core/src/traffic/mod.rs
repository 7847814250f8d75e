//! Traffic generators: the applications that drive TCP connections (one file each, behind
//! [`app::Application`]), UDP sources, and the generators that open connections (PackMime-HTTP, web
//! users). A kind of `[[flows]]` group lives in its traffic model's file: its table (`flow_group!`), the
//! check that turns it into the model's [`Traffic`](crate::scenario::build::Traffic), and its
//! application; `scenario/flow_group.rs` registers it with one line.

pub mod app;
pub mod bulk;
pub mod empirical;
pub mod files;
pub mod http;
pub mod http_trace;
pub mod packmime;
pub mod udp;
pub mod web_users;
