//! Streaming measurements: per-link counters by traffic class, exact time-weighted queue statistics,
//! queueing delays, per-flow one-way delays, periodic queue and throughput samples, and the result
//! tables a run returns.
//!
//! Nothing here grows with simulated time except the optional sample, trace and window columns, whose
//! size the scenario chooses (sampled links or flows × duration / interval, links and classes × duration
//! / window).

/// Declares a column-wise record, `pub struct Name { column: T, ... }`: one `pub column: Vec<T>` per
/// column, all of one length, the n-th entries of which make the n-th row.
macro_rules! column_wise {
    (
        $(#[doc = $doc:expr])*
        pub struct $name:ident {
            $($(#[doc = $column_doc:expr])* $column:ident: $ty:ty,)*
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Clone, Debug, Default, serde::Serialize)]
        pub struct $name {
            $($(#[doc = $column_doc])* pub $column: Vec<$ty>,)*
        }
    };
}

pub mod histogram;
pub mod ks;
pub mod one_way;
pub mod response;
pub mod sojourn;

use crate::aqm::DropReason;
use crate::sim::{time, Time};
use serde::Serialize;

/// Exact time averages (and second moments) of `N` piecewise-constant integer signals that change at
/// the same instants, such as a queue's length in packets and in bytes. The integrals are kept in
/// integers, so they do not depend on how often the signals are reported: setting unchanged values is
/// a no-op, which the links rely on (they report after every queue operation).
#[derive(Clone, Debug)]
pub struct TimeWeighted<const N: usize> {
    values: [u64; N],
    last: Time,
    start: Time,
    /// ∫ value dt and ∫ value² dt in value·ns, per signal.
    area: [u128; N],
    area2: [u128; N],
    max: [u64; N],
}

impl<const N: usize> Default for TimeWeighted<N> {
    fn default() -> Self {
        TimeWeighted { values: [0; N], last: 0, start: 0, area: [0; N], area2: [0; N], max: [0; N] }
    }
}

impl<const N: usize> TimeWeighted<N> {
    /// The signals change to `values` at `now`.
    #[inline]
    pub fn set(&mut self, now: Time, values: [u64; N]) {
        if values != self.values {
            self.advance(now);
            self.values = values;
            for (m, v) in self.max.iter_mut().zip(values) {
                *m = (*m).max(v);
            }
        }
    }

    fn advance(&mut self, now: Time) {
        let dt = now - self.last;
        for i in 0..N {
            let v = self.values[i];
            // Products of two u64s widened to u128 (one multiplication each); v² fits a u64 for any
            // queue below 4 GiB, and the general product covers the rest.
            self.area[i] += v as u128 * dt as u128;
            self.area2[i] += match v.checked_mul(v) {
                Some(v2) => v2 as u128 * dt as u128,
                None => v as u128 * v as u128 * dt as u128,
            };
        }
        self.last = now;
    }

    /// Forgets everything before `now` (the end of the warm-up).
    pub fn restart(&mut self, now: Time) {
        self.last = now;
        self.start = now;
        self.area = [0; N];
        self.area2 = [0; N];
        self.max = self.values;
    }

    /// (mean, standard deviation, max) of signal `i` over [restart time, now].
    pub fn stats(&self, now: Time, i: usize) -> (f64, f64, f64) {
        let mut s = self.clone();
        s.advance(now);
        let span = (now - s.start) as f64;
        if span <= 0.0 {
            return (s.values[i] as f64, 0.0, s.values[i] as f64);
        }
        let mean = s.area[i] as f64 / span;
        let var = (s.area2[i] as f64 / span - mean * mean).max(0.0);
        (mean, var.sqrt(), s.max[i] as f64)
    }
}

/// A queue's length over time: signal 0 counts waiting packets, signal 1 their bytes.
pub type QueueLength = TimeWeighted<2>;

/// Packet and byte counters of one traffic class at one link direction.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ClassCounters {
    pub arrivals: u64,
    pub arrival_bytes: u64,
    pub departures: u64,
    pub departure_bytes: u64,
    /// Buffer overflow ("forced") drops.
    pub drops_overflow: u64,
    /// Early (AQM) drops of packets the AQM chose to drop.
    pub drops_early: u64,
    /// Early drops of non-ECN-capable packets the AQM would have marked.
    pub drops_not_ect: u64,
    /// Losses of the link's error model (before the queue).
    pub drops_error: u64,
    pub drop_bytes: u64,
    pub marks: u64,
}

impl ClassCounters {
    pub fn drops(&self) -> u64 {
        self.drops_overflow + self.drops_early + self.drops_not_ect + self.drops_error
    }

    pub fn count_drop(&mut self, reason: DropReason, bytes: u32) {
        match reason {
            DropReason::Overflow => self.drops_overflow += 1,
            DropReason::Early => self.drops_early += 1,
            DropReason::NotEct => self.drops_not_ect += 1,
        }
        self.drop_bytes += bytes as u64;
    }

    fn add(&mut self, o: &ClassCounters) {
        self.arrivals += o.arrivals;
        self.arrival_bytes += o.arrival_bytes;
        self.departures += o.departures;
        self.departure_bytes += o.departure_bytes;
        self.drops_overflow += o.drops_overflow;
        self.drops_early += o.drops_early;
        self.drops_not_ect += o.drops_not_ect;
        self.drops_error += o.drops_error;
        self.drop_bytes += o.drop_bytes;
        self.marks += o.marks;
    }
}

impl ClassCounters {
    /// The sum over classes.
    pub fn total<'a>(by_class: impl IntoIterator<Item = &'a ClassCounters>) -> ClassCounters {
        let mut t = ClassCounters::default();
        for c in by_class {
            t.add(c);
        }
        t
    }
}

/// One row of the `links` table.
#[derive(Clone, Debug, Serialize)]
pub struct LinkRow {
    pub link: String,
    pub from: String,
    pub to: String,
    pub queue: String,
    pub rate_bps: u64,
    pub delay_s: f64,
    #[serde(flatten)]
    pub counters: ClassCounters,
    pub drops: u64,
    /// Drops ÷ arrivals.
    pub loss_rate: f64,
    /// Bits put on the wire ÷ (rate × measurement window).
    pub utilization: f64,
    /// Time-weighted mean / std / max of waiting packets and bytes over the window.
    pub q_mean_pkts: f64,
    pub q_std_pkts: f64,
    pub q_max_pkts: f64,
    pub q_mean_bytes: f64,
    pub q_std_bytes: f64,
    /// Mean / std of the periodic samples (NaN when the link is not sampled).
    pub q_sample_mean_pkts: f64,
    pub q_sample_std_pkts: f64,
    pub q_samples: u64,
    /// Queueing delay of the packets transmitted in the window (arrival in the queue to start of
    /// transmission), seconds: mean, quantiles (from 2.3%-wide bins) and max; NaN when none.
    pub sojourn_mean_s: f64,
    pub sojourn_p50_s: f64,
    pub sojourn_p90_s: f64,
    pub sojourn_p99_s: f64,
    pub sojourn_max_s: f64,
    /// The discipline's internal state at the end (e.g. `avg=31.2 p=0.01`).
    pub queue_state: String,
}

/// One row of the `link_classes` table.
#[derive(Clone, Debug, Serialize)]
pub struct LinkClassRow {
    pub link: String,
    pub class: String,
    #[serde(flatten)]
    pub counters: ClassCounters,
    pub drops: u64,
    pub loss_rate: f64,
}

/// One row of the `flows` table.
#[derive(Clone, Debug, Serialize)]
pub struct FlowRow {
    pub flow: u32,
    pub group: String,
    pub class: String,
    pub kind: String,
    pub src: String,
    pub dst: String,
    pub start_s: f64,
    /// Payload bytes delivered in order to the receiving application in the window.
    pub bytes_delivered: u64,
    pub goodput_bps: f64,
    pub packets_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    /// Timeouts after an ECN reduction that left ssthresh alone (ns-2's `nrexmit_` = timeouts − these).
    pub timeouts_after_ecn: u64,
    pub fast_retransmits: u64,
    pub ecn_reductions: u64,
    /// Smoothed RTT at the end (TCP), seconds.
    pub srtt_s: f64,
    pub cwnd: f64,
    /// One-way delay of the data packets delivered in the window (sent by the source to delivered at
    /// the destination), seconds, and their RFC 3550 interarrival jitter; NaN when none.
    pub owd_mean_s: f64,
    pub owd_min_s: f64,
    pub owd_max_s: f64,
    pub jitter_s: f64,
    /// A finite `tcp_bulk` transfer: its size, when its last byte reached the receiver and the flow
    /// completion time (from `start_s`, handshake included); 0 and NaN for other flows or while
    /// incomplete.
    pub transfer_bytes: u64,
    pub transfer_end_s: f64,
    pub fct_s: f64,
}

column_wise! {
    /// Queue-length samples of the sampled links, column-wise.
    pub struct QueueSamples {
        link: u32,
        t: f64,
        q_pkts: u32,
        q_bytes: u64,
        /// Queueing delay of the last packet whose transmission started by `t` (0 before any).
        sojourn_s: f64,
    }
}

column_wise! {
    /// The sampled links' discipline state at every queue sample, long-format: a row per state variable
    /// (see `QueueDisc::state`); none for disciplines without state, such as drop-tail.
    pub struct AqmSamples {
        link: u32,
        t: f64,
        variable: &'static str,
        value: f64,
    }
}

impl AqmSamples {
    pub fn len(&self) -> usize {
        self.link.len()
    }

    pub fn is_empty(&self) -> bool {
        self.link.is_empty()
    }
}

column_wise! {
    /// Per `[[web_users]]` generator and sample (with `measure.user_series`), column-wise: its users fetching
    /// a page and thinking (before their first page too); users past the generator's `stop` are in neither.
    pub struct UserSeries {
        /// Index into `RunResult::user_series_names`.
        generator: u32,
        t: f64,
        waiting: u32,
        thinking: u32,
    }
}

column_wise! {
    /// Bytes delivered to each flow's receiver per sample interval (with `measure.flow_series`),
    /// column-wise: a row at the end of each interval after the warm-up, and one at the end of the run for
    /// a last, shorter interval.
    pub struct FlowSeries {
        flow: u32,
        t: f64,
        bytes_delivered: u64,
    }
}

impl FlowSeries {
    pub fn len(&self) -> usize {
        self.flow.len()
    }

    pub fn is_empty(&self) -> bool {
        self.flow.is_empty()
    }
}

column_wise! {
    /// Per link direction and statistics window (`measure.window`), column-wise: the link's counters in
    /// the window (differences of the counters of the `links` table at the window's two ends).
    pub struct WindowLinks {
        /// Index into the model's link directions.
        link: u32,
        t_start: f64,
        t_end: f64,
        arrivals: u64,
        /// Every drop (overflow, early, not-ECT, error model), as the `links` table's `drops`.
        drops: u64,
        marks: u64,
        departure_bytes: u64,
    }
}

impl WindowLinks {
    pub fn len(&self) -> usize {
        self.link.len()
    }

    pub fn is_empty(&self) -> bool {
        self.link.is_empty()
    }
}

column_wise! {
    /// Per traffic class and statistics window (`measure.window`) in which the class completed pairs,
    /// column-wise: the pairs completed in the window, counted as the `responses` table counts them, and
    /// their response times.
    pub struct WindowResponses {
        /// Index into the model's traffic classes.
        class: u16,
        t_start: f64,
        t_end: f64,
        pairs: u64,
        mean_s: f64,
        p50_s: f64,
        p90_s: f64,
        p99_s: f64,
    }
}

impl WindowResponses {
    pub fn len(&self) -> usize {
        self.class.len()
    }

    pub fn is_empty(&self) -> bool {
        self.class.is_empty()
    }
}

/// Congestion-window trace of the traced flows, column-wise.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CwndTrace {
    pub flow: Vec<u32>,
    pub t: Vec<f64>,
    pub cwnd: Vec<f64>,
    pub ssthresh: Vec<f64>,
    /// Retransmission timeouts so far (a row is also written when only this changes).
    pub timeouts: Vec<u64>,
    /// Per traced flow, its latest (cwnd, ssthresh, timeouts), kept when the rows are handed on.
    #[serde(skip)]
    last: std::collections::HashMap<u32, (f64, f64, u64)>,
}

impl CwndTrace {
    /// Appends a row for `flow` unless nothing changed since its previous row.
    pub fn record(&mut self, flow: u32, now: Time, cwnd: f64, ssthresh: f64, timeouts: u64) {
        if self.last.insert(flow, (cwnd, ssthresh, timeouts)) == Some((cwnd, ssthresh, timeouts)) {
            return;
        }
        self.flow.push(flow);
        self.t.push(time::to_secs(now));
        self.cwnd.push(cwnd);
        self.ssthresh.push(ssthresh);
        self.timeouts.push(timeouts);
    }

    pub fn len(&self) -> usize {
        self.flow.len()
    }

    pub fn is_empty(&self) -> bool {
        self.flow.is_empty()
    }

    /// Moves the rows out (to a record sink), keeping what `record` compares with.
    pub fn take_rows(&mut self) -> CwndTrace {
        CwndTrace {
            flow: std::mem::take(&mut self.flow),
            t: std::mem::take(&mut self.t),
            cwnd: std::mem::take(&mut self.cwnd),
            ssthresh: std::mem::take(&mut self.ssthresh),
            timeouts: std::mem::take(&mut self.timeouts),
            last: Default::default(),
        }
    }
}

impl QueueSamples {
    pub fn len(&self) -> usize {
        self.link.len()
    }

    pub fn is_empty(&self) -> bool {
        self.link.is_empty()
    }
}

/// Packets of one traffic class, over every link: sent by sources, dropped anywhere.
#[derive(Clone, Debug, Serialize)]
pub struct ClassRow {
    pub class: String,
    pub packets_sent: u64,
    pub bytes_sent: u64,
    /// Drops of this class at every queue and error model.
    pub drops: u64,
    /// drops ÷ packets sent.
    pub loss_rate: f64,
    pub marks: u64,
}

/// Connections of one PackMime generator.
#[derive(Clone, Debug, Serialize)]
pub struct GeneratorRow {
    pub generator: String,
    pub class: String,
    /// Connections opened during the whole run / closed / still open at the end.
    pub connections_started: u64,
    pub connections_finished: u64,
    pub connections_open: u64,
    /// Request/response pairs planned on the started connections.
    pub pairs_planned: u64,
    /// Over the whole run, both ends of every connection: segments sent again, retransmission
    /// timeouts, and the timeouts among them that followed an ECN reduction (see `FlowRow`).
    pub retransmits: u64,
    pub timeouts: u64,
    pub timeouts_after_ecn: u64,
}

/// Run-level facts.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub name: String,
    pub seed: u64,
    pub duration_s: f64,
    pub warmup_s: f64,
    pub aqmlab_version: String,
    pub events: u64,
    /// Packets put on the wire by all links over the whole run.
    pub link_forwards: u64,
    /// Most packets alive at once (slab high-water mark).
    pub packets_peak: u64,
    /// Connections and flows opened in the run.
    pub flows: u64,
    /// Flow slots ever in use at once (finished connections' slots are reused).
    pub flow_slots: u64,
    /// True when the run was stopped early by the caller (e.g. Ctrl-C).
    pub interrupted: bool,
    /// Why the run ended: "duration", "pairs" (the stop condition) or "interrupted".
    pub ended_by: String,
    pub end_s: f64,
    /// The scenario's warnings (legal but probably not meant), as `file:line: field: message`.
    pub warnings: Vec<String>,
}

