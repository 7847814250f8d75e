//! A resource estimate of a run, made before anything is allocated: how many flows, link directions,
//! packets in flight (at most), queue and AQM samples, window-trace rows, flow-series rows and windowed
//! statistics rows the run holds,
//! and the memory its in-memory tables need. [`load_checked`](crate::load_checked) refuses a scenario
//! whose estimate is over a [`Limit`] (by default half of the machine's memory), naming the setting to
//! change.
//!
//! The estimate is made twice: from the parsed scenario, before the model is built (so that
//! `count = 1000000000` is refused before a billion flows are allocated), and from the model, which
//! adds what needs routes and queue limits (packets in flight, window-trace rows) or the built
//! disciplines (AQM samples).

use crate::aqm::{Buffer, QueueConfig};
use crate::engine::RECORD_BATCH;
use crate::net::routing::ROUTE_END;
use crate::scenario::build::{Model, Traffic};
use crate::scenario::{locate, Scenario, ScenarioError};
use crate::topology;
use serde::Serialize;

/// Bytes per queue sample at the peak of a run through the Python front end: the engine's columns
/// (24 B), their JSON text, the decoded lists and the `queue_samples` DataFrame are alive at once.
/// Measured: a 100-flow dumbbell sampling its 402 link directions every 1 ms for 50 s (20.1 million
/// samples) peaks at 3.3 GB.
pub const QUEUE_SAMPLE_BYTES: u64 = 165;
/// Bytes per row of the window trace (five columns, the same path as the queue samples).
pub const CWND_ROW_BYTES: u64 = 220;
/// Bytes per flow: its model, its slot in the engine (two TCP endpoints) and its row of the `flows`
/// table (a JSON object, a Python dict, a DataFrame row).
pub const FLOW_BYTES: u64 = 4096;
/// Bytes per link direction: its model, queue, counters, queueing-delay histogram and row of the `links`
/// table.
pub const LINK_BYTES: u64 = 4096 + crate::metrics::sojourn::SOJOURN_BYTES;
/// Bytes per packet in flight: the packet in the arena and its event.
pub const PACKET_BYTES: u64 = std::mem::size_of::<crate::net::Packet>() as u64 + 32;
/// Bytes per row of a streamed table in its Parquet file, an upper bound (a 100-flow dumbbell's 20.1
/// million queue samples take 6.7 MB, 0.33 B each: most queues are empty most of the time).
pub const QUEUE_SAMPLE_FILE_BYTES: u64 = 8;
pub const CWND_ROW_FILE_BYTES: u64 = 16;
/// Bytes per row of the flow series (three columns, the same path as the queue samples) in memory and in
/// its file.
pub const FLOW_SERIES_ROW_BYTES: u64 = 165;
pub const FLOW_SERIES_ROW_FILE_BYTES: u64 = 8;
/// Bytes per row of the web users' series (four columns, kept in memory to the end), as a flow series
/// row.
pub const USER_SERIES_ROW_BYTES: u64 = FLOW_SERIES_ROW_BYTES;
/// Bytes per row of the windowed statistics (`window_links`: seven columns, `window_responses`: eight;
/// the same path as the queue samples, whose five columns take 165 B) in memory and in their files.
pub const WINDOW_ROW_BYTES: u64 = 260;
pub const WINDOW_ROW_FILE_BYTES: u64 = 32;
/// Bytes per packet record of a pcap capture in memory: its bytes in the engine's batch and their copy
/// handed to Python.
pub const PCAP_RECORD_BYTES: u64 = 2 * crate::engine::pcap::RECORD_FILE_BYTES;
/// The smallest packet (a TCP ACK), which bounds how many packets a wire or a byte-mode queue holds.
const MIN_PACKET_BYTES: f64 = 40.0;

/// The most memory a run's tables may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    pub bytes: u64,
    /// Whether the limit was given (`--max-memory`) rather than taken from the machine's memory.
    pub given: bool,
    /// Free space where streamed tables are written (see [`Estimate::of_scenario`]), if known.
    pub disk_free: Option<u64>,
}

impl Limit {
    /// Half of the machine's physical memory (`MemTotal` in /proc/meminfo; 8 GB where that cannot be
    /// read).
    pub fn machine_default() -> Limit {
        let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|t| mem_total(&t));
        Limit { bytes: total.unwrap_or(16_000_000_000) / 2, given: false, disk_free: None }
    }

    /// A limit of `bytes` set by the user.
    pub fn given(bytes: u64) -> Limit {
        Limit { bytes, given: true, disk_free: None }
    }

    fn describe(&self) -> String {
        let size = human_bytes(self.bytes);
        if self.given {
            format!("the memory limit of {size} (--max-memory)")
        } else {
            format!(
                "the memory limit of {size} (half of this machine's memory; --max-memory, or max_memory in \
                 the Python API, changes it)"
            )
        }
    }
}

/// `MemTotal` of a /proc/meminfo text, in bytes.
fn mem_total(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.trim_start_matches("MemTotal:").trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kb.saturating_mul(1024))
}

