//! The result tables: every table's columns and their types, defined once, here, as Arrow record
//! batches. [`folder::TableFiles`] writes them as a run folder's Parquet files, which Python reads;
//! to add a table, define it here and write it there.
//!
//! Counters are Int64 (Parquet and pandas have no unsigned default), times and ratios Float64 with
//! NaN and infinity as they are (never null), names Utf8.

pub mod folder;

use crate::metrics::response::{PairColumns, ResponseBins, ResponseRow};
use crate::metrics::{
    AqmSamples, ClassCounters, ClassRow, CwndTrace, FlowRow, FlowSeries, GeneratorRow, LinkClassRow, LinkRow,
    QueueSamples, RunResult, UserSeries, WindowLinks, WindowResponses,
};
use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{Field, Schema};
use std::sync::Arc;

/// A table being defined column by column, in order.
#[derive(Default)]
struct Columns {
    fields: Vec<Field>,
    arrays: Vec<ArrayRef>,
}

impl Columns {
    fn column(mut self, name: &str, array: ArrayRef) -> Self {
        self.fields.push(Field::new(name, array.data_type().clone(), true));
        self.arrays.push(array);
        self
    }

    fn str<'a>(self, name: &str, values: impl IntoIterator<Item = &'a str>) -> Self {
        self.column(name, Arc::new(StringArray::from_iter_values(values)))
    }

    fn int(self, name: &str, values: impl IntoIterator<Item = u64>) -> Self {
        self.column(name, Arc::new(Int64Array::from_iter_values(values.into_iter().map(|v| v as i64))))
    }

    fn float(self, name: &str, values: impl IntoIterator<Item = f64>) -> Self {
        self.column(name, Arc::new(Float64Array::from_iter_values(values)))
    }

    /// The counters of a link direction (or of one class at it), in `ClassCounters`' order.
    fn counters<'a>(self, rows: impl Iterator<Item = &'a ClassCounters> + Clone) -> Self {
        let c = |f: fn(&ClassCounters) -> u64| rows.clone().map(f);
        self.int("arrivals", c(|c| c.arrivals))
            .int("arrival_bytes", c(|c| c.arrival_bytes))
            .int("departures", c(|c| c.departures))
            .int("departure_bytes", c(|c| c.departure_bytes))
            .int("drops_overflow", c(|c| c.drops_overflow))
            .int("drops_early", c(|c| c.drops_early))
            .int("drops_not_ect", c(|c| c.drops_not_ect))
            .int("drops_error", c(|c| c.drops_error))
            .int("drop_bytes", c(|c| c.drop_bytes))
            .int("marks", c(|c| c.marks))
    }

    fn batch(self) -> RecordBatch {
        RecordBatch::try_new(Arc::new(Schema::new(self.fields)), self.arrays).expect("columns of one length")
    }
}

/// The tables written at the end of a run, by name, in the order of a run folder.
pub fn end_of_run(r: &RunResult) -> Vec<(&'static str, RecordBatch)> {
    vec![
        ("links", links(&r.links)),
        ("link_classes", link_classes(&r.link_classes)),
        ("flows", flows(&r.flows)),
        ("classes", classes(&r.classes)),
        ("generators", generators(&r.generators)),
        ("responses", responses(&r.responses)),
        ("response_bins", response_bins(&r.response_bins)),
        ("user_series", user_series(&r.user_series, &r.user_series_names)),
    ]
}

pub fn links(rows: &[LinkRow]) -> RecordBatch {
    let r = || rows.iter();
    Columns::default()
        .str("link", r().map(|l| l.link.as_str()))
        .str("from", r().map(|l| l.from.as_str()))
        .str("to", r().map(|l| l.to.as_str()))
        .str("queue", r().map(|l| l.queue.as_str()))
        .int("rate_bps", r().map(|l| l.rate_bps))
        .float("delay_s", r().map(|l| l.delay_s))
        .counters(r().map(|l| &l.counters))
        .int("drops", r().map(|l| l.drops))
        .float("loss_rate", r().map(|l| l.loss_rate))
        .float("utilization", r().map(|l| l.utilization))
        .float("q_mean_pkts", r().map(|l| l.q_mean_pkts))
        .float("q_std_pkts", r().map(|l| l.q_std_pkts))
        .float("q_max_pkts", r().map(|l| l.q_max_pkts))
        .float("q_mean_bytes", r().map(|l| l.q_mean_bytes))
        .float("q_std_bytes", r().map(|l| l.q_std_bytes))
        .float("q_sample_mean_pkts", r().map(|l| l.q_sample_mean_pkts))
        .float("q_sample_std_pkts", r().map(|l| l.q_sample_std_pkts))
        .int("q_samples", r().map(|l| l.q_samples))
        .float("sojourn_mean_s", r().map(|l| l.sojourn_mean_s))
        .float("sojourn_p50_s", r().map(|l| l.sojourn_p50_s))
        .float("sojourn_p90_s", r().map(|l| l.sojourn_p90_s))
        .float("sojourn_p99_s", r().map(|l| l.sojourn_p99_s))
        .float("sojourn_max_s", r().map(|l| l.sojourn_max_s))
        .str("queue_state", r().map(|l| l.queue_state.as_str()))
        .batch()
}

