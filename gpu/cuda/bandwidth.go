package cuda

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// MeasureCopyBandwidth copies 1 GiB device to device with a plain kernel a
// few times and returns the best rate, counting bytes read plus written:
// the bandwidth floor `rigel bench` compares queries with.
func (d *Device) MeasureCopyBandwidth() (float64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	const size = 1 << 30
	src, err := d.cx.alloc(size, "bandwidth test source")
	if err != nil {
		return 0, err
	}
	defer d.cx.free(src)
	dst, err := d.cx.alloc(size, "bandwidth test destination")
	if err != nil {
		return 0, err
	}
	defer d.cx.free(dst)
	if err := d.cx.memset(src, 0x5a, size, d.stream); err != nil {
		return 0, err
	}
	f, err := d.cx.function(d.util, "rg_copy_bw")
	if err != nil {
		return 0, err
	}
	best := 0.0
	for i := 0; i < 5; i++ {
		if err := check(C.rg_event_record(d.cx.c, d.evA, d.stream), "cuEventRecord"); err != nil {
			return 0, err
		}
		if err := d.cx.launch(f, d.sms*8, blockThreads, 0, d.stream, []uint64{size / 16, src, dst}, "rg_copy_bw"); err != nil {
			return 0, err
		}
		if err := check(C.rg_event_record(d.cx.c, d.evB, d.stream), "cuEventRecord"); err != nil {
			return 0, err
		}
		var ms C.float
		if err := check(C.rg_event_elapsed(d.cx.c, &ms, d.evA, d.evB), "copy bandwidth kernel"); err != nil {
			return 0, err
		}
		if bw := 2 * size / (float64(ms) / 1e3); bw > best && ms > 0 {
			best = bw
		}
	}
	return best, nil
}

// MeasureUploadBandwidth times 512 MiB of host-to-device copies through the
// pinned staging buffers (the path Upload takes), best of three.
func (d *Device) MeasureUploadBandwidth() (float64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	const size = 512 << 20
	dst, err := d.cx.alloc(size, "upload bandwidth test")
	if err != nil {
		return 0, err
	}
	defer d.cx.free(dst)
	// Pinned-to-device copies on the stream, the upload path without the
	// host memcpy into the staging buffer.
	best := 0.0
	for i := 0; i < 3; i++ {
		if err := check(C.rg_event_record(d.cx.c, d.evA, d.stream), "cuEventRecord"); err != nil {
			return 0, err
		}
		for off := int64(0); off < size; off += stagingChunk {
			if err := check(C.rg_copy_htod_async(d.cx.c, C.CUdeviceptr(dst+uint64(off)), d.pin[(off/stagingChunk)%2], stagingChunk, d.stream), "cuMemcpyHtoDAsync"); err != nil {
				return 0, err
			}
		}
		if err := check(C.rg_event_record(d.cx.c, d.evB, d.stream), "cuEventRecord"); err != nil {
			return 0, err
		}
		var ms C.float
		if err := check(C.rg_event_elapsed(d.cx.c, &ms, d.evA, d.evB), "upload bandwidth"); err != nil {
			return 0, err
		}
		if bw := size / (float64(ms) / 1e3); bw > best && ms > 0 {
			best = bw
		}
	}
	if best == 0 {
		return 0, fmt.Errorf("upload bandwidth: no time measured")
	}
	return best, nil
}

var _ = unsafe.Pointer(nil)
