package cuda

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// A query's literals reach its kernels through constant memory, not the
// source: the generator writes each as an RG_K* marker of its bits
// (exprGen.constant, prelude.cuh), and hoistConstants, run on every
// generated source before it is compiled, gives each marker a word of the
// module's `__constant__ rg_k` array and records the values. The same query
// with other dates or thresholds is then the same source: the module (and
// its CUBIN in the kernel cache) is reused, and only rg_k is written again.
// Slots go by the order of the markers in the source, one per marker, so
// the layout depends on the query's shape alone.

// constMarker matches one marker; the 128-bit form has two words.
var constMarker = regexp.MustCompile(`RG_K(64|F64|F32|128)\((0x[0-9a-f]{16})ull(?:, (0x[0-9a-f]{16})ull)?\)`)

// constArray is the name of the module's constant array.
const constArray = "rg_k"

// maxConstWords bounds rg_k at half of the 64 KiB of constant memory a
// module may declare.
const maxConstWords = 4096

// hoistConstants returns src with every constant marker read from rg_k,
// and the words rg_k holds, in slot order. A source without markers comes
// back as it is. Only the kernel's own code, past the prelude, is read:
// the prelude holds no marker, and rg_k's declaration goes where the
// kernel's code begins, so that what reads a source past its prelude
// (raisesFlags) reads only that.
func hoistConstants(src string) (string, []uint64) {
	code, afterPrelude := strings.CutPrefix(src, preludeSrc)
	var words []uint64
	word := func(hex string) uint64 {
		v, _ := strconv.ParseUint(hex[2:], 16, 64) // the pattern admits 16 hex digits only
		return v
	}
	code = constMarker.ReplaceAllStringFunc(code, func(m string) string {
		g := constMarker.FindStringSubmatch(m)
		i := len(words)
		words = append(words, word(g[2]))
		switch g[1] {
		case "64":
			return fmt.Sprintf("((long long)%s[%d])", constArray, i)
		case "F64":
			return fmt.Sprintf("__longlong_as_double((long long)%s[%d])", constArray, i)
		case "F32":
			return fmt.Sprintf("__int_as_float((int)%s[%d])", constArray, i)
		}
		words = append(words, word(g[3]))
		return fmt.Sprintf("I128(%s[%d], %s[%d])", constArray, i, constArray, i+1)
	})
	if len(words) == 0 || len(words) > maxConstWords {
		// More than constant memory holds (a long IN list): the markers
		// stay, and compile as the literals themselves (prelude.cuh).
		return src, nil
	}
	code = fmt.Sprintf("__constant__ unsigned long long %s[%d];\n", constArray, len(words)) + code
	if afterPrelude {
		return preludeSrc + code, words
	}
	return code, words
}

// setConstants makes m's rg_k hold words before the kernels launched next
// on the stream: the copy is queued in stream order, after the kernels
// that read the earlier values. Nothing is copied when m already holds
// them (a hot run of the same statement). Callers hold d.mu.
func (d *Device) setConstants(m *module, words []uint64) error {
	if len(words) == 0 || slices.Equal(m.constWords, words) {
		return nil
	}
	if m.constPtr == 0 {
		name := C.CString(constArray)
		defer C.free(unsafe.Pointer(name))
		var ptr C.CUdeviceptr
		var size C.size_t
		if err := check(C.rg_module_global(d.cx.c, &ptr, &size, m.m, name), "cuModuleGetGlobal %s", constArray); err != nil {
			return err
		}
		if int(size) != 8*len(words) {
			return fmt.Errorf("module's %s holds %d bytes, its constants %d", constArray, size, 8*len(words))
		}
		m.constPtr = uint64(ptr)
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), 8*len(words))
	if err := d.copyIn(m.constPtr, b, "a kernel's constants"); err != nil {
		return err
	}
	m.constWords = slices.Clone(words)
	return nil
}
