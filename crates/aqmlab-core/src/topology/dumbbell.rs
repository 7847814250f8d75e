//! The dumbbell: `pairs` left hosts → router L → bottleneck → router R → `pairs` right hosts.

use crate::aqm::{droptail, QueueConfig};
use crate::scenario::{Dumbbell, LinkSpec};

impl Dumbbell {
    pub fn left_host(&self, i: u32) -> String {
        format!("{}{i}", self.left)
    }

    pub fn right_host(&self, i: u32) -> String {
        format!("{}{i}", self.right)
    }

    /// The dumbbell's links: access links first (left host i, then right host i), then the bottleneck.
    pub fn links(&self) -> Vec<LinkSpec> {
        let access_queue = self
            .access_queue
            .clone()
            .unwrap_or(QueueConfig::DropTail(droptail::Config { limit: 1000, ..Default::default() }));
        let [l, r] = &self.routers;
        let mut links = Vec::with_capacity(2 * self.pairs as usize + 1);
        for i in 0..self.pairs {
            let delay = self.access_delay.at(i, self.pairs);
            for (host, router) in [(self.left_host(i), l), (self.right_host(i), r)] {
                links.push(LinkSpec {
                    a: host,
                    b: router.clone(),
                    rate: self.access_rate,
                    delay,
                    queue: Some(access_queue.clone()),
                    queue_ab: None,
                    queue_ba: None,
                    loss_ab: None,
                    loss_ba: None,
                });
            }
        }
        links.push(LinkSpec {
            a: l.clone(),
            b: r.clone(),
            rate: self.bottleneck_rate,
            delay: self.bottleneck_delay,
            queue: None,
            queue_ab: Some(self.queue.clone()),
            queue_ba: Some(self.reverse_queue.clone().unwrap_or_else(|| self.queue.clone())),
            loss_ab: None,
            loss_ba: None,
        });
        links
    }
}
