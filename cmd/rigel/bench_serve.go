package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rigel-db/rigel/conformance/tpch"
	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/serve"
)

// cmdBenchServe measures the Flight SQL server on loopback: a server in
// this process over the database, then clients that run TPC-H queries
// through it (1 client, then N at once), every answer checked against
// DuckDB. It prints throughput and latency per client count. With
// --hostile, every client also sends a hostile request after every third
// query (serve.HostileProbes), each of which must be refused with its
// code, and the table says whether the server's memory came back.
func cmdBenchServe(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench serve", flag.ContinueOnError)
	var ef engineFlags
	ef.register(fs)
	queries := fs.String("queries", "all", "comma-separated TPC-H query numbers, or all")
	clients := fs.String("clients", "1,16", "comma-separated client counts, one run each")
	perClient := fs.Int("per-client", 200, "queries each client runs")
	duration := fs.Duration("duration", 0, "run each client count this long instead of --per-client queries")
	hostile := fs.Bool("hostile", false, "mix hostile requests (forged tickets, writes, server files, plan bombs, ...) into the load")
	out := fs.String("out", "", "also write the table to this markdown file")
	memProfile := fs.String("memprofile", "", "write a Go heap profile of what the server holds after the last run to this file")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if *duration < 0 || *perClient <= 0 {
		return usageError{"--duration must not be negative and --per-client must be positive"}
	}
	nums, err := queryNumbers(*queries)
	if err != nil {
		return err
	}
	var counts []int
	for _, s := range strings.Split(*clients, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return usageError{fmt.Sprintf("--clients: %q is not a client count", s)}
		}
		counts = append(counts, n)
	}
	eng, closeAll, err := openEngine(&ef)
	if err != nil {
		return err
	}
	defer closeAll()
	srv, err := serve.New(eng, serve.Options{})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go srv.Serve(ln)
	defer srv.Shutdown(10 * time.Second)

	var b strings.Builder
	header(ctx, &b, "rigel bench serve", eng, ef.db)
	var load []serve.LoadQuery
	onDevice := 0
	for _, n := range nums {
		q, _ := tpch.Query(n)
		want, err := eng.RunOnDuckDB(ctx, q)
		if err != nil {
			return fmt.Errorf("Q%d on DuckDB: %w", n, err)
		}
		defer want.Release()
		p, err := eng.Prepare(ctx, q)
		if err != nil {
			return fmt.Errorf("Q%d: %w", n, err)
		}
		if p.Reason == "" {
			onDevice++
		}
		load = append(load, serve.LoadQuery{Name: fmt.Sprintf("Q%d", n), SQL: q, Want: want.Record})
	}
	fmt.Fprintf(&b, "- rigel serve on loopback (Flight SQL over gRPC, no TLS), Go flightsql clients in the same process, each with its own connection\n")
	fmt.Fprintf(&b, "- queries: TPC-H %s, in turn; %d of %d run on the device, the others fall back to DuckDB\n", *queries, onDevice, len(nums))
	fmt.Fprintf(&b, "- latency: one query from Execute to its last batch; every answer compared with DuckDB's\n")
	var probes []serve.Probe
	if *hostile {
		q6, _ := tpch.Query(6)
		plan, err := duckdbbridge.PlanBytes(ctx, eng.DB(), q6)
		if err != nil {
			return err
		}
		probes = serve.HostileProbes(plan)
		names := make([]string, len(probes))
		for i, p := range probes {
			names[i] = p.Name
		}
		fmt.Fprintf(&b, "- hostile: each client sends one of %d hostile requests after every 3 queries, in turn; each must be refused with its code: %s\n", len(probes), strings.Join(names, "; "))
		fmt.Fprintf(&b, "- memory: the server's live Go heap and goroutines after a collection, before and after each run\n")
	}
	if *duration > 0 {
		fmt.Fprintf(&b, "- each client count runs for %s\n", *duration)
	}
	emptyCells := "" // the hostile columns of the in-process row
	if *hostile {
		emptyCells = " | | | |"
	}
	b.WriteString("\n| clients | queries | errors | wrong | queries/s | p50 ms | p99 ms | max ms |")
	if *hostile {
		b.WriteString(" hostile | not refused | heap MB before, after | goroutines before, after |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	} else {
		b.WriteString("\n|---|---|---|---|---|---|---|---|\n")
	}
	fmt.Fprint(os.Stderr, b.String())
	flushed := b.Len()
	addr := ln.Addr().String()
	fmt.Fprintln(os.Stderr, "rigel: warm-up (loads the columns the queries scan)")
	if rep, err := serve.RunLoad(ctx, serve.LoadOptions{Addr: addr, Clients: 1, PerClient: max(len(load), len(probes)), Queries: load, Hostile: probes, HostileEvery: 1}); err != nil || rep.Errors+rep.Wrong+rep.Taken > 0 {
		return fmt.Errorf("warm-up: %v %v", rep, err)
	}
	// The same queries in this process, without Flight: what the server
	// adds is the difference.
	var direct []int64
	for k := range max(*perClient, len(load)) {
		q := load[k%len(load)]
		t0 := time.Now()
		res, err := eng.Query(ctx, q.SQL)
		if err != nil {
			return fmt.Errorf("%s in process: %w", q.Name, err)
		}
		direct = append(direct, time.Since(t0).Nanoseconds())
		res.Release()
	}
	sort.Slice(direct, func(i, j int) bool { return direct[i] < direct[j] })
	fmt.Fprintf(&b, "| in process, no Flight (Engine.Query, 1 caller) | %d | | | %.1f | %s | %s | %s |%s\n", len(direct),
		float64(len(direct))/(float64(sum(direct))/1e9), ms(direct[len(direct)/2]), ms(direct[min(len(direct)-1, len(direct)*99/100)]), ms(direct[len(direct)-1]),
		emptyCells)
	bad := 0
	for _, n := range counts {
		g0, h0 := serve.LiveMemory()
		rep, err := serve.RunLoad(ctx, serve.LoadOptions{Addr: addr, Clients: n, PerClient: *perClient, Duration: *duration, Queries: load, Hostile: probes})
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "| %d | %d | %d | %d | %.1f | %s | %s | %s |", n, rep.Queries, rep.Errors, rep.Wrong, rep.QPS(),
			ms(rep.P50.Nanoseconds()), ms(rep.P99.Nanoseconds()), ms(rep.Max.Nanoseconds()))
		if *hostile {
			g1, h1 := serve.LiveMemory()
			fmt.Fprintf(&b, " %d | %d | %d, %d | %d, %d |", rep.Probes, rep.Taken, h0>>20, h1>>20, g0, g1)
		}
		b.WriteString("\n")
		fmt.Fprint(os.Stderr, b.String()[flushed:])
		flushed = b.Len()
		if rep.FirstProblem != "" {
			fmt.Fprintf(os.Stderr, "rigel: %d clients: first problem: %s\n", n, rep.FirstProblem)
		}
		bad += rep.Errors + rep.Wrong + rep.Taken
	}
	if *memProfile != "" {
		serve.LiveMemory()
		f, err := os.Create(*memProfile)
		if err != nil {
			return err
		}
		err = pprof.WriteHeapProfile(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("heap profile: %w", err)
		}
	}
	fmt.Print(b.String())
	if *out != "" {
		if err := os.WriteFile(*out, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d queries failed or gave a wrong answer, or hostile requests were not refused", bad)
	}
	return nil
}

func sum(xs []int64) int64 {
	var s int64
	for _, x := range xs {
		s += x
	}
	return s
}

// queryNumbers parses a list of TPC-H query numbers ("all" = 1..22).
func queryNumbers(list string) ([]int, error) {
	if list == "all" {
		list = "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22"
	}
	var nums []int
	for _, s := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return nil, usageError{fmt.Sprintf("--queries: %q is not a query number", s)}
		}
		if _, err := tpch.Query(n); err != nil {
			return nil, usageError{err.Error()}
		}
		nums = append(nums, n)
	}
	return nums, nil
}
