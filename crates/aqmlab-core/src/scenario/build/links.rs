//! The network: nodes (declared ones first, then in order of first mention by a link) and link
//! directions, from `[[nodes]]`, `[[links]]` and the topology builders (`[dumbbell]`, `[parking_lot]`).

use super::{Ctx, LinkModel};
use crate::aqm::LinkInfo;
use crate::net::loss::LossSpec;
use crate::net::routing::Graph;
use crate::scenario::{LinkSpec, Scenario, ScenarioError};
use crate::topology;
use std::collections::HashMap;

/// Numbered nodes and link directions, and the graph they form.
pub(super) struct Network {
    pub nodes: Vec<String>,
    index: HashMap<String, u32>,
    pub links: Vec<LinkModel>,
    pub graph: Graph,
}

impl Network {
    /// The number of node `name`, written at `path`.
    pub fn node(&self, name: &str, path: &str, cx: &Ctx) -> Result<u32, ScenarioError> {
        self.index.get(name).copied().ok_or_else(|| {
            cx.err(
                path,
                format!(
                    "a node name; `{name}` is not a node of this scenario (nodes: {})",
                    preview(&self.nodes)
                ),
            )
        })
    }

    fn add_node(&mut self, name: &str) -> u32 {
        let nodes = &mut self.nodes;
        *self.index.entry(name.to_string()).or_insert_with(|| {
            nodes.push(name.to_string());
            (nodes.len() - 1) as u32
        })
    }
}

pub(super) fn network(s: &Scenario, cx: &Ctx) -> Result<Network, ScenarioError> {
    for (i, l) in s.links.iter().enumerate() {
        cx.within_run(&format!("links[{i}].delay"), l.delay)?;
    }
    let mut net = Network {
        nodes: Vec::new(),
        index: HashMap::new(),
        links: Vec::new(),
        graph: Graph::new(0, std::iter::empty()),
    };
    for n in &s.nodes {
        net.add_node(&n.name);
    }
    let mut specs: Vec<(String, LinkSpec)> =
        s.links.iter().enumerate().map(|(i, l)| (format!("links[{i}]"), l.clone())).collect();
    for (key, builder) in topology::builders(s) {
        let links =
            builder.links().map_err(|(field, expected)| cx.err(format!("{key}.{field}"), expected))?;
        for (field, delay) in builder.delays() {
            cx.within_run(&format!("{key}.{field}"), delay)?;
        }
        specs.extend(links.into_iter().map(|(field, l)| (format!("{key}.{field}"), l)));
    }
    if specs.is_empty() {
        return Err(cx.err("links", "at least one link (a [[links]] table, a [dumbbell] or a [parking_lot])"));
    }
    net.links.reserve(specs.len() * 2);
    let mut joined_by: HashMap<(u32, u32), &str> = HashMap::new();
    for (path, l) in &specs {
        if l.a == l.b {
            return Err(
                cx.err(format!("{path}.b"), format!("a node other than `{}` (a link joins two nodes)", l.a))
            );
        }
        let a = net.add_node(&l.a);
        let b = net.add_node(&l.b);
        if let Some(first) = joined_by.insert((a.min(b), a.max(b)), path) {
            return Err(cx.err(
                path.as_str(),
                format!("one link between `{}` and `{}`; {first} already joins them", l.a, l.b),
            ));
        }
        add_directions(&mut net, l, (a, b), path, cx)?;
    }
    net.graph = Graph::new(net.nodes.len(), net.links.iter().map(|l| (l.from, l.to)));
    Ok(net)
}

