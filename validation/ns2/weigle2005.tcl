# Study W's 8Q parking lot (Weigle, Vembar, Du) in ns-2.35: the twin of
# python/aqmlab/studies/weigle2005_topology.py -- see validation/ns2/README.md.
#
#   ns weigle2005.tcl COMBO AQM SEED ?key=value ...?
#
#   COMBO   the queue type on each congested link in use, R1-R2 first: "DT", "AQM-DT", "DT-DT-AQM", ...;
#           "none" = the uncongested reference (no cross traffic)
#   AQM     ARED, PI or REM (the AQM of the "AQM" entries; ignored when COMBO has none)
#   SEED    integer >= 1: ns-random, defaultRNG, substream SEED of every traffic RNG, PackMime set-run
#   key=value overrides (validation/compare_weigle2005.py passes the study's setting; these defaults are the
#   twin's own):
#     pairs=50000      stop once this many forward end-to-end pairs completed after the warm-up
#                      (checked every 0.5 s of simulated time)
#     warm=60          warm-up (integer s): long-lived flows start here, counters are snapshot here
#     maxdur=4000      stop at this time at the latest
#     e2e_rate=51.47   new connections per second of each end-to-end cloud (1 and 8)
#     cross_rate=51.47 new connections per second of each cross-traffic cloud
#     router_rate=10Mb the R_i-R_{i+1} links (100Mb for the cross-traffic calibration)
#     cross=fwd        fwd: one cloud per congested link, servers upstream (R1, R3, R5), clients
#                      downstream; both: a second cloud per congested link the other way round
#     buffer=200       limit_ of every queue (packets; AQMs in byte mode: limit_ * mean_pktsize_ bytes)
#     window=30        window_ of every TCP agent (segments)
#     segsperack=1     FullTcp segsperack_ (the HTTP connections; ns-2's default 1)
#     nodelay=0        FullTcp nodelay_ (0 = Nagle on, ns-2's default)
#     llsink=delack    long-lived receivers: delack (Agent/TCPSink/DelAck) or sink (Agent/TCPSink)
#     ecn=1            ecn_ of every TCP agent
#     delaybox=1       0: routers forward without per-flow delay
#     ared_gentle=1    Queue/RED gentle_
#     mean_pktsize=0   0: ns-2's defaults (RED and PI 500 B, REM 1000 B); else set on all three
#     minrto=0.2       Agent/TCP minrto_ (s; 1 in ns-2.27 and before)
#     rtxcur_init=3    Agent/TCP rtxcur_init_ (s; 6 before 2006)
#     maxrto=60        Agent/TCP maxrto_ (s; 100000 before 2007)
#     tcp_defaults=2.35  2.28 or 2.27: the Agent/TCP defaults of that release, the paper's time (2.28:
#                      maxrto_ 100000, rtxcur_init_ 6, integer window reductions, the old RTT variance,
#                      no CWR on retransmissions, no slow-start bug fix; 2.27 also minrto_ 1)
#     samples=0.01     queue-length sampling interval on the congested links (s)
#     pairs_out=       a file to keep PackMime's log of the forward pairs in (time, request and
#                      response bytes, response time in ms, server, active connections); default: none
#
# Output: one JSON object on stdout (see README.md for every field).

set wall_t0 [clock milliseconds]