/// Everything a run returns (written as Arrow record batches by `crate::tables`; as JSON, a whole run to
/// compare in tests).
#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    pub summary: Summary,
    pub links: Vec<LinkRow>,
    pub link_classes: Vec<LinkClassRow>,
    pub flows: Vec<FlowRow>,
    /// `link` indexes the model's links.
    pub queue_samples: QueueSamples,
    /// `link` indexes the model's links.
    pub aqm_samples: AqmSamples,
    pub cwnd_trace: CwndTrace,
    pub flow_series: FlowSeries,
    /// Names of the `[[web_users]]` generators referenced by `user_series.generator`.
    pub user_series_names: Vec<String>,
    pub user_series: UserSeries,
    /// With `measure.window` and no record sink: `link` indexes the model's links.
    pub window_links: WindowLinks,
    /// With `measure.window` and no record sink: `class` indexes the model's classes.
    pub window_responses: WindowResponses,
    pub classes: Vec<ClassRow>,
    pub generators: Vec<GeneratorRow>,
    pub responses: Vec<response::ResponseRow>,
    pub response_bins: response::ResponseBins,
    /// Completed pairs, when `measure.pair_records` is on and no record sink took them.
    pub pairs: response::PairColumns,
}

/// Mean and standard deviation of a sample.
pub fn mean_std(xs: impl Iterator<Item = f64>) -> (f64, f64, u64) {
    let mut sums = Sums::default();
    for x in xs {
        sums.add(x);
    }
    sums.mean_std()
}

