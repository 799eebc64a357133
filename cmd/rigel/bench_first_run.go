package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/rigel-db/rigel/conformance/tpch"
	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/gpu"
)

// benchFirstRun times each query's first run, the way a user meets rigel:
// one process, a new (empty) kernel cache folder, and the query's columns
// already in device memory (loaded by Engine.LoadColumns, which runs none
// of the query's kernels), so that what is timed is planning, compiling
// and running. Queries run in the order given and share what earlier ones
// compiled, as queries of one session do. DuckDB's time for the same query
// is beside it; hot runs follow.
func benchFirstRun(ctx context.Context, ef *engineFlags, title string, queries []namedQuery, runs int, out string) error {
	// rigel's kernel cache starts empty, and so does NVRTC's own: NVRTC 13
	// keeps compiled programs in the CUDA driver's compute cache
	// (~/.nv/ComputeCache unless CUDA_CACHE_PATH names another folder),
	// across processes, and a machine that compiled the same sources
	// before answers in a tenth of the time. The driver reads the variable
	// when the device opens, below.
	for _, env := range []string{"RIGEL_KERNEL_CACHE", "CUDA_CACHE_PATH"} {
		dir, err := os.MkdirTemp("", "rigel-first-run-"+strings.ToLower(env)+"-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if err := os.Setenv(env, dir); err != nil {
			return err
		}
	}
	start := time.Now()
	eng, closeAll, err := openEngine(ef)
	if err != nil {
		return err
	}
	defer closeAll()
	startup := time.Since(start)
	var startStats gpu.Stats
	if d := eng.Device(); d != nil {
		startStats = d.Stats()
	}

	var b strings.Builder
	header(ctx, &b, title, eng, ef.db)
	b.WriteString("- kernel cache: a new, empty folder; NVRTC's and the driver's compute cache (CUDA_CACHE_PATH) too\n")
	fmt.Fprintf(&b, "- start-up: %s ms (DuckDB file, CUDA context, the hand-written kernels: built into the binary for this GPU, or compiled; %d compiled in %s ms)\n",
		ms(startup.Nanoseconds()), startStats.KernelsCompiled, ms(startStats.CompileNanos))
	b.WriteString("- each query: its columns loaded first by another statement (Engine.LoadColumns), then its first run, timed whole: plan (DuckDB's optimizer, its plan to Substrait, translation), compile (NVRTC) and execution; queries run in this order in one process and reuse what earlier ones compiled\n")
	fmt.Fprintf(&b, "- DuckDB: one warm-up, median of %d; hot: median of %d, once the device's background compiles are done (a first run's quick kernels replaced by full ones)\n", runs, runs)
	b.WriteString("- compile ms: NVRTC's time summed over the kernels compiled during the run (quick: --Ofast-compile=mid), those in the background (compiled ahead, several at once) too; waited ms: the time the run stood waiting for the compiler; precompiled: the pipelines that ran on the interpreter's precompiled kernels and the fused joins that gave way to the composed join while their own kernels compiled\n\n")
	b.WriteString("| query | ran on | DuckDB ms | first run ms | first / DuckDB | plan ms | compile ms | kernels compiled (ahead) | waited ms | precompiled (joins) | exec ms | hot ms | hot speedup | result |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	fmt.Fprint(os.Stderr, b.String())
	flushed := b.Len()
	var ratios, speedups []float64
	failed := 0
	for _, q := range queries {
		fmt.Fprintf(os.Stderr, "rigel: bench %s (first run)\n", q.name)
		row, ratio, speedup, err := firstRunQuery(ctx, eng, q.sql, runs)
		switch {
		case err != nil:
			failed++
			row = errorRow(10, err)
		case q.inMeans:
			ratios, speedups = append(ratios, ratio), append(speedups, speedup)
		}
		fmt.Fprintf(&b, "| %s %s\n", q.name, row)
		fmt.Fprint(os.Stderr, b.String()[flushed:])
		flushed = b.Len()
	}
	if len(ratios) > 0 {
		worst := 0.0
		for _, r := range ratios {
			worst = max(worst, r)
		}
		fmt.Fprintf(&b, "\nFirst run over DuckDB, geometric mean of %d queries: %.2fx (worst %.2fx); hot speedup, geometric mean: %.1fx\n",
			len(ratios), geomean(ratios), worst, geomean(speedups))
	}
	fmt.Print(b.String())
	if out != "" {
		if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d queries failed (see their rows)", failed, len(queries))
	}
	return nil
}

// firstRunQuery runs q on DuckDB, loads its columns, runs it once on rigel
// and then hot. ratio is the first run's time over DuckDB's, speedup
// DuckDB's over the hot run's.
func firstRunQuery(ctx context.Context, eng *duckdbbridge.Engine, q string, runs int) (row string, ratio, speedup float64, err error) {
	want, duck, err := timeDuckDB(ctx, eng, q, runs)
	if err != nil {
		return "", 0, 0, err
	}
	defer want.Release()
	if err := eng.LoadColumns(ctx, q); err != nil {
		return "", 0, 0, fmt.Errorf("loading its columns: %w", err)
	}
	t0 := time.Now()
	first, err := eng.Query(ctx, q)
	if err != nil {
		return "", 0, 0, err
	}
	firstNanos := time.Since(t0).Nanoseconds()
	defer first.Release()
	verdict := answerVerdict(ctx, eng, q, first, want)
	if err := waitCompiles(ctx, eng); err != nil {
		return "", 0, 0, err
	}
	compile, kernels, waited, programs, exec := "-", "-", "-", "-", ms(first.ExecNanos)
	if first.Stats != nil {
		dev := first.Stats.Device
		compile = ms(dev.CompileNanos)
		kernels = fmt.Sprintf("%d (%d)", dev.KernelsCompiled, dev.KernelsAhead)
		waited = ms(dev.CompileWaitNanos)
		programs = fmt.Sprintf("%d (%d)", dev.ProgramRuns, dev.FusedDeferred)
	}
	var hot []int64
	for i := 0; i < runs; i++ {
		t0 := time.Now()
		r, err := eng.Query(ctx, q)
		if err != nil {
			return "", 0, 0, err
		}
		hot = append(hot, time.Since(t0).Nanoseconds())
		if v := answerVerdict(ctx, eng, q, r, want); strings.HasPrefix(v, "DIFFERENT") && !strings.HasPrefix(verdict, "DIFFERENT") {
			verdict = v + " (when hot)"
		}
		r.Release()
	}
	where := string(first.Where)
	if first.Reason != "" {
		where += " (" + oneLine(first.Reason) + ")"
	}
	d, h := median(duck), median(hot)
	ratio, speedup = float64(firstNanos)/float64(d), float64(d)/float64(h)
	row = fmt.Sprintf("| %s | %s | %s | %.2fx | %s | %s | %s | %s | %s | %s | %s | %.1fx | %s |",
		where, ms(d), ms(firstNanos), ratio, ms(first.PlanNanos), compile, kernels, waited, programs, exec, ms(h), speedup, verdict)
	return row, ratio, speedup, nil
}

func geomean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(xs)))
}

