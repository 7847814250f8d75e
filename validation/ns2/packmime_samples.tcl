# N successive draws of one PackMime-HTTP random variable of ns-2.35, one per line on stdout: the ns-2
# side of validation/compare_packmime_samplers.py (aqmlab's side: the packmime_samples example).
#
#   ns packmime_samples.tcl KIND RATE N SEED
#
# KIND: arrivals (PackMimeHTTPFlowArrive, s), requests / responses (PackMimeHTTPFileSize types 0 / 1,
# bytes), rtt_client / rtt_server (PackMimeHTTPXmit types 0 / 1: DelayBox delays, ms). Each variable
# draws from an RNG at substream SEED (common.tcl), as the other scripts' components do.

source [file join [file dirname [info script]] common.tcl]

if {[llength $argv] != 4} {
    puts stderr "usage: ns packmime_samples.tcl arrivals|requests|responses|rtt_client|rtt_server RATE N SEED"
    exit 2
}
lassign $argv kind rate n seed
switch -- $kind {
    arrivals { set rv [new RandomVariable/PackMimeHTTPFlowArrive $rate] }
    requests { set rv [new RandomVariable/PackMimeHTTPFileSize $rate 0] }
    responses { set rv [new RandomVariable/PackMimeHTTPFileSize $rate 1] }
    rtt_client { set rv [new RandomVariable/PackMimeHTTPXmit $rate 0] }
    rtt_server { set rv [new RandomVariable/PackMimeHTTPXmit $rate 1] }
    default { puts stderr "unknown KIND $kind"; exit 2 }
}
$rv use-rng [new_stream]
for {set i 0} {$i < $n} {incr i} { puts [$rv value] }
exit 0
