package duckdbbridge

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
)

// interpretingDevice is the host device, counting every pipeline it runs
// the way the CUDA device counts those that run on its precompiled
// interpreter: what EXPLAIN ANALYZE must put on the pipeline's own line.
type interpretingDevice struct {
	*host.Device
	programs atomic.Int64
}

func (d *interpretingDevice) Run(ctx context.Context, p *gpu.Pipeline, in []gpu.Column) ([]gpu.Column, error) {
	d.programs.Add(1)
	return d.Device.Run(ctx, p, in)
}

func (d *interpretingDevice) Stats() gpu.Stats {
	s := d.Device.Stats()
	s.ProgramRuns = d.programs.Load()
	return s
}

// uploadTakes is how long the test device takes to upload a column: a
// load's time the Scan's line must show.
const uploadTakes = 30 * time.Millisecond

func (d *interpretingDevice) Upload(ctx context.Context, arr arrow.Array) (gpu.Column, error) {
	time.Sleep(uploadTakes)
	return d.Device.Upload(ctx, arr)
}

// Precompile makes it a gpu.Precompiler, as the CUDA device: a run then
// loads its scans before it runs anything (physical's loadScans).
func (d *interpretingDevice) Precompile(context.Context, []gpu.KernelCall) {}

func (d *interpretingDevice) ResetStats() {
	d.Device.ResetStats()
	d.programs.Store(0)
}

func TestExplainAnalyze(t *testing.T) {
	ctx := context.Background()
	dev := &interpretingDevice{Device: host.New()}
	e := NewEngine(openTestDB(t, false), "explain-analyze", dev, "")
	const q = `SELECT l_returnflag, sum(l_quantity) AS q, count(*) AS n FROM lineitem
		WHERE l_shipdate <= DATE '1998-09-01' GROUP BY l_returnflag ORDER BY l_returnflag`
	text, err := e.ExplainAnalyze(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	want, err := e.RunOnDuckDB(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	defer want.Release()
	lines := strings.Split(strings.TrimSpace(text), "\n")
	var plan, totals []string
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "[") {
			plan = append(plan, l)
		} else {
			totals = append(totals, l)
		}
	}
	if len(plan) < 3 {
		t.Fatalf("want a plan of several operators:\n%s", text)
	}
	node := regexp.MustCompile(`   -- ([0-9.]+) ms, ([0-9]+) rows`)
	interpreted, scans := 0, 0
	for i, l := range plan {
		if strings.Contains(l, "[host] Slice") || strings.Contains(l, "[host] Retype") {
			continue
		}
		m := node.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("plan line %d has no run figures: %q\n%s", i, l, text)
		}
		if i == 0 && m[2] != "3" {
			t.Errorf("the root's rows: %s, want 3 (the answer's)\n%s", m[2], text)
		}
		if strings.Contains(l, "Scan lineitem") {
			// The first run loads the columns: its Scan's time is the load.
			scans++
			if ms, _ := strconv.ParseFloat(m[1], 64); ms < float64(uploadTakes.Milliseconds()) {
				t.Errorf("the scan's line shows less than its load (each column's upload takes %s): %q", uploadTakes, l)
			}
		}
		if strings.Contains(l, "on the precompiled interpreter") {
			interpreted++
			if !strings.Contains(l, "Pipeline") {
				t.Errorf("a pipeline's interpreter run is put on another operator: %q", l)
			}
		}
	}
	if scans != 1 {
		t.Errorf("%d lines scan lineitem, want 1\n%s", scans, text)
	}
	if got := dev.programs.Load(); interpreted == 0 || int64(interpreted) > got {
		t.Errorf("%d plan lines name the interpreter; the device ran %d pipelines\n%s", interpreted, got, text)
	}
	if want.Record.NumRows() != 3 || !strings.HasPrefix(totals[0], "run: 3 rows; plan ") {
		t.Errorf("totals: %q (DuckDB: %d rows)", totals[0], want.Record.NumRows())
	}
	for _, w := range []string{"compiler: 0 kernels compiled", "precompiled path: ", "device: "} {
		if !strings.Contains(text, "\n"+w) {
			t.Errorf("totals lack %q:\n%s", w, text)
		}
	}
}

// A query the device cannot run says that it ran on DuckDB and why.
func TestExplainAnalyzeFallback(t *testing.T) {
	e := NewEngine(openTestDB(t, false), "explain-analyze-fallback", host.New(), "")
	text, err := e.ExplainAnalyze(context.Background(), "SELECT 42 AS x")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(text, "[FALLBACK] the whole query ran on DuckDB: ") || !strings.Contains(text, "run: 1 rows; DuckDB ") {
		t.Errorf("got:\n%s", text)
	}
}
