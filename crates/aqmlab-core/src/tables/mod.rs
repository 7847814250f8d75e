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

    fn str(self, name: &str, values: impl IntoIterator<Item = impl AsRef<str>>) -> Self {
        self.column(name, Arc::new(StringArray::from_iter_values(values)))
    }

    fn int<'a, T: Copy + Into<u64> + 'a>(self, name: &str, values: impl IntoIterator<Item = &'a T>) -> Self {
        let values = values.into_iter().map(|&v| v.into() as i64);
        self.column(name, Arc::new(Int64Array::from_iter_values(values)))
    }

    fn float<'a>(self, name: &str, values: impl IntoIterator<Item = &'a f64>) -> Self {
        self.column(name, Arc::new(Float64Array::from_iter_values(values.into_iter().copied())))
    }

    /// The counters of a link direction (or of one class at it), in `ClassCounters`' order.
    fn counters<'a>(self, rows: impl Iterator<Item = &'a ClassCounters> + Clone) -> Self {
        let c = |f: fn(&ClassCounters) -> &u64| rows.clone().map(f);
        self.int("arrivals", c(|c| &c.arrivals))
            .int("arrival_bytes", c(|c| &c.arrival_bytes))
            .int("departures", c(|c| &c.departures))
            .int("departure_bytes", c(|c| &c.departure_bytes))
            .int("drops_overflow", c(|c| &c.drops_overflow))
            .int("drops_early", c(|c| &c.drops_early))
            .int("drops_not_ect", c(|c| &c.drops_not_ect))
            .int("drops_error", c(|c| &c.drops_error))
            .int("drop_bytes", c(|c| &c.drop_bytes))
            .int("marks", c(|c| &c.marks))
    }

    fn batch(self) -> RecordBatch {
        RecordBatch::try_new(Arc::new(Schema::new(self.fields)), self.arrays).expect("columns of one length")
    }
}

/// A table's columns, each `kind field`: a column named as the field, made by the [`Columns`] method
/// `kind` (`str`, `int`, `float`; `counters` puts a `ClassCounters` field's columns in its place).
/// `rows R; ...` reads each row of the slice `R` (row records); `columns C; ...` each vector field of
/// `C` (column-wise records), where `kind field in names` writes `names[i]` for each index `i`.
macro_rules! table {
    (@column $c:ident, counters, $field:ident, $values:expr) => { $c.counters($values) };
    (@column $c:ident, $kind:ident, $field:ident, $values:expr) => { $c.$kind(stringify!($field), $values) };
    (@values $column:expr) => { $column.iter() };
    (@values $column:expr, $names:expr) => { $column.iter().map(|&i| &$names[i as usize]) };

    (rows $rows:expr; $($kind:ident $field:ident),* $(,)?) => {{
        let mut c = Columns::default();
        $(c = table!(@column c, $kind, $field, $rows.iter().map(|r| &r.$field));)*
        c.batch()
    }};
    (columns $cols:expr; $($kind:ident $field:ident $(in $names:expr)?),* $(,)?) => {{
        let mut c = Columns::default();
        $(c = table!(@column c, $kind, $field, table!(@values $cols.$field $(, $names)?));)*
        c.batch()
    }};
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
    table!(rows rows;
        str link,
        str from,
        str to,
        str queue,
        int rate_bps,
        float delay_s,
        counters counters,
        int drops,
        float loss_rate,
        float utilization,
        float q_mean_pkts,
        float q_std_pkts,
        float q_max_pkts,
        float q_mean_bytes,
        float q_std_bytes,
        float q_sample_mean_pkts,
        float q_sample_std_pkts,
        int q_samples,
        float sojourn_mean_s,
        float sojourn_p50_s,
        float sojourn_p90_s,
        float sojourn_p99_s,
        float sojourn_max_s,
        str queue_state,
    )
}

pub fn link_classes(rows: &[LinkClassRow]) -> RecordBatch {
    table!(rows rows;
        str link,
        str class,
        counters counters,
        int drops,
        float loss_rate,
    )
}

