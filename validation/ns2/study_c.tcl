# Study C dumbbell (Chrost & Chydzinski; ns-2.33) for ns-2.35 -- see docs/studies.md#study-c
# and validation/ns2/README.md.
#
#   ns study_c.tcl ?N? ?buffer? ?queue? ?seed? ?key=value ...?
#
#   N         TCP connections (10 / 100 / 1000 in the paper; default 100)
#   buffer    bottleneck A->B queue limit_ in packets (default 90; the paper also uses 900)
#   queue     dt | red | pi | rem | avq, all with ns-2 DEFAULT parameters (default dt)
#   seed      integer >= 1 (default 1)
#   key=value optional overrides:
#     duration=100      simulated seconds; metrics over [warm, duration]
#     warm=30           start of the measurement window
#     window=1000       TCP window_ (max cwnd, packets) of every connection
#     access_limit=1000 DropTail limit_ of the six access links (non-bottleneck)
#     slow_start_restart=1  Agent/TCP slow_start_restart_ (ns-2 default true). 0 is a diagnostic only:
#                       it stops the cwnd reset to 1 when the (never cancelled) retransmit timer of an
#                       idle HTTP-like connection expires (validation/ns2/README.md)
#
# Topology: N1..N3 --100Mb, 0/12/25 ms-- A --100Mb,65ms-- B --100Mb, 2/37/75 ms-- N4..N6.
# Output: one JSON object on stdout, nothing else. No trace files.

# Wall clock at start; `mark_setup` (first event at t = 0) splits set-up from the event loop.
set wall_t0 [clock milliseconds]
set wall_setup -1

source [file join [file dirname [info script]] common.tcl]

# ---------------------------------------------------------------- arguments
set N 100
set buffer 90
set qkind dt
set seed 1
set cfg(duration) 100.0
set cfg(warm) 30.0
set cfg(window) 1000
set cfg(access_limit) 1000
set cfg(slow_start_restart) 1
set pos [positional_args]
if {[llength $pos] >= 1} { set N [lindex $pos 0] }
if {[llength $pos] >= 2} { set buffer [lindex $pos 1] }
if {[llength $pos] >= 3} { set qkind [string tolower [lindex $pos 2]] }
if {[llength $pos] >= 4} { set seed [lindex $pos 3] }
if {[llength $pos] > 4} {
    puts stderr "usage: ns study_c.tcl ?N? ?buffer? ?dt|red|pi|rem|avq? ?seed? ?key=value ...?"; exit 2
}
if {![string is integer -strict $N] || $N < 1} { puts stderr "N must be a positive integer"; exit 2 }
if {![string is integer -strict $buffer] || $buffer < 1} { puts stderr "buffer must be >= 1"; exit 2 }
if {![string is integer -strict $seed] || $seed < 1} { puts stderr "seed must be an integer >= 1"; exit 2 }
set duration [expr {double($cfg(duration))}]
set t_warm [expr {double($cfg(warm))}]
if {$duration <= $t_warm} { puts stderr "duration must exceed warm"; exit 2 }
array set qtypes {dt DropTail red RED pi PI rem REM avq Vq}
if {![info exists qtypes($qkind)]} { puts stderr "queue must be one of: dt red pi rem avq"; exit 2 }

# ---------------------------------------------------------------- randomness
# defaultRNG drives the TCP clock phases and the AQMs' coin flips. The traffic model draws from
# three dedicated MRG32k3a streams (start times, file inter-arrival times, file sizes); run `seed`
# uses substream number `seed` of each (the ns-2 manual's recipe for independent replications).
global defaultRNG
ns-random $seed
$defaultRNG seed $seed
set rng_start [new_stream]
set rng_iat [new_stream]
set rng_size [new_stream]

# ---------------------------------------------------------------- ns-2 defaults, except
# TCP: one-way Agent/TCP/Newreno + Agent/TCPSink/DelAck; window_ raised from 20 to cfg(window);
# everything else (windowInit_ 2, minrto_ 0.2, tcpTick_ 0.01, no ECN) is the ns-2.35 default.
Agent/TCP set window_ $cfg(window)
Agent/TCP set slow_start_restart_ $cfg(slow_start_restart)
# Queues: RED, PI, REM, Vq keep every ns-2 default (RED and Vq are in byte mode by default:
# RED hard limit = buffer*500 B, Vq hard limit = buffer*1000 B).

# ---------------------------------------------------------------- topology
set ns [new Simulator]
set A [$ns node]
set B [$ns node]
$ns simplex-link $A $B 100Mb 65ms $qtypes($qkind)
$ns simplex-link $B $A 100Mb 65ms DropTail
$ns queue-limit $A $B $buffer
$ns queue-limit $B $A $buffer

