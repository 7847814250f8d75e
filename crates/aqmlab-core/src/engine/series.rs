//! The per-flow throughput series (`measure.flow_series`): at every sample after the warm-up, the bytes
//! each flow's receiver got since the previous sample. Its rows stream to the record sink in batches.

use super::flows::FlowState;
use super::{Batch, Simulation, RECORD_BATCH};
use crate::metrics::FlowSeries;
use crate::sim::{time, Time};

/// The rows not yet handed on, and where the next interval starts.
pub(super) struct FlowSeriesState {
    rows: FlowSeries,
    /// Per static flow: bytes delivered by the previous sample.
    last: Vec<u64>,
    /// Time of the previous sample.
    pub at: Time,
}

impl FlowSeriesState {
    pub fn new(flows: usize) -> Self {
        FlowSeriesState { rows: FlowSeries::default(), last: vec![0; flows], at: 0 }
    }

    /// The rows, leaving none.
    pub fn take(&mut self) -> FlowSeries {
        std::mem::take(&mut self.rows)
    }
}

impl Simulation<'_> {
    /// Bytes delivered so far to static flow `f`'s receiver, counted as `bytes_delivered` counts them
    /// (TCP: in order to the application; UDP: datagrams received in the window).
    fn delivered_so_far(&self, f: usize) -> u64 {
        match &self.flows[f].state {
            FlowState::Tcp { conn, .. } => conn.ends[1].stats().bytes_delivered,
            FlowState::Udp(u) => u.bytes_received,
            FlowState::Free => 0,
        }
    }

    /// A row per flow with the bytes delivered since the previous sample; the sample at the warm-up's
    /// end only sets where counting starts.
    pub(super) fn sample_flows(&mut self) {
        let t = time::to_secs(self.now);
        let in_window = self.now > self.model.warmup;
        for f in 0..self.model.flows.len() {
            let total = self.delivered_so_far(f);
            let s = &mut self.series;
            if in_window {
                s.rows.flow.push(f as u32);
                s.rows.t.push(t);
                s.rows.bytes_delivered.push(total - s.last[f]);
            }
            s.last[f] = total;
        }
        self.series.at = self.now;
        if self.sink.is_some() && self.series.rows.len() >= RECORD_BATCH {
            self.flush_flow_series();
        }
    }

    pub(super) fn flush_flow_series(&mut self) {
        if let Some(sink) = self.sink.as_mut() {
            if !self.series.rows.is_empty() {
                sink(Batch::FlowSeries(&self.series.take()));
            }
        }
    }
}