/// One table or store of the estimate.
#[derive(Clone, Debug, Serialize)]
pub struct Part {
    /// `"flows"`, `"link directions"`, `"packets in flight"`, `"queue samples"`, `"cwnd trace rows"`,
    /// `"flow series rows"`, `"window rows"`.
    pub what: &'static str,
    pub items: u64,
    /// Bytes per item.
    pub each: u64,
    /// Bytes in memory: every item, or one batch of a streamed table.
    pub bytes: u64,
    /// Whether the table streams to its file in batches of [`RECORD_BATCH`] rows.
    pub streamed: bool,
    /// Bytes in the file of a streamed table (0 for the others).
    pub file_bytes: u64,
    /// The scenario field that makes it large, e.g. `measure.sample_interval`.
    pub setting: String,
    /// What to change, for the refusal message.
    pub advice: String,
}

/// What a run holds; `parts` are its tables, `memory_bytes` what they hold in memory, `file_bytes`
/// what the streamed ones write (request/response pair records, which always stream to
/// `pairs.parquet`, are not among them).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Estimate {
    pub flows: u64,
    pub link_directions: u64,
    /// An upper bound: every queue full and every wire carrying back-to-back ACKs, or every TCP window
    /// full when all traffic is long-lived TCP (the smaller of the two).
    pub packets_in_flight: u64,
    pub sampled_links: u64,
    pub samples_per_link: u64,
    pub queue_samples: u64,
    /// Rows of `aqm_samples`: per sample, one per state variable of each sampled link's discipline.
    pub aqm_samples: u64,
    pub traced_flows: u64,
    /// An upper bound: one row per acknowledged segment at the flow's slowest link, and per timeout.
    pub cwnd_rows: u64,
    /// Rows of the flow series (`measure.flow_series`): one per flow and sample.
    pub flow_series_rows: u64,
    /// Rows of the web users' series (`measure.user_series`): one per `[[web_users]]` generator and sample.
    pub user_series_rows: u64,
    /// Statistics windows (`measure.window`), the last one possibly shorter.
    pub windows: u64,
    /// An upper bound on the rows of `window_links` and `window_responses`: per window, one per link
    /// direction and (once the model is built) one per traffic class.
    pub window_rows: u64,
    /// An upper bound on the packet records of the pcap captures (`measure.pcap`; streamed runs only):
    /// each captured direction busy all the window with the smallest packets.
    pub pcap_records: u64,
    /// Connections the HTTP generators open, on average.
    pub http_connections: u64,
    pub memory_bytes: u64,
    pub file_bytes: u64,
    pub parts: Vec<Part>,
}

