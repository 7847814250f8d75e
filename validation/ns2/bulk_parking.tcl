# Long-lived flows behind slow access links beside bulk cross traffic, with no web traffic and no
# DelayBox: validation/compare_bulk_parking.py's ns-2 side. R1 -> R2 is 10 Mb/s, 1 ms, 200 packets each
# way. Each direction has 10 long-lived one-way NewReno flows (window 30, ECN) from two hosts on 1 Mb/s,
# `access` ms links (buffers 200) to two such sinks, and `cross` bulk flows (window 64) between two hosts
# on 100 Mb/s links; every flow starts at a uniform time in [0, 1] s. Prints the forward long-lived
# flows' counters as one JSON line.
#
#   ns bulk_parking.tcl seed=N [access=5] [cross=40] [sink=delack|plain] [duration=200]
source [file join [file dirname [info script]] common.tcl]
array set cfg {seed 1 access 5 cross 40 sink delack duration 200}
positional_args
set seed $cfg(seed)

Agent/TCP set window_ 30
Agent/TCP set ecn_ 1
Agent/TCP set packetSize_ 1460
remove-all-packet-headers
add-packet-header IP TCP Flags
set ns [new Simulator]
set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 10Mb 1ms DropTail
$ns queue-limit $r1 $r2 200
$ns queue-limit $r2 $r1 200
proc host {router rate delay} {
    global ns
    set n [$ns node]
    $ns duplex-link $n $router $rate $delay DropTail
    $ns queue-limit $n $router 200
    $ns queue-limit $router $n 200
    return $n
}
set start [new RandomVariable/Uniform]
$start set min_ 0
$start set max_ 1
$start use-rng [new_stream]
set sink_class [expr {$cfg(sink) eq "delack" ? "Agent/TCPSink/DelAck" : "Agent/TCPSink"}]
set ll_sources {}
set ll_sinks {}
foreach {a b dir} [list $r1 $r2 fwd $r2 $r1 rev] {
    set srcs [list [host $a 1Mb $cfg(access)ms] [host $a 1Mb $cfg(access)ms]]
    set dsts [list [host $b 1Mb $cfg(access)ms] [host $b 1Mb $cfg(access)ms]]
    for {set i 0} {$i < 10} {incr i} {
        set tcp [new Agent/TCP/Newreno]
        set snk [new $sink_class]
        $ns attach-agent [lindex $srcs [expr {$i % 2}]] $tcp
        $ns attach-agent [lindex $dsts [expr {$i % 2}]] $snk
        $ns connect $tcp $snk
        $ns at [$start value] "[$tcp attach-app FTP] start"
        if {$dir eq "fwd"} { lappend ll_sources $tcp; lappend ll_sinks $snk }
    }
    set xs [host $a 100Mb 1ms]
    set xd [host $b 100Mb 1ms]
    for {set i 0} {$i < $cfg(cross)} {incr i} {
        set tcp [new Agent/TCP/Newreno]
        $tcp set window_ 64
        set snk [new Agent/TCPSink/DelAck]
        $ns attach-agent $xs $tcp
        $ns attach-agent $xd $snk
        $ns connect $tcp $snk
        $ns at [$start value] "[$tcp attach-app FTP] start"
    }
}
proc finish {} {
    global ll_sources ll_sinks cfg
    set to 0; set rx 0; set bytes 0
    foreach t $ll_sources { incr to [$t set nrexmit_]; incr rx [$t set nrexmitpack_] }
    foreach k $ll_sinks { incr bytes [$k set bytes_] }
    # bytes_ counts 1500-byte packets; goodput is their payload
    set goodput [expr {$bytes * 1460.0 / 1500 * 8 / $cfg(duration) / 1e3}]
    puts "{\"timeouts\": $to, \"retransmits\": $rx, \"goodput_kbps\": $goodput}"
    exit 0
}
$ns at $cfg(duration) finish
$ns run
