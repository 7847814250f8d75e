"""Study W's "8Q parking lot" (Weigle, Vembar, Du; docs/studies.md#study-w) as an aqmlab scenario.

Routers R0..R7 in a chain (10 Mb/s, 1 ms). Long-lived TCP: two source nodes at R0 ("circle 0") send to
two sinks at R7 ("hexagon 0"), and circle 9 at R7 sends to hexagon 9 at R0; each of these nodes has a
1 Mb/s, 1 ms access link. PackMime-HTTP/1.1: cloud 1 (servers at R0, clients at R7) carries the
forward end-to-end responses, cloud 8 (servers at R7, clients at R0) the reverse ones; each cloud is two
nodes on 4 Mb/s, 1 ms links. Cross traffic crosses exactly one congested link: a cloud with servers at
R1 and clients at R2 (1CL), likewise R3->R4 (2CL) and R5->R6 (3CL), and with cross = "both" (the
study's reading of the interior clouds 2..7: two per congested link) a second cloud the other way
round, servers at R2 and clients at R1, and so on.
Every router is a DelayBox delaying the flows of its attached hosts with PackMime's RTT model (server
side for server and long-lived source nodes, client side for client and sink nodes). All TCP is
NewReno with ECN, 1460-byte segments, window 30; the HTTP connections behave as ns-2's FullTcp (Nagle,
its fast recovery, an ACK per segment), the long-lived ones as the one-way agent with a DelAck sink.
Buffers are 200 packets; the queues of a congested link (both directions, as the paper says reverse
traffic meets the same technique) are drop-tail or the AQM in byte mode with ECN and a target of 20
packets.
"""

from __future__ import annotations

ROUTERS = [f"R{i}" for i in range(8)]
CONGESTED = [("R1", "R2"), ("R3", "R4"), ("R5", "R6")]
BUFFER = 200

# The AQMs as the study configured them: byte mode, ECN, target 20 packets (ARED: 10 ms target delay).
AQM_QUEUES: dict[str, dict] = {
    "ARED": {
        "kind": "red",
        "adaptive": True,
        "targetdelay": 0.01,
        "ecn": True,
        "bytes": True,
        "queue_in_bytes": True,
        "limit": BUFFER,
    },
    "PI": {"kind": "pi", "qref": 20, "ecn": True, "bytes": True, "queue_in_bytes": True, "limit": BUFFER},
    "REM": {"kind": "rem", "qref": 20, "ecn": True, "queue_in_bytes": True, "limit": BUFFER},
}
DROPTAIL = {"kind": "droptail", "limit": BUFFER}
# ns-2's byte-mode packet sizes, which also size the AQMs' buffers (`limit_` × `mean_pktsize_` bytes).
NS2_MEAN_PKTSIZE = {"ARED": 500, "PI": 500, "REM": 1000}

# First estimate of the PackMime rates for 3.5 Mb/s of HTTP responses (k ≈ 68 kb/s per conn/s,
# docs/load-and-metrics.md#calibration); the study's calibration step replaces it.
DEFAULT_RATE = 3.5e6 / 68e3