impl Estimate {
    /// What can be told from the scenario alone, without allocating per flow or link: flows, link
    /// directions and queue samples. With `streamed`, the queue samples and the window trace go to a
    /// record sink in batches (as the Python front end runs), so only a batch of each is in memory.
    pub fn of_scenario(s: &Scenario, streamed: bool) -> Estimate {
        let builders = topology::builders(s);
        let mut biggest_group: Option<(u64, String)> = None;
        let mut flows = 0u64;
        for (g, group) in s.flows.iter().enumerate() {
            let group = group.common();
            let (n, field) = match (group.count, &group.between) {
                (Some(c), _) => (c as u64, format!("flows[{g}].count")),
                (None, Some(between)) => {
                    let key = between.split(':').next().unwrap_or_default();
                    match topology::between(s, between).and_then(|(b, spec)| b.pair_count(spec)) {
                        Ok((n, field)) => (n, format!("{key}.{field}")),
                        Err(_) => (0, format!("flows[{g}].between")), // the model says what is wrong
                    }
                }
                (None, None) => (1, format!("flows[{g}]")),
            };
            flows = flows.saturating_add(n);
            if biggest_group.as_ref().is_none_or(|(m, _)| n > *m) {
                biggest_group = Some((n, field));
            }
        }
        let links =
            builders.iter().map(|(_, b)| b.link_count()).fold(s.links.len() as u64, u64::saturating_add);
        let link_directions = links.saturating_mul(2);
        let sampled_links = if s.measure.sample_links.iter().any(|n| n == "all") {
            link_directions
        } else {
            s.measure.sample_links.len() as u64
        };
        let (duration, warmup, interval) = (s.duration.0, s.measure.warmup.0, s.measure.sample_interval.0);
        // A zero interval or a warm-up past the end is an error the model reports itself.
        let samples =
            if interval == 0 || warmup >= duration { 0 } else { (duration - warmup) / interval + 1 };
        let samples_per_link = if sampled_links == 0 { 0 } else { samples };
        let series_samples = if s.measure.flow_series { samples } else { 0 };
        let user_series_rows =
            if s.measure.user_series { (s.web_users.len() as u64).saturating_mul(samples) } else { 0 };
        // A zero window, or one longer than the measured period, is an error the model reports itself.
        let windows = match s.measure.window {
            Some(w) if w.0 > 0 && warmup < duration => (duration - warmup).div_ceil(w.0),
            _ => 0,
        };
        let http_connections = s
            .http
            .iter()
            .map(|h| {
                let stop = h.stop.map_or(s.duration.0, |d| d.0.min(s.duration.0));
                let active = stop.saturating_sub(h.start.0) as f64 * 1e-9;
                match h.rate {
                    Some(rate) if rate.is_finite() && rate > 0.0 => {
                        (rate * active).min(u64::MAX as f64) as u64
                    }
                    _ => 0,
                }
            })
            .fold(0u64, u64::saturating_add);
        let mut e = Estimate {
            flows,
            link_directions,
            sampled_links,
            samples_per_link,
            queue_samples: sampled_links.saturating_mul(samples_per_link),
            traced_flows: 0,
            flow_series_rows: flows.saturating_mul(series_samples),
            user_series_rows,
            windows,
            window_rows: link_directions.saturating_mul(windows),
            http_connections,
            ..Estimate::default()
        };
        if let Some((_, field)) = biggest_group {
            e.parts.push(part(
                "flows",
                flows,
                FLOW_BYTES,
                field,
                "use fewer flows (the `count` of a flow group, or the hosts of the builder a group is \
                 `between`: `dumbbell.pairs`, a `parking_lot.hosts` group)",
            ));
        }
        // The largest builder's size, if any: hosts outnumber the links written out.
        let biggest_builder = builders.iter().max_by_key(|(_, b)| b.link_count());
        let links_field = biggest_builder.map_or("links".into(), |(k, b)| format!("{k}.{}", b.size_field()));
        e.parts.push(part(
            "link directions",
            link_directions,
            LINK_BYTES,
            links_field,
            "use fewer links (the [[links]] list, `dumbbell.pairs` or the `parking_lot` hosts)",
        ));
        if e.queue_samples > 0 {
            e.parts.push(streamed_part(
                streamed,
                QUEUE_SAMPLE_FILE_BYTES,
                part(
                    "queue samples",
                    e.queue_samples,
                    QUEUE_SAMPLE_BYTES,
                    "measure.sample_interval".into(),
                    &format!(
                        "{} link directions sampled {} times each: sample less often (a larger \
                     `measure.sample_interval`), fewer links (`measure.sample_links`) or a shorter run \
                     (`duration`)",
                        human_count(sampled_links),
                        human_count(samples_per_link)
                    ),
                ),
            ));
        }
        if e.flow_series_rows > 0 {
            e.parts.push(streamed_part(
                streamed,
                FLOW_SERIES_ROW_FILE_BYTES,
                part(
                    "flow series rows",
                    e.flow_series_rows,
                    FLOW_SERIES_ROW_BYTES,
                    "measure.flow_series".into(),
                    &format!(
                        "{} flows sampled {} times each: sample less often (a larger \
                         `measure.sample_interval`), turn `measure.flow_series` off or run shorter \
                         (`duration`)",
                        human_count(flows),
                        human_count(series_samples)
                    ),
                ),
            ));
        }
        if user_series_rows > 0 {
            e.parts.push(part(
                "user series rows",
                user_series_rows,
                USER_SERIES_ROW_BYTES,
                "measure.user_series".into(),
                &format!(
                    "{} web-user generators sampled {} times each: sample less often (a larger \
                     `measure.sample_interval`), turn `measure.user_series` off or run shorter (`duration`)",
                    s.web_users.len(),
                    human_count(samples)
                ),
            ));
        }
        if e.window_rows > 0 {
            e.parts.push(window_part(streamed, e.window_rows, link_directions, windows));
        }
        e.total();
        e
    }