# ---------------------------------------------------------------- arguments
array set cfg {
    pairs 50000 warm 60 maxdur 4000 e2e_rate 51.47 cross_rate 51.47 router_rate 10Mb cross fwd
    buffer 200 window 30 segsperack 1 nodelay 0 llsink delack ecn 1 delaybox 1 ared_gentle 1
    mean_pktsize 0 minrto 0.2 rtxcur_init 3 maxrto 60 tcp_defaults 2.35 samples 0.01 pairs_out {}
}
set pos {}
foreach a $argv {
    if {[regexp {^([a-z_0-9]+)=(.*)$} $a -> k v]} {
        if {![info exists cfg($k)]} {
            puts stderr "unknown option $k (known: [lsort [array names cfg]])"; exit 2
        }
        set cfg($k) $v
        set given($k) 1
    } else {
        lappend pos $a
    }
}
if {[llength $pos] != 3} { puts stderr "usage: ns weigle2005.tcl COMBO AQM SEED ?key=value ...?"; exit 2 }
lassign $pos combo_arg aqm seed
set combo [expr {$combo_arg eq "none" ? {} : [split $combo_arg -]}]
foreach c $combo { if {$c ni {DT AQM}} { puts stderr "COMBO entries must be DT or AQM"; exit 2 } }
if {[llength $combo] > 3} { puts stderr "at most three congested links"; exit 2 }
if {"AQM" in $combo && $aqm ni {ARED PI REM}} { puts stderr "AQM must be ARED, PI or REM"; exit 2 }
if {![string is integer -strict $seed] || $seed < 1} { puts stderr "SEED must be an integer >= 1"; exit 2 }
if {$cfg(cross) ni {fwd both}} { puts stderr "cross must be fwd or both"; exit 2 }
if {$cfg(llsink) ni {delack sink}} { puts stderr "llsink must be delack or sink"; exit 2 }
# An older release's defaults set the timers themselves: an explicit timer beside them would be overridden.
foreach k {minrto rtxcur_init maxrto} {
    if {$cfg(tcp_defaults) ne "2.35" && [info exists given($k)]} {
        puts stderr "$k= and tcp_defaults=$cfg(tcp_defaults) both set the retransmission timer: give one"; exit 2
    }
}
if {$cfg(tcp_defaults) ni {2.35 2.28 2.27}} { puts stderr "tcp_defaults must be 2.35, 2.28 or 2.27"; exit 2 }
set warm $cfg(warm)

# ---------------------------------------------------------------- randomness
global defaultRNG
ns-random $seed
$defaultRNG seed $seed
source [file join [file dirname [info script]] common.tcl]

# ---------------------------------------------------------------- TCP
# Every agent: ECN, window 30. HTTP: PackMime's Agent/TCP/FullTcp/Newreno, 1460-byte segments.
# Long-lived: one-way Agent/TCP/Newreno (1460 + 40 B packets) to a DelAck sink, as aqmlab's tcp_bulk.
Agent/TCP set ecn_ $cfg(ecn)
Agent/TCP set window_ $cfg(window)
Agent/TCP set packetSize_ 1460
Agent/TCP/FullTcp set segsize_ 1460
Agent/TCP/FullTcp set segsperack_ $cfg(segsperack)
Agent/TCP/FullTcp set nodelay_ $cfg(nodelay)
Agent/TCP set minrto_ $cfg(minrto)
Agent/TCP set rtxcur_init_ $cfg(rtxcur_init)
Agent/TCP set maxrto_ $cfg(maxrto)
# The defaults ns-2.35 changed since the paper's releases (tcl/lib/ns-default.tcl of 2.28 against 2.35).
if {$cfg(tcp_defaults) ne "2.35"} {
    Agent/TCP set maxrto_ 100000
    Agent/TCP set rtxcur_init_ 6.0
    Agent/TCP set precisionReduce_ false
    Agent/TCP set updated_rttvar_ false
    Agent/TCP set SetCWRonRetransmit_ false
    Agent/TCP set bugfix_ss_ 0
}
if {$cfg(tcp_defaults) eq "2.27"} { Agent/TCP set minrto_ 1 }

# ---------------------------------------------------------------- AQMs (byte mode, ECN, target 20 packets)
Queue/RED set adaptive_ 1
Queue/RED set targetdelay_ 0.01
Queue/RED set setbit_ true
Queue/RED set bytes_ true
Queue/RED set queue_in_bytes_ true
Queue/RED set gentle_ [expr {$cfg(ared_gentle) ? "true" : "false"}]
Queue/PI set qref_ 20
Queue/PI set setbit_ true
Queue/PI set bytes_ true
Queue/PI set queue_in_bytes_ true
Queue/REM set pbo_ 20.0
Queue/REM set markpkts_ true
Queue/REM set qib_ true
if {$cfg(mean_pktsize) > 0} {
    foreach q {RED PI REM} { Queue/$q set mean_pktsize_ $cfg(mean_pktsize) }
}
array set qclass {ARED RED PI PI REM REM}