set src_delay {0ms 12ms 25ms}
set dst_delay {2ms 37ms 75ms}
for {set k 0} {$k < 3} {incr k} {
    set src($k) [$ns node]
    set dst($k) [$ns node]
    $ns duplex-link $src($k) $A 100Mb [lindex $src_delay $k] DropTail
    $ns duplex-link $B $dst($k) 100Mb [lindex $dst_delay $k] DropTail
    foreach {x y} [list $src($k) $A $A $src($k) $B $dst($k) $dst($k) $B] {
        $ns queue-limit $x $y $cfg(access_limit)
    }
}

# Monitors: bottleneck A->B (metrics), reverse B->A and the three sender access links (drops only).
set qmon [monitor $A $B]
set rmon [monitor $B $A]
for {set k 0} {$k < 3} {incr k} { set amon($k) [monitor $src($k) $A] }

# ---------------------------------------------------------------- traffic
# Connection mix: n536 = round(0.1 N) 536-byte FTP; of the n1500 = N - n536 1500-byte ones,
# nhttp = round(0.25 n1500) (halves up) are HTTP-like and the rest FTP. Connection j uses path
# j mod 9 (paths ordered N1-N4, N1-N5, N1-N6, N2-N4, ...); types are assigned in blocks
# (536-byte FTP, HTTP, 1500-byte FTP), so every type is spread uniformly over the nine paths.
set n536 [expr {int(floor(0.1 * $N + 0.5))}]
set n1500 [expr {$N - $n536}]
set nhttp [expr {int(floor(0.25 * $n1500 + 0.5))}]
set nftp1500 [expr {$n1500 - $nhttp}]
# HTTP-like file starts: Poisson, rate 125/N per connection (12.5 / 1.25 / 0.125 per second for
# N = 10 / 100 / 1000); sizes Pareto, mean 50 000 B, shape 1.3.
set http_rate [expr {125.0 / $N}]
set iat_rv [new RandomVariable/Exponential]
$iat_rv set avg_ [expr {1.0 / $http_rate}]
$iat_rv use-rng $rng_iat
set size_rv [new RandomVariable/Pareto]
$size_rv set avg_ 50000
$size_rv set shape_ 1.3
$size_rv use-rng $rng_size

set http_files 0
set http_bytes 0
proc http_file {j} {
    global ns app iat_rv size_rv http_files http_bytes duration
    set bytes [expr {int(ceil([$size_rv value]))}]
    incr http_files
    set http_bytes [expr {$http_bytes + $bytes}]
    # Application/FTP `send n` -> Agent::sendmsg(n): appends ceil(n / packetSize_) packets to the
    # connection's send buffer (one persistent one-way TCP connection per HTTP-like source).
    $app($j) send $bytes
    set t [expr {[$ns now] + [$iat_rv value]}]
    if {$t < $duration} { $ns at $t "http_file $j" }
}

for {set j 0} {$j < $N} {incr j} {
    set p [expr {$j % 9}]
    set s $src([expr {$p / 3}])
    set d $dst([expr {$p % 3}])
    if {$j < $n536} {
        set kind($j) ftp
        set psize($j) 496
    } elseif {$j < $n536 + $nhttp} {
        set kind($j) http
        set psize($j) 1460
    } else {
        set kind($j) ftp
        set psize($j) 1460
    }
    set tcp($j) [new Agent/TCP/Newreno]
    $tcp($j) set packetSize_ $psize($j)
    $tcp($j) set fid_ $j
    set sink($j) [new Agent/TCPSink/DelAck]
    $ns attach-agent $s $tcp($j)
    $ns attach-agent $d $sink($j)
    $ns connect $tcp($j) $sink($j)
    set app($j) [new Application/FTP]
    $app($j) attach-agent $tcp($j)
    if {$kind($j) == "ftp"} {
        # long-lived: infinite backlog from a uniform start time in [0, 1) s
        $ns at [$rng_start uniform 0 1] "$app($j) start"
    } else {
        $ns at [$iat_rv value] "http_file $j"
    }
}

# Reverse traffic: ncbr = max(1, round(N/10)) UDP CBR flows, 1000-byte datagrams, 10 Mb/s in total,
# flow m from N(4 + (m mod 9) mod 3) to N(1 + (m mod 9) / 3); start uniform in [0, 1) s, no jitter.
set ncbr [expr {max(1, int(floor($N / 10.0 + 0.5)))}]
for {set m 0} {$m < $ncbr} {incr m} {
    set p [expr {$m % 9}]
    set udp($m) [new Agent/UDP]
    $udp($m) set packetSize_ 1000
    set null($m) [new Agent/Null]
    $ns attach-agent $dst([expr {$p % 3}]) $udp($m)
    $ns attach-agent $src([expr {$p / 3}]) $null($m)
    $ns connect $udp($m) $null($m)
    set cbr($m) [new Application/Traffic/CBR]
    $cbr($m) set packetSize_ 1000
    $cbr($m) set rate_ [expr {10e6 / $ncbr}]
    $cbr($m) set random_ 0
    $cbr($m) attach-agent $udp($m)
    $ns at [$rng_start uniform 0 1] "$cbr($m) start"
}

