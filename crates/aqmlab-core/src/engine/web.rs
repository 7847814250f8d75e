//! Closed-loop web users (`[[web_users]]`, docs/traffic.md#closed-loop-web-users): the engine side of
//! `traffic::web_users`. A user's steps run on `Event::WebUser` events: one when its think time ends, and
//! one whenever one of its objects has arrived (scheduled for the same instant, so that a user never
//! opens connections from inside another connection's event). Steps are idempotent: a stale event finds
//! nothing to do.

use super::flows::ConnectionTcp;
use super::{Event, Simulation};
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
    /// Connections opened during the whole run, and closed; objects requested.
    pub started: u64,
    pub finished: u64,
    objects: u64,
    /// Of the connections closed so far.
    pub tcp_counts: ConnectionTcp,
    /// Users fetching a page now, and users past `stop` (the others are thinking).
    waiting: u32,
    stopped: u32,
}

impl WebGenerator {
    /// The serial of a new connection in the generator.
    pub fn next_connection(&mut self) -> u64 {
        self.started += 1;
        self.started - 1
    }

    /// An object's request and response sizes.
    pub fn next_object(&mut self) -> (u64, u64) {
        self.objects += 1;
        (self.request.next(&mut self.rng), self.response.next(&mut self.rng))
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
            self.web.push(WebGenerator {
                rng,
                response,
                request,
                started: 0,
                finished: 0,
                objects: 0,
                tcp_counts: ConnectionTcp::default(),
                waiting: 0,
                stopped: 0,
            });
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
                gen.stopped += 1;
                return;
            }
            Phase::Thinking(_) => {
                if user.pages_left_on_server == 0 {
                    user.server = gen.rng.gen_range(0..m.servers);
                    user.pages_left_on_server = web_users::count(&m.pages_per_server, &mut gen.rng) as u64;
                }
                user.pages_left_on_server -= 1;
                let objects = web_users::count(&m.objects, &mut gen.rng);
                // No draw without a mix, so that HTTP/1.0 runs keep their random streams.
                let persistent = m.persistent > 0.0 && gen.rng.gen::<f64>() < m.persistent;
                let server = user.server;
                user.begin_page(now, objects, server, persistent);
                gen.waiting += 1;
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
                gen.waiting -= 1;
                if until < self.model.duration {
                    self.events.schedule(until, Event::WebUser(u));
                }
                self.record_response(&record, true);
                return;
            }
            Phase::Page => {}
        }
        for objects in user.connections_to_open(m.parallel) {
            self.open_web_connection(u, objects);
        }
    }

    /// Objects of user `u` have arrived completely (`records` of one connection).
    pub(super) fn web_objects_done(&mut self, u: u32, records: &[PairRecord]) {
        for r in records {
            self.users[u as usize].object_done(r.request_bytes, r.response_bytes);
        }
        self.events.schedule(self.now, Event::WebUser(u));
    }

    /// A `user_series` row per generator: its users fetching a page and thinking now.
    pub(super) fn sample_users(&mut self) {
        let t = time::to_secs(self.now);
        let s = &mut self.user_series;
        for (g, (gen, m)) in self.web.iter().zip(&self.model.web_users).enumerate() {
            s.generator.push(g as u32);
            s.t.push(t);
            s.waiting.push(gen.waiting);
            s.thinking.push(m.users - gen.waiting - gen.stopped);
        }
    }

    /// One row per `[[web_users]]` generator, after the `[[http]]` ones: connections, and the objects
    /// requested as `pairs_planned`.
    pub(super) fn web_generator_rows(&self, tcp: &[ConnectionTcp]) -> Vec<GeneratorRow> {
        self.web
            .iter()
            .zip(&self.model.web_users)
            .zip(tcp)
            .map(|((g, m), tcp)| GeneratorRow {
                generator: m.name.clone(),
                class: self.model.classes[m.class as usize].clone(),
                connections_started: g.started,
                connections_finished: g.finished,
                connections_open: g.started - g.finished,
                pairs_planned: g.objects,
                retransmits: tcp.retransmits,
                timeouts: tcp.timeouts,
                timeouts_after_ecn: tcp.timeouts_after_ecn,
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
