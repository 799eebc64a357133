// Command rigel runs SQL on the GPU behind DuckDB: query, explain, doctor,
// bench, and tpch-gen to make test data.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
)

const usage = `rigel: a GPU-native SQL engine behind DuckDB

usage:
  rigel query   [--db FILE] [--device auto|cuda|host|duckdb] [--format table|csv|json] SQL
  rigel explain [--db FILE] [--device auto|cuda|host|duckdb] [--analyze] SQL
  rigel shell   [--db FILE] [--device auto|cuda|host|duckdb] [-f FILE]   interactive SQL shell
  rigel plan    --db FILE [--device cuda|host] [--format ...] PLAN.json|PLAN.pb
  rigel doctor
  rigel bench tpch --db FILE [--queries 1,6] [--runs N] [--first-run] [--device ...] [--out FILE.md]
  rigel bench sql --db FILE --dir FOLDER [--runs N] [--first-run] [--device ...] [--out FILE.md]
  rigel bench serve --db FILE [--clients 1,16] [--per-client 200 | --duration D] [--hostile] [--queries all] [--device ...]
  rigel tpch-gen --sf N --db FILE [--force]
  rigel conformance [--device host|cuda] [--out conformance/RESULTS.md]
  rigel serve   --db FILE | --parquet DIR [--listen 127.0.0.1:31337] [--device ...]
                [--allow-files DIR] [--query-timeout D] [--max-request-bytes N]
                [--token-file F] [--tls-cert F --tls-key F]   Arrow Flight SQL server

--device host takes --host-memory SIZE (its memory budget; default a quarter of the machine's).
--device-memory SIZE bounds the device memory queries use (default all of it): a query whose
tables do not fit streams its largest ones through the device a segment at a time, and a join
whose build side does not fit runs a partition at a time.
Status lines go to stderr; results to stdout.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// RIGEL_CPUPROFILE=FILE writes a Go CPU profile of the command, for
	// finding host-side costs on a GPU machine.
	if path := os.Getenv("RIGEL_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				defer pprof.StopCPUProfile()
			}
		}
	}
	if err := run(ctx, os.Args[1:]); err != nil {
		var u usageError
		if errors.As(err, &u) {
			fmt.Fprint(os.Stderr, usage)
		}
		fmt.Fprintln(os.Stderr, "rigel: "+oneLine(err.Error()))
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usageError{"no command given"}
	}
	switch args[0] {
	case "query":
		return cmdQuery(ctx, args[1:])
	case "plan":
		return cmdPlan(ctx, args[1:])
	case "explain":
		return cmdExplain(ctx, args[1:])
	case "shell":
		return cmdShell(ctx, args[1:])
	case "doctor":
		return cmdDoctor(ctx, args[1:])
	case "bench":
		return cmdBench(ctx, args[1:])
	case "tpch-gen":
		return cmdTPCHGen(ctx, args[1:])
	case "serve":
		return cmdServe(ctx, args[1:])
	case "conformance":
		return cmdConformance(ctx, args[1:])
	case "help", "-h", "--help":
		fmt.Print(usage)
		return nil
	}
	return usageError{fmt.Sprintf("unknown command %q", args[0])}
}

// oneLine keeps error messages to one line, as the CLI promises.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
