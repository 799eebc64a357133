package cuda

import (
	"context"
	"errors"
	"testing"
)

// Once the operation's ctx is cancelled, timedLaunch refuses before it
// touches the driver (there is none here: a launch would fail otherwise),
// with the cause the caller gave; outside an operation nothing is checked,
// and watch restores the ctx of the operation around it.
func TestCancelledOperationLaunchesNothing(t *testing.T) {
	d := &Device{}
	if err := d.cancelled(); err != nil {
		t.Fatalf("outside an operation: %v", err)
	}
	outer, cancelOuter := context.WithCancel(context.Background())
	defer cancelOuter()
	restoreOuter := d.watch(outer)
	ctx, cancel := context.WithCancelCause(context.Background())
	restore := d.watch(ctx)
	if err := d.cancelled(); err != nil {
		t.Fatalf("before the cancel: %v", err)
	}
	gone := errors.New("the client went away")
	cancel(gone)
	if err := d.cancelled(); !errors.Is(err, gone) {
		t.Fatalf("after the cancel: %v, want the cause %v", err, gone)
	}
	if err := d.timedLaunch(nil, "rg_scan", 1, 1, 0, nil); !errors.Is(err, gone) {
		t.Fatalf("launch after the cancel: %v, want %v", err, gone)
	}
	restore()
	if d.opCtx != outer {
		t.Fatal("watch did not restore the ctx before it")
	}
	restoreOuter()
	if d.opCtx != nil {
		t.Fatal("watch left a ctx behind")
	}
}