    /// The full estimate of a built model: [`Estimate::of_scenario`]'s counts (`s` is the scenario the
    /// model was built from) with the packets in flight and the window trace.
    pub fn of_model(s: &Scenario, m: &Model, streamed: bool) -> Estimate {
        let mut e = Estimate::of_scenario(s, streamed);
        // The scenario's flow count may differ from the model's (groups `between` a dumbbell).
        let series_per_flow = e.flow_series_rows / e.flows.max(1);
        e.flows = m.flows.len() as u64;
        e.link_directions = m.links.len() as u64;
        e.sampled_links = m.sample_links.len() as u64;
        e.queue_samples = e.sampled_links.saturating_mul(e.samples_per_link);
        e.flow_series_rows = e.flows.saturating_mul(series_per_flow);
        let window_rows_each = e.link_directions.saturating_add(m.classes.len() as u64);
        e.window_rows = window_rows_each.saturating_mul(e.windows);
        for p in &mut e.parts {
            match p.what {
                "flows" => p.items = e.flows,
                "link directions" => p.items = e.link_directions,
                "queue samples" => p.items = e.queue_samples,
                "flow series rows" => p.items = e.flow_series_rows,
                "window rows" => p.items = e.window_rows,
                _ => {}
            }
            let file_each = if p.streamed { p.file_bytes / p.items.max(1) } else { 0 };
            *p = streamed_part(
                p.streamed,
                file_each,
                part(p.what, p.items, p.each, p.setting.clone(), &p.advice),
            );
        }
        // The disciplines' state is known once built (drop-tail has none: no rows).
        let variables = m
            .sample_links
            .iter()
            .map(|&l| {
                let link = &m.links[l as usize];
                crate::aqm::state_of(&*link.queue.build(link.info)).len() as u64
            })
            .fold(0u64, u64::saturating_add);
        e.aqm_samples = variables.saturating_mul(e.samples_per_link);
        if e.aqm_samples > 0 {
            e.parts.push(streamed_part(
                streamed,
                QUEUE_SAMPLE_FILE_BYTES,
                part(
                    "aqm samples",
                    e.aqm_samples,
                    QUEUE_SAMPLE_BYTES,
                    "measure.sample_interval".into(),
                    &format!(
                        "{} state variables of the sampled links' queues sampled {} times each: sample \
                         less often (a larger `measure.sample_interval`), fewer links \
                         (`measure.sample_links`) or a shorter run (`duration`)",
                        human_count(variables),
                        human_count(e.samples_per_link)
                    ),
                ),
            ));
        }
        // Packets: every buffer full and every wire full of ACKs...
        let mut network = 0u64;
        let mut biggest = (0u64, 0usize);
        for (i, l) in m.links.iter().enumerate() {
            let buffer = buffer_packets(&l.queue);
            let wire = (l.info.rate_bps as f64 * l.info.delay as f64 * 1e-9 / (8.0 * MIN_PACKET_BYTES))
                .min(u64::MAX as f64 / 4.0) as u64
                + 1;
            network = network.saturating_add(buffer).saturating_add(wire);
            if buffer > biggest.0 {
                biggest = (buffer, i);
            }
        }
        // ...or, with long-lived TCP only, every window full (data and as many ACKs).
        let tcp_only = m.http.is_empty() && m.flows.iter().all(|f| matches!(f.traffic, Traffic::Tcp { .. }));
        let packets = if tcp_only && m.delayboxes.is_empty() {
            let windows = m
                .flows
                .iter()
                .map(|f| match f.traffic {
                    Traffic::Tcp { tcp, .. } => 2 * m.tcp_configs[tcp as usize].max_window as u64 + 4,
                    Traffic::Udp(_) => 0,
                })
                .fold(0u64, u64::saturating_add);
            network.min(windows)
        } else {
            network
        };
        e.packets_in_flight = packets;
        let queue_field = match (biggest.1 / 2).checked_sub(s.links.len()) {
            None => format!("links[{}].queue", biggest.1 / 2),
            Some(built) => {
                // The builders' links follow the [[links]], builder by builder.
                let mut at = built as u64;
                let builders = topology::builders(s);
                let owner = builders.iter().find(|(_, b)| {
                    let inside = at < b.link_count();
                    if !inside {
                        at -= b.link_count();
                    }
                    inside
                });
                owner.map_or_else(String::new, |(key, b)| format!("{key}.{}", b.queue_field(at)))
            }
        };
        e.parts.push(part(
            "packets in flight",
            packets,
            PACKET_BYTES,
            queue_field,
            "use smaller buffers (the queues' `limit`) or fewer flows",
        ));
        // Window trace: per traced TCP flow, a row per segment its slowest link can carry, and per
        // timeout.
        let mut traced = m.trace_cwnd.clone();
        traced.sort_unstable();
        traced.dedup();
        e.traced_flows = traced.len() as u64;
        let mut rows = 0u64;
        for &f in &traced {
            let flow = &m.flows[f as usize];
            let (tcp, bytes) = match &flow.traffic {
                Traffic::Tcp { tcp, app } => (*tcp, app.bytes()),
                Traffic::Udp(_) => continue,
            };
            let cfg = &m.tcp_configs[tcp as usize];
            let slowest = m.routes[flow.route as usize..]
                .iter()
                .take_while(|&&l| l != ROUTE_END)
                .map(|&l| m.links[l as usize].info.rate_bps)
                .min()
                .unwrap_or(0);
            let secs = m.duration.saturating_sub(flow.start) as f64 * 1e-9;
            let mut segments = slowest as f64 * secs / (8.0 * (cfg.mss as f64 + MIN_PACKET_BYTES));
            if let Some(b) = bytes {
                segments = segments.min(b as f64 / cfg.mss.max(1) as f64 + 4.0);
            }
            let timeouts = secs / cfg.min_rto.secs().max(1e-6);
            rows = rows.saturating_add((segments + timeouts + 1.0).min(u64::MAX as f64 / 4.0) as u64);
        }
        e.cwnd_rows = rows;
        if streamed && !m.pcap_links.is_empty() {
            e.parts.push(pcap_part(m));
            e.pcap_records = e.parts.last().map_or(0, |p| p.items);
        }
        if rows > 0 {
            e.parts.push(streamed_part(
                streamed,
                CWND_ROW_FILE_BYTES,
                part(
                    "cwnd trace rows",
                    rows,
                    CWND_ROW_BYTES,
                    "measure.trace_cwnd".into(),
                    "trace fewer flows (`measure.trace_cwnd`) or a shorter run (`duration`)",
                ),
            ));
        }
        e.total();
        e
    }

    fn total(&mut self) {
        self.memory_bytes = self.parts.iter().map(|p| p.bytes).fold(0, u64::saturating_add);
        self.file_bytes = self.parts.iter().map(|p| p.file_bytes).fold(0, u64::saturating_add);
    }

