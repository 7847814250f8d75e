# BENCH-DUMBBELL-N for ns-2.35 (see docs/bench.md#bench-dumbbell-n and validation/ns2/README.md).
#
#   ns bench_dumbbell.tcl ?N? ?duration? ?queue? ?seed? ?routing?
#
#   N         number of flows (default 10)
#   duration  simulated seconds (default 60); metrics are taken over [10 s, duration]
#   queue     bottleneck A->B discipline: dt | red | pi | rem | avq (default dt)
#   seed      RNG seed, integer >= 1 (default 1); seeds ns-random and defaultRNG
#   routing   manual (default): `$ns rtproto Manual` with default routes (the idiom of ns-2's
#             tcl/ex/many_tcp.tcl): S_i and A default to the next hop towards B, R_i and B towards A,
#             A and B hold one host route per attached host -> O(N) set-up.
#             static: ns-2's default flat static routing (all-pairs tables for 2N+2 nodes; its
#             set-up alone takes ~70 s at N = 1000). Forwarding is zero-time either way, so the
#             simulated results are identical; only the set-up cost differs.
#
# Topology: S_i --1Gb,d_i-- A --100Mb,10ms-- B --1Gb,d_i-- R_i, i = 0..N-1,
#   RTT_i = 20 ms + 180 ms * i/(N-1) (N = 1: 20 ms), d_i = (RTT_i - 20 ms)/4.
# Flow i: Agent/TCP/Newreno -> Agent/TCPSink/DelAck, FTP (infinite), starts at i * (1 s / N).
#
# Output: one JSON object on stdout, nothing else. No trace files.

# Wall clock at start; `mark_setup` (first event at t = 0) splits set-up from the event loop.
set wall_t0 [clock milliseconds]
set wall_setup -1

source [file join [file dirname [info script]] common.tcl]

# ---------------------------------------------------------------- arguments
set N 10
set duration 60.0
set qkind dt
set seed 1
if {$argc >= 1} { set N [lindex $argv 0] }
if {$argc >= 2} { set duration [expr {double([lindex $argv 1])}] }
if {$argc >= 3} { set qkind [string tolower [lindex $argv 2]] }
if {$argc >= 4} { set seed [lindex $argv 3] }
set routing manual
if {$argc >= 5} { set routing [string tolower [lindex $argv 4]] }
if {$argc > 5 || ($routing != "manual" && $routing != "static")} {
    puts stderr "usage: ns bench_dumbbell.tcl ?N? ?duration? ?dt|red|pi|rem|avq? ?seed? ?manual|static?"
    exit 2
}
if {![string is integer -strict $N] || $N < 1} {
    puts stderr "N must be a positive integer"; exit 2
}
if {![string is integer -strict $seed] || $seed < 1} {
    # seed 0 would ask ns-2 for a time-based (non-reproducible) seed
    puts stderr "seed must be an integer >= 1"; exit 2
}
set t_warm 10.0
if {$duration <= $t_warm} {
    puts stderr "duration must exceed the 10 s warm-up"; exit 2
}
array set qtypes {dt DropTail red RED pi PI rem REM avq Vq}
if {![info exists qtypes($qkind)]} {
    puts stderr "queue must be one of: dt red pi rem avq"; exit 2
}

# ---------------------------------------------------------------- randomness
# Only the TCP agents' clock phase (boot_time_) and the AQM coin flips are random.
global defaultRNG
ns-random $seed
$defaultRNG seed $seed

# ---------------------------------------------------------------- defaults
set bneck_bw 100e6
set bneck_delay 0.010
set access_bw 1e9
set mss 1460
set hdr 40

# every queue holds 1000 packets; the non-bottleneck ones are DropTail and never drop
Queue set limit_ 1000

Agent/TCP set packetSize_ $mss
Agent/TCP set window_ 1000
Agent/TCP set windowInit_ 2
Agent/TCP set minrto_ 0.2
Agent/TCP set tcpTick_ 0.01
Agent/TCP set ecn_ 0
Agent/TCPSink/DelAck set interval_ 0.1

# RED: gentle, packet mode, fixed parameters (docs/bench.md). mean_pktsize_ stays at the ns-2 default
# (500 B); in packet mode it only enters the idle-period correction of the average.
Queue/RED set gentle_ true
Queue/RED set thresh_ 100
Queue/RED set maxthresh_ 300
Queue/RED set linterm_ 10
Queue/RED set q_weight_ 0.002
Queue/RED set queue_in_bytes_ false
Queue/RED set bytes_ false
Queue/RED set setbit_ false
# PI: q_ref 200 packets, a/b ns-2 defaults, 170 Hz, packet mode (ns-2 default), drop.
Queue/PI set qref_ 200
Queue/PI set w_ 170
Queue/PI set queue_in_bytes_ false
Queue/PI set bytes_ false
Queue/PI set setbit_ false
# REM and AVQ (Queue/Vq): ns-2 defaults (REM packet mode; Vq byte mode with mean_pktsize_ 1000,
# i.e. a 1 000 000-byte hard limit), drop instead of mark.
Queue/REM set markpkts_ false
Queue/Vq set markpkts_ false

# ---------------------------------------------------------------- topology
set ns [new Simulator]
if {$routing == "manual"} {
    # must precede node creation
    $ns rtproto Manual
}
set A [$ns node]
set B [$ns node]
$ns simplex-link $A $B $bneck_bw $bneck_delay $qtypes($qkind)
$ns simplex-link $B $A $bneck_bw $bneck_delay DropTail
$ns queue-limit $A $B 1000
$ns queue-limit $B $A 1000
if {$routing == "manual"} {
    [$A get-module Manual] add-route-to-adj-node -default $B
    [$B get-module Manual] add-route-to-adj-node -default $A
}