# ---------------------------------------------------------------- topology
remove-all-packet-headers
add-packet-header IP TCP Flags
set ns [new Simulator]
$ns use-scheduler Heap

for {set i 0} {$i < 8} {incr i} {
    set R($i) [expr {$cfg(delaybox) ? [$ns DelayBox] : [$ns node]}]
}
set congested {{1 2} {3 4} {5 6}}
for {set i 0} {$i < 7} {incr i} { set qtype($i) DropTail }
foreach c $combo pair [lrange $congested 0 [expr {[llength $combo] - 1}]] {
    if {$c eq "AQM"} { set qtype([lindex $pair 0]) $qclass($aqm) }
}
for {set i 0} {$i < 7} {incr i} {
    set j [expr {$i + 1}]
    $ns duplex-link $R($i) $R($j) $cfg(router_rate) 1ms $qtype($i)
    $ns queue-limit $R($i) $R($j) $cfg(buffer)
    $ns queue-limit $R($j) $R($i) $cfg(buffer)
}

# Hosts: name -> node; side(name) = client|server (which half of PackMime's RTT model its box uses);
# router(name) = the router it hangs off; class(src,dst) = traffic class of packets src -> dst.
set hosts {}
proc host {name router rate side} {
    global ns R cfg node side_of router_of hosts
    set n [$ns node]
    $ns duplex-link $n $R($router) $rate 1ms DropTail
    $ns queue-limit $n $R($router) $cfg(buffer)
    $ns queue-limit $R($router) $n $cfg(buffer)
    set node($name) $n
    set side_of($name) $side
    set router_of($name) $router
    lappend hosts $name
    return $name
}
proc pair {prefix router rate side} {
    return [list [host ${prefix}a $router $rate $side] [host ${prefix}b $router $rate $side]]
}
proc class_between {srcs dsts cls} {
    global node class_of
    foreach s $srcs { foreach d $dsts {
        set class_of([$node($s) id],[$node($d) id]) $cls
        set class_of([$node($d) id],[$node($s) id]) $cls
    } }
}

set ll0src [pair ll0src 0 1Mb server]
set ll0sink [pair ll0sink 7 1Mb client]
set ll9src [pair ll9src 7 1Mb server]
set ll9sink [pair ll9sink 0 1Mb client]
set web1s [pair web1s 0 4Mb server]
set web1c [pair web1c 7 4Mb client]
set web8s [pair web8s 7 4Mb server]
set web8c [pair web8c 0 4Mb client]
class_between $ll0src $ll0sink ll_fwd
class_between $ll9src $ll9sink ll_rev
class_between $web1s $web1c http_fwd
class_between $web8s $web8c http_rev
foreach h [concat $ll0src $web1s] { set fwd_source([$node($h) id]) 1 }
# clouds: name clients servers rate
set clouds [list [list http_fwd $web1c $web1s $cfg(e2e_rate)] [list http_rev $web8c $web8s $cfg(e2e_rate)]]
set k 0
foreach c $combo pair $congested {
    if {$c eq ""} { break }
    incr k
    lassign $pair a b
    set s [pair cross${k}s $a 4Mb server]
    set cl [pair cross${k}c $b 4Mb client]
    class_between $s $cl cross
    lappend clouds [list cross$k $cl $s $cfg(cross_rate)]
    if {$cfg(cross) eq "both"} {
        set s [pair cross${k}rs $b 4Mb server]
        set cl [pair cross${k}rc $a 4Mb client]
        class_between $s $cl cross
        lappend clouds [list cross${k}r $cl $s $cfg(cross_rate)]
    }
}