pub fn flows(rows: &[FlowRow]) -> RecordBatch {
    table!(rows rows;
        int flow,
        str group,
        str class,
        str kind,
        str src,
        str dst,
        float start_s,
        int bytes_delivered,
        float goodput_bps,
        int packets_sent,
        int retransmits,
        int timeouts,
        int timeouts_after_ecn,
        int fast_retransmits,
        int ecn_reductions,
        float srtt_s,
        float cwnd,
        float owd_mean_s,
        float owd_min_s,
        float owd_max_s,
        float jitter_s,
        int transfer_bytes,
        float transfer_end_s,
        float fct_s,
    )
}

pub fn classes(rows: &[ClassRow]) -> RecordBatch {
    table!(rows rows;
        str class,
        int packets_sent,
        int bytes_sent,
        int drops,
        float loss_rate,
        int marks,
    )
}

pub fn generators(rows: &[GeneratorRow]) -> RecordBatch {
    table!(rows rows;
        str generator,
        str class,
        int connections_started,
        int connections_finished,
        int connections_open,
        int pairs_planned,
        int retransmits,
        int timeouts,
        int timeouts_after_ecn,
    )
}

pub fn responses(rows: &[ResponseRow]) -> RecordBatch {
    table!(rows rows;
        str class,
        int pairs,
        int incomplete,
        float mean_s,
        float p10_s,
        float p50_s,
        float p90_s,
        float p99_s,
        int request_bytes,
        int response_bytes,
    )
}

/// The open-ended top bin's `hi_s` is infinity.
pub fn response_bins(b: &ResponseBins) -> RecordBatch {
    table!(columns b;
        str class,
        float lo_s,
        float hi_s,
        int count,
    )
}

/// `link` indexes `link_names`, the model's link directions.
pub fn queue_samples(q: &QueueSamples, link_names: &[String]) -> RecordBatch {
    table!(columns q;
        str link in link_names,
        float t,
        int q_pkts,
        int q_bytes,
        float sojourn_s,
    )
}

/// One row per state variable of a sampled link's discipline and sample; `link` indexes `link_names`.
pub fn aqm_samples(a: &AqmSamples, link_names: &[String]) -> RecordBatch {
    table!(columns a;
        str link in link_names,
        float t,
        str variable,
        float value,
    )
}

pub fn cwnd_trace(c: &CwndTrace) -> RecordBatch {
    table!(columns c;
        int flow,
        float t,
        float cwnd,
        float ssthresh,
        int timeouts,
    )
}

pub fn flow_series(s: &FlowSeries) -> RecordBatch {
    table!(columns s;
        int flow,
        float t,
        int bytes_delivered,
    )
}

/// `generator` indexes `names`, the `[[web_users]]` generators.
pub fn user_series(s: &UserSeries, names: &[String]) -> RecordBatch {
    table!(columns s;
        str generator in names,
        float t,
        int waiting,
        int thinking,
    )
}

/// One row per link direction and statistics window (`measure.window`); `link` indexes `link_names`.
pub fn window_links(w: &WindowLinks, link_names: &[String]) -> RecordBatch {
    table!(columns w;
        str link in link_names,
        float t_start,
        float t_end,
        int arrivals,
        int drops,
        int marks,
        int departure_bytes,
    )
}

/// One row per traffic class and statistics window in which it completed pairs; `class` indexes
/// `class_names`.
pub fn window_responses(w: &WindowResponses, class_names: &[String]) -> RecordBatch {
    table!(columns w;
        str class in class_names,
        float t_start,
        float t_end,
        int pairs,
        float mean_s,
        float p50_s,
        float p90_s,
        float p99_s,
    )
}

/// `class` indexes `class_names`, the model's traffic classes.
pub fn pairs(p: &PairColumns, class_names: &[String]) -> RecordBatch {
    table!(columns p;
        str class in class_names,
        int connection,
        int index,
        float start_s,
        float end_s,
        float response_time_s,
        int request_bytes,
        int response_bytes,
    )
}
