package duckdbbridge

import (
	"context"

	"github.com/rigel-db/rigel/physical"
)

// What the database/sql driver (package rigelsql) needs of the engine.

// Cache returns the device column cache, nil without a device.
func (e *Engine) Cache() *physical.ColumnCache {
	if e.exec == nil {
		return nil
	}
	return e.exec.Cache
}

// TablesChanged forgets what depends on the contents of the database's
// tables after a write that did not go through the engine: cached plans,
// catalog lookups and cached device columns. Unlike DropCache it does not wait for the device's
// turn: a running query keeps the columns it pinned and they are freed when
// it ends.
func (e *Engine) TablesChanged() {
	e.forgetPlans()
	if e.exec != nil {
		e.exec.Cache.Invalidate(e.tables.ID(), "")
	}
}

// RunPrepared runs a query Prepare planned on the device and streams its
// answer. A query the device cannot run gives no stream and the reason,
// so that the caller can run it on DuckDB where it wants (a connection
// of its own).
func (e *Engine) RunPrepared(ctx context.Context, p *Prepared) (_ *Stream, _ string, err error) {
	defer recoverBug(&err)
	res, reason, err := e.tryDevice(ctx, p, 0)
	if err != nil || res == nil {
		return nil, reason, err
	}
	return &Stream{RecordReader: batchReader(res.Record), Where: res.Where, Plan: res.Plan}, "", nil
}
