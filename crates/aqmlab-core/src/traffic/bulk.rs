//! Bulk transfer (`tcp_bulk`): the client sends `bytes` (forever if absent) and closes; the server
//! closes when the client has.

use super::app::{AppCtx, AppModel, Application};
use crate::scenario::build::{GroupCx, Traffic};
use crate::scenario::flow_group::{flow_group, GroupKind};
use crate::scenario::units::Bytes;
use crate::scenario::ScenarioError;
use crate::sim::Rng;
use std::sync::Arc;

flow_group! {
    /// A `tcp_bulk` group.
    pub struct BulkGroup {
        /// TCP options overriding the top-level `[tcp]` table.
        pub tcp: Option<toml::Table>,
        /// Bytes to send; absent = unlimited.
        pub bytes: Option<Bytes>,
    }
}

impl GroupKind for BulkGroup {
    fn traffic(&self, cx: &mut GroupCx) -> Result<Traffic, ScenarioError> {
        let app = Arc::new(Bulk { bytes: self.bytes.map(|b| b.0) });
        Ok(Traffic::Tcp { tcp: cx.tcp(&self.tcp)?, app })
    }
}

#[derive(Clone, Debug)]
pub struct Bulk {
    pub bytes: Option<u64>,
}

impl AppModel for Bulk {
    fn open(&self, _stream: &dyn Fn(&str) -> Rng) -> Box<dyn Application> {
        Box::new(self.clone())
    }

    fn bytes(&self) -> Option<u64> {
        self.bytes
    }
}

impl Application for Bulk {
    fn start(&mut self, cx: &mut AppCtx) {
        cx.writes.push((0, self.bytes.unwrap_or(u64::MAX / 4)));
        if self.bytes.is_some() {
            cx.closes.push(0);
        }
    }

    /// A bulk sink ignores the data it receives.
    fn delivered(&mut self, _side: usize, _bytes: u64, _cx: &mut AppCtx) {}

    fn reads_data(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finite_transfer_writes_its_bytes_and_closes() {
        let mut cx = AppCtx::default();
        Bulk { bytes: Some(5000) }.start(&mut cx);
        assert_eq!((cx.writes.as_slice(), cx.closes.as_slice()), (&[(0, 5000)][..], &[0][..]));
        cx.reset(0, 0, 0);
        Bulk { bytes: None }.start(&mut cx);
        assert!(cx.closes.is_empty(), "an unlimited transfer never closes");
        // The server closes once the client has.
        cx.reset(0, 0, 0);
        Bulk { bytes: None }.peer_closed(1, &mut cx);
        assert_eq!(cx.closes, [1]);
    }
}
