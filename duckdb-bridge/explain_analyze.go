package duckdbbridge

import (
	"context"
	"fmt"
	"github.com/rigel-db/rigel/gpu"
	"strings"
	"time"

	"github.com/rigel-db/rigel/physical"
)

// ExplainAnalyze runs a query once and returns its plan with what each
// node did (physical.ExplainRun), then the run's totals: its time, what
// the compiler cost, and which pipelines ran on the precompiled
// interpreter while their own kernels compiled. The result's rows are
// dropped. A query that falls back says so and how long DuckDB took.
func (e *Engine) ExplainAnalyze(ctx context.Context, query string) (_ string, err error) {
	defer recoverBug(&err)
	start := time.Now()
	if err := e.CheckQuery(ctx, query); err != nil {
		return "", err
	}
	p, err := e.Prepare(ctx, query)
	if err != nil {
		return "", err
	}
	planNanos := time.Since(start).Nanoseconds()
	res, reason, err := e.tryDevice(physical.WithAnalysis(ctx), p, planNanos)
	if err != nil {
		return "", err
	}
	if res == nil {
		fb, err := e.fallback(ctx, query)
		if err != nil {
			return "", err
		}
		defer fb.Release()
		return fmt.Sprintf("[FALLBACK] the whole query ran on DuckDB: %s\nrun: %d rows; DuckDB %s\n",
			reason, fb.Record.NumRows(), millis(fb.ExecNanos)), nil
	}
	defer res.Release()
	return notesText(p.Notes) + physical.ExplainRun(p.Root, string(e.where()), res.Stats) + runTotals(res), nil
}

// runTotals is EXPLAIN ANALYZE's last lines: the run's time by phase, the
// compiler's part in it, and the device's counters.
func runTotals(res *Result) string {
	d := res.Stats.Device
	var b strings.Builder
	fmt.Fprintf(&b, "run: %d rows; plan %s, execution %s (download included)\n",
		res.Record.NumRows(), millis(res.PlanNanos), millis(res.ExecNanos))
	fmt.Fprintf(&b, "compiler: %d kernels compiled (%d of them ahead, in the background) in %s of NVRTC; the run waited %s for it\n",
		d.KernelsCompiled, d.KernelsAhead, millis(d.CompileNanos), millis(d.CompileWaitNanos))
	fmt.Fprintf(&b, "precompiled path: %d pipelines ran on the interpreter, %d fused joins ran as the composed join, while their kernels compiled\n",
		d.ProgramRuns, d.FusedDeferred)
	fmt.Fprintf(&b, "device: %d kernel launches, %d host waits (%s), %d bytes uploaded, %d downloaded\n",
		d.KernelLaunches, d.HostWaits, millis(d.HostWaitNanos), d.BytesUploaded, d.BytesDownloaded)
	fmt.Fprintf(&b, "device memory: at most %s held at once during the run (cached table columns included), %s after it\n",
		gpu.SizeText(d.PeakBytesLive), gpu.SizeText(d.BytesLive))
	return b.String()
}

func millis(nanos int64) string { return fmt.Sprintf("%.3f ms", float64(nanos)/1e6) }