# ---------------------------------------------------------------- measurement
proc payload_bytes {} {
    global N sink psize
    set total 0.0
    for {set j 0} {$j < $N} {incr j} {
        set total [expr {$total + [$sink($j) set bytes_] * double($psize($j)) / ($psize($j) + 40)}]
    }
    return $total
}
proc access_drops {} {
    global amon
    return [expr {[$amon(0) set pdrops_] + [$amon(1) set pdrops_] + [$amon(2) set pdrops_]}]
}
proc snapshot {tag} {
    global qmon rmon snap
    set snap($tag,good) [payload_bytes]
    set snap($tag,parr) [$qmon set parrivals_]
    set snap($tag,pdep) [$qmon set pdepartures_]
    set snap($tag,bdep) [$qmon set bdepartures_]
    set snap($tag,pdrop) [$qmon set pdrops_]
    set snap($tag,rdrop) [$rmon set pdrops_]
    set snap($tag,adrop) [access_drops]
}

# Queue length in packets (waiting, not the one on the wire) every 0.1 s, t = warm + k*0.1 < duration.
set q_n 0
set q_sum 0.0
set q_sumsq 0.0
set qb_sum 0.0
set q_dt 0.1
set q_nmax [expr {int(round(($duration - $t_warm) / $q_dt))}]
proc sample_queue {k} {
    global ns qmon q_n q_sum q_sumsq qb_sum q_dt q_nmax t_warm
    set q [$qmon set pkts_]
    incr q_n
    set q_sum [expr {$q_sum + $q}]
    set q_sumsq [expr {$q_sumsq + $q * $q}]
    set qb_sum [expr {$qb_sum + [$qmon set size_]}]
    incr k
    if {$k < $q_nmax} { $ns at [expr {$t_warm + $k * $q_dt}] "sample_queue $k" }
}

proc finish {} {
    global wall_t0 wall_setup N buffer qkind seed duration t_warm cfg snap q_n q_sum q_sumsq qb_sum
    global n536 nhttp nftp1500 ncbr http_files http_bytes
    snapshot end
    set win [expr {$duration - $t_warm}]
    set qm [expr {$q_sum / $q_n}]
    set var [expr {$q_sumsq / $q_n - $qm * $qm}]
    if {$var < 0} { set var 0.0 }
    set qs [expr {sqrt($var)}]
    set cov [expr {$qm > 0 ? 100.0 * $qs / $qm : 0.0}]
    set qbm [expr {$qb_sum / $q_n}]
    set util [expr {($snap(end,bdep) - $snap(warm,bdep)) * 8.0 / (100e6 * $win)}]
    set goodput [expr {($snap(end,good) - $snap(warm,good)) * 8.0 / $win / 1e6}]
    set now_ms [clock milliseconds]
    puts [format "{\"simulator\": \"ns-2.35\", \"scenario\": \"study_c\", \"setup_wall_s\": %.3f, \"loop_wall_s\": %.3f, \"n\": %d, \"duration\": %g, \"warm\": %g, \"queue\": \"%s\", \"buffer\": %d, \"seed\": %d, \"window\": %d, \"access_limit\": %d, \"n_ftp536\": %d, \"n_http\": %d, \"n_ftp1500\": %d, \"n_cbr\": %d, \"q_mean_pkts\": %.6f, \"q_std_pkts\": %.6f, \"q_cov_pct\": %.4f, \"q_mean_bytes\": %.3f, \"q_samples\": %d, \"throughput_pct\": %.4f, \"utilization\": %.6f, \"goodput_mbps\": %.6f, \"drops\": %d, \"arrivals\": %d, \"departures\": %d, \"rev_drops\": %d, \"access_drops\": %d, \"http_files\": %d, \"http_bytes\": %.0f}" \
        [expr {($wall_setup - $wall_t0) / 1000.0}] [expr {($now_ms - $wall_setup) / 1000.0}] $N $duration $t_warm $qkind $buffer $seed $cfg(window) $cfg(access_limit) $n536 $nhttp $nftp1500 $ncbr \
        $qm $qs $cov $qbm $q_n [expr {100.0 * $util}] $util $goodput \
        [expr {$snap(end,pdrop) - $snap(warm,pdrop)}] [expr {$snap(end,parr) - $snap(warm,parr)}] \
        [expr {$snap(end,pdep) - $snap(warm,pdep)}] [expr {$snap(end,rdrop) - $snap(warm,rdrop)}] \
        [expr {$snap(end,adrop) - $snap(warm,adrop)}] $http_files $http_bytes]
    exit 0
}

run_measured