// otherConstants are TPC-H Q1 and Q6 (those of qs) with other constants.
func otherConstants(qs []namedQuery) ([]namedQuery, error) {
	edits := map[int]struct {
		name string
		from []string
		to   []string
	}{
		1: {"Q1, another date", []string{"'1998-09-02'"}, []string{"'1998-08-15'"}},
		// The later date first: each edit replaces the first occurrence,
		// and the earlier date's new value is the later one's old value.
		6: {"Q6, other bounds", []string{"'1995-01-01'", "'1994-01-01'", "0.05 AND 0.07", "< 24"},
			[]string{"'1996-01-01'", "'1995-01-01'", "0.04 AND 0.06", "< 25"}},
	}
	var out []namedQuery
	for _, nq := range qs {
		var n int
		if _, err := fmt.Sscanf(nq.name, "Q%d", &n); err != nil {
			continue
		}
		e, ok := edits[n]
		if !ok {
			continue
		}
		q, _ := tpch.Query(n)
		for i := range e.from {
			if !strings.Contains(q, e.from[i]) {
				return nil, fmt.Errorf("TPC-H Q%d no longer holds %s: update otherConstants (cmd/rigel/bench_first_run.go)", n, e.from[i])
			}
			q = strings.Replace(q, e.from[i], e.to[i], 1)
		}
		out = append(out, namedQuery{e.name, q, false})
	}
	return out, nil
}