/// The two directions of link `l` between nodes `a` and `b`, with their queues and error models.
fn add_directions(
    net: &mut Network,
    l: &LinkSpec,
    (a, b): (u32, u32),
    path: &str,
    cx: &Ctx,
) -> Result<(), ScenarioError> {
    if l.queue.is_some() && (l.queue_ab.is_some() || l.queue_ba.is_some()) {
        return Err(cx.err(
            format!("{path}.queue"),
            "either `queue` (both directions) or `queue_ab`/`queue_ba`, not both: `queue` would not \
             apply to a direction they set",
        ));
    }
    let info = LinkInfo { rate_bps: l.rate.0, delay: l.delay.0 };
    let default_q = l.queue.clone().unwrap_or_default();
    let directions = [
        (a, b, &l.queue_ab, "queue_ab", &l.loss_ab, "loss_ab"),
        (b, a, &l.queue_ba, "queue_ba", &l.loss_ba, "loss_ba"),
    ];
    for (from, to, q, field, loss, loss_field) in directions {
        if let Some(Err((f, expected))) = loss.as_ref().map(LossSpec::validate) {
            return Err(cx.err(format!("{path}.{loss_field}.{f}"), expected));
        }
        let queue = q.clone().unwrap_or_else(|| default_q.clone());
        if let Err((f, expected)) = queue.validate() {
            let field = if q.is_some() { field } else { "queue" };
            return Err(cx.err(format!("{path}.{field}.{f}"), expected));
        }
        net.links.push(LinkModel {
            name: format!("{}->{}", net.nodes[from as usize], net.nodes[to as usize]),
            from,
            to,
            info,
            queue,
            loss: loss.clone(),
        });
    }
    Ok(())
}

/// The first few node names, for messages.
fn preview(nodes: &[String]) -> String {
    let mut s: Vec<&str> = nodes.iter().take(8).map(String::as_str).collect();
    if nodes.len() > 8 {
        s.push("…");
    }
    s.join(", ")
}

#[cfg(test)]
mod tests {
    use super::super::test_scenarios::{error, model, refused, two_hosts};

    #[test]
    fn declared_nodes_come_first_then_nodes_in_order_of_mention() {
        let m = model(&two_hosts("[[nodes]]\nname = \"h2\"\n"));
        assert_eq!(m.nodes, ["h2", "h1", "r"]);
        let names: Vec<&str> = m.links.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["h1->r", "r->h1", "r->h2", "h2->r"]);
        assert_eq!((m.links[0].info.rate_bps, m.links[0].info.delay), (10_000_000, 1_000_000));
    }

    #[test]
    fn a_dumbbell_adds_its_hosts_routers_and_links() {
        let text = "duration = \"10s\"\n[dumbbell]\npairs = 2\nbottleneck_rate = \"10Mbps\"\n\
                    bottleneck_delay = \"5ms\"\naccess_rate = \"100Mbps\"\naccess_delay = { from = \"1ms\", to = \"3ms\" }\n";
        let m = model(text);
        assert_eq!(m.links.len(), 10, "four access links and the bottleneck, both ways");
        assert!(m.links.iter().any(|l| l.name == "A->B" && l.info.delay == 5_000_000));
        let e = refused(&text.replace("to = \"3ms\"", "to = \"0ms\""), "dumbbell.access_delay.to");
        assert_eq!(e.line, Some(7), "{e}");
        let red = "{ kind = \"red\", thresh = 9, maxthresh = 3 }";
        let e = error(&format!("{text}reverse_queue = {red}\n"));
        assert!(e.path.starts_with("dumbbell.reverse_queue.") && e.line == Some(8), "{e}");
    }

    #[test]
    fn link_errors_name_the_link() {
        let e = refused(
            &two_hosts("[[links]]\na = \"h2\"\nb = \"r\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n"),
            "links[2]",
        );
        assert!(e.message.contains("links[1] already joins them"), "{e}");
        let e = refused(&two_hosts("").replacen("b = \"r\"", "b = \"h1\"", 1), "links[0].b");
        assert_eq!(e.line, Some(4), "{e}");
        let e = refused(&two_hosts("").replacen("delay = \"1ms\"", "delay = \"10s\"", 1), "links[0].delay");
        assert!(e.message.contains("a delay shorter than the run"), "{e}");
        let e = error(&two_hosts("").replacen(
            "delay = \"1ms\"\n",
            "delay = \"1ms\"\nqueue = { kind = \"red\", thresh = 9, maxthresh = 3 }\n",
            1,
        ));
        assert!(e.path.starts_with("links[0].queue."), "{e}");
    }
}