/// Running count, sum and sum of squares, for [`mean_std`] of values that are not kept.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sums {
    pub n: u64,
    pub s: f64,
    pub s2: f64,
}

impl Sums {
    pub fn add(&mut self, x: f64) {
        self.n += 1;
        self.s += x;
        self.s2 += x * x;
    }

    /// (mean, standard deviation, count); NaN, NaN, 0 when empty.
    pub fn mean_std(&self) -> (f64, f64, u64) {
        let Sums { n, s, s2 } = *self;
        if n == 0 {
            return (f64::NAN, f64::NAN, 0);
        }
        let m = s / n as f64;
        (m, (s2 / n as f64 - m * m).max(0.0).sqrt(), n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_weighted_mean_and_std_of_a_square_wave() {
        // 0 for 1 s, 2 for 1 s, 0 for 2 s: mean 0.5, E[x²] = 1, std = sqrt(1 - 0.25).
        let mut tw = TimeWeighted::<1>::default();
        tw.set(1_000_000_000, [2]);
        tw.set(2_000_000_000, [0]);
        let (m, s, max) = tw.stats(4_000_000_000, 0);
        assert!((m - 0.5).abs() < 1e-12);
        assert!((s - 0.75f64.sqrt()).abs() < 1e-12);
        assert_eq!(max, 2.0);
        // After a restart only later values count.
        tw.restart(4_000_000_000);
        tw.set(5_000_000_000, [4]);
        let (m, _, _) = tw.stats(6_000_000_000, 0);
        assert!((m - 2.0).abs() < 1e-12);
    }

    #[test]
    fn signals_sharing_a_clock_keep_their_own_integrals() {
        // Packets 0 → 3 → 1 and bytes 0 → 4500 → 1500 at 1 s and 3 s, read at 4 s.
        let mut q = QueueLength::default();
        q.set(1_000_000_000, [3, 4500]);
        q.set(3_000_000_000, [1, 1500]);
        let (m, s, max) = q.stats(4_000_000_000, 0);
        // Mean (0 + 6 + 1) / 4 = 1.75; E[x²] = (18 + 1) / 4 = 4.75.
        assert!((m - 1.75).abs() < 1e-12);
        assert!((s - (4.75f64 - 1.75 * 1.75).sqrt()).abs() < 1e-12);
        assert_eq!(max, 3.0);
        let (mb, _, maxb) = q.stats(4_000_000_000, 1);
        assert!((mb - 1500.0 * 1.75).abs() < 1e-9);
        assert_eq!(maxb, 4500.0);
    }
}