    /// A warning, located at the setting of the largest streamed table, if the streamed tables would fill
    /// more than half of the free disk space (legal, but the run would leave little room for anything
    /// else, and takes as long as writing that much).
    pub fn disk_warning(&self, limit: Limit, text: &str, file: &str) -> Option<ScenarioError> {
        let free = limit.disk_free.filter(|&free| self.file_bytes > free / 2)?;
        let top = self.parts.iter().max_by_key(|p| p.file_bytes)?;
        Some(ScenarioError {
            file: file.into(),
            line: locate::line_of(text, &top.setting),
            path: top.setting.clone(),
            message: format!(
                "the streamed tables would write about {}, more than half of the free disk space ({}), {} \
                 of it in {} {}: {}",
                human_bytes(self.file_bytes),
                human_bytes(free),
                human_bytes(top.file_bytes),
                human_count(top.items),
                top.what,
                top.advice,
            ),
        })
    }

    /// An error, located at the setting of the largest part, if the tables need more memory than
    /// `limit`, or the streamed tables more than the free disk space it gives.
    pub fn check(&self, limit: Limit, text: &str, file: &str) -> Result<(), ScenarioError> {
        if let Some(free) = limit.disk_free.filter(|&free| self.file_bytes > free) {
            let top = self.parts.iter().max_by_key(|p| p.file_bytes).expect("files, so some part");
            return Err(ScenarioError {
                file: file.into(),
                line: locate::line_of(text, &top.setting),
                path: top.setting.clone(),
                message: format!(
                    "a run whose streamed tables fit in the free disk space where they are written ({}); \
                     this one would write about {}, {} of it in {} {}: {}; refused before writing anything",
                    human_bytes(free),
                    human_bytes(self.file_bytes),
                    human_bytes(top.file_bytes),
                    human_count(top.items),
                    top.what,
                    top.advice,
                ),
            });
        }
        if self.memory_bytes <= limit.bytes {
            return Ok(());
        }
        let top = self.parts.iter().max_by_key(|p| p.bytes).expect("over a limit, so some part");
        let path = top.setting.clone();
        let others: Vec<String> = self
            .parts
            .iter()
            .filter(|p| p.bytes > 0 && p.what != top.what)
            .map(|p| format!("{} {}", p.what, human_bytes(p.bytes)))
            .collect();
        let rest =
            if others.is_empty() { String::new() } else { format!(" (other tables: {})", others.join(", ")) };
        Err(ScenarioError {
            file: file.into(),
            line: locate::line_of(text, &path),
            path,
            message: format!(
                "a run within {}; this one would hold about {} in memory, {} of it in {} {}{}: {}; {}",
                limit.describe(),
                human_bytes(self.memory_bytes),
                human_bytes(top.bytes),
                human_count(top.items),
                top.what,
                rest,
                top.advice,
                "refused before allocating anything",
            ),
        })
    }
}

/// The pcap captures: per captured direction, a record per smallest packet its rate can send in the
/// window, one batch of them in memory and every one in its file (only runs with a sink capture).
fn pcap_part(m: &Model) -> Part {
    use crate::engine::pcap::{FILE_HEADER_BYTES, RECORD_FILE_BYTES};
    let window = m.duration.saturating_sub(m.warmup) as f64 * 1e-9;
    let (mut records, mut batches) = (0u64, 0u64);
    for &l in &m.pcap_links {
        let rate = m.links[l as usize].info.rate_bps as f64;
        let n = (rate * window / (8.0 * MIN_PACKET_BYTES)).min(u64::MAX as f64 / 4.0) as u64 + 1;
        records = records.saturating_add(n);
        batches = batches.saturating_add(n.min(RECORD_BATCH as u64));
    }
    let advice = format!(
        "{} link directions captured: capture fewer (`measure.pcap`) or a shorter run (`duration`)",
        human_count(m.pcap_links.len() as u64)
    );
    let p = part("pcap records", records, PCAP_RECORD_BYTES, "measure.pcap".into(), &advice);
    let file_bytes = records
        .saturating_mul(RECORD_FILE_BYTES)
        .saturating_add(FILE_HEADER_BYTES * m.pcap_links.len() as u64);
    Part { bytes: batches.saturating_mul(PCAP_RECORD_BYTES), streamed: true, file_bytes, ..p }
}

/// The windowed statistics: `rows` over `windows` windows of `links` link directions (and the classes).
fn window_part(streamed: bool, rows: u64, links: u64, windows: u64) -> Part {
    let advice = format!(
        "{} link directions in {} windows: use longer windows (`measure.window`) or a shorter run \
         (`duration`)",
        human_count(links),
        human_count(windows)
    );
    streamed_part(
        streamed,
        WINDOW_ROW_FILE_BYTES,
        part("window rows", rows, WINDOW_ROW_BYTES, "measure.window".into(), &advice),
    )
}

fn part(what: &'static str, items: u64, each: u64, setting: String, advice: &str) -> Part {
    let bytes = items.saturating_mul(each);
    Part { what, items, each, bytes, streamed: false, file_bytes: 0, setting, advice: advice.into() }
}

/// `p` as a streamed table when `streamed`: one batch in memory, `file_each` bytes per row in its file.
fn streamed_part(streamed: bool, file_each: u64, p: Part) -> Part {
    if !streamed {
        return p;
    }
    let bytes = p.items.min(RECORD_BATCH as u64) * p.each;
    Part { bytes, streamed, file_bytes: p.items.saturating_mul(file_each), ..p }
}

