package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rigel-db/rigel/serve"
)

// rigel serve starts on a free loopback port, answers a query, and on
// SIGTERM stops cleanly (exit 0, "stopped"): on the host device, and with
// the default device on a machine without a GPU (DuckDB answers).
func TestServeStartsAnswersAndStops(t *testing.T) {
	devices := []string{"host"}
	if !haveGPU() {
		devices = append(devices, "auto", "duckdb")
	}
	for _, dev := range devices {
		t.Run(dev, func(t *testing.T) { serveAnswersAndStops(t, dev) })
	}
}

func serveAnswersAndStops(t *testing.T, device string) {
	db := smallDB(t)
	cmd := exec.Command(rigelBin, "serve", "--db", db, "--device", device, "--listen", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var addr string
	var seen []string
	listening := regexp.MustCompile(`listening on grpc\+tcp://(127\.0\.0\.1:\d+)`)
	timeout := time.After(30 * time.Second)
	for addr == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("rigel serve ended before listening: %v", seen)
			}
			seen = append(seen, l)
			if m := listening.FindStringSubmatch(l); m != nil {
				addr = m[1]
			}
		case <-timeout:
			t.Fatalf("rigel serve did not say where it listens: %v", seen)
		}
	}
	c, err := serve.Dial(addr, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	info, err := c.Execute(ctx, "SELECT sum(a) FROM t")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := serve.Fetch(ctx, c, info)
	if err != nil {
		t.Fatal(err)
	}
	rec.Release()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for l := range lines {
		seen = append(seen, l)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("rigel serve after SIGTERM: %v\n%s", err, strings.Join(seen, "\n"))
	}
	if !strings.Contains(strings.Join(seen, "\n"), "rigel serve: stopped") {
		t.Fatalf("no clean stop:\n%s", strings.Join(seen, "\n"))
	}
}

func TestServeNeedsACatalog(t *testing.T) {
	o := rigel(t, "serve")
	if o.code == 0 || !strings.Contains(o.stderr, "rigel: serve needs a catalog") || strings.Contains(o.stderr, "panic") {
		t.Fatalf("exit %d, stderr %q", o.code, o.stderr)
	}
}

// Flags that make no sense are refused before anything starts, by name
// (after the usage text).
func TestBadFlagValuesAreRefused(t *testing.T) {
	db := smallDB(t)
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"serve", "--db", db, "--device", "host", "--max-request-bytes", "-1"}, "--max-request-bytes must be positive"},
		{[]string{"serve", "--db", db, "--device", "host", "--max-request-bytes", "0"}, "--max-request-bytes must be positive"},
		{[]string{"serve", "--db", db, "--device", "host", "--query-timeout", "-1s"}, "--query-timeout must not be negative"},
		{[]string{"plan", "--db", db, "--device", "host", "--format", "xml", "testdata/add.json"}, "--format must be table, csv or json"},
		{[]string{"query", "--db", db, "--device", "host", "--format", "xml", "SELECT 1"}, "--format must be table, csv or json"},
	} {
		o := rigel(t, c.args...)
		lines := strings.Split(strings.TrimSpace(o.stderr), "\n")
		last := lines[len(lines)-1]
		if o.code == 0 || strings.Contains(o.stderr, "panic") || !strings.HasPrefix(last, "rigel: ") || !strings.Contains(last, c.says) {
			t.Errorf("%v: exit %d, last line %q; want a failure saying %q", c.args, o.code, last, c.says)
		}
		if o.stdout != "" {
			t.Errorf("%v: wrote %q to stdout", c.args, o.stdout)
		}
	}
}

// tpch-gen never replaces a file unless told to.
func TestTPCHGenKeepsAnExistingFile(t *testing.T) {
	db := smallDB(t)
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	oneLineError(t, rigel(t, "tpch-gen", "--sf", "0.01", "--db", db), "exists; rigel tpch-gen replaces it only with --force")
	after, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Fatal("tpch-gen changed an existing file without --force")
	}
}
