package cuda

import (
	"context"

	"github.com/rigel-db/rigel/gpu"
)

// Cancellation on the GPU. A kernel that runs cannot be stopped, but the
// host decides what to launch next: every operation makes its caller's ctx
// the device's current one (watch) while it holds d.mu, and timedLaunch and
// copyOut (a wait for the device's results) check it, so that a cancelled
// query launches no further kernel and waits for nothing more; its buffers
// go back to the pool in stream order, as on any error. The check is one
// ctx.Err() call a launch.

// watch makes ctx the one launches and waits check until the returned
// function runs, which restores the one before. Callers hold d.mu.
func (d *Device) watch(ctx context.Context) (restore func()) {
	prev := d.opCtx
	d.opCtx = ctx
	return func() { d.opCtx = prev }
}

// cancelled is why the current operation's ctx is done (gpu.CtxErr), nil
// while it is not or outside an operation. Callers hold d.mu.
func (d *Device) cancelled() error {
	if d.opCtx == nil {
		return nil
	}
	return gpu.CtxErr(d.opCtx)
}
