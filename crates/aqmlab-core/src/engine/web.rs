//! Closed-loop web users (`[[web_users]]`, docs/traffic.md#closed-loop-web-users): the engine side of
//! `traffic::web_users`. A user's steps run on `Event::WebUser` events: one when its think time ends, and
//! one whenever one of its objects has arrived (scheduled for the same instant, so that a user never
//! opens connections from inside another connection's event). Steps are idempotent: a stale event finds
//! nothing to do.

use super::{Event, Simulation, RECORD_BATCH};
use crate::metrics::GeneratorRow;
use crate::scenario::build::SizeSpec;
use crate::sim::{rng, time, Rng};
use crate::traffic::app::PairRecord;
use crate::traffic::packmime::{RequestSizes, ResponseSizes};
use crate::traffic::web_users::{self, Phase, SizeModel, User};
use rand::Rng as _;

/// One `[[web_users]]` generator's samplers and counters (its users live in `Simulation::users`).
pub(super) struct WebGenerator {
    rng: Rng,
    response: SizeModel,
    request: SizeModel,
    /// Connections (objects) requested during the whole run, and closed.
    pub started: u64,
    pub finished: u64,
}

impl WebGenerator {
    /// The object's request and response sizes, and the serial of its connection in the generator.
    pub fn next_object(&mut self) -> (u64, u64, u64) {
        let request = self.request.next(&mut self.rng);
        let response = self.response.next(&mut self.rng);
        self.started += 1;
        (request, response, self.started - 1)
    }
}

impl Simulation<'_> {
    /// Creates every generator's users; each requests its first page after a first think time.
    pub(super) fn create_web_users(&mut self) {
        for (g, m) in self.model.web_users.iter().enumerate() {
            let mut rng = rng::stream(self.model.seed, &format!("web_users/{}", m.stream));
            let size = |s: &SizeSpec, response: bool, rng: &mut Rng| match s {
                SizeSpec::Dist(d) => SizeModel::Dist(d.clone()),
                SizeSpec::Packmime(rate) if response => {
                    SizeModel::PackmimeResponse(Box::new(ResponseSizes::new(*rate)))
                }
                SizeSpec::Packmime(rate) => {
                    SizeModel::PackmimeRequest(Box::new(RequestSizes::new(*rate, false, rng)))
                }
            };
            let response = size(&m.response, true, &mut rng);
            let request = size(&m.request, false, &mut rng);
            for i in 0..m.users {
                let first = m.start.saturating_add(time::secs(m.think.sample(&mut rng)));
                let u = self.users.len() as u32;
                self.users.push(User::new(g as u32, i, i % m.clients, first));
                if first < self.model.duration {
                    self.events.schedule(first, Event::WebUser(u));
                }
            }
            self.web.push(WebGenerator { rng, response, request, started: 0, finished: 0 });
        }
    }

    /// User `u`'s next step: start a page once its think time is over, request what its page allows,
    /// or close a completed page and think.
    pub(super) fn web_user(&mut self, u: u32) {
        let now = self.now;
        let user = &mut self.users[u as usize];
        let g = user.generator as usize;
        let m = &self.model.web_users[g];
        let gen = &mut self.web[g];
        match user.phase {
            Phase::Stopped => return,
            Phase::Thinking(until) if now < until => return,
            Phase::Thinking(_) if now >= m.stop => {
                user.phase = Phase::Stopped;
                return;
            }
            Phase::Thinking(_) => {
                if user.pages_left_on_server == 0 {
                    user.server = gen.rng.gen_range(0..m.servers);
                    user.pages_left_on_server = web_users::count(&m.pages_per_server, &mut gen.rng) as u64;
                }
                user.pages_left_on_server -= 1;
                let objects = web_users::count(&m.objects, &mut gen.rng);
                let server = user.server;
                user.begin_page(now, objects, server);
            }
            Phase::Page if user.page_complete() => {
                let record = PairRecord {
                    class: m.page_class,
                    connection: user.number as u64,
                    index: user.pages - 1,
                    start: user.page_start,
                    end: now,
                    request_bytes: user.request_bytes,
                    response_bytes: user.response_bytes,
                };
                let until = now.saturating_add(time::secs(m.think.sample(&mut gen.rng)));
                user.phase = Phase::Thinking(until);
                if until < self.model.duration {
                    self.events.schedule(until, Event::WebUser(u));
                }
                self.record_page(&record);
                return;
            }
            Phase::Page => {}
        }
        for _ in 0..user.to_request(m.parallel) {
            self.open_web_object(u);
        }
    }

    /// Objects of user `u` have arrived completely (`records` of one connection).
    pub(super) fn web_objects_done(&mut self, u: u32, records: &[PairRecord]) {
        for r in records {
            self.users[u as usize].object_done(r.request_bytes, r.response_bytes);
        }
        self.events.schedule(self.now, Event::WebUser(u));
    }

    /// Counts a completed page and keeps its record, as `record_pair` does for pairs; a page ends the run
    /// through `[stop]` only when that names the page class.
    fn record_page(&mut self, r: &PairRecord) {
        if r.start < self.model.warmup {
            return;
        }
        let secs = time::to_secs(r.end - r.start);
        self.responses[r.class as usize].add(secs, r.request_bytes, r.response_bytes);
        if self.model.pair_records {
            self.pairs.push(r);
            if self.sink.is_some() && self.pairs.len() >= RECORD_BATCH {
                self.flush_records();
            }
        }
        if let Some((Some(class), k)) = self.model.stop_after {
            if class == r.class {
                self.pairs_done += 1;
                self.stop_requested |= self.pairs_done >= k;
            }
        }
    }

    /// One row per `[[web_users]]` generator, after the `[[http]]` ones: connections (one per object)
    /// and the objects requested as `pairs_planned`.
    pub(super) fn web_generator_rows(&self) -> Vec<GeneratorRow> {
        self.web
            .iter()
            .zip(&self.model.web_users)
            .map(|(g, m)| GeneratorRow {
                generator: m.name.clone(),
                class: self.model.classes[m.class as usize].clone(),
                connections_started: g.started,
                connections_finished: g.finished,
                connections_open: g.started - g.finished,
                pairs_planned: g.started,
            })
            .collect()
    }

    /// Adds the pages started after the warm-up and not complete to `incomplete` (per class).
    pub(super) fn web_incomplete_pages(&self, incomplete: &mut [u64]) {
        for user in &self.users {
            if user.phase == Phase::Page && user.page_start >= self.model.warmup {
                incomplete[self.model.web_users[user.generator as usize].page_class as usize] += 1;
            }
        }
    }
}