# ---------------------------------------------------------------- monitors
# A SrcDest flow monitor on every link direction counts each class's arrivals, drops and marks
# (classes are told apart by their end nodes); QueueMonitors on the congested links give the queue.
set monitored {}
proc fmon {from to} {
    global ns fm monitored
    set m [$ns makeflowmon SrcDest]
    $ns attach-fmon [$ns link $from $to] $m
    set key "[$from id]->[$to id]"
    set fm($key) $m
    lappend monitored [list $key $from $to]
}
for {set i 0} {$i < 7} {incr i} {
    set j [expr {$i + 1}]
    fmon $R($i) $R($j)
    fmon $R($j) $R($i)
}
foreach h $hosts {
    fmon $node($h) $R($router_of($h))
    fmon $R($router_of($h)) $node($h)
}

# ---------------------------------------------------------------- PackMime clouds
set CLIENT 0
set SERVER 1
set max_fid(none) 0
PackMimeHTTP instproc setup-tcp {tcp fid} {
    $tcp set fid_ $fid
    $tcp proc done {} "$self done $tcp"
}
set outfile [file join [expr {[info exists env(TMPDIR)] ? $env(TMPDIR) : "/tmp"}] \
                 "weigle2005-[pid]-$seed.dat"]
set pms {}
foreach cloud $clouds {
    lassign $cloud name clients servers rate
    set pm [new PackMimeHTTP]
    foreach c $clients { $pm set-client $node($c) }
    foreach s $servers { $pm set-server $node($s) }
    $pm set-rate $rate
    $pm set-http-1.1
    $pm set-TCP Newreno
    $pm set-run $seed
    $pm set-warmup $warm
    if {$name eq "http_fwd"} { $pm set-outfile $outfile; set pm_fwd $pm }
    foreach {what type} [list req_size $CLIENT rsp_size $SERVER] {
        set rv [new RandomVariable/PackMimeHTTPFileSize $rate $type]
        $rv use-rng [new_stream]
        $pm set-$what $rv
    }
    set arr [new RandomVariable/PackMimeHTTPFlowArrive $rate]
    $arr use-rng [new_stream]
    $pm set-flow_arrive $arr
    lappend pms $pm
    set cloud_of($pm) [list $clients $servers $rate]
}

# ---------------------------------------------------------------- long-lived flows
# 10 each way from the warm-up on, alternating over the two source and two sink nodes; fid 1..20
# keeps every flow its own DelayBox entry.
set llsinks {}
set llsrcs {}
set fid 0
foreach {srcs dsts dir} [list $ll0src $ll0sink fwd $ll9src $ll9sink rev] {
    for {set i 0} {$i < 10} {incr i} {
        incr fid
        set tcp [new Agent/TCP/Newreno]
        set snk [new [expr {$cfg(llsink) eq "delack" ? "Agent/TCPSink/DelAck" : "Agent/TCPSink"}]]
        $tcp set fid_ $fid
        $ns attach-agent $node([lindex $srcs [expr {$i % 2}]]) $tcp
        $ns attach-agent $node([lindex $dsts [expr {$i % 2}]]) $snk
        $ns connect $tcp $snk
        set ftp [$tcp attach-app FTP]
        $ns at $warm "$ftp start"
        if {$dir eq "fwd"} { lappend llsinks $snk; lappend llsrcs $tcp }
    }
}

# ---------------------------------------------------------------- DelayBoxes
# Each router delays the flows of its own hosts with PackMime's RTT model, the server half for
# servers and long-lived sources, the client half for clients and sinks: one rule per (host, peer)
# in each direction. Every rule of one box side shares one RV per router (one stream each).
if {$cfg(delaybox)} {
    array set peers {}
    foreach {srcs dsts} [list $ll0src $ll0sink $ll9src $ll9sink] {
        foreach s $srcs { foreach d $dsts { lappend peers($s) $d; lappend peers($d) $s } }
    }
    foreach cloud $clouds {
        lassign $cloud name clients servers rate
        foreach s $servers { foreach c $clients { lappend peers($s) $c; lappend peers($c) $s } }
    }
    set zero_loss [new RandomVariable/Constant]
    $zero_loss set val_ 0
    for {set i 0} {$i < 8} {incr i} {
        foreach side {client server} type [list $CLIENT $SERVER] {
            set rv [new RandomVariable/PackMimeHTTPXmit $cfg(e2e_rate) $type]
            $rv use-rng [new_stream]
            foreach h $hosts {
                if {$router_of($h) != $i || $side_of($h) ne $side} { continue }
                foreach p $peers($h) {
                    $R($i) add-rule [$node($h) id] [$node($p) id] $rv $zero_loss
                    $R($i) add-rule [$node($p) id] [$node($h) id] $rv $zero_loss
                }
            }
        }
    }
}