pub fn link_classes(rows: &[LinkClassRow]) -> RecordBatch {
    let r = || rows.iter();
    Columns::default()
        .str("link", r().map(|l| l.link.as_str()))
        .str("class", r().map(|l| l.class.as_str()))
        .counters(r().map(|l| &l.counters))
        .int("drops", r().map(|l| l.drops))
        .float("loss_rate", r().map(|l| l.loss_rate))
        .batch()
}

pub fn flows(rows: &[FlowRow]) -> RecordBatch {
    let r = || rows.iter();
    Columns::default()
        .int("flow", r().map(|f| u64::from(f.flow)))
        .str("group", r().map(|f| f.group.as_str()))
        .str("class", r().map(|f| f.class.as_str()))
        .str("kind", r().map(|f| f.kind.as_str()))
        .str("src", r().map(|f| f.src.as_str()))
        .str("dst", r().map(|f| f.dst.as_str()))
        .float("start_s", r().map(|f| f.start_s))
        .int("bytes_delivered", r().map(|f| f.bytes_delivered))
        .float("goodput_bps", r().map(|f| f.goodput_bps))
        .int("packets_sent", r().map(|f| f.packets_sent))
        .int("retransmits", r().map(|f| f.retransmits))
        .int("timeouts", r().map(|f| f.timeouts))
        .int("timeouts_after_ecn", r().map(|f| f.timeouts_after_ecn))
        .int("fast_retransmits", r().map(|f| f.fast_retransmits))
        .int("ecn_reductions", r().map(|f| f.ecn_reductions))
        .float("srtt_s", r().map(|f| f.srtt_s))
        .float("cwnd", r().map(|f| f.cwnd))
        .float("owd_mean_s", r().map(|f| f.owd_mean_s))
        .float("owd_min_s", r().map(|f| f.owd_min_s))
        .float("owd_max_s", r().map(|f| f.owd_max_s))
        .float("jitter_s", r().map(|f| f.jitter_s))
        .int("transfer_bytes", r().map(|f| f.transfer_bytes))
        .float("transfer_end_s", r().map(|f| f.transfer_end_s))
        .float("fct_s", r().map(|f| f.fct_s))
        .batch()
}

pub fn classes(rows: &[ClassRow]) -> RecordBatch {
    let r = || rows.iter();
    Columns::default()
        .str("class", r().map(|c| c.class.as_str()))
        .int("packets_sent", r().map(|c| c.packets_sent))
        .int("bytes_sent", r().map(|c| c.bytes_sent))
        .int("drops", r().map(|c| c.drops))
        .float("loss_rate", r().map(|c| c.loss_rate))
        .int("marks", r().map(|c| c.marks))
        .batch()
}

pub fn generators(rows: &[GeneratorRow]) -> RecordBatch {
    let r = || rows.iter();
    Columns::default()
        .str("generator", r().map(|g| g.generator.as_str()))
        .str("class", r().map(|g| g.class.as_str()))
        .int("connections_started", r().map(|g| g.connections_started))
        .int("connections_finished", r().map(|g| g.connections_finished))
        .int("connections_open", r().map(|g| g.connections_open))
        .int("pairs_planned", r().map(|g| g.pairs_planned))
        .batch()
}

pub fn responses(rows: &[ResponseRow]) -> RecordBatch {
    let r = || rows.iter();
    Columns::default()
        .str("class", r().map(|x| x.class.as_str()))
        .int("pairs", r().map(|x| x.pairs))
        .int("incomplete", r().map(|x| x.incomplete))
        .float("mean_s", r().map(|x| x.mean_s))
        .float("p10_s", r().map(|x| x.p10_s))
        .float("p50_s", r().map(|x| x.p50_s))
        .float("p90_s", r().map(|x| x.p90_s))
        .float("p99_s", r().map(|x| x.p99_s))
        .int("request_bytes", r().map(|x| x.request_bytes))
        .int("response_bytes", r().map(|x| x.response_bytes))
        .batch()
}

