//! `[[web_users]]`: closed-loop web-user generators (docs/traffic.md#closed-loop-web-users) with their
//! distributions checked.

use super::{Builder, Ctx, SizeSpec, WebUsersModel};
use crate::scenario::{DistSpec, ScenarioError};
use crate::traffic::empirical::EmpiricalCdf;
use crate::traffic::web_users::{self, Dist};

impl Builder<'_> {
    pub(super) fn web_users(&mut self) -> Result<Vec<WebUsersModel>, ScenarioError> {
        let mut web_users = Vec::new();
        for (g, spec) in self.s.web_users.iter().enumerate() {
            let path = format!("web_users[{g}]");
            let name = if spec.name.is_empty() { format!("web_users{g}") } else { spec.name.clone() };
            if spec.users == 0 {
                return Err(self.cx.err(format!("{path}.users"), "at least 1 user"));
            }
            let parallel = spec.parallel.unwrap_or(web_users::DEFAULT_PARALLEL);
            if parallel == 0 {
                return Err(self.cx.err(format!("{path}.parallel"), "at least 1 connection"));
            }
            let persistent = spec.persistent.unwrap_or(web_users::DEFAULT_PERSISTENT);
            if !(0.0..=1.0).contains(&persistent) {
                return Err(self.cx.err(
                    format!("{path}.persistent"),
                    format!("a probability in [0, 1], found {persistent}"),
                ));
            }
            let (clients, servers) = (spec.clients.names(), spec.servers.names());
            if clients.is_empty() {
                return Err(self.cx.err(format!("{path}.clients"), "at least one client node"));
            }
            if servers.is_empty() {
                return Err(self.cx.err(format!("{path}.servers"), "at least one server node"));
            }
            let placements = self.placements(&clients, &servers, &path)?;
            let dist = |field: &str, spec: &Option<DistSpec>, default: Dist| match spec {
                None => Ok(default),
                Some(DistSpec::Surge {} | DistSpec::Packmime { .. }) => Err(self.cx.err(
                    format!("{path}.{field}.kind"),
                    "constant, exponential, pareto, lognormal, weibull, lognormal_pareto or empirical \
                     (`surge` and `packmime` are size models)",
                )),
                Some(d) => match web_dist(d, &format!("{path}.{field}"), &self.cx)? {
                    SizeSpec::Dist(d) => Ok(d),
                    SizeSpec::Packmime(_) => unreachable!("checked above"),
                },
            };
            let think = dist(
                "think_time",
                &spec.think_time,
                Dist::Pareto { scale: web_users::SURGE_THINK_SCALE, shape: web_users::SURGE_THINK_SHAPE },
            )?;
            let objects = dist(
                "objects_per_page",
                &spec.objects_per_page,
                Dist::Pareto { scale: web_users::SURGE_OBJECTS_SCALE, shape: web_users::SURGE_OBJECTS_SHAPE },
            )?;
            let pages_per_server = dist("pages_per_server", &spec.pages_per_server, Dist::Constant(1.0))?;
            let response = match &spec.response_size {
                None => SizeSpec::Dist(Dist::surge_sizes()),
                Some(d) => web_dist(d, &format!("{path}.response_size"), &self.cx)?,
            };
            if let (SizeSpec::Packmime(r), Some(DistSpec::Packmime { rate: None })) =
                (&response, &spec.response_size)
            {
                debug_assert!(r.is_nan());
                return Err(self.cx.err(
                    format!("{path}.response_size.rate"),
                    "PackMime's connection rate (its response sizes depend on it), e.g. { kind = \"packmime\", \
                     rate = 15 }",
                ));
            }
            let request = match &spec.request_size {
                None => SizeSpec::Packmime(1.0),
                Some(d) => match web_dist(d, &format!("{path}.request_size"), &self.cx)? {
                    // With i.i.d. drivers the request-size marginal does not depend on the rate.
                    SizeSpec::Packmime(_) => SizeSpec::Packmime(1.0),
                    other => other,
                },
            };
            if spec.start >= self.s.duration {
                self.warnings.push(self.cx.err(
                    format!("{path}.start"),
                    format!(
                        "the users start at or after the end of the run (duration = {} s) and request nothing",
                        self.s.duration.secs()
                    ),
                ));
            }
            let class = self.class(spec.class.clone().unwrap_or_else(|| name.clone()));
            let page_class_name =
                spec.page_class.clone().unwrap_or_else(|| format!("{}.page", self.classes[class as usize]));
            if page_class_name == self.classes[class as usize] {
                return Err(self.cx.err(
                    format!("{path}.page_class"),
                    format!("a class other than the pairs' class `{page_class_name}`"),
                ));
            }
            web_users.push(WebUsersModel {
                class,
                page_class: self.class(page_class_name),
                stream: self.streams.claim(name.clone()),
                name,
                tcp: self.tcp.id(&spec.tcp, &path, &self.cx)?,
                clients: clients.len() as u32,
                servers: servers.len() as u32,
                placements,
                users: spec.users,
                parallel,
                persistent,
                think,
                objects,
                pages_per_server,
                response,
                request,
                start: spec.start.0,
                stop: spec.stop.map(|d| d.0).unwrap_or(self.s.duration.0),
            });
        }
        Ok(web_users)
    }
}