def scenario(
    combo: tuple[str, ...],
    aqm: str | None,
    *,
    e2e_rate: float = DEFAULT_RATE,
    cross_rate: float = DEFAULT_RATE,
    pairs: int = 50_000,
    warmup: float = 60.0,
    max_duration: float = 4000.0,
    router_rate: str = "10Mbps",
    long_lived: bool = True,
    cross: str = "fwd",
    http_ack_every: int = 1,
    http_recovery: str = "full_tcp",
    mean_pktsize: int | None = None,
    aqm_buffer_bytes: int | None = None,
    ared_gentle: bool = True,
    aqm_routers: str = "congested",
    delaybox: bool = True,
    min_rto: float = 0.2,
    initial_rto: float = 3.0,
    max_rto: float = 60.0,
    name: str = "weigle2005",
) -> dict:
    """The scenario for one row of Table I. `combo` holds "DT" or "AQM" for each congested link in use
    (its length is the number of congested links: 0 = the uncongested reference); `aqm` names the AQM
    of the "AQM" entries. Runs until `pairs` forward end-to-end pairs (started after the warm-up)
    have completed. `cross` = "both" adds a second cross-traffic cloud per congested link the other way
    round (servers downstream, clients upstream). `http_ack_every` is the HTTP receivers' ACK frequency
    (ns-2 FullTcp `segsperack_`, 1 by default: every full segment is ACKed at once), `http_recovery` their
    fast recovery ("full_tcp": ns-2 FullTcp NewReno's, as PackMime's agents, with no Limited Transmit;
    "one_way": aqmlab's default, ns-2's one-way agent's). `mean_pktsize` sets
    the AQMs' byte-mode packet size (None: ns-2's defaults, 500 B for ARED and PI, 1000 B for REM; the
    study: 615 B), `aqm_buffer_bytes` their buffer in bytes (None: ns-2's `limit_` × `mean_pktsize_`,
    123 KB at 615 B; drop-tail's 200 packets hold up to 300 KB), and `ared_gentle` ARED's gentle region
    (the last two for sensitivity runs). `aqm_routers` = "all" reads "all
    routers the AQM" literally: in the rows with an AQM on every congested link, every router-to-router
    queue runs it ("congested": only the congested links' queues). `delaybox` = False leaves the
    routers without per-flow delays (a diagnostic the twin mirrors with `delaybox=0`). `min_rto`,
    `initial_rto` and `max_rto` (s) are every TCP's retransmission-timer bounds, ns-2's `minrto_`,
    `rtxcur_init_` and `maxrto_`: ns-2.35's 0.2, 3 and 60 s by default; ns-2.27's (of the paper's time) were
    1, 6 and 100000 s."""
    if aqm_routers not in ("congested", "all"):
        raise ValueError(f"aqm_routers must be 'congested' or 'all', found {aqm_routers!r}")
    if cross not in ("fwd", "both"):
        raise ValueError(f"cross must be 'fwd' or 'both', found {cross!r}")
    if any(c not in ("DT", "AQM") for c in combo) or len(combo) > 3:
        raise ValueError(f"combo must hold up to three of 'DT'/'AQM', found {combo}")
    if "AQM" in combo and aqm not in AQM_QUEUES:
        raise ValueError(f"aqm must be one of {sorted(AQM_QUEUES)}, found {aqm!r}")
    aqm_queue = dict(AQM_QUEUES.get(aqm, {}))
    if mean_pktsize is not None:
        aqm_queue["mean_pktsize"] = mean_pktsize
    if aqm_buffer_bytes is not None and aqm is not None:
        aqm_queue["limit"] = aqm_buffer_bytes // (mean_pktsize or NS2_MEAN_PKTSIZE[aqm])
    if aqm == "ARED" and not ared_gentle:
        aqm_queue["gentle"] = False
    # The chain's hops are drop-tail but for the congested links' AQM queues, both directions.
    lot: dict = {"routers": ROUTERS, "rate": router_rate, "delay": "1ms", "queue": DROPTAIL, "hosts": []}
    if aqm_routers == "all" and combo and "DT" not in combo:
        lot["queue"] = aqm_queue
    else:
        aqm_hops = [hop for hop, kind in zip(CONGESTED, combo, strict=False) if kind == "AQM"]
        lot["queues"] = {f"{a}->{b}": aqm_queue for hop in aqm_hops for a, b in (hop, hop[::-1])}
    boxes: dict[str, dict[str, list[str]]] = {r: {"client": [], "server": []} for r in ROUTERS}

    def hosts(prefix: str, router: str, rate: str, side: str) -> list[str]:
        names = [f"{prefix}a", f"{prefix}b"]
        group = {"name": prefix, "names": names, "router": router, "rate": rate, "delay": "1ms"}
        lot["hosts"].append({**group, "queue": DROPTAIL})
        boxes[router][side].extend(names)
        return names

    flows = []
    http = []
    # ns-2 FullTcp (PackMime's TCP): Nagle on. Each DelayBox gives a flow one delay for both directions
    # (ns-2's symmetric_ default, measured on the twin: equal delays for every flow).
    tcp: dict[str, object] = {"mss": 1460, "max_window": 30, "ecn": True, "nagle": True}
    # the engine's defaults are ns-2.35's: only other values are written
    for field, value, default in (
        ("min_rto", min_rto, 0.2),
        ("initial_rto", initial_rto, 3.0),
        ("max_rto", max_rto, 60.0),
    ):
        if value != default:
            tcp[field] = f"{value}s"
    if long_lived:
        src0, sink0 = hosts("ll0src", "R0", "1Mbps", "server"), hosts("ll0sink", "R7", "1Mbps", "client")
        src9, sink9 = hosts("ll9src", "R7", "1Mbps", "server"), hosts("ll9sink", "R0", "1Mbps", "client")
        flows += [
            {"name": "ll_fwd", "kind": "tcp_bulk", "count": 10, "src": src0, "dst": sink0, "start": warmup},
            {"name": "ll_rev", "kind": "tcp_bulk", "count": 10, "src": src9, "dst": sink9, "start": warmup},
        ]
    fwd_servers, fwd_clients = (
        hosts("web1s", "R0", "4Mbps", "server"),
        hosts("web1c", "R7", "4Mbps", "client"),
    )
    rev_servers, rev_clients = (
        hosts("web8s", "R7", "4Mbps", "server"),
        hosts("web8c", "R0", "4Mbps", "client"),
    )
    http += [
        {"name": "http_fwd", "clients": fwd_clients, "servers": fwd_servers, "rate": e2e_rate},
        {"name": "http_rev", "clients": rev_clients, "servers": rev_servers, "rate": e2e_rate},
    ]

    def cross_cloud(name: str, server_router: str, client_router: str) -> None:
        servers = hosts(f"{name}s", server_router, "4Mbps", "server")
        clients = hosts(f"{name}c", client_router, "4Mbps", "client")
        http.append(
            {"name": name, "clients": clients, "servers": servers, "rate": cross_rate, "class": "cross"}
        )

    for k, (a, b) in enumerate(CONGESTED[: len(combo)], start=1):
        cross_cloud(f"cross{k}", a, b)
        if cross == "both":
            cross_cloud(f"cross{k}r", b, a)
    http_tcp: dict[str, object] = {"ack_every": http_ack_every, "recovery": http_recovery}
    if http_recovery == "full_tcp":
        http_tcp["limited_transmit"] = False
    for h in http:
        h["tcp"] = http_tcp
    delayboxes = []
    for router, sides in boxes.items() if delaybox else ():
        for side, served in sides.items():
            if served:
                delayboxes.append(
                    {
                        "node": router,
                        "serves": served,
                        "delay": {"kind": "packmime_rtt", "side": side, "rate": e2e_rate},
                    }
                )
    label = "-".join(combo) or "uncongested"
    return {
        "name": f"{name}-{label}" + (f"-{aqm}" if "AQM" in combo else ""),
        "seed": 1,
        "duration": max_duration,
        "measure": {
            "warmup": warmup,
            "sample_interval": 0.1,
            "sample_links": [f"{a}->{b}" for a, b in CONGESTED[: len(combo)]],
        },
        "tcp": tcp,
        "parking_lot": lot,
        "flows": flows,
        "http": http,
        "delaybox": delayboxes,
        "stop": {"after_pairs": pairs, "class": "http_fwd"},
    }


TABLE_ROWS: list[tuple[str, ...]] = [
    ("DT",),
    ("AQM",),
    ("DT", "DT"),
    ("DT", "AQM"),
    ("AQM", "DT"),
    ("AQM", "AQM"),
    ("DT", "DT", "DT"),
    ("DT", "DT", "AQM"),
    ("DT", "AQM", "DT"),
    ("AQM", "DT", "DT"),
    ("AQM", "AQM", "DT"),
    ("AQM", "DT", "AQM"),
    ("DT", "AQM", "AQM"),
    ("AQM", "AQM", "AQM"),
]
"""The rows of the paper's Table I: the queue type on R1-R2, R3-R4, R5-R6."""
