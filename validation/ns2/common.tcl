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
