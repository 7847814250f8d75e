# HTTP connections replayed from a trace file over one bottleneck: the ns-2.35 twin of
# validation/compare_http_replay.py's aqmlab scenario (`[[http]] trace = FILE`). Every connection is a
# pair of Agent/TCP/FullTcp/Newreno agents, as PackMime-HTTP uses them, driven like PackMime's client and
# server applications: the client sends a request, the server answers after its delay (the last response
# with MSG_EOF, so a FIN follows it), the client sends its next request after the think gap.
#
#   ns http_replay.tcl trace=FILE pairs=FILE [key=value ...]
#
#   trace=FILE     one connection per line: start_s req rsp server_delay_s [gap_s req rsp server_delay_s]...
#   pairs=FILE     where each completed pair goes: `connection index start_s end_s`
#   duration=60    simulated seconds
#   bneck=10       bottleneck rate R0<->R1 (Mb/s); access links 100 Mb/s; every link 1 ms
#   bqueue=100     bottleneck queue limit_ (packets, both directions); access links 1000
#   segsize=1460 window=64 segsperack=1 nodelay=0   FullTcp segsize_, window_, segsperack_, nodelay_
#   pi=0           1: the bottleneck queues are Queue/PI as study W sets them (ECN marking, byte mode,
#                  queue in bytes, mean_pktsize_ 615, qref_ 20; limit_ bqueue x 615 bytes) and every
#                  agent negotiates ECN; step: PI with a_ 1, b_ 0, qref_ 10 in packet mode, whose
#                  probability is 0 or 1, so its marks (and drops of non-ECT packets) are deterministic
#   ptrace=FILE    ns-2's packet trace of the bottleneck R1->R0 (responses) to FILE (optional)
#
# Prints one JSON line: bottleneck drops, arrivals and CE-marked departures each way, FullTcp retransmission timeouts summed
# over the connections' agents (nrexmit_; a client's taken when its last response is in, as its agent
# resets the counter when the connection closes).
source [file join [file dirname [info script]] common.tcl]
array set cfg {trace "" pairs "" duration 60 bneck 10 bqueue 100 segsize 1460 window 64 segsperack 1
    nodelay 0 ptrace "" pi 0}
positional_args
if {$cfg(trace) eq "" || $cfg(pairs) eq ""} { puts stderr "trace=FILE and pairs=FILE are required"; exit 2 }

Agent/TCP set window_ $cfg(window)
Agent/TCP/FullTcp set segsize_ $cfg(segsize)
Agent/TCP/FullTcp set segsperack_ $cfg(segsperack)
Agent/TCP/FullTcp set nodelay_ $cfg(nodelay)
remove-all-packet-headers
add-packet-header IP TCP Flags
set ns [new Simulator]
$ns use-scheduler Heap

if {$cfg(pi) ni {0 1 step}} { puts stderr "pi must be 0, 1 or step"; exit 2 }
if {$cfg(pi) ne "0"} {
    Queue/PI set setbit_ true
    Agent/TCP set ecn_ 1
}
if {$cfg(pi) eq "1"} {
    Queue/PI set bytes_ true
    Queue/PI set queue_in_bytes_ true
    Queue/PI set mean_pktsize_ 615
    Queue/PI set qref_ 20
} elseif {$cfg(pi) eq "step"} {
    Queue/PI set bytes_ false
    Queue/PI set queue_in_bytes_ false
    Queue/PI set a_ 1.0
    Queue/PI set b_ 0.0
    Queue/PI set qref_ 10
}
bottleneck_line node $cfg(bneck) $cfg(bqueue) [expr {$cfg(pi) ne "0" ? "PI" : "DropTail"}]
if {$cfg(ptrace) ne ""} {
    set ptr [open $cfg(ptrace) w]
    $ns trace-queue $R1 $R0 $ptr
}

