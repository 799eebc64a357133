package conformance

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/rigel-db/rigel/conformance/tpch"
	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
)

// TestCudaNoLeak runs the 22 TPC-H queries in turn, 1,000 queries in all
// (RIGEL_LEAK_QUERIES changes the count), on the GPU and checks that the
// device memory held after the last is what it was after the first round:
// the first round loads every table column into the cache, and from then on
// every query must give back all it allocated. Each query must run on the
// GPU (a fallback would allocate nothing and hide a leak).
func TestCudaNoLeak(t *testing.T) {
	dev := cudaDevice(t)
	checkNoLeak(t, openEngine(t, dev), dev, leakQueries(t), duckdbbridge.OnGPU)
}

// TestHostNoLeak is TestCudaNoLeak on the host device, whose BytesLive
// counts what its columns and running operations hold of its memory
// budget: two rounds of the 22 queries (the second finds every column in
// the cache), each query giving back all it took.
func TestHostNoLeak(t *testing.T) {
	dev := host.New()
	checkNoLeak(t, openEngine(t, dev), dev, 44, duckdbbridge.OnHost)
}

// TestHostNoLeakStreamed is TestHostNoLeak with a device budget that
// streams the large scans a segment at a time (physical's Chunked): the
// segments' uploads and restores, their runs and the merges give back all
// they took, query after query. The cache is left without a limit (the
// budget would set it to half), so that it holds the same columns after
// every round and the live bytes can be compared exactly.
func TestHostNoLeakStreamed(t *testing.T) {
	dev := hostDevice(t, 256<<20)
	checkNoLeak(t, streamingEngine(t, dev, 16<<20), dev, 66, duckdbbridge.OnHost)
}

// TestHostNoLeakPartitioned is TestHostNoLeakStreamed under an 8 MB
// budget, where the large joins run partitioned (physical's
// PartitionedJoin): their sides' pieces held in host memory, restored a
// partition at a time, give back all they took.
func TestHostNoLeakPartitioned(t *testing.T) {
	dev := hostDevice(t, 256<<20)
	checkNoLeak(t, streamingEngine(t, dev, 8<<20), dev, 44, duckdbbridge.OnHost)
}

// TestCudaNoLeakStreamed is TestCudaNoLeak under a 16 MB device budget
// (RIGEL_LEAK_QUERIES queries, default 1,000): restored segments come
// from the pool and go back to it, spilled copies stay with the cache.
func TestCudaNoLeakStreamed(t *testing.T) {
	dev := cudaDevice(t)
	checkNoLeak(t, streamingEngine(t, dev, 16<<20), dev, leakQueries(t), duckdbbridge.OnGPU)
}

// TestCudaNoLeakPartitioned is TestCudaNoLeakStreamed under an 8 MB
// budget, where the large joins run partitioned.
func TestCudaNoLeakPartitioned(t *testing.T) {
	dev := cudaDevice(t)
	checkNoLeak(t, streamingEngine(t, dev, 8<<20), dev, leakQueries(t), duckdbbridge.OnGPU)
}

// leakQueries is how many queries the GPU leak checks run:
// RIGEL_LEAK_QUERIES, default 1,000.
func leakQueries(t *testing.T) int {
	s := os.Getenv("RIGEL_LEAK_QUERIES")
	if s == "" {
		return 1000
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 44 {
		t.Fatalf("RIGEL_LEAK_QUERIES=%q: want a number >= 44", s)
	}
	return n
}

// streamingEngine is an engine on dev whose plans stream under a device
// budget of budget bytes, its column cache without a limit.
func streamingEngine(t *testing.T, dev gpu.Device, budget int64) *duckdbbridge.Engine {
	eng := openEngine(t, dev)
	if err := eng.SetDeviceMemory(budget); err != nil {
		t.Fatal(err)
	}
	if err := eng.Cache().SetLimit(0); err != nil {
		t.Fatal(err)
	}
	return eng
}

// checkNoLeak runs total TPC-H queries, the 22 in turn, each on the device
// (where), and fails when the device's live bytes after a query of a later
// round differ from those after the first round.
func checkNoLeak(t *testing.T, eng *duckdbbridge.Engine, dev gpu.Device, total int, want duckdbbridge.Where) {
	ctx := context.Background()
	queries := make([]string, 22)
	for n := range queries {
		var err error
		if queries[n], err = tpch.Query(n + 1); err != nil {
			t.Fatal(err)
		}
	}
	var afterFirstRound int64
	for i := range total {
		res, err := eng.Query(ctx, queries[i%22])
		if err != nil {
			t.Fatalf("query %d (Q%02d): %v", i+1, i%22+1, err)
		}
		where, reason := res.Where, res.Reason
		res.Release()
		if where != want {
			t.Fatalf("query %d (Q%02d) ran on %s: %s", i+1, i%22+1, where, reason)
		}
		live := dev.Stats().BytesLive
		switch {
		case i == 21:
			afterFirstRound = live
			t.Logf("after the first round (22 queries): %d bytes live on the device", live)
		case i > 21 && live != afterFirstRound:
			t.Fatalf("after query %d (Q%02d): %d bytes live on the device, %d after the first round: %+d bytes leaked",
				i+1, i%22+1, live, afterFirstRound, live-afterFirstRound)
		}
	}
	t.Logf("after %d queries: %d bytes live on the device, as after the first round", total, dev.Stats().BytesLive)
}

// TestHostStreamedCancelFreesAll cancels streamed queries part way
// through their segments, at different points, and checks that the device
// holds what it held before each: the segments' columns, their runs'
// intermediates and the partial results are all given back.
func TestHostStreamedCancelFreesAll(t *testing.T) {
	checkCancelFreesAll(t, 16<<20, []int{1, 3, 9})
}

// TestHostPartitionedCancelFreesAll is the same for partitioned joins
// (under an 8 MB budget Q3, Q5 and Q9 run in 32 or 64 partitions): the
// pieces held in host memory and those restored are given back too.
func TestHostPartitionedCancelFreesAll(t *testing.T) {
	checkCancelFreesAll(t, 8<<20, []int{3, 5, 9})
}

func checkCancelFreesAll(t *testing.T, budget int64, queries []int) {
	dev := hostDevice(t, 256<<20)
	eng := streamingEngine(t, dev, budget)
	for _, n := range queries {
		q, err := tpch.Query(n)
		if err != nil {
			t.Fatal(err)
		}
		res, err := eng.Query(context.Background(), q) // columns cached, segments spilled
		if err != nil {
			t.Fatal(err)
		}
		took := time.Duration(res.ExecNanos)
		res.Release()
		held := dev.Stats().BytesLive
		cancelled := 0
		for _, at := range []time.Duration{took / 10, took / 3, took * 2 / 3} {
			ctx, cancel := context.WithTimeout(context.Background(), at)
			res, err := eng.Query(ctx, q)
			cancel()
			if err == nil {
				res.Release()
			} else {
				cancelled++
			}
			if live := dev.Stats().BytesLive; live != held {
				t.Fatalf("Q%02d cancelled after %s (%v): %d bytes live, %d before", n, at, err, live, held)
			}
		}
		if cancelled == 0 {
			t.Errorf("Q%02d: no run was cancelled (a run takes %s)", n, took)
		}
	}
}