/// A `[[web_users]]` distribution, its parameters checked (`path` is the distribution's table). A
/// `packmime` size without a rate gives `SizeSpec::Packmime(NaN)`; the caller decides whether it needs one.
fn web_dist(d: &DistSpec, path: &str, cx: &Ctx) -> Result<SizeSpec, ScenarioError> {
    let positive = |field: &str, v: f64| {
        if v.is_finite() && v > 0.0 {
            Ok(v)
        } else {
            Err(cx.err(format!("{path}.{field}"), format!("a positive number, found {v}")))
        }
    };
    let finite = |field: &str, v: f64| {
        if v.is_finite() {
            Ok(v)
        } else {
            Err(cx.err(format!("{path}.{field}"), format!("a finite number, found {v}")))
        }
    };
    Ok(SizeSpec::Dist(match *d {
        DistSpec::Constant { value } => {
            if !(value.is_finite() && value >= 0.0) {
                return Err(cx.err(format!("{path}.value"), format!("a number ≥ 0, found {value}")));
            }
            Dist::Constant(value)
        }
        DistSpec::Exponential { mean } => Dist::Exponential { mean: positive("mean", mean)? },
        DistSpec::Pareto { scale, shape } => {
            Dist::Pareto { scale: positive("scale", scale)?, shape: positive("shape", shape)? }
        }
        DistSpec::Lognormal { mu, sigma } => {
            Dist::Lognormal { mu: finite("mu", mu)?, sigma: positive("sigma", sigma)? }
        }
        DistSpec::Weibull { scale, shape } => {
            Dist::Weibull { scale: positive("scale", scale)?, shape: positive("shape", shape)? }
        }
        DistSpec::LognormalPareto { mu, sigma, cutoff, shape } => {
            let (mu, sigma) = (finite("mu", mu)?, positive("sigma", sigma)?);
            let (cutoff, shape) = (positive("cutoff", cutoff)?, positive("shape", shape)?);
            if cutoff.ln() < mu {
                return Err(cx.err(
                    format!("{path}.cutoff"),
                    format!(
                        "a cutoff at or above the body's median e^mu = {:.0}, found {cutoff} (the tail then \
                         holds at most half of the mass)",
                        mu.exp()
                    ),
                ));
            }
            Dist::LognormalPareto { mu, sigma, cutoff, shape }
        }
        DistSpec::Surge {} => Dist::surge_sizes(),
        DistSpec::Empirical { ref file } => Dist::Empirical(
            EmpiricalCdf::read(file, cx.file, "value", 1.0).map_err(|m| cx.err(format!("{path}.file"), m))?,
        ),
        DistSpec::Packmime { rate } => {
            return Ok(SizeSpec::Packmime(match rate {
                Some(r) => positive("rate", r)?,
                None => f64::NAN,
            }))
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::super::test_scenarios::{error, model, refused, two_hosts};
    use super::super::SizeSpec;
    use crate::traffic::web_users::Dist;

    fn users(fields: &str) -> String {
        two_hosts(&format!("[[web_users]]\nclients = \"h1\"\nservers = [\"h2\", \"r\"]\nusers = 3\n{fields}"))
    }

    #[test]
    fn defaults_are_surges_and_packmimes() {
        let m = model(&users(""));
        let w = &m.web_users[0];
        assert_eq!((w.clients, w.servers, w.placements.len(), w.users), (1, 2, 2, 3));
        assert_eq!(w.response, SizeSpec::Dist(Dist::surge_sizes()));
        assert_eq!(w.request, SizeSpec::Packmime(1.0));
        assert_eq!(w.pages_per_server, Dist::Constant(1.0));
        assert_eq!(m.classes, ["web_users0", "web_users0.page"]);
    }

    #[test]
    fn distributions_are_checked_where_they_are_written() {
        let e = refused(
            &users("think_time = { kind = \"exponential\", mean = -1 }\n"),
            "web_users[0].think_time.mean",
        );
        assert_eq!(e.line, Some(16), "{e}");
        refused(&users("objects_per_page = { kind = \"surge\" }\n"), "web_users[0].objects_per_page.kind");
        refused(&users("response_size = { kind = \"packmime\" }\n"), "web_users[0].response_size.rate");
        let e = error(&users(
            "response_size = { kind = \"lognormal_pareto\", mu = 9, sigma = 1, cutoff = 10, shape = 1.1 }\n",
        ));
        assert_eq!(e.path, "web_users[0].response_size.cutoff", "{e}");
        refused(&users("page_class = \"web_users0\"\n"), "web_users[0].page_class");
    }
}