# ---------------------------------------------------------------- the applications
# The client of connection `conn_`: pair `sent_` is outstanding; logs each complete response.
Class Application/ReplayClient -superclass Application
Application/ReplayClient instproc recv {bytes} {
    global plan pairlog ns
    $self instvar conn_ sent_ got_ started_
    incr got_ $bytes
    set rsp [lindex $plan($conn_) [expr {4 * $sent_ + 2}]]
    if {$got_ < $rsp} { return }
    set got_ [expr {$got_ - $rsp}]
    puts $pairlog "$conn_ $sent_ $started_ [$ns now]"
    incr sent_
    if {4 * $sent_ < [llength $plan($conn_)]} {
        $ns after [lindex $plan($conn_) [expr {4 * $sent_}]] "$self request"
    } else {
        # The client closes passively: its FullTcp agent resets nrexmit_ to 0 when its FIN is
        # acknowledged (LAST_ACK -> CLOSED, reset()), so its timeouts are taken now.
        global timeouts_taken
        set timeouts_taken([$self agent]) [[$self agent] set nrexmit_]
    }
}
Application/ReplayClient instproc request {} {
    global plan ns
    $self instvar conn_ sent_ started_
    set started_ [$ns now]
    [$self agent] sendmsg [lindex $plan($conn_) [expr {4 * $sent_ + 1}]] ""
}

# The server of connection `conn_`: answers pair `serving_` once its whole request is in.
Class Application/ReplayServer -superclass Application
Application/ReplayServer instproc recv {bytes} {
    global plan ns
    $self instvar conn_ serving_ got_
    incr got_ $bytes
    if {4 * $serving_ >= [llength $plan($conn_)]} { return }
    set req [lindex $plan($conn_) [expr {4 * $serving_ + 1}]]
    if {$got_ < $req} { return }
    set got_ [expr {$got_ - $req}]
    $ns after [lindex $plan($conn_) [expr {4 * $serving_ + 3}]] "$self respond $serving_"
    incr serving_
}
Application/ReplayServer instproc respond {k} {
    global plan
    $self instvar conn_
    set rsp [lindex $plan($conn_) [expr {4 * $k + 2}]]
    set last [expr {4 * ($k + 1) >= [llength $plan($conn_)]}]
    [$self agent] sendmsg $rsp [expr {$last ? "MSG_EOF" : ""}]
}

set agents {}
proc open_connection {i} {
    global ns client server agents
    set c [new Agent/TCP/FullTcp/Newreno]
    set s [new Agent/TCP/FullTcp/Newreno]
    $c set fid_ $i
    $s set fid_ $i
    $ns attach-agent $client $c
    $ns attach-agent $server $s
    $ns connect $c $s
    $s listen
    set ca [new Application/ReplayClient]
    $ca set conn_ $i
    $ca set sent_ 0
    $ca set got_ 0
    $ca attach-agent $c
    $ca start
    set sa [new Application/ReplayServer]
    $sa set conn_ $i
    $sa set serving_ 0
    $sa set got_ 0
    $sa attach-agent $s
    $sa start
    lappend agents $c $s
    $ca request
}

# ---------------------------------------------------------------- the trace
# plan(i) = {gap req rsp delay ...} with a zero gap before the first pair.
set f [open $cfg(trace) r]
set n 0
while {[gets $f line] >= 0} {
    set line [string trim $line]
    if {$line eq "" || [string index $line 0] eq "#"} { continue }
    set plan($n) [concat 0 [lrange $line 1 end]]
    $ns at [lindex $line 0] "open_connection $n"
    incr n
}
close $f
set pairlog [open $cfg(pairs) w]

proc finish {} {
    global mon pairlog agents cfg
    close $pairlog
    if {$cfg(ptrace) ne ""} { global ptr; close $ptr }
    global timeouts_taken
    set timeouts 0
    foreach a $agents {
        incr timeouts [expr {[info exists timeouts_taken($a)] ? $timeouts_taken($a) : [$a set nrexmit_]}]
    }
    puts [format "{\"drops_fwd\": %d, \"drops_rev\": %d, \"arrivals_fwd\": %d, \"arrivals_rev\": %d, \"marks_fwd\": %d, \"marks_rev\": %d, \"timeouts\": %d}" \
        [$mon(fwd) set pdrops_] [$mon(rev) set pdrops_] [$mon(fwd) set parrivals_] [$mon(rev) set parrivals_] \
        [$mon(fwd) set pmarks_] [$mon(rev) set pmarks_] $timeouts]
    exit 0
}
$ns at $cfg(duration) finish
$ns run
