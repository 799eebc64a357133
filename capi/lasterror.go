package main

/*
#include <stdlib.h>
#define RIGEL_BUILDING_LIBRARY
#include "rigel.h"
*/
import "C"

import (
	"sync"
	"unsafe"
)

// lastError holds the error texts of one engine (or of rigel_open), one per
// calling thread, as C strings owned by the library: hosts read them
// through rigel_last_error without copying or freeing them.
//
// Per thread, like errno: with several threads on one engine, a text kept
// per engine would be replaced (or cleared by a success) by another
// thread's call between a failure and the read of its text, and the reader
// would get the wrong text or freed memory. A thread's text changes only at
// that thread's next call, so it stays valid until then. Successes delete
// their thread's entry, so only threads whose last call failed hold one.
type lastError struct {
	mu    sync.Mutex
	texts map[C.uintptr_t]*C.char
}

var (
	emptyText = C.CString("") // static: never freed
	// notOpenText answers rigel_last_error on a handle that is not open.
	notOpenText = C.CString("rigel: this engine is not open (closed already, or never opened)")
	// openErr is rigel_last_error(0): the last rigel_open failure.
	openErr lastError
)

// set replaces the calling thread's text; "" clears it (the call succeeded).
func (l *lastError) set(msg string) {
	tid := threadID()
	var c *C.char
	if msg != "" {
		c = C.CString(msg)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if old := l.texts[tid]; old != nil {
		C.free(unsafe.Pointer(old)) // this thread's old text: its next call is here
	}
	if c == nil {
		delete(l.texts, tid)
		return
	}
	if l.texts == nil {
		l.texts = map[C.uintptr_t]*C.char{}
	}
	l.texts[tid] = c
}

// get returns the calling thread's text, "" when there is none.
func (l *lastError) get() *C.char {
	tid := threadID()
	l.mu.Lock()
	defer l.mu.Unlock()
	if c := l.texts[tid]; c != nil {
		return c
	}
	return emptyText
}

// free releases every text (when the engine goes away).
func (l *lastError) free() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for tid, c := range l.texts {
		C.free(unsafe.Pointer(c))
		delete(l.texts, tid)
	}
}

//export rigel_last_error
func rigel_last_error(h C.uintptr_t) *C.char {
	if h == 0 {
		return openErr.get()
	}
	// Read under handlesMu: while the handle is in the table its engine
	// holds the handle's reference, so its texts cannot be freed meanwhile.
	handlesMu.Lock()
	defer handlesMu.Unlock()
	e := handles[uintptr(h)]
	if e == nil {
		return notOpenText
	}
	return e.errs.get()
}