# Queue monitor on the bottleneck A->B queue (waiting packets; drops include AQM drops).
set qmon [new QueueMonitor]
[$ns link $A $B] attach-monitors [new SnoopQueue/In] [new SnoopQueue/Out] [new SnoopQueue/Drop] $qmon

for {set i 0} {$i < $N} {incr i} {
    if {$N > 1} {
        set rtt [expr {0.020 + 0.180 * $i / ($N - 1.0)}]
    } else {
        set rtt 0.020
    }
    set d [expr {($rtt - 0.020) / 4.0}]
    set S($i) [$ns node]
    set R($i) [$ns node]
    $ns duplex-link $S($i) $A $access_bw $d DropTail
    $ns duplex-link $B $R($i) $access_bw $d DropTail
    if {$routing == "manual"} {
        [$S($i) get-module Manual] add-route-to-adj-node -default $A
        [$R($i) get-module Manual] add-route-to-adj-node -default $B
        [$A get-module Manual] add-route-to-adj-node $S($i)
        [$B get-module Manual] add-route-to-adj-node $R($i)
    }

    set tcp($i) [new Agent/TCP/Newreno]
    $tcp($i) set fid_ $i
    set sink($i) [new Agent/TCPSink/DelAck]
    $ns attach-agent $S($i) $tcp($i)
    $ns attach-agent $R($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at [expr {$i * (1.0 / $N)}] "$ftp($i) start"
}

# ---------------------------------------------------------------- measurement
# Goodput: Agent/TCPSink's bytes_ counts the wire size (payload + 40 B header) of every packet the
# sink has delivered in order; every data packet carries exactly packetSize_ payload bytes, so the
# payload delivered is bytes_ * mss / (mss + hdr).
proc sink_bytes {} {
    global N sink
    set total 0
    for {set i 0} {$i < $N} {incr i} {
        set total [expr {$total + [$sink($i) set bytes_]}]
    }
    return $total
}

proc snapshot {tag} {
    global qmon snap
    set snap($tag,sink) [sink_bytes]
    set snap($tag,parr) [$qmon set parrivals_]
    set snap($tag,pdep) [$qmon set pdepartures_]
    set snap($tag,bdep) [$qmon set bdepartures_]
    set snap($tag,pdrop) [$qmon set pdrops_]
}

# Queue length (packets waiting, excluding the one on the wire) sampled every 10 ms at
# t = 10 + k * 0.01 s for t < duration.
set q_n 0
set q_sum 0.0
set q_sumsq 0.0
set q_dt 0.01
set q_nmax [expr {int(round(($duration - $t_warm) / $q_dt))}]
proc sample_queue {k} {
    global ns qmon q_n q_sum q_sumsq q_dt q_nmax t_warm
    set q [$qmon set pkts_]
    incr q_n
    set q_sum [expr {$q_sum + $q}]
    set q_sumsq [expr {$q_sumsq + $q * $q}]
    incr k
    if {$k < $q_nmax} {
        $ns at [expr {$t_warm + $k * $q_dt}] "sample_queue $k"
    }
}

proc finish {} {
    global wall_t0 wall_setup ns N duration qkind seed routing snap q_n q_sum q_sumsq mss hdr bneck_bw t_warm tcp
    snapshot end
    set win [expr {$duration - $t_warm}]
    set good_bytes [expr {($snap(end,sink) - $snap(warm,sink)) * double($mss) / ($mss + $hdr)}]
    set goodput [expr {$good_bytes * 8.0 / $win / 1e6}]
    set drops [expr {$snap(end,pdrop) - $snap(warm,pdrop)}]
    set arr [expr {$snap(end,parr) - $snap(warm,parr)}]
    set dep [expr {$snap(end,pdep) - $snap(warm,pdep)}]
    set util [expr {($snap(end,bdep) - $snap(warm,bdep)) * 8.0 / ($bneck_bw * $win)}]
    if {$q_n > 0} {
        set qm [expr {$q_sum / $q_n}]
        set var [expr {$q_sumsq / $q_n - $qm * $qm}]
        if {$var < 0} { set var 0.0 }
        set qs [expr {sqrt($var)}]
    } else {
        set qm 0.0
        set qs 0.0
    }
    # Packets handed to a link over the whole run (cost figure): every data packet crosses 3 links
    # unless dropped at the bottleneck (then 1), every ACK crosses 3 links (the reverse path never
    # drops). ndatapack_ counts data packets sent incl. retransmissions; nackpack_ ACKs received.
    set data 0
    set acks 0
    for {set i 0} {$i < $N} {incr i} {
        set data [expr {$data + [$tcp($i) set ndatapack_]}]
        set acks [expr {$acks + [$tcp($i) set nackpack_]}]
    }
    set link_pkts [expr {3 * $data - 2 * $snap(end,pdrop) + 3 * $acks}]
    set now_ms [clock milliseconds]
    puts [format "{\"simulator\": \"ns-2.35\", \"scenario\": \"bench_dumbbell\", \"setup_wall_s\": %.3f, \"loop_wall_s\": %.3f, \"n\": %d, \"duration\": %g, \"queue\": \"%s\", \"seed\": %d, \"routing\": \"%s\", \"goodput_mbps\": %.6f, \"drops\": %d, \"arrivals\": %d, \"departures\": %d, \"q_mean_pkts\": %.6f, \"q_std_pkts\": %.6f, \"q_samples\": %d, \"utilization\": %.6f, \"link_pkts_total\": %d}" \
              [expr {($wall_setup - $wall_t0) / 1000.0}] [expr {($now_ms - $wall_setup) / 1000.0}] $N $duration $qkind $seed $routing $goodput $drops $arr $dep $qm $qs $q_n $util $link_pkts]
    exit 0
}

run_measured
