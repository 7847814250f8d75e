//! Applications on TCP connections, as state machines that turn connection events into actions.
//!
//! Endpoint 0 is the initiator (client, sender of bulk data and files), endpoint 1 the responder
//! (server). An application never touches TCP directly: it asks [`AppCtx`] to write bytes, close a side,
//! set its timer or record a completed request/response pair, and the engine carries that out.

use crate::sim::{time, Time};
use crate::traffic::packmime::Pair;
use rand_distr::{Distribution, Exp1};
use std::collections::VecDeque;

/// A completed request/response exchange (or file transfer).
#[derive(Clone, Copy, Debug)]
pub struct PairRecord {
    pub class: u16,
    /// Serial number of the connection in the run.
    pub connection: u64,
    /// Position of the pair in its connection (0 = first, whose time includes the handshake).
    pub index: u32,
    /// When the request was handed to TCP (or the file transfer started).
    pub start: Time,
    /// When the last byte of the response was delivered to the client.
    pub end: Time,
    pub request_bytes: u64,
    pub response_bytes: u64,
}

/// What an application asks of the engine while handling one event.
#[derive(Default)]
pub struct AppCtx {
    pub now: Time,
    pub writes: Vec<(usize, u64)>,
    pub closes: Vec<usize>,
    pub timer: Option<Time>,
    pub records: Vec<PairRecord>,
}

impl AppCtx {
    pub fn reset(&mut self, now: Time) {
        self.now = now;
        self.writes.clear();
        self.closes.clear();
        self.timer = None;
        self.records.clear();
    }

    /// Nothing was asked of the engine (a bulk receiver taking data asks nothing).
    pub fn is_empty(&self) -> bool {
        self.writes.is_empty() && self.closes.is_empty() && self.timer.is_none() && self.records.is_empty()
    }
}

/// Bulk transfer: the client sends `bytes` (forever if None) and closes; the server closes when the
/// client has.
#[derive(Clone, Debug)]
pub struct Bulk {
    pub bytes: Option<u64>,
}

/// One PackMime-HTTP connection: non-pipelined request/response pairs (HTTP/1.0: one; HTTP/1.1
/// persistent: several, each request after the previous response plus a think gap).
#[derive(Clone, Debug)]
pub struct Http {
    pairs: Vec<Pair>,
    /// Server delay before each response, seconds.
    server_delays: Vec<f64>,
    /// Pair whose request the client sent last.
    sent: usize,
    request_started: Time,
    /// Response bytes of pair `sent` received so far.
    response_received: u64,
    /// Request bytes received by the server beyond the requests it has already answered.
    request_received: u64,
    /// Pair the server will answer next.
    serving: usize,
    /// The client's latest request still awaits its full response.
    waiting: bool,
}

impl Http {
    pub fn new(pairs: Vec<Pair>, server_delays: Vec<f64>) -> Self {
        debug_assert!(!pairs.is_empty() && pairs.len() == server_delays.len());
        Http {
            pairs,
            server_delays,
            sent: 0,
            request_started: 0,
            response_received: 0,
            request_received: 0,
            serving: 0,
            waiting: false,
        }
    }

    pub fn pairs(&self) -> usize {
        self.pairs.len()
    }
}

/// A persistent connection carrying files at Poisson times (study C's "HTTP-like" traffic): file
/// sizes Pareto with the given mean and shape.
#[derive(Clone, Debug)]
pub struct Files {
    /// Mean gap between file starts.
    mean_gap: Time,
    /// Pareto scale x_m and shape α.
    scale: f64,
    shape: f64,
    written: u64,
    /// (cumulative end offset, start time, size) of files not yet fully delivered.
    pending: VecDeque<(u64, Time, u64)>,
    delivered: u64,
    completed: u32,
    rng: crate::sim::Rng,
}

impl Files {
    pub fn new(rate_per_s: f64, mean_bytes: f64, shape: f64, rng: crate::sim::Rng) -> Self {
        Files {
            mean_gap: time::secs(1.0 / rate_per_s),
            scale: mean_bytes * (shape - 1.0) / shape,
            shape,
            written: 0,
            pending: VecDeque::new(),
            delivered: 0,
            completed: 0,
            rng,
        }
    }

    fn next_gap(&mut self) -> Time {
        let e: f64 = Exp1.sample(&mut self.rng);
        ((e * self.mean_gap as f64).round() as Time).max(1)
    }

    fn size(&mut self) -> u64 {
        use rand::Rng as _;
        let u: f64 = 1.0 - self.rng.gen::<f64>(); // (0, 1]
        (self.scale / u.powf(1.0 / self.shape)).round().max(1.0) as u64
    }
}