/// The most packets a queue holds: its `limit`, or in byte mode `limit · mean_pktsize` bytes of
/// ACK-sized packets.
fn buffer_packets(q: &QueueConfig) -> u64 {
    match q.buffer() {
        Buffer::Packets(n) => n,
        Buffer::Bytes(b) => (b as f64 / MIN_PACKET_BYTES).ceil() as u64,
    }
}

/// `3.3 GB`, `512 MB`, `12 kB` (powers of 1000, as `--max-memory` reads them).
pub fn human_bytes(b: u64) -> String {
    let b = b as f64;
    for (scale, unit) in [(1e15, "PB"), (1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")] {
        if b >= scale {
            return format!("{:.1} {unit}", b / scale);
        }
    }
    format!("{b} B")
}

/// `20,100,402`, or `4.0e12` beyond a trillion.
fn human_count(n: u64) -> String {
    if n >= 1_000_000_000_000 {
        return format!("{:.1e}", n as f64);
    }
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const DUMBBELL: &str = r#"
duration = "60s"
[measure]
warmup = "10s"
sample_interval = "1ms"
sample_links = ["all"]
[tcp]
max_window = 1000
[dumbbell]
pairs = 100
bottleneck_rate = "100Mbps"
bottleneck_delay = "10ms"
queue = { kind = "droptail", limit = 1000 }
access_rate = "1Gbps"
access_delay = "5ms"
[[flows]]
kind = "tcp_bulk"
between = "dumbbell"
"#;

    fn estimate(text: &str, overrides: &[&str]) -> Estimate {
        let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
        let text = crate::resolve(text, "t.toml", &overrides, None).unwrap();
        let s = crate::scenario::parse(&text, "t.toml").unwrap();
        let m = crate::scenario::build::build(&s, &text, "t.toml").unwrap_or_else(|e| panic!("{e}"));
        Estimate::of_model(&s, &m, false)
    }

    /// The part of `e` that counts `what`.
    fn part<'a>(e: &'a Estimate, what: &str) -> &'a Part {
        e.parts.iter().find(|p| p.what == what).unwrap()
    }

    #[test]
    fn counts_flows_links_samples_packets_and_trace_rows() {
        let e = estimate(DUMBBELL, &["measure.trace_cwnd=[0, 0, 1]"]);
        assert_eq!(e.flows, 100);
        assert_eq!(e.link_directions, 402);
        assert_eq!(e.sampled_links, 402);
        assert_eq!(e.samples_per_link, 50_001);
        assert_eq!(e.queue_samples, 402 * 50_001);
        // Long-lived TCP only: the windows bound (2 × 1000 + 4 per flow) is below the buffers'.
        assert_eq!(e.packets_in_flight, 100 * 2004);
        assert_eq!(e.traced_flows, 2);
        // 100 Mb/s of 1500-byte segments for 60 s, plus a timeout per 200 ms, per traced flow.
        assert_eq!(e.cwnd_rows, 2 * (500_000 + 300 + 1));
        let qs = part(&e, "queue samples");
        assert_eq!(qs.bytes, 402 * 50_001 * QUEUE_SAMPLE_BYTES);
        assert_eq!(e.memory_bytes, e.parts.iter().map(|p| p.bytes).sum::<u64>());
        // About 3.3 GB, as measured.
        assert!((3.0e9..3.8e9).contains(&(e.memory_bytes as f64)), "{}", e.memory_bytes);
        // UDP traffic: the buffers bound (1000 packets in every queue, the dumbbell's access queues by
        // default), plus the wires full of ACKs.
        let udp = estimate(DUMBBELL, &["flows.0.kind=\"udp_cbr\"", "flows.0.rate=\"1Mbps\""]);
        let access_wire = (1e9 * 5e-3 / 320.0) as u64 + 1;
        let bottleneck_wire = (1e8 * 1e-2 / 320.0) as u64 + 1;
        assert_eq!(udp.packets_in_flight, 400 * (1000 + access_wire) + 2 * (1000 + bottleneck_wire));
    }

    #[test]
    fn refuses_over_the_limit_naming_the_setting() {
        let e = estimate(DUMBBELL, &[]);
        assert!(e.check(Limit::given(4_000_000_000), DUMBBELL, "t.toml").is_ok());
        let err = e.check(Limit::given(1_000_000_000), DUMBBELL, "t.toml").unwrap_err();
        assert_eq!(err.path, "measure.sample_interval");
        assert_eq!(err.line, Some(5));
        assert!(err.message.contains("1.0 GB (--max-memory)"), "{err}");
        assert!(err.message.contains("20,100,402 queue samples"), "{err}");
        let machine = Limit { bytes: 1_000_000_000, given: false, disk_free: None };
        assert!(e.check(machine, DUMBBELL, "t.toml").unwrap_err().message.contains("half of this machine"));
    }

    /// A parking lot's hosts and the pairs of its groups are counted without building them, and named.
    #[test]
    fn a_parking_lot_is_counted_and_named_without_being_built() {
        let lot = "duration = \"60s\"\n[parking_lot]\nrouters = 3\nrate = \"10Mbps\"\ndelay = \"1ms\"\n\
                   [[parking_lot.hosts]]\nname = \"s\"\ncount = 4\nrouter = \"R0\"\nrate = 1e9\ndelay = 0\n\
                   [[parking_lot.hosts]]\nname = \"d\"\ncount = 4\nrouter = \"R2\"\nrate = 1e9\ndelay = 0\n\
                   [[flows]]\nkind = \"udp_cbr\"\nrate = 1000\nbetween = \"parking_lot:s->d\"\n";
        let e = estimate(lot, &[]);
        assert_eq!((e.flows, e.link_directions), (4, 2 * (2 + 8)));
        // Access queues of 1000 packets outnumber the hops' 50: the buffers are the hosts'.
        let packets = part(&e, "packets in flight");
        assert_eq!(packets.setting, "parking_lot.hosts[0].queue");
        let huge = lot.replace("count = 4", "count = 1000000000");
        let err =
            crate::load_checked(&huge, "t.toml", &[], None, Limit::given(8_000_000_000), true).unwrap_err();
        assert_eq!((err.path.as_str(), err.line), ("parking_lot.hosts", Some(6)), "{err}");
        assert!(err.message.contains("4,000,000,004 link directions"), "{err}");
    }

    /// AQM samples: per sample, a row per state variable of each sampled queue; none for drop-tail.
    #[test]
    fn aqm_samples_count_the_sampled_queues_state_variables() {
        assert_eq!(estimate(DUMBBELL, &[]).aqm_samples, 0);
        assert!(estimate(DUMBBELL, &[]).parts.iter().all(|p| p.what != "aqm samples"));
        // PI (p, q_old) on both bottleneck directions.
        let e = estimate(DUMBBELL, &[r#"dumbbell.queue={kind="pi"}"#]);
        assert_eq!(e.aqm_samples, 2 * 2 * 50_001);
        assert_eq!(part(&e, "aqm samples").items, e.aqm_samples);
    }

    const EVERY_NS: &str = "measure.sample_interval=\"1ns\"";

    /// The dumbbell with `overrides`, loaded under `limit`: refused.
    fn refused(overrides: &[&str], limit: Limit, streamed: bool) -> ScenarioError {
        let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
        crate::load_checked(DUMBBELL, "t.toml", &overrides, None, limit, streamed).unwrap_err()
    }

    /// A disk with 1 TB free: what is refused on it is far too large for any disk.
    fn terabyte_free() -> Limit {
        Limit { disk_free: Some(1_000_000_000_000), ..Limit::machine_default() }
    }

    #[test]
    fn a_billion_flows_are_refused_before_the_model_is_built() {
        let text = DUMBBELL.replace("between = \"dumbbell\"", "between = \"dumbbell\"\ncount = 1000000000");
        let err =
            crate::load_checked(&text, "t.toml", &[], None, Limit::given(8_000_000_000), true).unwrap_err();
        assert_eq!(err.path, "flows[0].count");
        assert!(err.message.contains("1,000,000,000 flows"), "{err}");
        // A nanosecond sampling interval: 5e10 samples per link.
        let err = refused(&[EVERY_NS], Limit::machine_default(), false);
        assert_eq!(err.path, "measure.sample_interval");
        // Within the limit, the model and its estimate come back.
        let (m, e) =
            crate::load_checked(DUMBBELL, "t.toml", &[], None, Limit::given(u64::MAX), true).unwrap();
        assert_eq!((m.flows.len() as u64, e.flows), (100, 100));
    }

    /// Streamed, the queue samples hold one batch in memory and are checked against the free disk
    /// space instead: the 1-ms dumbbell fits in 300 MB, a 1-ns one does not fit on any disk.
    #[test]
    fn streamed_tables_count_one_batch_in_memory_and_their_files_on_disk() {
        let text = crate::resolve(DUMBBELL, "t.toml", &["measure.trace_cwnd=[0]".into()], None).unwrap();
        let s = crate::scenario::parse(&text, "t.toml").unwrap();
        let m = crate::scenario::build::build(&s, &text, "t.toml").unwrap();
        let e = Estimate::of_model(&s, &m, true);
        let qs = part(&e, "queue samples");
        assert!(qs.streamed && qs.items == 402 * 50_001);
        assert_eq!(qs.bytes, RECORD_BATCH as u64 * QUEUE_SAMPLE_BYTES);
        assert_eq!(qs.file_bytes, 402 * 50_001 * QUEUE_SAMPLE_FILE_BYTES);
        assert!(e.memory_bytes < 300_000_000, "{}", e.memory_bytes);
        assert_eq!(e.file_bytes, qs.file_bytes + e.cwnd_rows * CWND_ROW_FILE_BYTES);
        let disk = |free| Limit { disk_free: Some(free), ..Limit::given(300_000_000) };
        assert!(e.check(disk(1_000_000_000), &text, "t.toml").is_ok());
        let err = e.check(disk(100_000_000), &text, "t.toml").unwrap_err();
        assert_eq!(err.path, "measure.sample_interval");
        assert!(err.message.contains("free disk space where they are written (100.0 MB)"), "{err}");
        // Legal but more than half of the free space: a warning at the same setting.
        assert!(e.disk_warning(disk(1_000_000_000), &text, "t.toml").is_none());
        let warning = e.disk_warning(disk(2 * e.file_bytes - 1), &text, "t.toml").expect("a warning");
        assert_eq!(warning.path, "measure.sample_interval");
        assert!(warning.message.contains("more than half of the free disk space"), "{warning}");
        let ns = refused(&[EVERY_NS], terabyte_free(), true);
        assert_eq!(ns.path, "measure.sample_interval");
        assert!(ns.message.contains("free disk space"), "{ns}");
    }

    /// The flow series: a row per flow and sample, streamed like the queue samples; far too many rows
    /// are refused at `measure.flow_series`.
    #[test]
    fn flow_series_rows_are_counted_and_refused_when_too_many() {
        let on = ["measure.flow_series=true", "measure.sample_links=[]"];
        assert_eq!(estimate(DUMBBELL, &on[1..]).flow_series_rows, 0);
        let e = estimate(DUMBBELL, &on);
        assert_eq!(e.flow_series_rows, 100 * 50_001);
        let p = part(&e, "flow series rows");
        assert_eq!(
            (p.bytes, p.setting.as_str()),
            (100 * 50_001 * FLOW_SERIES_ROW_BYTES, "measure.flow_series")
        );
        let err = refused(&[on[0], on[1], EVERY_NS], terabyte_free(), true);
        assert_eq!(err.path, "measure.flow_series", "{err}");
        assert!(err.message.contains("100 flows sampled 50,000,000,001 times each"), "{err}");
    }

    /// The web users' series: a row per generator and sample, in memory.
    #[test]
    fn user_series_rows_are_counted() {
        let users = "[[web_users]]\nclients = \"S0\"\nservers = \"R0\"\nusers = 3\n";
        let text = format!("{DUMBBELL}{users}{users}");
        assert_eq!(estimate(&text, &[]).user_series_rows, 0);
        let e = estimate(&text, &["measure.user_series=true"]);
        assert_eq!(e.user_series_rows, 2 * 50_001);
        let p = part(&e, "user series rows");
        assert_eq!(
            (p.bytes, p.setting.as_str()),
            (2 * 50_001 * USER_SERIES_ROW_BYTES, "measure.user_series")
        );
    }

    /// The windowed statistics: per window (the last one shorter when the window does not divide the
    /// measured period), a row per link direction and, once the model is built, per traffic class;
    /// streamed like the queue samples, and far too many are refused at `measure.window`.
    #[test]
    fn window_rows_are_counted_and_refused_when_too_many() {
        let off = estimate(DUMBBELL, &[]);
        assert_eq!((off.windows, off.window_rows), (0, 0));
        assert!(off.parts.iter().all(|p| p.what != "window rows"));
        // 50 s measured in windows of 15 s: three and a last one of 5 s; 402 link directions, 1 class.
        let e = estimate(DUMBBELL, &["measure.window=\"15s\""]);
        assert_eq!((e.link_directions, e.windows, e.window_rows), (402, 4, 4 * 403));
        let p = part(&e, "window rows");
        assert_eq!((p.bytes, p.setting.as_str()), (4 * 403 * WINDOW_ROW_BYTES, "measure.window"));
        let err = refused(&["measure.window=\"1ns\"", "measure.sample_links=[]"], terabyte_free(), true);
        assert_eq!(err.path, "measure.window", "{err}");
        assert!(err.message.contains("402 link directions in 50,000,000,000 windows"), "{err}");
    }

    /// Captures count a batch per captured direction in memory and every record (at most one per
    /// ACK-sized packet the link can send in the window) on disk; only streamed runs capture.
    #[test]
    fn pcap_records_are_counted_on_disk_and_refused_when_too_many() {
        let on = ["measure.pcap=[\"A->B\", \"B->A\"]", "measure.sample_links=[]"].map(String::from);
        let text = crate::resolve(DUMBBELL, "t.toml", &on, None).unwrap();
        let s = crate::scenario::parse(&text, "t.toml").unwrap();
        let m = crate::scenario::build::build(&s, &text, "t.toml").unwrap();
        assert_eq!(Estimate::of_model(&s, &m, false).pcap_records, 0, "nothing captured without a sink");
        let e = Estimate::of_model(&s, &m, true);
        // 100 Mb/s of 40-byte packets for the 50 s window, each direction.
        let per_link = 100_000_000 * 50 / 320 + 1;
        assert_eq!(e.pcap_records, 2 * per_link);
        let p = part(&e, "pcap records");
        assert_eq!(p.bytes, 2 * RECORD_BATCH as u64 * PCAP_RECORD_BYTES);
        assert_eq!(p.file_bytes, 2 * per_link * 56 + 2 * 24);
        let disk = Limit { disk_free: Some(100_000_000), ..Limit::given(u64::MAX) };
        let err = e.check(disk, &text, "t.toml").unwrap_err();
        assert_eq!(err.path, "measure.pcap", "{err}");
        assert!(err.message.contains("2 link directions captured"), "{err}");
    }

    #[test]
    fn reads_meminfo_and_formats() {
        assert_eq!(mem_total("MemTotal:       24522068 kB\nMemFree: 1 kB\n"), Some(24522068 * 1024));
        assert_eq!(mem_total("nothing"), None);
        assert!(Limit::machine_default().bytes > 0);
        assert_eq!(human_bytes(3_300_000_000), "3.3 GB");
        assert_eq!(human_bytes(999), "999 B");
        assert_eq!(human_count(20_100_402), "20,100,402");
        assert_eq!(human_count(7), "7");
    }
}
