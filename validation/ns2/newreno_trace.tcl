# One ns-2 NewReno connection (window 30, ECN negotiated, 1460-byte segments) over 10 Mb/s, 10 ms,
# losing the packets listed in a file (ErrorModel/List): the deterministic twin of
# validation/compare_newreno_trace.py's aqmlab scenario. `agent` = oneway (Agent/TCP/Newreno, with a
# TCPSink, plain or DelAck) or fulltcp (Agent/TCP/FullTcp/Newreno at both ends, as PackMime-HTTP uses).
# Writes ns-2's packet trace (trace-all) to `trace` and prints the sender's counters as one JSON line.
#
#   ns newreno_trace.tcl agent=oneway|fulltcp sink=delack|plain losses=FILE trace=FILE [duration=60]
source [file join [file dirname [info script]] common.tcl]
array set cfg {agent oneway sink plain losses "" trace "" duration 60}
positional_args

Agent/TCP set window_ 30
Agent/TCP set ecn_ 1
Agent/TCP set packetSize_ 1460
Agent/TCP/FullTcp set segsize_ 1460
remove-all-packet-headers
add-packet-header IP TCP Flags
set ns [new Simulator]
set tr [open $cfg(trace) w]
$ns trace-all $tr
set s [$ns node]
set d [$ns node]
$ns duplex-link $s $d 10Mb 10ms DropTail
$ns queue-limit $s $d 1000
set f [open $cfg(losses) r]
set em [new ErrorModel/List]
$em droplist [read $f]
close $f
$ns lossmodel $em $s $d
if {$cfg(agent) eq "fulltcp"} {
    set tcp [new Agent/TCP/FullTcp/Newreno]
    set sink [new Agent/TCP/FullTcp/Newreno]
    $sink listen
} else {
    set tcp [new Agent/TCP/Newreno]
    set sink [new [expr {$cfg(sink) eq "delack" ? "Agent/TCPSink/DelAck" : "Agent/TCPSink"}]]
}
$ns attach-agent $s $tcp
$ns attach-agent $d $sink
$ns connect $tcp $sink
set ftp [$tcp attach-app FTP]
$ns at 0.0 "$ftp start"
proc finish {} {
    global tcp tr
    close $tr
    puts "{\"timeouts\": [$tcp set nrexmit_], \"cwnd\": [$tcp set cwnd_]}"
    exit 0
}
$ns at $cfg(duration) finish
$ns run
