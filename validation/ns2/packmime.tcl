# PackMime-HTTP over a 10 Mb/s bottleneck with DelayBoxes (ns-2 tcl/ex/packmime/pm-delaybox.tcl style):
# the ns-2.35 side of scenarios/packmime-delaybox.toml -- see validation/ns2/README.md.
#
#   ns packmime.tcl ?seed? ?key=value ...?
#
#   seed       integer >= 1 (default 1): ns-random, defaultRNG, substream `seed` of every traffic RNG
#              and PackMime's own internal RNGs (`set-run seed`)
#   key=value  optional overrides:
#     duration=200    simulated seconds
#     warm=20         warm-up: pairs whose request was sent before it are not logged (`set-warmup`),
#                     link counters are snapshot at it
#     rate=15         new connections per second (also the rate argument of every PackMime RV)
#     segsize=1460    FullTcp segsize_ (payload bytes; packets are segsize + 40 B)
#     window=64       FullTcp window_ (segments)
#     segsperack=1    FullTcp segsperack_ (ns-2 default 1: a full segment is ACKed at once)
#     interval=0.1    FullTcp interval_ (delayed-ACK tick, s; ns-2 default)
#     nodelay=0       FullTcp nodelay_ (ns-2 default false = Nagle's algorithm ON: a sub-MSS segment is
#                     held while data is unacknowledged); 1 turns Nagle off, as aqmlab's TCP has none
#     outfile=PATH    where PackMime's response-time log goes (default: a temporary file that is
#                     deleted at the end); keep=1 keeps it
#     keep=0
#     delaybox=1      0: no DelayBox rules (R0/R1 forward every packet undelayed); client / server:
#                     only R0's / only R1's rules -- for diagnosis
#     delayfile=PREFIX  write every DelayBox flow entry (src dst fid delay) to PREFIX.R0 / PREFIX.R1
#     bneck=10        bottleneck rate R0<->R1 (Mb/s); with a higher `rate` it congests the bottleneck
#     bqueue=100      bottleneck queue limit_ (packets, both directions)
#
# Topology (as the TOML): client --100Mb,1ms-- R0 --10Mb (bneck),1ms-- R1 --100Mb,1ms-- server.
# R0 and R1 are DelayBox nodes. Queue limit_: 1000 on the access links, 100 on the bottleneck (both
# directions), DropTail. R0 delays every flow with RandomVariable/PackMimeHTTPXmit type 0 (client side),
# R1 with type 1 (server side), rules for both directions (client->server, server->client), no loss,
# no rate limit. With the default symmetric DelayBox the SYN creates the flow's entry for both
# directions, so data and ACKs of a connection get the same delay at each box.
#
# Output: one JSON object on stdout. Metrics:
#   pairs              request/response pairs whose request was sent at or after `warm` and whose
#                      response completed by `duration` (lines of the PackMime log)
#   p10_s..p99_s       response-time quantiles over those pairs (seconds; linear interpolation between
#                      order statistics, R type 7); mean_s
#   connections        TCP connections started over the whole run (setup-tcp is wrapped to count fids)
#   pairs_total        pairs completed over the whole run (PackMime `get-pairs`)
#   util_fwd/util_rev  R0->R1 / R1->R0 bytes departed * 8 / (10 Mb/s * (duration - warm))
#   drops_fwd/rev, arrivals_fwd/rev   QueueMonitor counters of the bottleneck over [warm, duration]
#   drops_access       drops at the four access-link queues over [warm, duration]
#   req_bytes/rsp_bytes  sums over the logged pairs

set wall_t0 [clock milliseconds]

source [file join [file dirname [info script]] common.tcl]

