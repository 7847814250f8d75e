# Procedures shared by the ns-2.35 scripts of this folder (each script sources this file).

# A new RNG advanced to substream `seed` (the global run seed): the ns-2 manual's recipe for
# independent replications, one stream per traffic component.
proc new_stream {} {
    global seed
    set r [new RNG]
    for {set k 0} {$k < $seed} {incr k} { $r next-substream }
    return $r
}

# Quantile q of a sorted list: linear interpolation between order statistics (R type 7); -1 if empty.
proc quantile {sorted q} {
    set n [llength $sorted]
    if {$n == 0} { return -1 }
    set h [expr {($n - 1) * $q}]
    set lo [expr {int(floor($h))}]
    set hi [expr {$lo + 1 < $n ? $lo + 1 : $lo}]
    set a [lindex $sorted $lo]
    set b [lindex $sorted $hi]
    return [expr {$a + ($h - $lo) * ($b - $a)}]
}

# The `key=value` arguments (`argv`) read into `cfg`, whose keys are the options the script knows; returns
# the other, positional arguments.
proc positional_args {} {
    global argv cfg
    set pos {}
    foreach a $argv {
        if {[regexp {^([a-z_]+)=(.*)$} $a -> k v]} {
            if {![info exists cfg($k)]} {
                puts stderr "unknown option $k (known: [lsort [array names cfg]])"; exit 2
            }
            set cfg($k) $v
        } else {
            lappend pos $a
        }
    }
    return $pos
}

# Wall clock at the first event (t = 0): splits the set-up (from `wall_t0`) from the event loop.
proc mark_setup {} {
    global wall_setup
    set wall_setup [clock milliseconds]
}

# Runs a bottleneck script: the warm-up `snapshot` and the first `sample_queue` at `t_warm`, `finish` (which
# prints the JSON and exits) at `duration`.
proc run_measured {} {
    global ns t_warm duration
    $ns at 0.0 "mark_setup"
    $ns at $t_warm "snapshot warm"
    $ns at $t_warm "sample_queue 0"
    $ns at $duration "finish"
    $ns run
}

# A monitor of the queue from node `from` to node `to`: arrivals, departures and drops (QueueMonitor).
proc monitor {from to} {
    global ns
    set m [new QueueMonitor]
    [$ns link $from $to] attach-monitors [new SnoopQueue/In] [new SnoopQueue/Out] [new SnoopQueue/Drop] $m
    return $m
}

# client --100Mb,1ms-- R0 --`bneck` Mb/s,1ms-- R1 --100Mb,1ms-- server: drop-tail 1000-packet access
# queues, `bqueue` packets of `bqtype` (drop-tail unless given) at the bottleneck both ways. R0 and R1 are made by `$ns $router` (node or
# DelayBox); sets the globals client, server, R0 and R1, created in that order, and mon(fwd), mon(rev):
# monitors of the bottleneck R0->R1 and R1->R0.
proc bottleneck_line {router bneck bqueue {bqtype DropTail}} {
    global ns client server R0 R1 mon
    set client [$ns node]
    set server [$ns node]
    set R0 [$ns $router]
    set R1 [$ns $router]
    $ns duplex-link $client $R0 100Mb 1ms DropTail
    $ns duplex-link $R0 $R1 ${bneck}Mb 1ms $bqtype
    $ns duplex-link $R1 $server 100Mb 1ms DropTail
    foreach {x y lim} [list $client $R0 1000 $R0 $client 1000 $R0 $R1 $bqueue $R1 $R0 $bqueue \
                          $R1 $server 1000 $server $R1 1000] {
        $ns queue-limit $x $y $lim
    }
    set mon(fwd) [monitor $R0 $R1]
    set mon(rev) [monitor $R1 $R0]
}
