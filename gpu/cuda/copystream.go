package cuda

/*
#include "shim.h"
*/
import "C"

import "fmt"

// The copy stream. Restores of spilled columns (spill.go) copy on a
// stream of their own, beside the kernels on the device's stream: a plan
// that streams a table (physical's Chunked) restores the next segment's
// columns before it runs this segment's kernels, and the link carries the
// one while the multiprocessors work on the other. At TPC-H SF100 under a
// 16 GB budget, Q21 restored 19.2 GB a run on the device's one stream,
// its copies and kernels one after the other
// (bench/results/2026-11-28-h200-tpch-sf100-budget-16gb-v53.md).
//
// Events order the two streams:
//   - a restore's copies wait for the work queued on the device's stream
//     before them: the pool buffers they fill may have been freed by it;
//   - a restored column holds the event of its copies (column.ready), and
//     the device's stream waits for it before the first operation that
//     takes the column (checkColumns), or before its buffers go back to
//     the pool (freeColumn);
//   - a host copy that was restored so makes the device's stream wait for
//     the copy stream when it is released, before its pinned buffers take
//     another spill's rows.

// copyStreamFor returns the copy stream, made on first use, after making
// it wait for the work queued on the device's stream. d.mu held.
func (d *Device) copyStreamFor() (C.CUstream, error) {
	if d.copyStream == nil {
		if err := check(C.rg_stream_create(d.cx.c, &d.copyStream), "cuStreamCreate (copy stream)"); err != nil {
			d.copyStream = nil
			return nil, err
		}
	}
	if err := d.order(d.copyStream, d.stream); err != nil {
		return nil, err
	}
	return d.copyStream, nil
}

// order makes stream `after` wait for the work queued on `before` so far.
// d.mu held.
func (d *Device) order(after, before C.CUstream) error {
	ev, err := d.syncEvent()
	if err != nil {
		return err
	}
	defer d.putSyncEvent(ev)
	if err := check(C.rg_event_record(d.cx.c, ev, before), "cuEventRecord"); err != nil {
		return err
	}
	return check(C.rg_stream_wait_event(d.cx.c, after, ev), "cuStreamWaitEvent")
}

// copied records the end of the copies queued on the copy stream so far:
// the event a restored column's users wait for. d.mu held.
func (d *Device) copied() (C.CUevent, error) {
	ev, err := d.syncEvent()
	if err != nil {
		return nil, err
	}
	if err := check(C.rg_event_record(d.cx.c, ev, d.copyStream), "cuEventRecord"); err != nil {
		d.putSyncEvent(ev)
		return nil, err
	}
	return ev, nil
}

// awaitCopy makes the device's stream wait for c's copies, once. d.mu
// held.
func (d *Device) awaitCopy(c *column) error {
	if c.ready == nil {
		return nil
	}
	if err := check(C.rg_stream_wait_event(d.cx.c, d.stream, c.ready), "cuStreamWaitEvent"); err != nil {
		return fmt.Errorf("waiting for the copy of a restored column: %w", err)
	}
	// A wait holds the event's record as it was: the event may be
	// recorded again for another copy.
	d.putSyncEvent(c.ready)
	c.ready = nil
	return nil
}

// syncEvent takes an event for ordering alone from the free list, or
// makes one. d.mu held.
func (d *Device) syncEvent() (C.CUevent, error) {
	if n := len(d.syncEvents); n > 0 {
		ev := d.syncEvents[n-1]
		d.syncEvents = d.syncEvents[:n-1]
		return ev, nil
	}
	var ev C.CUevent
	if err := check(C.rg_event_create_untimed(d.cx.c, &ev), "cuEventCreate"); err != nil {
		return nil, err
	}
	return ev, nil
}

func (d *Device) putSyncEvent(ev C.CUevent) { d.syncEvents = append(d.syncEvents, ev) }

// closeCopyStream waits for the copy stream and frees it and the events
// (Close). d.mu held.
func (d *Device) closeCopyStream(note func(error)) {
	if d.copyStream != nil {
		note(d.cx.sync(d.copyStream, "close (copy stream)"))
		note(check(C.rg_stream_destroy(d.cx.c, d.copyStream), "cuStreamDestroy"))
		d.copyStream = nil
	}
	for _, ev := range d.syncEvents {
		note(check(C.rg_event_destroy(d.cx.c, ev), "cuEventDestroy"))
	}
	d.syncEvents = nil
}
