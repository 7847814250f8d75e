//! `[[http]]`: PackMime-HTTP generators, each opening connections between every client and server.

use super::{Builder, HttpModel, HttpSource};
use crate::scenario::ScenarioError;
use crate::traffic::http_trace;

impl Builder<'_> {
    pub(super) fn http(&mut self) -> Result<Vec<HttpModel>, ScenarioError> {
        let mut http = Vec::new();
        for (g, spec) in self.s.http.iter().enumerate() {
            let path = format!("http[{g}]");
            let name = if spec.name.is_empty() { format!("http{g}") } else { spec.name.clone() };
            let source = match (spec.rate, &spec.trace) {
                (Some(_), Some(_)) => {
                    return Err(self.cx.err(
                        format!("{path}.trace"),
                        "either `rate` (PackMime-HTTP connections) or `trace` (a connection file), not both",
                    ))
                }
                (None, None) => {
                    return Err(self.cx.err(
                        format!("{path}.rate"),
                        "a positive number of new connections per second (or `trace`, a connection file)",
                    ))
                }
                (None, Some(file)) => HttpSource::Trace(
                    http_trace::read(file, self.cx.file)
                        .map_err(|m| self.cx.err(format!("{path}.trace"), m))?,
                ),
                (Some(rate), None) => {
                    if !(rate.is_finite() && rate > 0.0) {
                        return Err(self
                            .cx
                            .err(format!("{path}.rate"), "a positive number of new connections per second"));
                    }
                    let persistent = match spec.version.as_str() {
                        "1.1" => true,
                        "1.0" => false,
                        v => {
                            return Err(self
                                .cx
                                .err(format!("{path}.version"), format!("\"1.0\" or \"1.1\", found {v:?}")))
                        }
                    };
                    HttpSource::Packmime { rate, persistent, lrd: spec.lrd }
                }
            };
            let placements = self.placements(&spec.clients.names(), &spec.servers.names(), &path)?;
            if placements.is_empty() {
                return Err(self
                    .cx
                    .err(format!("{path}.clients"), "at least one client and one server node"));
            }
            if spec.start >= self.s.duration {
                self.warnings.push(self.cx.err(
                    format!("{path}.start"),
                    format!(
                        "the generator starts at or after the end of the run (duration = {} s) and opens no \
                         connection",
                        self.s.duration.secs()
                    ),
                ));
            }
            http.push(HttpModel {
                class: self.class(spec.class.clone().unwrap_or_else(|| name.clone())),
                stream: self.streams.claim(name.clone()),
                name,
                tcp: self.tcp.id(&spec.tcp, &path, &self.cx)?,
                placements,
                source,
                start: spec.start.0,
                stop: spec.stop.map(|d| d.0).unwrap_or(self.s.duration.0),
            });
        }
        Ok(http)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_scenarios::{error, model, refused, two_hosts};
    use super::HttpSource;

    fn http(fields: &str) -> String {
        two_hosts(&format!("[[http]]\nclients = [\"h1\", \"r\"]\nservers = \"h2\"\nrate = 5\n{fields}"))
    }

    #[test]
    fn a_generator_places_connections_on_every_client_server_pair() {
        let m = model(&http("version = \"1.0\"\nstop = \"8s\"\n"));
        let h = &m.http[0];
        assert_eq!((h.name.as_str(), h.stream.as_str(), h.stop), ("http0", "http0", 8_000_000_000));
        assert!(matches!(h.source, HttpSource::Packmime { persistent: false, .. }));
        let pairs: Vec<(u32, u32)> = h.placements.iter().map(|p| (p.client, p.server)).collect();
        assert_eq!(pairs, [(0, 2), (1, 2)]);
        assert_eq!(m.classes, ["http0"]);
    }

    #[test]
    fn generator_errors_name_the_field_and_late_starts_warn() {
        let e = refused(&http("version = \"2\"\n"), "http[0].version");
        assert_eq!(e.line, Some(16), "{e}");
        refused(&http("").replace("rate = 5", "rate = 0"), "http[0].rate");
        refused(&http("").replace("servers = \"h2\"", "servers = \"h1\""), "http[0].servers");
        let m = model(&http("start = \"10s\"\n"));
        assert_eq!(m.warnings[0].path, "http[0].start");
        let e = error(&http("trace = \"conns.txt\"\n"));
        assert!(e.path == "http[0].trace" && e.to_string().contains("not both"), "{e}");
        let e = error(&http("").replace("rate = 5", ""));
        assert!(e.path == "http[0].rate" && e.to_string().contains("or `trace`"), "{e}");
        let e = error(&http("").replace("rate = 5", "trace = \"no-such-trace.txt\""));
        assert!(e.path == "http[0].trace" && e.to_string().contains("a readable trace file"), "{e}");
    }
}