# ---------------------------------------------------------------- measurement
# Reported links: the congested ones (queue sampled), and the end links R0->R1 / R7->R6 (whose
# class loads are the end-to-end HTTP offered load of the calibration).
set cong_links {}
foreach c $combo pair $congested {
    if {$c eq ""} { break }
    lassign $pair a b
    set key "[$R($a) id]->[$R($b) id]"
    lappend cong_links [list "R$a->R$b" $key]
    set qsum($key) 0.0
}
foreach {a b} {0 1 7 6} {
    set key "[$R($a) id]->[$R($b) id]"
    if {![info exists qsum($key)]} { lappend cong_links [list "R$a->R$b" $key] }
}
# Queue length: the flow monitor's aggregate pkts_ (packets waiting, as ns-2's q_->length()).
set nsamples 0
proc sample {} {
    global ns fm qsum qhist nsamples cfg
    foreach key [array names qsum] {
        set len [$fm($key) set pkts_]
        set qsum($key) [expr {$qsum($key) + $len}]
        incr qhist($key,$len)
    }
    incr nsamples
    $ns at [expr {[$ns now] + $cfg(samples)}] sample
}

# Quantile q of link `key`'s sampled queue lengths (packets): the smallest length whose share of the
# samples at or below it reaches q; -1 when not sampled.
proc queue_quantile {key q} {
    global qhist nsamples
    set lens {}
    foreach idx [array names qhist "$key,*"] { lappend lens [lindex [split $idx ,] 1] }
    set seen 0
    foreach len [lsort -integer $lens] {
        incr seen $qhist($key,$len)
        if {$seen >= $q * $nsamples} { return $len }
    }
    return -1
}

# Per-class counters over all monitored links: arrivals at the hosts' own uplinks = packets sent. The
# forward classes' packets on their forward path (sent by their sources at R0: long-lived data, HTTP
# responses) are also counted as class "<class>_path", the paper's "loss ... for end-to-end forward-path
# traffic".
proc class_counts {} {
    global fm monitored class_of fwd_source
    array set out {}
    foreach entry $monitored {
        lassign $entry key from to
        foreach f [$fm($key) flows] {
            set cls "other"
            set sd "[$f set src_],[$f set dst_]"
            if {[info exists class_of($sd)]} { set cls $class_of($sd) }
            set counted [list $cls]
            if {[info exists fwd_source([$f set src_])]} { lappend counted ${cls}_path }
            foreach c $counted {
                foreach v {pdrops_ pmarks_ parrivals_ bdepartures_} {
                    set idx "$key,$c,$v"
                    if {![info exists out($idx)]} { set out($idx) 0 }
                    set out($idx) [expr {$out($idx) + [$f set $v]}]
                }
            }
        }
    }
    return [array get out]
}
# CE-marked departures per node pair on every router link: a QueueMonitor's pmarks_ counts CE packets at
# departure, upstream marks included, so the marks a queue made are its CE departures less those of the
# same node pairs on the router link before it (each pair's packets all follow one path).
proc ce_departures {} {
    global fm R
    set out {}
    for {set i 0} {$i < 8} {incr i} {
        foreach j [list [expr {$i - 1}] [expr {$i + 1}]] {
            if {$j < 0 || $j > 7} { continue }
            set key "[$R($i) id]->[$R($j) id]"
            foreach f [$fm($key) flows] { lappend out "$key,[$f set src_],[$f set dst_]" [$f set pmarks_] }
        }
    }
    return $out
}
proc marks_made {i j} {
    global snap R
    array set c0 $snap(warm,ce)
    array set c1 $snap(end,ce)
    set key "[$R($i) id]->[$R($j) id]"
    set k [expr {2 * $i - $j}]
    set up [expr {$k >= 0 && $k <= 7 ? "[$R($k) id]->[$R($i) id]" : ""}]
    set made 0
    foreach idx [array names c1 "$key,*"] {
        set made [expr {$made + $c1($idx) - ([info exists c0($idx)] ? $c0($idx) : 0)}]
        set pair [join [lrange [split $idx ,] 1 2] ,]
        if {$up ne "" && [info exists c1($up,$pair)]} {
            set before [expr {[info exists c0($up,$pair)] ? $c0($up,$pair) : 0}]
            set made [expr {$made - ($c1($up,$pair) - $before)}]
        }
    }
    return $made
}
proc snapshot {tag} {
    global snap llsinks pm_fwd
    array set snap [list $tag,counts [class_counts] $tag,ce [ce_departures]]
    set b 0
    foreach s $llsinks { set b [expr {$b + [$s set bytes_]}] }
    set snap($tag,llbytes) $b
    set snap($tag,pairs) [$pm_fwd get-pairs]
}
proc check_stop {} {
    global ns snap pm_fwd cfg
    if {[$pm_fwd get-pairs] - $snap(warm,pairs) >= $cfg(pairs) || [$ns now] >= $cfg(maxdur)} {
        finish
    }
    $ns at [expr {[$ns now] + 0.5}] check_stop
}