# ---------------------------------------------------------------- arguments
set seed 1
set cfg(duration) 200.0
set cfg(warm) 20
set cfg(rate) 15
set cfg(segsize) 1460
set cfg(window) 64
set cfg(segsperack) 1
set cfg(interval) 0.1
set cfg(outfile) ""
set cfg(keep) 0
set cfg(delaybox) 1
set cfg(nodelay) 0
set cfg(delayfile) ""
set cfg(bneck) 10
set cfg(bqueue) 100
set pos [positional_args]
if {[llength $pos] >= 1} { set seed [lindex $pos 0] }
if {[llength $pos] > 1} { puts stderr "usage: ns packmime.tcl ?seed? ?key=value ...?"; exit 2 }
if {![string is integer -strict $seed] || $seed < 1} { puts stderr "seed must be an integer >= 1"; exit 2 }
if {![string is integer -strict $cfg(warm)]} {
    # PackMimeHTTP `set-warmup` takes an integer number of seconds.
    puts stderr "warm must be an integer number of seconds"; exit 2
}
set duration [expr {double($cfg(duration))}]
set warm $cfg(warm)
set rate $cfg(rate)
if {$duration <= $warm} { puts stderr "duration must exceed warm"; exit 2 }
if {$cfg(delaybox) ni {0 1 client server}} { puts stderr "delaybox must be 0, 1, client or server"; exit 2 }
if {$cfg(outfile) eq ""} {
    set cfg(outfile) [file join [expr {[info exists env(TMPDIR)] ? $env(TMPDIR) : "/tmp"}] \
                          "packmime-[pid]-$seed.dat"]
}

# ---------------------------------------------------------------- randomness
global defaultRNG
ns-random $seed
$defaultRNG seed $seed

# ---------------------------------------------------------------- TCP (FullTcp/Newreno via PackMime)
Agent/TCP/FullTcp set segsize_ $cfg(segsize)
Agent/TCP/FullTcp set segsperack_ $cfg(segsperack)
Agent/TCP/FullTcp set interval_ $cfg(interval)
Agent/TCP/FullTcp set nodelay_ $cfg(nodelay)
Agent/TCP set window_ $cfg(window)
# everything else stays at the ns-2.35 default: windowInit_ 2, minrto_ 0.2, tcpTick_ 0.01,
# rtxcur_init_ 3 s (SYN timeout), no timestamps, no SACK, no ECN, maxburst_ 0.

# Count connections: PackMime calls setup-tcp (client and server agent) with fid = connection number.
# Same body as tcl/packmime/packmime.tcl's setup-tcp, plus the counter.
set max_fid -1
PackMimeHTTP instproc setup-tcp {tcp fid} {
    global max_fid
    if {$fid > $max_fid} { set max_fid $fid }
    $tcp set fid_ $fid
    $tcp proc done {} "$self done $tcp"
}

# ---------------------------------------------------------------- topology
# FullTcp needs the Flags header: without it ns-2's DelayBox gave the two directions of a flow different
# delays (measured: 1046 of 1048 flows), with it (or with every header) one delay per flow and box, as
# its default symmetric_ 1 means.
remove-all-packet-headers
add-packet-header IP TCP Flags
set ns [new Simulator]
$ns use-scheduler Heap

bottleneck_line DelayBox $cfg(bneck) $cfg(bqueue)
set mon(a1) [monitor $client $R0]
set mon(a2) [monitor $R0 $client]
set mon(a3) [monitor $R1 $server]
set mon(a4) [monitor $server $R1]

# ---------------------------------------------------------------- PackMime
set CLIENT 0
set SERVER 1
set pm [new PackMimeHTTP]
$pm set-client $client
$pm set-server $server
$pm set-rate $rate
$pm set-http-1.1
$pm set-TCP Newreno
$pm set-run $seed
$pm set-warmup $warm
$pm set-outfile $cfg(outfile)

set req_size [new RandomVariable/PackMimeHTTPFileSize $rate $CLIENT]
set rsp_size [new RandomVariable/PackMimeHTTPFileSize $rate $SERVER]
set flow_arrive [new RandomVariable/PackMimeHTTPFlowArrive $rate]
$req_size use-rng [new_stream]
$rsp_size use-rng [new_stream]
$flow_arrive use-rng [new_stream]
$pm set-req_size $req_size
$pm set-rsp_size $rsp_size
$pm set-flow_arrive $flow_arrive

# ---------------------------------------------------------------- DelayBoxes
set client_delay [new RandomVariable/PackMimeHTTPXmit $rate $CLIENT]
set server_delay [new RandomVariable/PackMimeHTTPXmit $rate $SERVER]
$client_delay use-rng [new_stream]
$server_delay use-rng [new_stream]
set zero_loss [new RandomVariable/Constant]
$zero_loss set val_ 0
if {$cfg(delayfile) ne ""} {
    $R0 set-delay-file "$cfg(delayfile).R0"
    $R1 set-delay-file "$cfg(delayfile).R1"
}
if {$cfg(delaybox) in {1 client}} {
    $R0 add-rule [$client id] [$server id] $client_delay $zero_loss
    $R0 add-rule [$server id] [$client id] $client_delay $zero_loss
}
if {$cfg(delaybox) in {1 server}} {
    $R1 add-rule [$client id] [$server id] $server_delay $zero_loss
    $R1 add-rule [$server id] [$client id] $server_delay $zero_loss
}

