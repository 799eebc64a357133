package main

import (
	"bufio"
	"context"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rigel-db/rigel/serve"
)

// rigel serve starts on a free loopback port, answers a query, and on
// SIGTERM stops cleanly (exit 0, "stopped").
func TestServeStartsAnswersAndStops(t *testing.T) {
	db := smallDB(t)
	cmd := exec.Command(rigelBin, "serve", "--db", db, "--device", "host", "--listen", "127.0.0.1:0")
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
