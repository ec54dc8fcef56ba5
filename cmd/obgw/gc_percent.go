package main

import (
	"os"
	"runtime/debug"
)

// gcPercent is obgw's garbage collection target (the percentage GOGC
// sets) when the environment sets no GOGC: the heap may grow to five times
// what is live before a collection, where Go's default is twice.
//
// A signed read allocates about 65 KB (the TLS record, the request's
// headers, the database rows, the page, the seal, the audit line) around a
// live heap of about 17 MB (the caches of certificates, consents and seen
// requests). With Go's default that is a collection every 40 ms at 5,700
// requests a second on two cores, each marking for 9 ms with a core's
// worth of a worker and write barriers on: the P-256 read of make bench
// ran at 5,250 requests a second with GOGC=100, 6,400 with 200, 6,750 with
// 400, 6,990 with 800 (one machine, alternating runs). 400 takes most of
// it for a heap of about 85 MB under that load instead of 35.
//
// The heap stays bounded: Caddy sets the memory limit (GOMEMLIMIT) to 90%
// of the cgroup's memory, or of the machine's, and the collector runs as
// often as it must to keep under it. GOGC in the environment, any value
// (off included), is the operator's and is left alone, as is a GOMEMLIMIT.
const gcPercent = 400

// setGCPercent applies gcPercent unless the environment sets GOGC.
func setGCPercent() {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	debug.SetGCPercent(gcPercent)
}