# ---------------------------------------------------------------- measurement
proc snapshot {tag} {
    global mon snap
    foreach k [array names mon] {
        set snap($tag,$k,bdep) [$mon($k) set bdepartures_]
        set snap($tag,$k,drops) [$mon($k) set pdrops_]
        set snap($tag,$k,arr) [$mon($k) set parrivals_]
    }
}


proc finish {} {
    global ns pm cfg snap duration warm rate seed max_fid wall_t0 R0 R1
    snapshot end
    if {$cfg(delayfile) ne ""} { $R0 close-delay-file; $R1 close-delay-file }
    set wall [expr {([clock milliseconds] - $wall_t0) / 1000.0}]
    set pairs_total [$pm get-pairs]
    # Closing the log: the PackMimeHTTP destructor fcloses it; every line is fflush-ed already.
    set f [open $cfg(outfile) r]
    set rts {}
    set reqb 0
    set rspb 0
    while {[gets $f line] >= 0} {
        if {[llength $line] < 4} { continue }
        # now reqsize rspsize response_time_ms dst.port active
        lappend rts [expr {[lindex $line 3] / 1000.0}]
        set reqb [expr {$reqb + [lindex $line 1]}]
        set rspb [expr {$rspb + [lindex $line 2]}]
    }
    close $f
    if {!$cfg(keep)} { file delete $cfg(outfile) }
    set rts [lsort -real $rts]
    set n [llength $rts]
    set sum 0.0
    foreach x $rts { set sum [expr {$sum + $x}] }
    set mean [expr {$n > 0 ? $sum / $n : -1}]
    set win [expr {$duration - $warm}]
    foreach d {fwd rev} {
        set u($d) [expr {($snap(end,$d,bdep) - $snap(warm,$d,bdep)) * 8.0 / ($cfg(bneck) * 1e6 * $win)}]
        set dr($d) [expr {$snap(end,$d,drops) - $snap(warm,$d,drops)}]
        set ar($d) [expr {$snap(end,$d,arr) - $snap(warm,$d,arr)}]
    }
    set dacc 0
    foreach k {a1 a2 a3 a4} { incr dacc [expr {$snap(end,$k,drops) - $snap(warm,$k,drops)}] }
    puts [format "{\"simulator\": \"ns-2.35\", \"scenario\": \"packmime\", \"seed\": %d, \"duration\": %g, \"warm\": %g, \"rate\": %g, \"segsize\": %d, \"window\": %d, \"segsperack\": %d, \"nodelay\": %d, \"delaybox\": \"%s\", \"pairs\": %d, \"pairs_total\": %d, \"connections\": %d, \"mean_s\": %.6f, \"p10_s\": %.6f, \"p50_s\": %.6f, \"p90_s\": %.6f, \"p99_s\": %.6f, \"req_bytes\": %.0f, \"rsp_bytes\": %.0f, \"util_fwd\": %.6f, \"util_rev\": %.6f, \"drops_fwd\": %d, \"drops_rev\": %d, \"arrivals_fwd\": %d, \"arrivals_rev\": %d, \"drops_access\": %d, \"loop_wall_s\": %.3f}" \
        $seed $duration $warm $rate $cfg(segsize) $cfg(window) $cfg(segsperack) $cfg(nodelay) $cfg(delaybox) $n $pairs_total \
        [expr {$max_fid + 1}] $mean [quantile $rts 0.1] [quantile $rts 0.5] [quantile $rts 0.9] \
        [quantile $rts 0.99] $reqb $rspb $u(fwd) $u(rev) $dr(fwd) $dr(rev) $ar(fwd) $ar(rev) $dacc $wall]
    exit 0
}

$ns at 0.0 "$pm start"
$ns at $warm "snapshot warm"
$ns at $duration "finish"
$ns run
