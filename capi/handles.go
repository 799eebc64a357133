package main

/*
#define RIGEL_BUILDING_LIBRARY
#include "rigel.h"
*/
import "C"

import (
	"database/sql"
	"sync"
	"sync/atomic"

	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/gpu"
)

// engine is what a handle stands for.
//
// Its lifetime is counted, not tied to rigel_close: the handle, each call in
// flight and each answer stream not yet released hold a reference, and the
// device and database close when the last one goes. So rigel_close on one
// thread cannot pull the device out from under a query running on another,
// and a stream handed out stays readable after its engine is closed.
type engine struct {
	eng *duckdbbridge.Engine
	db  *sql.DB
	dev gpu.Device // nil when the engine has no device

	refs atomic.Int64
	errs lastError
}

func (e *engine) ref() { e.refs.Add(1) }

// unref drops a reference; the last one closes the engine.
func (e *engine) unref() {
	if e.refs.Add(-1) != 0 {
		return
	}
	e.eng.Flush() // the column files it was writing
	if e.dev != nil {
		e.dev.Close() // nobody to tell of an error here: rigel_close is void
	}
	e.db.Close()
	e.errs.free()
}

var (
	handlesMu sync.Mutex
	handles   = map[uintptr]*engine{}
	lastID    uintptr // handles are never reused, so a stale one stays stale
)

// register gives a new engine (holding one reference: the handle's) a handle.
func register(e *engine) C.uintptr_t {
	e.refs.Store(1)
	handlesMu.Lock()
	defer handlesMu.Unlock()
	lastID++
	handles[lastID] = e
	return C.uintptr_t(lastID)
}

// acquire finds an open engine and takes a reference for the call; the
// caller unrefs it. Taking the reference under handlesMu means that an
// engine found in the table has not begun to close.
//
// Handle 0 is never an engine (rigel_open's failure value): a call on it
// leaves its error where rigel_last_error(0) reads it, so that a host that
// did not check rigel_open's result still learns why its calls fail.
func acquire(h C.uintptr_t) *engine {
	if h == 0 {
		openErr.set("rigel: engine handle 0 is no engine: rigel_open failed (its error was here until this call) or was not called")
		return nil
	}
	handlesMu.Lock()
	defer handlesMu.Unlock()
	e := handles[uintptr(h)]
	if e != nil {
		e.ref()
	}
	return e
}

// unregister removes a handle, returning its engine (nil if not open).
func unregister(h C.uintptr_t) *engine {
	handlesMu.Lock()
	defer handlesMu.Unlock()
	e := handles[uintptr(h)]
	delete(handles, uintptr(h))
	return e
}
