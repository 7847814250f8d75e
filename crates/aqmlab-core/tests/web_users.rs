//! Closed-loop web users (`[[web_users]]`, docs/traffic.md#closed-loop-web-users): the samplers against
//! their definitions, the closed-loop page rate on an uncongested network, the fall of offered load
//! behind a throttled bottleneck (where PackMime's open loop keeps its rate), and located errors.

use aqmlab_core::metrics::ks::ks_statistic as ks_stat;
use aqmlab_core::sim::rng::from_seed;
use aqmlab_core::traffic::web_users::{self, Dist};
use aqmlab_core::{load, run, RunResult, ScenarioError};

const N: usize = 100_000;

/// Asserts the KS statistic is below the 1 % critical value 1.628/√n.
fn assert_ks(what: &str, d: f64, n: usize) {
    let crit = 1.628 / (n as f64).sqrt();
    println!("KS {what}: D = {d:.5} (n = {n}, 1% critical {crit:.5})");
    assert!(d < crit, "{what}: KS D = {d} ≥ {crit}");
}

/// Φ by Abramowitz and Stegun 7.1.26 (|error| < 1.5e-7, far below the KS tolerance), written here
/// independently of the library's.
fn phi(z: f64) -> f64 {
    let x = z.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736 + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erf = 1.0 - poly * (-x * x).exp();
    if z >= 0.0 {
        0.5 * (1.0 + erf)
    } else {
        0.5 * (1.0 - erf)
    }
}

