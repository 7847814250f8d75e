# One ns-2 one-way NewReno flow (Agent/TCP/Newreno, window 30, ECN negotiated) over 10 Mb/s, 10 ms,
# losing the data packets listed in a file (ErrorModel/List, positions counted from the SYN): the
# deterministic twin of validation/compare_newreno_trace.py's aqmlab scenario. Writes every cwnd_
# change to `trace` and prints the sender's counters as one JSON line.
#
#   ns newreno_trace.tcl sink=delack|plain losses=FILE trace=FILE [duration=60]
source [file join [file dirname [info script]] common.tcl]
array set cfg {sink delack losses "" trace "" duration 60}
positional_args

Agent/TCP set window_ 30
Agent/TCP set ecn_ 1
Agent/TCP set packetSize_ 1460
remove-all-packet-headers
add-packet-header IP TCP Flags
set ns [new Simulator]
set s [$ns node]
set d [$ns node]
$ns duplex-link $s $d 10Mb 10ms DropTail
$ns queue-limit $s $d 1000
set f [open $cfg(losses) r]
set em [new ErrorModel/List]
$em droplist [read $f]
close $f
$ns lossmodel $em $s $d
set tcp [new Agent/TCP/Newreno]
set sink [new [expr {$cfg(sink) eq "delack" ? "Agent/TCPSink/DelAck" : "Agent/TCPSink"}]]
$ns attach-agent $s $tcp
$ns attach-agent $d $sink
$ns connect $tcp $sink
set tr [open $cfg(trace) w]
$tcp attach $tr
$tcp trace cwnd_
set ftp [$tcp attach-app FTP]
$ns at 0.0 "$ftp start"
proc finish {} {
    global tcp tr
    close $tr
    puts "{\"timeouts\": [$tcp set nrexmit_], \"retransmits\": [$tcp set nrexmitpack_], \"sent\": [$tcp set ndatapack_], \"cwnd\": [$tcp set cwnd_]}"
    exit 0
}
$ns at $cfg(duration) finish
$ns run
