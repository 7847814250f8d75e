//! Assembles the result tables at the end of a run.

use super::flows::{ConnectionTcp, FlowState, NO_USER};
use super::Simulation;
use crate::metrics::response::{ResponseBins, ResponseRow};
use crate::metrics::{
    ClassCounters, ClassRow, FlowRow, GeneratorRow, LinkClassRow, LinkRow, RunResult, Summary,
};
use crate::sim::time;

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

impl Simulation<'_> {
    /// The TCP counters of each `[[http]]` and each `[[web_users]]` generator: its closed connections'
    /// and its open ones'.
    fn generator_tcp(&self) -> (Vec<ConnectionTcp>, Vec<ConnectionTcp>) {
        let mut http: Vec<ConnectionTcp> = self.generators.iter().map(|g| g.tcp_counts).collect();
        let mut web: Vec<ConnectionTcp> = self.web.iter().map(|g| g.tcp_counts).collect();
        for flow in &self.flows {
            let FlowState::Tcp { conn, .. } = &flow.state else { continue };
            if let Some(g) = flow.generator {
                http[g as usize].add(conn);
            } else if flow.user != NO_USER {
                web[self.users[flow.user as usize].generator as usize].add(conn);
            }
        }
        (http, web)
    }

    /// Link direction `l`'s counters so far in the measurement window, per traffic class (the rows of
    /// `link_classes`; their sum is its row of `links`).
    pub(super) fn link_class_counters(&self, l: usize) -> Vec<ClassCounters> {
        let stride = self.class_count;
        (l * stride..(l + 1) * stride)
            .map(|k| {
                let t = self.link_traffic[k];
                ClassCounters {
                    arrivals: t.arrivals,
                    arrival_bytes: t.arrival_bytes,
                    departures: t.departures,
                    departure_bytes: t.departure_bytes,
                    ..self.link_counters[k].clone()
                }
            })
            .collect()
    }

    pub(super) fn results(mut self, ended_by: &str) -> RunResult {
        let flow_series = self.series.take();
        let m = &self.model;
        let window = time::to_secs(self.now.saturating_sub(m.warmup)).max(f64::MIN_POSITIVE);
        let mut links = Vec::new();
        let mut link_classes = Vec::new();
        let mut class_totals = vec![ClassCounters::default(); m.classes.len()];
        for (i, (q, lm)) in self.queues.iter().zip(&m.links).enumerate() {
            let by_class = self.link_class_counters(i);
            let total = ClassCounters::total(&by_class);
            let (q_mean, q_std, q_max) = q.length.stats(self.now, 0);
            let (qb_mean, qb_std, _) = q.length.stats(self.now, 1);
            let (s_mean, s_std, s_n) = self.sample_sums[i].mean_std();
            let drops = total.drops();
            let sojourn = q.sojourn.summary();
            links.push(LinkRow {
                link: lm.name.clone(),
                from: m.nodes[lm.from as usize].clone(),
                to: m.nodes[lm.to as usize].clone(),
                queue: lm.queue.name().to_string(),
                rate_bps: lm.info.rate_bps,
                delay_s: time::to_secs(lm.info.delay),
                drops,
                loss_rate: ratio(drops, total.arrivals),
                utilization: total.departure_bytes as f64 * 8.0 / (lm.info.rate_bps as f64 * window),
                counters: total,
                q_mean_pkts: q_mean,
                q_std_pkts: q_std,
                q_max_pkts: q_max,
                q_mean_bytes: qb_mean,
                q_std_bytes: qb_std,
                q_sample_mean_pkts: s_mean,
                q_sample_std_pkts: s_std,
                q_samples: s_n,
                sojourn_mean_s: sojourn.mean,
                sojourn_p50_s: sojourn.p50,
                sojourn_p90_s: sojourn.p90,
                sojourn_p99_s: sojourn.p99,
                sojourn_max_s: sojourn.max,
                queue_state: crate::aqm::state_of(&*q.disc)
                    .iter()
                    .map(|(k, v)| format!("{k}={v:.6}"))
                    .collect::<Vec<_>>()
                    .join(" "),
            });
            for (c, counters) in by_class.iter().enumerate().take(m.classes.len()) {
                class_totals[c].drops_overflow += counters.drops_overflow;
                class_totals[c].drops_early += counters.drops_early;
                class_totals[c].drops_not_ect += counters.drops_not_ect;
                class_totals[c].drops_error += counters.drops_error;
                class_totals[c].marks += counters.marks;
                if counters.arrivals == 0 {
                    continue;
                }
                link_classes.push(LinkClassRow {
                    link: lm.name.clone(),
                    class: m.classes[c].clone(),
                    drops: counters.drops(),
                    loss_rate: ratio(counters.drops(), counters.arrivals),
                    counters: counters.clone(),
                });
            }
        }
        let classes = m
            .classes
            .iter()
            .enumerate()
            .map(|(c, name)| {
                let (packets, bytes) = self.class_sent[c];
                let drops = class_totals[c].drops();
                ClassRow {
                    class: name.clone(),
                    packets_sent: packets,
                    bytes_sent: bytes,
                    drops,
                    loss_rate: ratio(drops, packets),
                    marks: class_totals[c].marks,
                }
            })
            .collect();
        let flows = self.flows.iter().zip(&m.flows).enumerate().map(|(i, (flow, fm))| {
            let measures = &self.flow_measures[i];
            let delay = measures.delay.summary();
            let transfer_end = measures.transfer_end.map_or(f64::NAN, time::to_secs);
            let mut row = FlowRow {
                flow: i as u32,
                group: fm.group.clone(),
                class: m.classes[fm.class as usize].clone(),
                kind: String::new(),
                src: m.nodes[fm.src as usize].clone(),
                dst: m.nodes[fm.dst as usize].clone(),
                start_s: time::to_secs(fm.start),
                bytes_delivered: 0,
                goodput_bps: 0.0,
                packets_sent: 0,
                retransmits: 0,
                timeouts: 0,
                timeouts_after_ecn: 0,
                fast_retransmits: 0,
                ecn_reductions: 0,
                srtt_s: f64::NAN,
                cwnd: f64::NAN,
                owd_mean_s: delay.mean,
                owd_min_s: delay.min,
                owd_max_s: delay.max,
                jitter_s: delay.jitter,
                transfer_bytes: measures.transfer_bytes,
                transfer_end_s: transfer_end,
                fct_s: transfer_end - time::to_secs(fm.start),
            };
            match &flow.state {
                FlowState::Tcp { conn, .. } => {
                    let (snd, rcv) = (&conn.ends[0], &conn.ends[1]);
                    let (snd_stats, rcv_stats) = (snd.stats(), rcv.stats());
                    let (s0, r0) = (&conn.at_warmup[0], &conn.at_warmup[1]);
                    row.kind = "tcp".into();
                    row.bytes_delivered = rcv_stats.bytes_delivered - r0.bytes_delivered;
                    row.packets_sent = snd_stats.segments_sent - s0.segments_sent;
                    row.retransmits = snd_stats.retransmits - s0.retransmits;
                    row.timeouts = snd_stats.timeouts - s0.timeouts;
                    row.timeouts_after_ecn = snd_stats.timeouts_after_ecn - s0.timeouts_after_ecn;
                    row.fast_retransmits = snd_stats.fast_retransmits - s0.fast_retransmits;
                    row.ecn_reductions = snd_stats.ecn_reductions - s0.ecn_reductions;
                    row.srtt_s = snd.srtt_secs();
                    row.cwnd = snd.cwnd();
                }
                FlowState::Udp(u) => {
                    row.kind = "udp".into();
                    row.bytes_delivered = u.bytes_received;
                    row.packets_sent = u.sent - u.sent_at_warmup;
                }
                FlowState::Free => {}
            }
            row.goodput_bps = row.bytes_delivered as f64 * 8.0 / window;
            row
        });
        let flows = flows.collect();

        // Pairs started after the warm-up and still outstanding on open connections.
        let mut incomplete = vec![0u64; m.classes.len()];
        for f in &self.flows {
            if let FlowState::Tcp { conn, .. } = &f.state {
                incomplete[f.class as usize] += conn.app.outstanding_since(m.warmup);
            }
        }
        self.web_incomplete_pages(&mut incomplete);
        let mut responses = Vec::new();
        let mut response_bins = ResponseBins::default();
        for (c, h) in self.responses.iter().enumerate().take(m.classes.len()) {
            if h.pairs == 0 && incomplete[c] == 0 {
                continue;
            }
            responses.push(ResponseRow {
                class: m.classes[c].clone(),
                pairs: h.pairs,
                incomplete: incomplete[c],
                mean_s: h.mean_secs(),
                p10_s: h.times.quantile(0.1),
                p50_s: h.times.quantile(0.5),
                p90_s: h.times.quantile(0.9),
                p99_s: h.times.quantile(0.99),
                request_bytes: h.request_bytes,
                response_bytes: h.response_bytes,
            });
            for (lo, hi, count) in h.times.bins() {
                response_bins.class.push(m.classes[c].clone());
                response_bins.lo_s.push(lo);
                response_bins.hi_s.push(hi);
                response_bins.count.push(count);
            }
        }
        let (http_tcp, web_tcp) = self.generator_tcp();
        let web_generators = self.web_generator_rows(&web_tcp);
        let generators = self
            .generators
            .iter()
            .zip(&m.http)
            .zip(http_tcp)
            .map(|((g, h), tcp)| GeneratorRow {
                generator: h.name.clone(),
                class: m.classes[h.class as usize].clone(),
                connections_started: g.started,
                connections_finished: g.finished,
                connections_open: g.started - g.finished,
                pairs_planned: g.pairs_planned,
                retransmits: tcp.retransmits,
                timeouts: tcp.timeouts,
                timeouts_after_ecn: tcp.timeouts_after_ecn,
            })
            .chain(web_generators)
            .collect();
        RunResult {
            summary: Summary {
                name: m.name.clone(),
                seed: m.seed,
                duration_s: time::to_secs(m.duration),
                warmup_s: time::to_secs(m.warmup),
                aqmlab_version: env!("CARGO_PKG_VERSION").to_string(),
                events: self.event_count,
                link_forwards: self.forwards,
                packets_peak: self.packets.capacity_used() as u64,
                flows: self.connections_opened,
                flow_slots: self.flows.len() as u64,
                interrupted: ended_by == "interrupted",
                ended_by: ended_by.to_string(),
                end_s: time::to_secs(self.now),
                warnings: m.warnings.iter().map(ToString::to_string).collect(),
            },
            links,
            link_classes,
            flows,
            queue_samples: self.samples,
            aqm_samples: self.aqm_samples,
            cwnd_trace: self.cwnd_trace,
            flow_series,
            user_series_names: m.web_users.iter().map(|w| w.name.clone()).collect(),
            user_series: self.user_series,
            window_links: self.windows.links,
            window_responses: self.windows.responses,
            classes,
            generators,
            responses,
            response_bins,
            pairs: self.pairs,
        }
    }
}
