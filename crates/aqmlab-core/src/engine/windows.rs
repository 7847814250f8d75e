//! Windowed statistics (`measure.window`): from the warm-up on, at the end of every window (warm-up +
//! k·window, and the run's end when it falls inside a window: a last, shorter window), a row per link
//! direction with its counters in the window (`window_links`) and a row per traffic class that completed
//! pairs in it, with their count and response times (`window_responses`). The rows stream to the record
//! sink in batches, as the queue samples do.
//!
//! A window is closed from the event loop between two events, never by an event of its own, so the
//! event queue and the order of events are those of a run without windows: once every event at the
//! window's end has been handled (an event exactly at a boundary counts in the window that ends there),
//! before the first later one. Closing only reads counters. It first catches every link up to the
//! window's end (`links::catch_up`), which takes off the queues the transmissions that started by then,
//! at their own start times, exactly as the next look at each link would; it schedules nothing.

use super::{Batch, Simulation, RECORD_BATCH};
use crate::metrics::response::ResponseHistogram;
use crate::metrics::{ClassCounters, WindowLinks, WindowResponses};
use crate::scenario::build::Model;
use crate::sim::{time, Time};

/// The counters of a link direction that `window_links` reports, as the `links` table counts them.
#[derive(Clone, Copy, Default)]
struct LinkCounts {
    arrivals: u64,
    drops: u64,
    marks: u64,
    departure_bytes: u64,
}

impl LinkCounts {
    fn of(c: &ClassCounters) -> Self {
        LinkCounts {
            arrivals: c.arrivals,
            drops: c.drops(),
            marks: c.marks,
            departure_bytes: c.departure_bytes,
        }
    }
}

/// The current window and the rows not yet handed on; empty without `measure.window`.
#[derive(Default)]
pub(super) struct Windows {
    length: Time,
    /// Where the current window starts.
    start: Time,
    /// Per link direction: its counters at `start`.
    at_start: Vec<LinkCounts>,
    /// Per traffic class: the pairs completed in the current window (what `responses` counts).
    pub pairs: Vec<ResponseHistogram>,
    pub links: WindowLinks,
    pub responses: WindowResponses,
}

impl Windows {
    pub fn new(model: &Model) -> Self {
        let Some(length) = model.window else { return Windows::default() };
        Windows {
            length,
            start: model.warmup,
            at_start: vec![LinkCounts::default(); model.links.len()],
            pairs: vec![ResponseHistogram::default(); model.classes.len().max(1)],
            ..Windows::default()
        }
    }

    /// The end of the first window (`Time::MAX` without windows, so that none ever closes).
    pub fn first_end(model: &Model) -> Time {
        model.window.map_or(Time::MAX, |w| model.warmup.saturating_add(w))
    }

    fn len(&self) -> usize {
        self.links.len().max(self.responses.len())
    }
}

impl Simulation<'_> {
    /// Closes every window that ends before `t` (the time of the next event, or just past the run's
    /// end).
    #[inline(never)]
    pub(super) fn close_windows_before(&mut self, t: Time) {
        while self.window_end < t {
            self.close_window(self.window_end);
            self.window_end = self.window_end.saturating_add(self.windows.length);
        }
    }

    /// At the run's end (`now`): the windows ending by then, and a last, shorter one if the run ended
    /// inside a window.
    pub(super) fn close_last_windows(&mut self) {
        if self.model.window.is_none() {
            return;
        }
        self.close_windows_before(self.now.saturating_add(1));
        if self.now > self.windows.start {
            self.close_window(self.now);
        }
    }

    /// Ends the current window at `at` (no earlier than the last event handled): its rows, then the
    /// next window starts.
    fn close_window(&mut self, at: Time) {
        let now = self.now;
        self.now = at;
        self.catch_up_all();
        self.now = now;
        let (t_start, t_end) = (time::to_secs(self.windows.start), time::to_secs(at));
        for l in 0..self.links.len() {
            let counts = LinkCounts::of(&ClassCounters::total(&self.link_class_counters(l)));
            let before = std::mem::replace(&mut self.windows.at_start[l], counts);
            let rows = &mut self.windows.links;
            rows.link.push(l as u32);
            rows.t_start.push(t_start);
            rows.t_end.push(t_end);
            rows.arrivals.push(counts.arrivals - before.arrivals);
            rows.drops.push(counts.drops - before.drops);
            rows.marks.push(counts.marks - before.marks);
            rows.departure_bytes.push(counts.departure_bytes - before.departure_bytes);
        }
        let classes = self.model.classes.len();
        for (c, h) in self.windows.pairs.iter_mut().enumerate().take(classes) {
            if h.pairs == 0 {
                continue;
            }
            let rows = &mut self.windows.responses;
            rows.class.push(c as u16);
            rows.t_start.push(t_start);
            rows.t_end.push(t_end);
            rows.pairs.push(h.pairs);
            rows.mean_s.push(h.mean_secs());
            rows.p50_s.push(h.times.quantile(0.5));
            rows.p90_s.push(h.times.quantile(0.9));
            rows.p99_s.push(h.times.quantile(0.99));
            *h = ResponseHistogram::default();
        }
        self.windows.start = at;
        if self.sink.is_some() && self.windows.len() >= RECORD_BATCH {
            self.flush_windows();
        }
    }

    pub(super) fn flush_windows(&mut self) {
        if let Some(sink) = self.sink.as_mut() {
            if !self.windows.links.is_empty() {
                sink(Batch::WindowLinks(&std::mem::take(&mut self.windows.links)));
            }
            if !self.windows.responses.is_empty() {
                sink(Batch::WindowResponses(&std::mem::take(&mut self.windows.responses)));
            }
        }
    }
}
