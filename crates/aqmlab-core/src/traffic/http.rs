//! One PackMime-HTTP connection (or a web user's object): non-pipelined request/response pairs.

use super::app::{AppCtx, Application};
use crate::sim::{time, Time};
use crate::traffic::packmime::Pair;

/// HTTP/1.0: one pair; HTTP/1.1 persistent: several, each request after the previous response plus a
/// think gap. The server answers each request after its own delay.
#[derive(Clone, Debug)]
pub struct HttpConnection {
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

impl HttpConnection {
    pub fn new(pairs: Vec<Pair>, server_delays: Vec<f64>) -> Self {
        debug_assert!(!pairs.is_empty() && pairs.len() == server_delays.len());
        HttpConnection {
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
}

impl Application for HttpConnection {
    fn start(&mut self, cx: &mut AppCtx) {
        self.request_started = cx.now;
        self.waiting = true;
        cx.writes.push((0, self.pairs[0].request));
    }

    fn delivered(&mut self, side: usize, bytes: u64, cx: &mut AppCtx) {
        if side == 1 {
            self.request_received += bytes;
            // Requests are not pipelined: at most the one outstanding request completes here.
            if self.serving < self.pairs.len() && self.request_received >= self.pairs[self.serving].request {
                self.request_received -= self.pairs[self.serving].request;
                cx.timer = Some(cx.now + time::secs(self.server_delays[self.serving]));
            }
            return;
        }
        self.response_received += bytes;
        let pair = self.pairs[self.sent];
        if self.response_received >= pair.response {
            self.response_received -= pair.response;
            self.waiting = false;
            cx.record(self.sent as u32, self.request_started, pair.request, pair.response);
            if self.sent + 1 < self.pairs.len() {
                cx.timer = Some(cx.now + time::secs(self.pairs[self.sent + 1].gap));
            } else {
                cx.closes.push(0);
            }
        }
    }

    fn timer(&mut self, cx: &mut AppCtx) {
        // One timer at a time: the server's delay while it owes the response to the client's
        // outstanding request (serving == sent), else the client's think gap.
        if self.serving == self.sent {
            // Server delay over: send the response (with FIN after the last one).
            cx.writes.push((1, self.pairs[self.serving].response));
            if self.serving + 1 == self.pairs.len() {
                cx.closes.push(1);
            }
            self.serving += 1;
        } else {
            // Think gap over: the client sends its next request.
            self.sent += 1;
            self.request_started = cx.now;
            self.waiting = true;
            cx.writes.push((0, self.pairs[self.sent].request));
        }
    }

    fn outstanding_since(&self, since: Time) -> u64 {
        (self.waiting && self.request_started >= since) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two pairs: request, server delay, response, think gap, request, server delay, response and FIN.
    #[test]
    fn pairs_alternate_requests_server_delays_responses_and_gaps() {
        let pair = |request, response, gap| Pair { request, response, gap };
        let mut http = HttpConnection::new(vec![pair(300, 5000, 0.0), pair(200, 100, 0.5)], vec![0.25, 0.0]);
        let mut cx = AppCtx::default();
        http.start(&mut cx);
        assert_eq!(cx.writes, [(0, 300)]);
        // The server has the whole request: it answers after its delay.
        cx.reset(time::secs(1.0), 0, 9);
        http.delivered(1, 300, &mut cx);
        assert_eq!(cx.timer, Some(time::secs(1.25)));
        cx.reset(time::secs(1.25), 0, 9);
        http.timer(&mut cx);
        assert_eq!((cx.writes.as_slice(), cx.closes.as_slice()), (&[(1, 5000)][..], &[][..]));
        // The whole response: a record, then the think gap before the next request.
        cx.reset(time::secs(2.0), 0, 9);
        http.delivered(0, 4999, &mut cx);
        assert!(cx.records.is_empty() && http.outstanding_since(0) == 1);
        http.delivered(0, 1, &mut cx);
        assert_eq!((cx.records[0].index, cx.records[0].start, cx.records[0].end), (0, 0, time::secs(2.0)));
        assert_eq!(cx.timer, Some(time::secs(2.5)));
        cx.reset(time::secs(2.5), 0, 9);
        http.timer(&mut cx);
        assert_eq!(cx.writes, [(0, 200)]);
        cx.reset(time::secs(3.0), 0, 9);
        http.delivered(1, 200, &mut cx);
        http.timer(&mut cx);
        assert_eq!(
            (cx.writes.as_slice(), cx.closes.as_slice()),
            (&[(1, 100)][..], &[1][..]),
            "FIN with the last"
        );
        cx.reset(time::secs(4.0), 0, 9);
        http.delivered(0, 100, &mut cx);
        assert_eq!((cx.records[0].index, cx.closes.as_slice()), (1, &[0][..]), "the client closes after it");
    }
}
