package main

// No //export in this file: cgo copies the preamble of files with exports
// into its generated header, which must hold declarations only.

/*
#include <pthread.h>
#include <stdint.h>

static uintptr_t rigel_thread_id(void) { return (uintptr_t)pthread_self(); }
*/
import "C"

// threadID is the host thread making the current call: a cgo export runs on
// the thread that called it (its goroutine stays locked to that thread for
// the call), and so does a C call made from it.
func threadID() C.uintptr_t { return C.rigel_thread_id() }