fn draws(d: &Dist, seed: u64) -> Vec<f64> {
    let mut rng = from_seed(seed);
    (0..N).map(|_| d.sample(&mut rng)).collect()
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

#[test]
fn samples_match_their_distributions() {
    // SURGE's think time: Pareto k = 1 s, α = 1.5.
    let think = Dist::Pareto { scale: 1.0, shape: 1.5 };
    let pareto = |x: f64| if x < 1.0 { 0.0 } else { 1.0 - x.powf(-1.5) };
    assert_ks("think time, Pareto(1 s, 1.5)", ks_stat(draws(&think, 1), pareto, pareto), N);

    // SURGE's response sizes: lognormal body (9.357, 1.318) up to 133 KB, Pareto tail α = 1.1 above.
    let (mu, sigma, k, a) = (9.357, 1.318, 133_000.0, 1.1);
    let body = phi((f64::ln(k) - mu) / sigma);
    let hybrid = move |x: f64| {
        if x <= k {
            phi((x.ln() - mu) / sigma)
        } else {
            body + (1.0 - body) * (1.0 - (k / x).powf(a))
        }
    };
    let sizes = draws(&Dist::surge_sizes(), 2);
    assert_ks("response size, SURGE lognormal/Pareto", ks_stat(sizes.clone(), hybrid, hybrid), N);
    let tail = sizes.iter().filter(|&&x| x > k).count() as f64 / N as f64;
    println!("SURGE sizes: share above 133 KB {tail:.4} (expected {:.4})", 1.0 - body);
    assert!((tail - (1.0 - body)).abs() < 4.0 * ((1.0 - body) * body / N as f64).sqrt());
    let mut sorted = sizes;
    sorted.sort_by(f64::total_cmp);
    let median = sorted[N / 2];
    println!(
        "SURGE sizes: median {median:.0} B, mean (closed form) {:.0} B",
        Dist::surge_sizes().mean().unwrap()
    );
    assert!((median / mu.exp() - 1.0).abs() < 0.03, "median {median} against e^mu");

    // Objects per page: floor of Pareto(1, 2.43), so P(count ≥ n) = n^-2.43.
    let objects = Dist::Pareto { scale: 1.0, shape: 2.43 };
    let mut rng = from_seed(3);
    let counts: Vec<f64> = (0..N).map(|_| web_users::count(&objects, &mut rng) as f64).collect();
    let at_most = |v: f64| 1.0 - (v + 1.0).powf(-2.43);
    let below = |v: f64| if v < 1.0 { 0.0 } else { 1.0 - v.powf(-2.43) };
    assert_ks("objects per page, floor Pareto(1, 2.43)", ks_stat(counts.clone(), at_most, below), N);
    // Mean ζ(2.43) ≈ 1.370; the variance is finite (α > 2), so the sample mean is close.
    let zeta: f64 = (1..1_000_000).map(|n| (n as f64).powf(-2.43)).sum();
    println!("objects per page: mean {:.4} (ζ(2.43) = {zeta:.4})", mean(&counts));
    assert!((mean(&counts) / zeta - 1.0).abs() < 0.02);

    // The other kinds a scenario may name.
    let exp = Dist::Exponential { mean: 2.0 };
    let f = |x: f64| 1.0 - (-x / 2.0).exp();
    assert_ks("exponential(2)", ks_stat(draws(&exp, 4), f, f), N);
    let ln = Dist::Lognormal { mu: 1.0, sigma: 0.5 };
    let f = |x: f64| phi((x.ln() - 1.0) / 0.5);
    assert_ks("lognormal(1, 0.5)", ks_stat(draws(&ln, 5), f, f), N);
    let wb = Dist::Weibull { scale: 1.46, shape: 0.382 };
    let f = |x: f64| 1.0 - (-(x / 1.46).powf(0.382)).exp();
    assert_ks("Weibull(1.46, 0.382)", ks_stat(draws(&wb, 6), f, f), N);
    let c = Dist::Constant(3.0);
    assert!(draws(&c, 7).iter().all(|&x| x == 3.0));
    // Closed-form means used in the docs (finite-mean cases).
    for (d, seed) in [(exp, 8), (ln, 9), (wb, 10)] {
        let m = mean(&draws(&d, seed));
        assert!((m / d.mean().unwrap() - 1.0).abs() < 0.05, "{d:?}: {m} against {:?}", d.mean());
    }
    assert_eq!(Dist::Pareto { scale: 1.0, shape: 1.0 }.mean(), None);
}

/// A fresh folder for a test's files.
fn folder(test: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("aqmlab-web-users-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

/// The knots of the CDF file the empirical tests use: (value, cumulative probability).
const KNOTS: [(f64, f64); 5] = [(0.5, 0.1), (1.0, 0.3), (2.0, 0.6), (5.0, 0.9), (20.0, 1.0)];

#[test]
fn empirical_distributions_follow_their_files() {
    let dir = folder("empirical");
    let lines: String = KNOTS.iter().map(|(v, p)| format!("{v},{p}\n")).collect();
    std::fs::write(dir.join("cdf.csv"), format!("# value,cumulative probability\n{lines}")).unwrap();
    // Every quantity may name the file, relative to the scenario's folder.
    let fields = ["think_time", "objects_per_page", "pages_per_server", "response_size", "request_size"];
    let tables: String =
        fields.iter().map(|f| format!("{f} = {{ kind = \"empirical\", file = \"cdf.csv\" }}\n")).collect();
    let text = network(
        "1Gbps",
        20,
        0,
        &format!(
            "[[web_users]]\nname = \"web\"\nclients = \"client\"\nservers = \"s1\"\nusers = 5\n{tables}"
        ),
    );
    let scenario = dir.join("s.toml");
    let model = load(&text, scenario.to_str().unwrap(), &[], None).unwrap_or_else(|e| panic!("{e}"));
    let w = &model.web_users[0];
    for d in [&w.think, &w.objects, &w.pages_per_server] {
        assert!(matches!(d, Dist::Empirical(_)), "{d:?}");
    }
    // Linear between the knots, from (0, 0) below the first.
    let f = |x: f64| {
        let mut last = (0.0, 0.0);
        for (v, p) in KNOTS {
            if x < v {
                return last.1 + (p - last.1) * (x - last.0).max(0.0) / (v - last.0);
            }
            last = (v, p);
        }
        1.0
    };
    assert_ks("empirical think time", ks_stat(draws(&w.think, 11), f, f), N);
    let expected: f64 = KNOTS
        .iter()
        .scan((0.0, 0.0), |l, &(v, p)| {
            let piece = (p - l.1) * (v + l.0) / 2.0;
            *l = (v, p);
            Some(piece)
        })
        .sum();
    let m = mean(&draws(&w.think, 12));
    println!("empirical mean {m:.4} (file {expected:.4})");
    assert!((w.think.mean().unwrap() - expected).abs() < 1e-12 && (m / expected - 1.0).abs() < 0.02);
    let r = run(model, None);
    assert!(records(&r, "web.page").len() > 5, "the users browse");
}

fn simulate(text: &str) -> RunResult {
    run(load(text, "test.toml", &[], None).unwrap_or_else(|e| panic!("{e}")), None)
}

/// client — R0 — R1 — {s1, s2}: the R0–R1 link at `rate`, everything else 1 Gb/s, 1 ms per link.
fn network(rate: &str, duration: u32, warmup: u32, traffic: &str) -> String {
    let link = |a: &str, b: &str, rate: &str| {
        format!(
            "[[links]]\na = \"{a}\"\nb = \"{b}\"\nrate = \"{rate}\"\ndelay = \"1ms\"\n\
             queue = {{ kind = \"droptail\", limit = 100 }}\n"
        )
    };
    format!(
        "duration = {duration}\n[measure]\nwarmup = {warmup}\npair_records = true\n[tcp]\nmax_window = 64\n\
         tick = 0\n{}{}{}{}{traffic}",
        link("client", "R0", "1Gbps"),
        link("R0", "R1", rate),
        link("R1", "s1", "1Gbps"),
        link("R1", "s2", "1Gbps"),
    )
}

/// Records of one class: (user or connection, index, start, end, response time, response bytes).
fn records(r: &RunResult, class: &str) -> Vec<(u64, u32, f64, f64, f64, u64)> {
    let c = class_index(r, class);
    let p = &r.pairs;
    (0..p.len())
        .filter(|&i| p.class[i] as usize == c)
        .map(|i| {
            (p.connection[i], p.index[i], p.start_s[i], p.end_s[i], p.response_time_s[i], p.response_bytes[i])
        })
        .collect()
}

fn class_index(r: &RunResult, class: &str) -> usize {
    r.classes.iter().position(|c| c.class == class).unwrap_or_else(|| panic!("no class {class}"))
}

/// Mean think time realised by the users: the gap between a page's end and the user's next page.
fn realised_think(pages: &[(u64, u32, f64, f64, f64, u64)]) -> f64 {
    let mut by_user: std::collections::BTreeMap<u64, Vec<(u32, f64, f64)>> = Default::default();
    for &(user, index, start, end, _, _) in pages {
        by_user.entry(user).or_default().push((index, start, end));
    }
    let gaps: Vec<f64> = by_user
        .values_mut()
        .flat_map(|v| {
            v.sort_by_key(|p| p.0);
            v.windows(2).filter(|w| w[1].0 == w[0].0 + 1).map(|w| w[1].1 - w[0].2).collect::<Vec<_>>()
        })
        .collect();
    mean(&gaps)
}

#[test]
fn uncongested_page_rate_is_users_over_page_plus_think_time() {
    let users = 40;
    // Think times exponential with mean 1 s and lognormal responses: finite variances, so that 180 s
    // average out (the default Pareto think times are checked more loosely below).
    let traffic = format!(
        "[[web_users]]\nname = \"web\"\nclients = \"client\"\nservers = [\"s1\", \"s2\"]\nusers = {users}\n\
         think_time = {{ kind = \"exponential\", mean = 1.0 }}\n\
         response_size = {{ kind = \"lognormal\", mu = 9.357, sigma = 1.318 }}\n"
    );
    let (duration, warmup) = (200, 20);
    let r = simulate(&network("1Gbps", duration, warmup, &traffic));
    let pages = records(&r, "web.page");
    let objects = records(&r, "web");
    let window = (duration - warmup) as f64;
    let page_time = mean(&pages.iter().map(|p| p.4).collect::<Vec<_>>());
    let measured = pages.len() as f64 / window;
    let predicted = users as f64 / (page_time + 1.0);
    let think = realised_think(&pages);
    println!(
        "{} pages: {measured:.2} pages/s; mean page time {page_time:.4} s, realised think {think:.3} s; \
         N/(page + 1 s) = {predicted:.2}/s; {:.3} objects per page",
        pages.len(),
        objects.len() as f64 / pages.len() as f64
    );
    assert!(pages.len() > 5000, "{} pages", pages.len());
    assert!((measured / predicted - 1.0).abs() < 0.05, "{measured} pages/s against {predicted}");
    // Objects per page: ζ(2.43) ≈ 1.370 on average.
    assert!((objects.len() as f64 / pages.len() as f64 / 1.370 - 1.0).abs() < 0.05);
    // A page takes at least its objects' response times: the page class's mean exceeds the objects'.
    let object_time = mean(&objects.iter().map(|p| p.4).collect::<Vec<_>>());
    assert!(page_time > object_time, "page {page_time} s, object {object_time} s");
    // Page bytes are the sum of their objects': the totals agree up to the pages cut by the window.
    let page_bytes: u64 = pages.iter().map(|p| p.5).sum();
    let object_bytes: u64 = objects.iter().map(|p| p.5).sum();
    assert!((page_bytes as f64 / object_bytes as f64 - 1.0).abs() < 0.03, "{page_bytes} vs {object_bytes}");
    // The per-class tables carry both classes; each user has at most one page in progress.
    let row = r.responses.iter().find(|row| row.class == "web.page").expect("a page row");
    assert_eq!(row.pairs as usize, pages.len());
    assert!(row.incomplete <= users as u64);
    let g = r.generators.iter().find(|g| g.generator == "web").expect("a generator row");
    assert!(g.connections_open <= 4 * users as u64, "{} open", g.connections_open);

    // SURGE's defaults (Pareto think times, infinite variance, and SURGE sizes): the same law with the
    // think time the users actually had, within 10 %.
    let traffic = format!(
        "[[web_users]]\nname = \"web\"\nclients = \"client\"\nservers = [\"s1\", \"s2\"]\nusers = {users}\n"
    );
    let r = simulate(&network("1Gbps", 400, warmup, &traffic));
    let pages = records(&r, "web.page");
    let page_time = mean(&pages.iter().map(|p| p.4).collect::<Vec<_>>());
    let think = realised_think(&pages);
    let measured = pages.len() as f64 / (400 - warmup) as f64;
    let predicted = users as f64 / (page_time + think);
    println!(
        "defaults: {} pages, {measured:.2} pages/s; page {page_time:.4} s + realised think {think:.3} s \
         (Pareto mean 3 s) → {predicted:.2}/s",
        pages.len()
    );
    assert!((measured / predicted - 1.0).abs() < 0.10, "{measured} pages/s against {predicted}");
}

/// Persistent pages (`persistent`): a page of 7 objects on at most 2 connections is the top-level object
/// and 3 embedded ones in sequence on one connection and 3 on the other; in a mix, the share of pages
/// fetched that way is the one asked for; the closed-loop page rate holds as for HTTP/1.0.
#[test]
fn persistent_connections_carry_a_pages_objects_in_sequence() {
    let (users, duration, warmup) = (20, 100, 10);
    let traffic = |share: f64| {
        format!(
            "[[web_users]]\nname = \"web\"\nclients = \"client\"\nservers = [\"s1\", \"s2\"]\nusers = {users}\n\
             parallel = 2\npersistent = {share}\nobjects_per_page = {{ kind = \"constant\", value = 7 }}\n\
             think_time = {{ kind = \"exponential\", mean = 1.0 }}\n\
             response_size = {{ kind = \"lognormal\", mu = 9.357, sigma = 1.318 }}\n"
        )
    };
    let r = simulate(&network("1Gbps", duration, warmup, &traffic(1.0)));
    let pages = records(&r, "web.page");
    let mut by_connection: std::collections::BTreeMap<u64, Vec<(u32, f64, f64)>> = Default::default();
    for &(connection, index, start, end, _, _) in &records(&r, "web") {
        by_connection.entry(connection).or_default().push((index, start, end));
    }
    let mut sizes = [0usize; 8];
    for pairs in by_connection.values_mut() {
        pairs.sort_by_key(|p| p.0);
        // Not pipelined: each request goes out once the previous response has arrived.
        assert!(pairs.windows(2).all(|w| w[1].0 == w[0].0 + 1 && w[1].1 >= w[0].2), "{pairs:?}");
        sizes[pairs.len().min(7)] += 1;
    }
    let page_time = mean(&pages.iter().map(|p| p.4).collect::<Vec<_>>());
    let measured = pages.len() as f64 / (duration - warmup) as f64;
    let predicted = users as f64 / (page_time + 1.0);
    println!(
        "persistent: {} pages, {measured:.2} pages/s against N/(page {page_time:.4} s + 1 s) = {predicted:.2}; \
         connections by pairs carried (0..7) {sizes:?}",
        pages.len()
    );
    // Connections cut by the window's ends aside, each carries 4 pairs or 3.
    let whole = sizes[3] + sizes[4];
    assert!(whole as f64 > 0.98 * by_connection.len() as f64, "{sizes:?}");
    assert!((sizes[4] as f64 / sizes[3] as f64 - 1.0).abs() < 0.05, "{sizes:?}");
    assert!(pages.iter().all(|p| p.5 > 0) && pages.len() > 1000);
    assert!((measured / predicted - 1.0).abs() < 0.05, "{measured} pages/s against {predicted}");
    let g = r.generators.iter().find(|g| g.generator == "web").expect("a generator row");
    assert!((g.pairs_planned as f64 / g.connections_started as f64 - 3.5).abs() < 0.01, "{g:?}");

    // A mix: a persistent page opens 2 connections, an HTTP/1.0 one 7, so the share of persistent pages
    // is (7 − connections per page) / 5.
    let share = 0.3;
    let r = simulate(&network("1Gbps", duration, warmup, &traffic(share)));
    let g = r.generators.iter().find(|g| g.generator == "web").expect("a generator row");
    let pages = g.pairs_planned as f64 / 7.0;
    let measured = (7.0 - g.connections_started as f64 / pages) / 5.0;
    let sd = (share * (1.0 - share) / pages).sqrt();
    println!("mix: {pages:.0} pages, persistent share {measured:.4} (asked {share}, sd {sd:.4})");
    assert!((measured - share).abs() < 4.0 * sd, "{measured} against {share}");
}

/// `measure.user_series`: per sample, the users fetching a page and thinking. Their sum is the number of
/// users until `stop`, and none after it (once the last think times have ended); by Little's law the mean
/// number fetching is the page rate times the mean page time.
#[test]
fn user_series_counts_users_fetching_and_thinking() {
    let users = 30;
    let traffic = format!(
        "[[web_users]]\nname = \"web\"\nclients = \"client\"\nservers = [\"s1\", \"s2\"]\nusers = {users}\n\
         stop = 80\nthink_time = {{ kind = \"exponential\", mean = 1.0 }}\n\
         response_size = {{ kind = \"lognormal\", mu = 9.357, sigma = 1.318 }}\n"
    );
    let text = network("5Mbps", 100, 10, &traffic).replace("[measure]\n", "[measure]\nuser_series = true\n");
    let r = simulate(&text);
    let s = &r.user_series;
    assert_eq!(r.user_series_names, ["web"]);
    // A sample every 10 ms from the warm-up's end on, both included.
    assert_eq!(s.t.len(), 9001);
    assert!(s.generator.iter().all(|&g| g == 0));
    let (before, after): (Vec<usize>, Vec<usize>) = (0..s.t.len()).partition(|&i| s.t[i] < 80.0);
    assert!(before.iter().all(|&i| s.waiting[i] + s.thinking[i] == users));
    assert_eq!((s.waiting[9000], s.thinking[9000]), (0, 0), "every user has stopped");
    assert!(after.iter().all(|&i| s.waiting[i] + s.thinking[i] <= users));
    let pages = records(&r, "web.page");
    let in_window: Vec<_> = pages.iter().filter(|p| p.2 < 80.0).collect();
    let page_time = mean(&in_window.iter().map(|p| p.4).collect::<Vec<_>>());
    let rate = in_window.len() as f64 / 70.0;
    let fetching = mean(&before.iter().map(|&i| s.waiting[i] as f64).collect::<Vec<_>>());
    println!(
        "user series: {fetching:.3} users fetching on average; {rate:.2} pages/s × {page_time:.4} s = {:.3}",
        rate * page_time
    );
    assert!((fetching / (rate * page_time) - 1.0).abs() < 0.05, "{fetching} against {}", rate * page_time);
    // Off by default.
    let r = simulate(&network("5Mbps", 20, 10, &traffic));
    assert!(r.user_series.t.is_empty());
}

/// Requests per second (connections opened, one per object or HTTP/1.0 pair) and response bytes
/// delivered per second.
fn load_of(r: &RunResult, generator: &str, duration: f64) -> (f64, f64) {
    let g = r.generators.iter().find(|g| g.generator == generator).expect("a generator row");
    let class = class_index(r, &g.class) as u16;
    let p = &r.pairs;
    let bytes: u64 = p.response_bytes.iter().zip(&p.class).filter(|(_, &c)| c == class).map(|(b, _)| b).sum();
    (g.connections_started as f64 / duration, bytes as f64 * 8.0 / duration)
}

#[test]
fn offered_load_falls_behind_a_throttled_bottleneck_only_in_the_closed_loop() {
    let duration = 120.0;
    let web = "[[web_users]]\nname = \"web\"\nclients = \"client\"\nservers = [\"s1\", \"s2\"]\nusers = 30\n";
    let http = "[[http]]\nname = \"web\"\nclients = \"client\"\nservers = [\"s1\", \"s2\"]\nrate = 30\n\
                version = \"1.0\"\nlrd = false\n";
    let mut loads = Vec::new();
    for (what, traffic) in [("web_users", web), ("PackMime", http)] {
        let fast = load_of(&simulate(&network("100Mbps", duration as u32, 0, traffic)), "web", duration);
        let slow = load_of(&simulate(&network("1Mbps", duration as u32, 0, traffic)), "web", duration);
        println!(
            "{what}: {:.2} requests/s and {:.3} Mb/s of responses at 100 Mb/s; {:.2} requests/s and {:.3} Mb/s \
             at 1 Mb/s",
            fast.0,
            fast.1 / 1e6,
            slow.0,
            slow.1 / 1e6
        );
        loads.push((fast, slow));
    }
    let ((web_fast, web_slow), (pm_fast, pm_slow)) = (loads[0], loads[1]);
    // The unthrottled users ask for more than 1 Mb/s, so the bottleneck binds.
    assert!(web_fast.1 > 2e6, "{} b/s offered at 100 Mb/s", web_fast.1);
    // Closed loop: the users request markedly fewer objects once their pages take longer.
    assert!(
        web_slow.0 < 0.6 * web_fast.0,
        "{} requests/s at 1 Mb/s against {} at 100 Mb/s",
        web_slow.0,
        web_fast.0
    );
    // Open loop: PackMime opens its connections whatever the network does.
    assert!((pm_slow.0 / pm_fast.0 - 1.0).abs() < 0.01, "{} against {}", pm_slow.0, pm_fast.0);
    assert!(pm_fast.1 > 1.5e6, "PackMime offers {} b/s", pm_fast.1);
}

fn web_error(fields: &str, path: &str, expected: &str) -> ScenarioError {
    let text = network(
        "1Gbps",
        10,
        0,
        &format!("[[web_users]]\nclients = \"client\"\nservers = \"s1\"\nusers = 3\n{fields}"),
    );
    let e = load(&text, "w.toml", &[], None).expect_err("the scenario is rejected");
    // The line of the generator's field the path goes through.
    let field = path.split('.').nth(1).expect("a field of the generator");
    let line = text.lines().position(|l| l.starts_with(&format!("{field} ="))).map(|l| l + 1);
    assert_eq!((e.file.as_str(), e.path.as_str()), ("w.toml", path), "{e}");
    assert_eq!(e.line, line, "{e}");
    assert!(e.message.contains(expected), "{e}");
    e
}

#[test]
fn bad_cdf_files_are_located() {
    let dir = folder("bad-cdf");
    let cases = [
        ("missing.csv", None, "a readable CDF file"),
        ("words.csv", Some("1,0.5\nten,1\n"), "words.csv:2 is \"ten,1\""),
        ("down.csv", Some("1,0.5\n2,0.4\n3,1\n"), "down.csv:2"),
        ("short.csv", Some("1,0.5\n2,0.9\n"), "ends at 0.9"),
    ];
    for (name, content, expected) in cases {
        let file = dir.join(name);
        if let Some(c) = content {
            std::fs::write(&file, c).unwrap();
        }
        let table =
            format!("response_size = {{ kind = \"empirical\", file = {:?} }}\n", file.to_str().unwrap());
        let e = web_error(&table, "web_users[0].response_size.file", expected);
        assert!(e.message.contains(name), "{e}");
    }
}

#[test]
fn bad_web_users_fields_are_located() {
    web_error("parallel = 0\n", "web_users[0].parallel", "at least 1 connection");
    web_error("persistent = 1.5\n", "web_users[0].persistent", "a probability in [0, 1]");
    web_error(
        "think_time = { kind = \"pareto\", scale = 1, shape = -1.5 }\n",
        "web_users[0].think_time.shape",
        "a positive number",
    );
    web_error("think_time = { kind = \"surge\" }\n", "web_users[0].think_time.kind", "size models");
    web_error(
        "objects_per_page = { kind = \"gamma\", k = 2 }\n",
        "web_users[0].objects_per_page.kind",
        "unknown variant `gamma`",
    );
    web_error(
        "response_size = { kind = \"packmime\" }\n",
        "web_users[0].response_size.rate",
        "connection rate",
    );
    web_error(
        "response_size = { kind = \"lognormal_pareto\", mu = 9, sigma = 1, cutoff = 10, shape = 1.1 }\n",
        "web_users[0].response_size.cutoff",
        "a cutoff at or above",
    );
    web_error(
        "request_size = { kind = \"constant\", value = 300, extra = 1 }\n",
        "web_users[0].request_size.extra",
        "unknown field `extra`",
    );
    web_error("class = \"x\"\npage_class = \"x\"\n", "web_users[0].page_class", "a class other than");
    // Fields of the generator itself.
    let text =
        network("1Gbps", 10, 0, "[[web_users]]\nclients = \"client\"\nservers = \"nowhere\"\nusers = 3\n");
    let e = load(&text, "w.toml", &[], None).unwrap_err();
    assert_eq!(e.path, "web_users[0].servers", "{e}");
    assert!(e.message.contains("`nowhere` is not a node"), "{e}");
    let text = network("1Gbps", 10, 0, "[[web_users]]\nclients = \"client\"\nservers = \"s1\"\nusers = 0\n");
    let e = load(&text, "w.toml", &[], None).unwrap_err();
    assert_eq!(
        (e.path.as_str(), e.line),
        ("web_users[0].users", text.lines().position(|l| l == "users = 0").map(|l| l + 1)),
        "{e}"
    );
}
