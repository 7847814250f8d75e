//! What the engine needs from an application on a TCP connection: a state machine that turns connection
//! events into actions.
//!
//! Endpoint 0 is the initiator (client, sender of bulk data and files), endpoint 1 the responder
//! (server). An application never touches TCP directly: it asks [`AppCtx`] to write bytes, close a side,
//! set its timer or record a completed request/response pair, and the engine carries that out. Each
//! application is a file of its own (`bulk.rs`, `files.rs`, `http.rs`); a flow group's kind names it in
//! the model through an [`AppModel`].

use crate::sim::{Rng, Time};

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
    /// The connection's traffic class and serial number, for its pair records.
    class: u16,
    connection: u64,
    pub writes: Vec<(usize, u64)>,
    pub closes: Vec<usize>,
    pub timer: Option<Time>,
    pub records: Vec<PairRecord>,
}

impl AppCtx {
    /// Clears the requests before an event of connection `connection` (of traffic class `class`).
    pub fn reset(&mut self, now: Time, class: u16, connection: u64) {
        self.now = now;
        self.class = class;
        self.connection = connection;
        self.writes.clear();
        self.closes.clear();
        self.timer = None;
        self.records.clear();
    }

    /// Nothing was asked of the engine (a bulk receiver taking data asks nothing).
    pub fn is_empty(&self) -> bool {
        self.writes.is_empty() && self.closes.is_empty() && self.timer.is_none() && self.records.is_empty()
    }

    /// Records pair `index` of this connection, started at `start` and completed now.
    pub fn record(&mut self, index: u32, start: Time, request_bytes: u64, response_bytes: u64) {
        self.records.push(PairRecord {
            class: self.class,
            connection: self.connection,
            index,
            start,
            end: self.now,
            request_bytes,
            response_bytes,
        });
    }
}

/// An application driving one TCP connection.
pub trait Application {
    /// The connection is created (before the handshake).
    fn start(&mut self, cx: &mut AppCtx);

    /// `bytes` were delivered in order to endpoint `side` (called only where `reads_data` is true).
    fn delivered(&mut self, side: usize, bytes: u64, cx: &mut AppCtx);

    /// The application's timer fired.
    fn timer(&mut self, _cx: &mut AppCtx) {}

    /// The peer of endpoint `side` closed its sending direction: by default the responder closes once
    /// the initiator has.
    fn peer_closed(&mut self, side: usize, cx: &mut AppCtx) {
        if side == 1 {
            cx.closes.push(1);
        }
    }

    /// Whether `delivered` does anything: the engine skips the call (and the application's cache
    /// line) for a sink that ignores its data.
    fn reads_data(&self) -> bool {
        true
    }

    /// Pairs (or files) started at or after `since` that have not completed.
    fn outstanding_since(&self, _since: Time) -> u64 {
        0
    }
}

/// The application of every flow of a group, as the model holds it: opens one per connection.
pub trait AppModel: std::fmt::Debug + Send + Sync {
    /// A new application; `stream(name)` gives the flow's random stream of that name.
    fn open(&self, stream: &dyn Fn(&str) -> Rng) -> Box<dyn Application>;

    /// The bytes the initiator sends at most, if bounded (for the resource estimate).
    fn bytes(&self) -> Option<u64> {
        None
    }
}