/// The open-ended top bin's `hi_s` is infinity.
pub fn response_bins(b: &ResponseBins) -> RecordBatch {
    Columns::default()
        .str("class", b.class.iter().map(String::as_str))
        .float("lo_s", b.lo_s.iter().copied())
        .float("hi_s", b.hi_s.iter().copied())
        .int("count", b.count.iter().copied())
        .batch()
}

/// `link` indexes `link_names`, the model's link directions.
pub fn queue_samples(q: &QueueSamples, link_names: &[String]) -> RecordBatch {
    Columns::default()
        .str("link", q.link.iter().map(|&l| link_names[l as usize].as_str()))
        .float("t", q.t.iter().copied())
        .int("q_pkts", q.q_pkts.iter().map(|&v| u64::from(v)))
        .int("q_bytes", q.q_bytes.iter().copied())
        .float("sojourn_s", q.sojourn_s.iter().copied())
        .batch()
}

/// One row per state variable of a sampled link's discipline and sample; `link` indexes `link_names`.
pub fn aqm_samples(a: &AqmSamples, link_names: &[String]) -> RecordBatch {
    Columns::default()
        .str("link", a.link.iter().map(|&l| link_names[l as usize].as_str()))
        .float("t", a.t.iter().copied())
        .str("variable", a.variable.iter().copied())
        .float("value", a.value.iter().copied())
        .batch()
}

pub fn cwnd_trace(c: &CwndTrace) -> RecordBatch {
    Columns::default()
        .int("flow", c.flow.iter().map(|&f| u64::from(f)))
        .float("t", c.t.iter().copied())
        .float("cwnd", c.cwnd.iter().copied())
        .float("ssthresh", c.ssthresh.iter().copied())
        .int("timeouts", c.timeouts.iter().copied())
        .batch()
}

pub fn flow_series(s: &FlowSeries) -> RecordBatch {
    Columns::default()
        .int("flow", s.flow.iter().map(|&f| u64::from(f)))
        .float("t", s.t.iter().copied())
        .int("bytes_delivered", s.bytes_delivered.iter().copied())
        .batch()
}

/// `generator` indexes `names`, the `[[web_users]]` generators.
pub fn user_series(s: &UserSeries, names: &[String]) -> RecordBatch {
    Columns::default()
        .str("generator", s.generator.iter().map(|&g| names[g as usize].as_str()))
        .float("t", s.t.iter().copied())
        .int("waiting", s.waiting.iter().map(|&n| u64::from(n)))
        .int("thinking", s.thinking.iter().map(|&n| u64::from(n)))
        .batch()
}

/// One row per link direction and statistics window (`measure.window`); `link` indexes `link_names`.
pub fn window_links(w: &WindowLinks, link_names: &[String]) -> RecordBatch {
    Columns::default()
        .str("link", w.link.iter().map(|&l| link_names[l as usize].as_str()))
        .float("t_start", w.t_start.iter().copied())
        .float("t_end", w.t_end.iter().copied())
        .int("arrivals", w.arrivals.iter().copied())
        .int("drops", w.drops.iter().copied())
        .int("marks", w.marks.iter().copied())
        .int("departure_bytes", w.departure_bytes.iter().copied())
        .batch()
}

/// One row per traffic class and statistics window in which it completed pairs; `class` indexes
/// `class_names`.
pub fn window_responses(w: &WindowResponses, class_names: &[String]) -> RecordBatch {
    Columns::default()
        .str("class", w.class.iter().map(|&c| class_names[c as usize].as_str()))
        .float("t_start", w.t_start.iter().copied())
        .float("t_end", w.t_end.iter().copied())
        .int("pairs", w.pairs.iter().copied())
        .float("mean_s", w.mean_s.iter().copied())
        .float("p50_s", w.p50_s.iter().copied())
        .float("p90_s", w.p90_s.iter().copied())
        .float("p99_s", w.p99_s.iter().copied())
        .batch()
}

/// `class` indexes `class_names`, the model's traffic classes.
pub fn pairs(p: &PairColumns, class_names: &[String]) -> RecordBatch {
    Columns::default()
        .str("class", p.class.iter().map(|&c| class_names[c as usize].as_str()))
        .int("connection", p.connection.iter().copied())
        .int("index", p.index.iter().map(|&i| u64::from(i)))
        .float("start_s", p.start_s.iter().copied())
        .float("end_s", p.end_s.iter().copied())
        .float("response_time_s", p.response_time_s.iter().copied())
        .int("request_bytes", p.request_bytes.iter().copied())
        .int("response_bytes", p.response_bytes.iter().copied())
        .batch()
}
