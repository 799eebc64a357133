package cuda

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The table growth model, on the counters two TPC-H SF10 groupings report
// when their first 65,536-slot table fills (70% = 45,875 slots).
func TestGroupEstimate(t *testing.T) {
	const n = 59_986_052
	// Q18: lineitem by l_orderkey, runs of ~4 equal keys that never come
	// back; 15M groups.
	q18 := &tableFill{slots: 45_875, scanned: 183_500, added: 183_500, runs: 51_600, innerRuns: 45_900, innerHits: 0}
	if est, _ := q18.groupEstimate(n); est < 14e6 || est > 16e6 {
		t.Errorf("Q18-like estimate %.0f, want about 15M", est)
	}
	if c := grownCapacity(1<<16, n, q18); c != 1<<25 {
		t.Errorf("Q18-like capacity %d, want %d", c, 1<<25)
	}

	// Q15: l_suppkey at random over 100,000 groups, 3.7% of rows pass.
	// Simulate the additions until 45,875 distinct keys.
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[int]bool{}
	var added uint64
	for len(seen) < 45_875 {
		seen[rng.IntN(100_000)] = true
		added++
	}
	hits := added - uint64(len(seen))
	q15 := &tableFill{slots: uint64(len(seen)), scanned: added * 27, added: added, runs: added, innerRuns: added, innerHits: hits}
	est, _ := q15.groupEstimate(n)
	if math.Abs(est-100_000) > 5_000 {
		t.Errorf("Q15-like estimate %.0f, want about 100,000", est)
	}
	if c := grownCapacity(1<<16, n, q15); c != 1<<18 {
		t.Errorf("Q15-like capacity %d, want %d (a table that stays in L2)", c, 1<<18)
	}

	// Growth is at least 2x and never past the 2n+64 slots that suffice.
	allNew := &tableFill{slots: 45_875, scanned: 45_875, added: 45_875, runs: 45_875, innerRuns: 40_000}
	if c := grownCapacity(1<<16, 62_000, allNew); c != nextPow2(2*62_000+64) {
		t.Errorf("capped capacity %d, want %d", c, nextPow2(2*62_000+64))
	}
	few := &tableFill{slots: 45_875, scanned: 1e6, added: 1e6, runs: 1e6, innerRuns: 1e6, innerHits: 954_125}
	if c := grownCapacity(1<<16, n, few); c < 1<<17 {
		t.Errorf("capacity %d after a full table of 65,536: must at least double", c)
	}
	// No counters (a kernel that reported nothing): 8x.
	if c := grownCapacity(1<<16, n, &tableFill{}); c != 1<<19 {
		t.Errorf("capacity %d without counters, want %d", c, 1<<19)
	}
}
