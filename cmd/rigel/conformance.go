package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/rigel-db/rigel/conformance/functions"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/cuda"
	"github.com/rigel-db/rigel/gpu/host"
)

// cmdConformance runs the Substrait spec's function test cases through
// rigel's consumer on a device and writes the markdown report.
func cmdConformance(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	out := fs.String("out", "conformance/RESULTS.md", "markdown report to write (- for stdout)")
	device := fs.String("device", "host", "device to run the cases on: host or cuda")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usageError{fmt.Sprintf("conformance takes no arguments, got %q", pos[0])}
	}
	var dev gpu.Device
	switch *device {
	case "host":
		dev = host.New()
	case "cuda":
		d, err := cuda.Open()
		if err != nil {
			return fmt.Errorf("--device=cuda: %w", err)
		}
		dev = d
	default:
		return usageError{fmt.Sprintf("--device=%s: want host or cuda", *device)}
	}
	defer dev.Close()

	suite, err := functions.LoadSuite()
	if err != nil {
		return err
	}
	results := functions.NewRunner(dev).RunAll(ctx, suite)
	if err := ctx.Err(); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := functions.WriteMarkdown(&buf, suite, results, *device); err != nil {
		return err
	}
	if *out == "-" {
		_, err = os.Stdout.Write(buf.Bytes())
	} else {
		err = os.WriteFile(*out, buf.Bytes(), 0o644)
	}
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	_, total := functions.Summarize(suite, results)
	fmt.Fprintf(os.Stderr, "rigel: %d function test cases on %s: %d pass, %d fail, %d unsupported, %d skipped (parser)",
		total.Cases, *device, total.Pass, total.Fail, total.Unsupported, total.Skipped)
	if *out != "-" {
		fmt.Fprintf(os.Stderr, "; report in %s", *out)
	}
	fmt.Fprintln(os.Stderr)
	return nil
}
