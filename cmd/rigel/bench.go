package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/rigel-db/rigel/conformance/tpch"
	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/cuda"
	"github.com/rigel-db/rigel/internal/arrowfmt"
	"github.com/rigel-db/rigel/internal/offheap"
	"github.com/rigel-db/rigel/physical"
)

// cmdBench times queries on rigel and on DuckDB in the same process and
// machine, checks that the answers agree, and prints a markdown table: the
// TPC-H queries (tpch), or every .sql file of a folder (sql: TPC-DS's 99
// as DuckDB's tpcds extension writes them, or any other set).
func cmdBench(ctx context.Context, args []string) error {
	if len(args) > 0 && args[0] == "serve" {
		return cmdBenchServe(ctx, args[1:])
	}
	if len(args) > 0 && args[0] == "load" {
		return cmdBenchLoad(ctx, args[1:])
	}
	if len(args) == 0 || (args[0] != "tpch" && args[0] != "sql") {
		return usageError{"bench needs a suite: rigel bench tpch --db FILE, rigel bench sql --db FILE --dir FOLDER, rigel bench load --db FILE, or rigel bench serve --db FILE"}
	}
	suite := args[0]
	fs := flag.NewFlagSet("bench "+suite, flag.ContinueOnError)
	var ef engineFlags
	ef.register(fs)
	queries := fs.String("queries", "1,6", "comma-separated TPC-H query numbers, or all (tpch)")
	dir := fs.String("dir", "", "the folder whose .sql files are the queries, one a file, in name order (sql)")
	runs := fs.Int("runs", 5, "hot runs per query (the median is reported)")
	out := fs.String("out", "", "also write the table to this markdown file")
	firstRun := fs.Bool("first-run", false, "time each query's first run: a new kernel cache folder, the query's columns loaded first, DuckDB beside it")
	if _, err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if *runs < 1 {
		return usageError{"--runs must be at least 1"}
	}
	var qs []namedQuery
	var err error
	if suite == "sql" {
		qs, err = queryFiles(*dir)
	} else {
		qs, err = tpchQueries(*queries)
	}
	if err != nil {
		return err
	}
	if *firstRun {
		if suite == "tpch" {
			// The same queries with other constants: what a dashboard with
			// a new filter value meets. Kernels keyed by shape alone
			// compile nothing there; those rows are not in the means.
			variants, err := otherConstants(qs)
			if err != nil {
				return err
			}
			qs = append(qs, variants...)
		}
		return benchFirstRun(ctx, &ef, "rigel bench "+suite+" --first-run", qs, *runs, *out)
	}
	eng, closeAll, err := openEngine(&ef)
	if err != nil {
		return err
	}
	defer closeAll()

	var b strings.Builder
	header(ctx, &b, "rigel bench "+suite, eng, ef.db)
	bandwidth := 0.0
	if d, ok := eng.Device().(*cuda.Device); ok {
		if bw, err := d.MeasureCopyBandwidth(); err == nil {
			bandwidth = bw
			fmt.Fprintf(&b, "- measured device copy bandwidth: %.0f GB/s (read + write), the floor's divisor\n", bw/1e9)
		}
		if up, err := d.MeasureUploadBandwidth(); err == nil {
			fmt.Fprintf(&b, "- measured pinned upload bandwidth: %.1f GB/s (as rigel doctor), what the link GB/s column compares with\n", up/1e9)
		}
	}
	fmt.Fprintf(&b, "- %d hot runs per query, median, once the device's background compiles are done; cold = first run with the column cache empty (its columns from the column store where it kept them, else from DuckDB: see the line under the table)\n\n", *runs)
	b.WriteString("- rigel hot reuses the statement's plan (a read-only database caches plans); plan ms is the first run's planning: DuckDB's optimizer, its plan to Substrait, translation\n")
	b.WriteString("- exec: rigel's execution of the plan, download of the result included; kernel: GPU time from CUDA events, in one more hot run (timing kernels costs host time on every launch, so the timed runs do not); launches and host waits (their ms): kernels launched, and the times the host stopped to wait for the device (a row count, a status word, the result); device peak: the most device memory the hot run held at once, cached table columns included (against --device-memory, where given); time by operator: the share of exec\n\n")
	b.WriteString("| query | ran on | DuckDB ms | rigel cold ms | plan ms | rigel hot ms | speedup | exec ms | kernel ms | launches | host waits (ms) | GB read | MB from host (hot) | link GB/s (hot) | device peak GB (hot) | floor ms | exec / floor | time by operator | result |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	fmt.Fprint(os.Stderr, b.String())
	flushed := b.Len()
	failed := 0
	var peak int64 // the loads' host buffers, the most at once
	peakOf := ""
	for _, q := range qs {
		fmt.Fprintf(os.Stderr, "rigel: bench %s\n", q.name)
		offheap.ResetPeak()
		row, err := benchQuery(ctx, eng, q.sql, *runs, bandwidth)
		if p := offheap.Peak(); p > peak {
			peak, peakOf = p, q.name
		}
		if err != nil {
			// One query's failure is reported in its row; the others
			// still run, so that a long benchmark is not lost to one.
			failed++
			row = errorRow(16, err) // the 19 columns: name, "error", blanks, the error
		}
		fmt.Fprintf(&b, "| %s %s\n", q.name, row)
		fmt.Fprint(os.Stderr, b.String()[flushed:])
		flushed = b.Len()
	}
	eng.Flush()
	st := eng.ColumnStoreStats()
	fmt.Fprintf(&b, "\n- column store (RIGEL_COLUMN_STORE): the cold runs read %d column file(s) (%.2f GB) and scanned DuckDB for %d; %d written (%.2f GB), %d not written, %d unreadable",
		st.Hits, float64(st.BytesRead)/1e9, st.Misses, st.Written, float64(st.BytesWritten)/1e9, st.Skipped, st.Unreadable)
	if st.LastError != "" {
		fmt.Fprintf(&b, " (last error: %s)", oneLine(st.LastError))
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "- host memory of the loads (rigel's buffers of columns read from DuckDB, not DuckDB's own nor the column store's mapped files): at most %.2f GB at once (%s)\n", float64(peak)/1e9, peakOf)
	fmt.Fprint(os.Stderr, b.String()[flushed:])
	fmt.Print(b.String())
	if *out != "" {
		if err := os.WriteFile(*out, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d queries failed (see their rows)", failed, len(qs))
	}
	return nil
}

// namedQuery is a row of a bench table; inMeans: it counts in the
// geometric means.
type namedQuery struct {
	name, sql string
	inMeans   bool
}

// tpchQueries are the TPC-H queries of a --queries list, named Q1...
func tpchQueries(list string) ([]namedQuery, error) {
	nums, err := queryNumbers(list)
	if err != nil {
		return nil, err
	}
	qs := make([]namedQuery, len(nums))
	for i, n := range nums {
		q, _ := tpch.Query(n)
		qs[i] = namedQuery{fmt.Sprintf("Q%d", n), q, true}
	}
	return qs, nil
}

// queryFiles are the .sql files of dir in name order, each a query named
// by its file name without the extension.
func queryFiles(dir string) ([]namedQuery, error) {
	if dir == "" {
		return nil, usageError{"bench sql needs --dir FOLDER (its .sql files are the queries)"}
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*.sql"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, usageError{fmt.Sprintf("bench sql: no .sql file in %s", dir)}
	}
	sort.Strings(paths)
	qs := make([]namedQuery, len(paths))
	for i, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		q := strings.TrimSpace(string(b))
		if q == "" {
			return nil, fmt.Errorf("bench sql: %s is empty", p)
		}
		qs[i] = namedQuery{strings.TrimSuffix(filepath.Base(p), ".sql"), q, true}
	}
	return qs, nil
}

func header(ctx context.Context, w io.Writer, title string, eng *duckdbbridge.Engine, db string) {
	dev := "none (DuckDB only)"
	if d := eng.Device(); d != nil {
		info := d.Info()
		dev = info.Name
		if info.Model != "" {
			dev += ": " + info.Model
		}
	}
	fmt.Fprintf(w, "# %s\n\n- date: %s\n- database: %s\n- device: %s\n- host CPUs: %d; DuckDB threads: %s (DuckDB runs in the same process, on its defaults)\n",
		title, time.Now().UTC().Format("2006-01-02 15:04 UTC"), db, dev, runtime.NumCPU(), eng.DuckDBSetting(ctx, "threads"))
}

func median(xs []int64) int64 {
	s := append([]int64(nil), xs...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// errorRow is a table row for a query that failed: "error" where it ran,
// blank cells, and the error, on one line, in the last.
func errorRow(blanks int, err error) string {
	return "| error |" + strings.Repeat(" |", blanks) + " " + strings.ReplaceAll(oneLine(err.Error()), "|", "/") + " |"
}

// waitCompiles waits for the device's background compiles (the full
// kernels that replace a first run's quick ones), so that hot runs time
// the kernels every later run uses.
func waitCompiles(ctx context.Context, eng *duckdbbridge.Engine) error {
	if w, ok := eng.Device().(gpu.CompileWaiter); ok {
		return w.WaitCompiles(ctx)
	}
	return nil
}

func ms(ns int64) string { return fmt.Sprintf("%.2f", float64(ns)/1e6) }

// timeDuckDB runs q on DuckDB once as a warm-up, whose answer it returns
// (the caller releases it), then runs more times, timed.
func timeDuckDB(ctx context.Context, eng *duckdbbridge.Engine, q string, runs int) (*duckdbbridge.Result, []int64, error) {
	want, err := eng.RunOnDuckDB(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	var times []int64
	for i := 0; i < runs; i++ {
		start := time.Now()
		r, err := eng.RunOnDuckDB(ctx, q)
		if err != nil {
			want.Release()
			return nil, nil, err
		}
		times = append(times, time.Since(start).Nanoseconds())
		r.Release()
	}
	return want, times, nil
}

func benchQuery(ctx context.Context, eng *duckdbbridge.Engine, q string, runs int, bandwidth float64) (string, error) {
	want, duck, err := timeDuckDB(ctx, eng, q, runs)
	if err != nil {
		return "", err
	}
	defer want.Release()

	eng.DropCache()
	start := time.Now()
	res, err := eng.Query(ctx, q)
	if err != nil {
		return "", err
	}
	cold := time.Since(start).Nanoseconds()
	planNanos := res.PlanNanos
	res.Release()
	eng.Flush() // the column store's writes, out of the hot runs' way
	if err := waitCompiles(ctx, eng); err != nil {
		return "", err
	}
	var hot, exec, kernel []int64
	var last *duckdbbridge.Result
	for i := 0; i < runs; i++ {
		start := time.Now()
		r, err := eng.Query(ctx, q)
		if err != nil {
			return "", err
		}
		hot = append(hot, time.Since(start).Nanoseconds())
		exec = append(exec, r.ExecNanos)
		if last != nil {
			last.Release()
		}
		last = r
	}
	defer last.Release()
	if kt, ok := eng.Device().(gpu.KernelTimer); ok && last.Stats != nil {
		// Timing kernels costs host time on every launch, so the runs above
		// did not; one more run times them.
		kt.TimeKernels(true)
		r, err := eng.Query(ctx, q)
		kt.TimeKernels(false)
		if err != nil {
			return "", err
		}
		if r.Stats != nil {
			kernel = append(kernel, r.Stats.Device.DeviceNanos)
		}
		r.Release()
	} else if last.Stats != nil && last.Stats.Device.DeviceNanos > 0 {
		kernel = append(kernel, last.Stats.Device.DeviceNanos)
	}
	verdict := answerVerdict(ctx, eng, q, last, want)
	where := string(last.Where)
	if last.Reason != "" {
		where += " (" + oneLine(last.Reason) + ")"
	}
	speedup := float64(median(duck)) / float64(median(hot))
	bytes, fromHost, link, peak, floor, ratio, kms := "-", "-", "-", "-", "-", "-", "-"
	launches, waits := "-", "-"
	if len(kernel) > 0 {
		kms = ms(median(kernel))
	}
	if last.Stats != nil {
		dev := last.Stats.Device
		launches = fmt.Sprint(dev.KernelLaunches)
		waits = fmt.Sprintf("%d (%s)", dev.HostWaits, ms(dev.HostWaitNanos))
		read := last.Stats.Scan.BytesScanned
		bytes = fmt.Sprintf("%.2f", float64(read)/1e9)
		// Table bytes the last hot run read from DuckDB or streamed from
		// host memory (a scan a segment at a time under a device budget):
		// 0 when the device column cache served every scan.
		host := last.Stats.Scan.BytesFromHost + last.Stats.Scan.BytesStreamed
		fromHost = fmt.Sprintf("%.1f", float64(host)/1e6)
		if host > 0 && last.Stats.ExecNanos > 0 {
			// Over the whole execution, kernels included: the link's rate
			// while it copies is at least this.
			link = fmt.Sprintf("%.1f", float64(host)/float64(last.Stats.ExecNanos))
		}
		if dev.PeakBytesLive > 0 {
			peak = fmt.Sprintf("%.2f", float64(dev.PeakBytesLive)/1e9)
		}
		if bandwidth > 0 {
			// The copy bandwidth counts bytes read plus written; a query
			// only reads, so its floor is read bytes over that rate.
			fl := float64(read) / bandwidth * 1e9
			floor = ms(int64(fl))
			ratio = fmt.Sprintf("%.1fx", float64(median(exec))/fl)
		}
	}
	shares := "-"
	if last.Stats != nil {
		shares = opShares(last.Stats)
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s | %.1fx | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |",
		where, ms(median(duck)), ms(cold), ms(planNanos), ms(median(hot)), speedup, ms(median(exec)), kms, launches, waits, bytes, fromHost, link, peak, floor, ratio, shares, verdict), nil
}

// opShares renders the share of execution time per operator kind.
func opShares(st *physical.RunStats) string {
	var parts []string
	for _, k := range physical.OpKinds {
		if ns := st.OpNanos[k]; ns > 0 {
			parts = append(parts, fmt.Sprintf("%s %.0f%%", k, 100*float64(ns)/float64(st.ExecNanos)))
		}
	}
	return strings.Join(parts, ", ")
}

// answerVerdict is the bench's column on an answer: "equal" to DuckDB's,
// or "DIFFERENT" and the first difference. Rows that tie in the query's
// ORDER BY may come in another order than DuckDB's, and under a LIMIT other
// tied rows may be kept (TPC-DS q18, q65 and q71 at SF10): where the plan's
// result order is known (physical.ResultOrder), such answers are compared
// up to those ties (arrowfmt.CompareOrdered) and the verdict says so.
func answerVerdict(ctx context.Context, eng *duckdbbridge.Engine, q string, got, want *duckdbbridge.Result) string {
	err := arrowfmt.Compare(got.Record, want.Record, true)
	if err == nil {
		return "equal"
	}
	if got.Where == duckdbbridge.OnFallback {
		return "DIFFERENT: " + oneLine(err.Error())
	}
	p, perr := eng.Prepare(ctx, q)
	if perr != nil || p.Root == nil {
		return "DIFFERENT: " + oneLine(err.Error())
	}
	keys, limited, ok := physical.ResultOrder(p.Root)
	if !ok || len(keys) == 0 {
		return "DIFFERENT: " + oneLine(err.Error())
	}
	cols := make([]int, len(keys))
	for i, k := range keys {
		cols[i] = k.Col
	}
	ties, err := arrowfmt.CompareOrdered(got.Record, want.Record, cols, limited)
	if err != nil {
		return "DIFFERENT: " + oneLine(err.Error())
	}
	return "equal (" + ties + ")"
}
