// Command capi is rigel's C ABI (rigel.h), built as a shared library:
//
//	go build -buildmode=c-shared -o librigel.so ./capi
//
// Hosts that cannot link Go (Doris, Velox, a C program, Python through
// ctypes) open an engine on a catalog, register Arrow C streams as tables,
// and run Substrait plans or SQL, getting Arrow C streams back. No Go type
// crosses the boundary: engines are integer handles, data is the Arrow C
// data interface, errors are text kept per engine.
//
// Files: handles.go (the handle table and engine lifetimes), lasterror.go
// (error texts owned by the library, per calling thread; thread.go names
// the thread), open.go (rigel_open, rigel_close),
// register.go (rigel_register_stream), execute.go (rigel_execute_plan,
// rigel_execute_sql and the streams they hand out).
package main

/*
#define RIGEL_BUILDING_LIBRARY
#include "rigel.h"
*/
import "C"

import "fmt"

func main() {} // a c-shared library needs one; never called

// Version is what rigel_version returns.
const Version = "rigel 0.1.0 (C ABI 1)"

var version = C.CString(Version) // static: never freed

//export rigel_version
func rigel_version() *C.char { return version }

// guard turns a panic into an error on the engine (or, for nil, into the
// error rigel_last_error(0) shows), so that a bug in rigel never takes the
// host process down. Deferred by every export.
func guard(e *engine, rc *C.int) {
	if r := recover(); r != nil {
		msg := fmt.Sprintf("rigel: internal error (a bug; please report it): %v", r)
		if e != nil {
			e.errs.set(msg)
		} else {
			openErr.set(msg)
		}
		if rc != nil {
			*rc = -1
		}
	}
}
