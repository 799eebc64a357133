package cuda

// #include "shim.h"
import "C"

// Kernel timing without waiting: each launch records a start and a stop
// event, and the pairs are read only when the host synchronizes with the
// stream anyway (a download, a status check, Stats). Waiting on every
// launch cost a round trip per kernel: sorting a 4-row result (a rank
// kernel and a gather per column) took 0.3 ms on the H100 that way.

// maxPendingTimers bounds the events in flight; beyond it the oldest are
// read (which waits for them).
const maxPendingTimers = 256

type eventPair struct{ start, stop C.CUevent }

// timerStart records a start event before a launch. Callers hold d.mu.
func (d *Device) timerStart() (eventPair, error) {
	var p eventPair
	if n := len(d.freeTimers); n > 0 {
		p, d.freeTimers = d.freeTimers[n-1], d.freeTimers[:n-1]
	} else {
		if err := check(C.rg_event_create(d.cx.c, &p.start), "cuEventCreate"); err != nil {
			return p, err
		}
		if err := check(C.rg_event_create(d.cx.c, &p.stop), "cuEventCreate"); err != nil {
			C.rg_event_destroy(d.cx.c, p.start)
			return p, err
		}
	}
	if err := check(C.rg_event_record(d.cx.c, p.start, d.stream), "cuEventRecord"); err != nil {
		d.freeTimers = append(d.freeTimers, p)
		return p, err
	}
	return p, nil
}

// timerStop records the stop event after a launch and queues the pair.
func (d *Device) timerStop(p eventPair) error {
	if err := check(C.rg_event_record(d.cx.c, p.stop, d.stream), "cuEventRecord"); err != nil {
		d.freeTimers = append(d.freeTimers, p)
		return err
	}
	d.pendingTimers = append(d.pendingTimers, p)
	if len(d.pendingTimers) > maxPendingTimers {
		return d.settleTimers()
	}
	return nil
}

// settleTimers adds the elapsed time of every queued pair to the stats.
// Reading a pair waits for its stop event; after a stream synchronization
// that costs nothing. A kernel's failure surfaces here at the latest.
func (d *Device) settleTimers() error {
	var firstErr error
	for _, p := range d.pendingTimers {
		var ms C.float
		if err := check(C.rg_event_elapsed(d.cx.c, &ms, p.start, p.stop), "kernel"); err != nil && firstErr == nil {
			firstErr = err
		} else if err == nil {
			d.st.nanos.Add(int64(float64(ms) * 1e6))
		}
		d.freeTimers = append(d.freeTimers, p)
	}
	d.pendingTimers = d.pendingTimers[:0]
	return firstErr
}

// destroyTimers frees every event of the timer pool. Callers hold d.mu.
func (d *Device) destroyTimers() {
	d.settleTimers()
	for _, p := range d.freeTimers {
		C.rg_event_destroy(d.cx.c, p.start)
		C.rg_event_destroy(d.cx.c, p.stop)
	}
	d.freeTimers = nil
}