#[derive(Clone, Debug)]
pub enum App {
    Bulk(Bulk),
    Http(Http),
    Files(Files),
}

impl App {
    /// Whether `delivered` does anything: a bulk sink ignores the data it receives.
    pub fn reads_data(&self) -> bool {
        !matches!(self, App::Bulk(_))
    }

    /// The connection is created (before the handshake).
    pub fn start(&mut self, cx: &mut AppCtx) {
        match self {
            App::Bulk(b) => {
                cx.writes.push((0, b.bytes.unwrap_or(u64::MAX / 4)));
                if b.bytes.is_some() {
                    cx.closes.push(0);
                }
            }
            App::Http(h) => {
                h.request_started = cx.now;
                h.waiting = true;
                cx.writes.push((0, h.pairs[0].request));
            }
            App::Files(f) => {
                // The first file starts after one Poisson gap, like every later one.
                cx.timer = Some(cx.now + f.next_gap());
            }
        }
    }

    /// `bytes` were delivered in order to endpoint `side` (nothing to do where `reads_data` is false:
    /// the engine then does not call it).
    pub fn delivered(&mut self, side: usize, bytes: u64, cx: &mut AppCtx, class: u16, connection: u64) {
        match self {
            App::Bulk(_) => {}
            App::Http(h) if side == 1 => {
                h.request_received += bytes;
                // Requests are not pipelined: at most the one outstanding request completes here.
                if h.serving < h.pairs.len() && h.request_received >= h.pairs[h.serving].request {
                    h.request_received -= h.pairs[h.serving].request;
                    cx.timer = Some(cx.now + time::secs(h.server_delays[h.serving]));
                }
            }
            App::Http(h) => {
                h.response_received += bytes;
                let pair = h.pairs[h.sent];
                if h.response_received >= pair.response {
                    h.response_received -= pair.response;
                    h.waiting = false;
                    cx.records.push(PairRecord {
                        class,
                        connection,
                        index: h.sent as u32,
                        start: h.request_started,
                        end: cx.now,
                        request_bytes: pair.request,
                        response_bytes: pair.response,
                    });
                    if h.sent + 1 < h.pairs.len() {
                        cx.timer = Some(cx.now + time::secs(h.pairs[h.sent + 1].gap));
                    } else {
                        cx.closes.push(0);
                    }
                }
            }
            App::Files(f) if side == 1 => {
                f.delivered += bytes;
                while let Some(&(end, start, size)) = f.pending.front() {
                    if f.delivered < end {
                        break;
                    }
                    f.pending.pop_front();
                    f.completed += 1;
                    cx.records.push(PairRecord {
                        class,
                        connection,
                        index: f.completed,
                        start,
                        end: cx.now,
                        request_bytes: 0,
                        response_bytes: size,
                    });
                }
            }
            App::Files(_) => {}
        }
    }

    /// Pairs (or files) started at or after `since` that have not completed.
    pub fn outstanding_since(&self, since: Time) -> u64 {
        match self {
            App::Bulk(_) => 0,
            App::Http(h) => (h.waiting && h.request_started >= since) as u64,
            App::Files(f) => f.pending.iter().filter(|p| p.1 >= since).count() as u64,
        }
    }

    /// The peer of endpoint `side` closed its sending direction.
    pub fn peer_closed(&mut self, side: usize, cx: &mut AppCtx) {
        if side == 1 {
            cx.closes.push(1);
        }
    }

    /// The application's timer fired.
    pub fn timer(&mut self, cx: &mut AppCtx) {
        match self {
            App::Bulk(_) => {}
            App::Http(h) => {
                // One timer at a time: the server's delay while it owes the response to the client's
                // outstanding request (serving == sent), else the client's think gap.
                if h.serving == h.sent {
                    // Server delay over: send the response (with FIN after the last one).
                    cx.writes.push((1, h.pairs[h.serving].response));
                    if h.serving + 1 == h.pairs.len() {
                        cx.closes.push(1);
                    }
                    h.serving += 1;
                } else {
                    // Think gap over: the client sends its next request.
                    h.sent += 1;
                    h.request_started = cx.now;
                    h.waiting = true;
                    cx.writes.push((0, h.pairs[h.sent].request));
                }
            }
            App::Files(f) => {
                let size = f.size();
                f.written += size;
                f.pending.push_back((f.written, cx.now, size));
                cx.writes.push((0, size));
                cx.timer = Some(cx.now + f.next_gap());
            }
        }
    }
}