proc jnum {x} { return [format %.6g $x] }

proc finish {} {
    global ns snap warm cfg outfile combo_arg aqm seed wall_t0 cong_links qsum nsamples monitored \
        hosts node router_of R class_of
    snapshot end
    set now [$ns now]
    set win [expr {$now - $warm}]
    array set c0 $snap(warm,counts)
    array set c1 $snap(end,counts)
    # per class: sent = arrivals on the sources' uplinks; drops and marks over every link
    array set sent {}
    array set drops {}
    array set marks {}
    array set uplink {}
    array set downlink {}
    array set ce_delivered {}
    foreach h $hosts {
        set uplink([$node($h) id]->[$R($router_of($h)) id]) 1
        set downlink([$R($router_of($h)) id]->[$node($h) id]) 1
    }
    foreach idx [array names c1] {
        lassign [split $idx ,] key cls v
        set d [expr {$c1($idx) - ([info exists c0($idx)] ? $c0($idx) : 0)}]
        foreach a {sent drops marks ce_delivered} { if {![info exists ${a}($cls)]} { set ${a}($cls) 0 } }
        if {$v eq "pdrops_"} { set drops($cls) [expr {$drops($cls) + $d}] }
        if {$v eq "pmarks_"} { set marks($cls) [expr {$marks($cls) + $d}] }
        if {$v eq "parrivals_" && [info exists uplink($key)]} { set sent($cls) [expr {$sent($cls) + $d}] }
        # CE departures on the hosts' downlinks: the packets delivered marked, each counted once
        if {$v eq "pmarks_" && [info exists downlink($key)]} {
            set ce_delivered($cls) [expr {$ce_delivered($cls) + $d}]
        }
    }
    # the forward long-lived class's drops per router link (both directions: data and ACKs)
    array set rname {}
    for {set i 0} {$i < 8} {incr i} { set rname([$R($i) id]) R$i }
    set lldrops {}
    foreach idx [lsort [array names c1 "*,ll_fwd,pdrops_"]] {
        set key [lindex [split $idx ,] 0]
        lassign [split [string map {-> ,} $key] ,] a b
        set d [expr {$c1($idx) - ([info exists c0($idx)] ? $c0($idx) : 0)}]
        if {$d > 0 && [info exists rname($a)] && [info exists rname($b)]} {
            lappend lldrops "\"$rname($a)->$rname($b)\": $d"
        }
    }
    set classes {}
    foreach cls [lsort [array names sent]] {
        set loss [expr {$sent($cls) > 0 ? double($drops($cls)) / $sent($cls) : 0}]
        lappend classes "\"$cls\": {\"sent\": $sent($cls), \"drops\": $drops($cls), \"marks\": $marks($cls), \"ce_delivered\": $ce_delivered($cls), \"loss_rate\": [jnum $loss]}"
    }
    # per congested link: drops, marks, arrivals, load by class (Mb/s), mean queue
    set links {}
    foreach l $cong_links {
        lassign $l name key
        set dr 0; set mk 0; set ar 0; set load {}
        foreach idx [lsort [array names c1 "$key,*"]] {
            lassign [split $idx ,] k cls v
            set d [expr {$c1($idx) - ([info exists c0($idx)] ? $c0($idx) : 0)}]
            switch $v {
                pdrops_ { incr dr $d }
                pmarks_ { incr mk $d }
                parrivals_ { incr ar $d }
                bdepartures_ { lappend load "\"$cls\": [jnum [expr {8.0 * $d / $win / 1e6}]]" }
            }
        }
        set qmean [expr {[info exists qsum($key)] && $nsamples > 0 ? $qsum($key) / $nsamples : -1}]
        regexp {R(\d)->R(\d)} $name -> i j
        lappend links "\"$name\": {\"drops\": $dr, \"marks\": [marks_made $i $j], \"ce_departures\": $mk, \"arrivals\": $ar, \"q_mean_pkts\": [jnum $qmean], \"q_p10_pkts\": [queue_quantile $key 0.1], \"q_p50_pkts\": [queue_quantile $key 0.5], \"q_p90_pkts\": [queue_quantile $key 0.9], \"load_mbps\": {[join $load {, }]}}"
    }
    # long-lived goodput: in-order payload at the forward sinks (bytes_ counts 1500-byte packets)
    set goodput [expr {($snap(end,llbytes) - $snap(warm,llbytes)) * 1460.0 / 1500.0 * 8 / $win / 1e3}]
    # forward long-lived timeouts (nrexmit_: those not in recovery from an ECN cut) and retransmitted
    # packets; the flows start at the warm-up, so their counters hold only the measured window
    global llsrcs
    set llto 0
    set llrx 0
    foreach t $llsrcs {
        set llto [expr {$llto + [$t set nrexmit_]}]
        set llrx [expr {$llrx + [$t set nrexmitpack_]}]
    }
    # forward response times (PackMime's log: pairs whose request was sent after the warm-up)
    set rts {}
    if {[file exists $outfile]} {
        set f [open $outfile r]
        while {[gets $f line] >= 0} {
            if {[llength $line] >= 4} { lappend rts [expr {[lindex $line 3] / 1000.0}] }
        }
        close $f
        if {$cfg(pairs_out) ne ""} { file copy -force $outfile $cfg(pairs_out) }
        file delete $outfile
    }
    set rts [lsort -real $rts]
    set n [llength $rts]
    set sum 0.0
    foreach x $rts { set sum [expr {$sum + $x}] }
    set wall [expr {([clock milliseconds] - $wall_t0) / 1000.0}]
    set opts {}
    foreach k [lsort [array names cfg]] { lappend opts "\"$k\": \"$cfg($k)\"" }
    puts "{\"simulator\": \"ns-2.35\", \"scenario\": \"weigle2005\", \"combo\": \"$combo_arg\", \"aqm\": \"$aqm\", \"seed\": $seed, \"options\": {[join $opts {, }]}, \"end_s\": [jnum $now], \"pairs\": $n, \"goodput_kbps\": [jnum $goodput], \"ll_timeouts\": $llto, \"ll_retransmits\": $llrx, \"ll_fwd_drops\": {[join $lldrops {, }]}, \"rt_mean_s\": [jnum [expr {$n > 0 ? $sum / $n : -1}]], \"rt_p10_s\": [jnum [quantile $rts 0.1]], \"rt_p50_s\": [jnum [quantile $rts 0.5]], \"rt_p90_s\": [jnum [quantile $rts 0.9]], \"classes\": {[join $classes {, }]}, \"links\": {[join $links {, }]}, \"wall_s\": [jnum $wall]}"
    exit 0
}

foreach pm $pms { $ns at 0.0 "$pm start" }
$ns at $warm "snapshot warm; sample; check_stop"
$ns run
