package offheap

import "sync/atomic"

// The bytes mapped now and the most mapped at once since ResetPeak: what
// loading columns holds of the host's memory besides DuckDB's own (the
// issue 24 bound: 4 GB plus a segment), which `rigel bench` reports.
var live, peak atomic.Int64

func mapped(n int) {
	now := live.Add(int64(n))
	for {
		p := peak.Load()
		if now <= p || peak.CompareAndSwap(p, now) {
			return
		}
	}
}

func unmapped(n int) { live.Add(-int64(n)) }

// Peak is the most bytes mapped at once since the last ResetPeak.
func Peak() int64 { return peak.Load() }

// ResetPeak starts a new peak from what is mapped now.
func ResetPeak() { peak.Store(live.Load()) }
