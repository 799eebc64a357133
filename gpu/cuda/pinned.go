package cuda

/*
#include "shim.h"
*/
import "C"

import (
	"math/bits"
	"sync"
	"unsafe"

	"github.com/rigel-db/rigel/gpu"
)

// Pinned host memory for spilled columns, kept for reuse. A partitioned
// join (physical's PartitionedJoin) spills every piece of both its sides
// on every run and releases them at its end: cuMemHostAlloc pins the pages
// of each (and cuMemFreeHost waits for the device), which took 3 of the 5
// seconds of TPC-H Q3's partitioned join at SF10 under a 2 GB budget
// (RIGEL_CPUPROFILE of bench/device/budget-profile.sh, QUERIES=3). So a
// released host copy's buffers go back to free lists by size class (powers
// of two), and the next spill of that class takes one. Reuse needs no
// wait on the host: a spill's copy into a buffer is queued on the device's
// stream, which a released host copy made wait for the restores from it
// on the copy stream (hostCopy.Release, copystream.go).

// pinnedMinClass is the smallest class: the validity bytes and the values
// of a small partition share it.
const pinnedMinClass = 64 << 10

// pinnedKeepShare: the free lists keep at most this part of the process's
// memory; buffers released past it are freed.
const pinnedKeepShare = 8

var pinnedKeepLimit = sync.OnceValue(func() int64 { return gpu.ProcessMemory() / pinnedKeepShare })

type pinnedPool struct {
	free map[int64][]unsafe.Pointer // by class
	kept int64                      // bytes on the free lists
}

// pinnedClass is the size class of an n-byte buffer.
func pinnedClass(n int64) int64 {
	if n <= pinnedMinClass {
		return pinnedMinClass
	}
	return 1 << bits.Len64(uint64(n-1))
}

// get returns a pinned buffer of class pinnedClass(n): a kept one, or a
// new one. d.mu held.
func (d *Device) pinnedGet(n int64, what string) (unsafe.Pointer, error) {
	class := pinnedClass(n)
	if list := d.pinned.free[class]; len(list) > 0 {
		p := list[len(list)-1]
		d.pinned.free[class] = list[:len(list)-1]
		d.pinned.kept -= class
		return p, nil
	}
	var p unsafe.Pointer
	if err := check(C.rg_host_alloc(d.cx.c, &p, C.size_t(class)), "cuMemHostAlloc %s for the %s", humanBytes(class), what); err != nil {
		return nil, err
	}
	return p, nil
}

// pinnedPut takes back a buffer of n bytes' class: kept while the free
// lists hold less than pinnedKeepLimit, else freed once the copies queued
// from it are done. d.mu held.
func (d *Device) pinnedPut(p unsafe.Pointer, n int64) {
	class := pinnedClass(n)
	if d.pinned.kept+class <= pinnedKeepLimit() {
		if d.pinned.free == nil {
			d.pinned.free = map[int64][]unsafe.Pointer{}
		}
		d.pinned.free[class] = append(d.pinned.free[class], p)
		d.pinned.kept += class
		return
	}
	_ = d.cx.sync(d.stream, "restores before freeing their host copy")
	C.rg_host_free(d.cx.c, p)
}

// pinnedDrain frees every kept buffer (Close). d.mu held.
func (d *Device) pinnedDrain() {
	for _, list := range d.pinned.free {
		for _, p := range list {
			C.rg_host_free(d.cx.c, p)
		}
	}
	d.pinned = pinnedPool{}
}
