//! The dumbbell: `pairs` left hosts → router L → bottleneck → router R → `pairs` right hosts.

use super::{access_queue, checked, link, Topology};
use crate::scenario::units::Duration;
use crate::scenario::{Dumbbell, LinkSpec, Spread};

impl Dumbbell {
    pub fn left_host(&self, i: u32) -> String {
        format!("{}{i}", self.left)
    }

    pub fn right_host(&self, i: u32) -> String {
        format!("{}{i}", self.right)
    }
}

impl Topology for Dumbbell {
    /// Access links first (left host i, then right host i), then the bottleneck.
    fn links(&self) -> Result<Vec<(String, LinkSpec)>, (String, String)> {
        if self.pairs == 0 {
            return Err(("pairs".into(), "at least 1 pair of hosts".into()));
        }
        if let Spread::Linear { from, to } = self.access_delay {
            if to < from {
                return Err((
                    "access_delay.to".into(),
                    format!(
                        "a delay at least `from` ({} s): the spread rises from the first pair's delay to the \
                         last's, found {} s",
                        from.secs(),
                        to.secs()
                    ),
                ));
            }
        }
        let queues = [
            ("queue", Some(&self.queue)),
            ("reverse_queue", self.reverse_queue.as_ref()),
            ("access_queue", self.access_queue.as_ref()),
        ];
        for (field, queue) in queues {
            queue.map_or(Ok(()), |q| checked(field, q))?;
        }
        let access = self.access_queue.clone().unwrap_or_else(access_queue);
        let [l, r] = &self.routers;
        let mut links = Vec::with_capacity(2 * self.pairs as usize + 1);
        for i in 0..self.pairs {
            let delay = self.access_delay.at(i, self.pairs);
            for (host, router) in [(self.left_host(i), l), (self.right_host(i), r)] {
                let queues = (access.clone(), access.clone());
                links.push(("pairs".to_string(), link(&host, router, (self.access_rate, delay), queues)));
            }
        }
        let reverse = self.reverse_queue.clone().unwrap_or_else(|| self.queue.clone());
        let bottleneck = (self.bottleneck_rate, self.bottleneck_delay);
        links.push(("routers".to_string(), link(l, r, bottleneck, (self.queue.clone(), reverse))));
        Ok(links)
    }

    fn delays(&self) -> Vec<(String, Duration)> {
        let access = match self.access_delay {
            Spread::Fixed(delay) => ("access_delay".to_string(), delay),
            Spread::Linear { to, .. } => ("access_delay.to".to_string(), to),
        };
        vec![("bottleneck_delay".to_string(), self.bottleneck_delay), access]
    }

    fn link_count(&self) -> u64 {
        2 * self.pairs as u64 + 1
    }

    fn size_field(&self) -> &'static str {
        "pairs"
    }

    fn queue_field(&self, link: u64) -> String {
        let field = if link < 2 * self.pairs as u64 { "access_queue" } else { "queue" };
        field.into()
    }

    /// `"dumbbell"`: left host i to right host i.
    fn host_pairs(&self, spec: &str) -> Result<Vec<(String, String)>, String> {
        self.pair_count(spec)?;
        Ok((0..self.pairs).map(|i| (self.left_host(i), self.right_host(i))).collect())
    }

    fn pair_count(&self, spec: &str) -> Result<(u64, String), String> {
        match spec {
            "" => Ok((self.pairs as u64, "pairs".into())),
            _ => Err(format!("\"dumbbell\" (left host i to right host i), found \"dumbbell:{spec}\"")),
        }
    }
}
