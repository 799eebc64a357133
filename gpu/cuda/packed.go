package cuda

import (
	"fmt"
	"os"
	"unsafe"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/forpack"
)

// Packed table columns. An upload of an integer kind (packedKinds) is kept
// bit-packed in one frame of reference (gpu/forpack) when that saves at
// least a quarter of its bytes: TPC-H's lineitem decimals and dates take 4
// to 24 bits a row instead of 64 or 32. Generated kernels and the program
// interpreter decode a packed input in registers (columnValue,
// rg_unpacked), so a scan reads the packed bytes only. The operations
// that read a column's values in place (sort, join keys, gather, concat,
// download) see it plain: checkColumns writes the plain values once
// (rg_unpack) and keeps them beside the packed ones until the column is
// released.
//
// Off by default: decoding in registers still costs more hot than the
// bytes it saves (TPC-H SF10 on an H200: hot geometric mean 2.35-2.41 ms
// packed against 2.17 plain, Q1 2.35 against 1.34 ms, Q6 0.70 against
// 0.49: bench/results/2026-11-28-h200-tpch-sf10-packed-v37.md), and a
// change may not make the hot table worse. The cause, in Q6's SASS: each
// column's branch between its packed and plain load keeps the next
// column's loads from issuing before this one's words arrive
// (bench/results/2026-11-28-h200-tpch-sf10-packing-off-v38-check.md); a
// source specialised to its packed inputs would have no branch. RIGEL_DEVICE_PACKING: "on"
// packs columns of at least packMinRows rows, "all" columns of any length.

// packedKinds are the kinds a column may be packed in: two's complement
// integers of 4 or 8 bytes (dictionary codes included).
var packedKinds = map[gpu.Kind]bool{gpu.Int32: true, gpu.Int64: true, gpu.Date32: true, gpu.Decimal64: true, gpu.Dict: true}

// packMinRows is the smallest column packed by default: below it the
// plain column is small enough that packing's host time is not worth it.
const packMinRows = 1 << 16

// packing is the RIGEL_DEVICE_PACKING policy.
type packing uint8

const (
	packOff   packing = iota
	packLarge         // columns of at least packMinRows rows
	packAll
)

// packingPolicy is the process's policy, read once. It decides both which
// uploads pack and whether generated kernels carry the packed load
// (packedLoads), so that with packing off their loads are the plain ones
// they had before packing, and compile as fast. Only a test that owns the columns it
// makes changes it (TestBattery).
var packingPolicy = packingFromEnv()

// packedLoads reports whether generated kernels read packed inputs
// (columnValue) and get them as they are (inputArgs, pipelineAccepts).
func packedLoads() bool { return packingPolicy != packOff }

// pipelineAccepts is what generated kernels and the program interpreter
// take (checkColumns): Str columns, and packed ones while packedLoads; a
// packed column is otherwise read from its unpacked copy.
func pipelineAccepts() accepts {
	if packedLoads() {
		return acceptStr | acceptPacked
	}
	return acceptStr
}

func packingFromEnv() packing {
	switch os.Getenv("RIGEL_DEVICE_PACKING") {
	case "on":
		return packLarge
	case "all":
		return packAll
	}
	return packOff
}

// packedColumn is the device memory of a packed column: its words, in
// frame (gpu/forpack), and their bytes.
type packedColumn struct {
	words uint64
	frame forpack.Frame
	bytes int64
}

// frameWord is the frame as kernels take it, the column's third Args word
// (rg_unpacked): base << 7 | 64 | width; never 0, which marks a plain
// column.
func (p *packedColumn) frameWord() uint64 {
	return uint64(p.frame.Base)<<7 | 64 | uint64(p.frame.Width)
}

// frameFits reports whether kernels can take f: its base in the 57 bits
// frameWord leaves it.
func frameFits(f forpack.Frame) bool { return f.Base >= -1<<56 && f.Base < 1<<56 }

// hostPacked is a host column's packed form, in a map the column owns.
type hostPacked struct {
	words []byte
	frame forpack.Frame
}

// packs reports whether the policy packs a column of kind k and rows rows
// (before its values are read).
func (p packing) packs(k gpu.Kind, rows int) bool {
	if p == packOff || !packedKinds[k] || rows == 0 {
		return false
	}
	return p == packAll || rows >= packMinRows
}

// frameFor is the frame h's values pack in when packing saves at least a
// quarter of their bytes; ok is false otherwise.
func (h *hostColumn) frameFor() (f forpack.Frame, ok bool, err error) {
	w := h.t.Kind.Width()
	lo, hi, some, err := forpack.Range(h.data, w, h.n)
	if err != nil || !some {
		return f, false, err
	}
	if f, ok = forpack.FrameOf(lo, hi); !ok || !frameFits(f) || f.Bytes(h.n) > int64(h.n*w)*3/4 {
		return f, false, nil
	}
	return f, true, nil
}

// pack replaces h's plain values by their packed form when it saves at
// least a quarter of the bytes; h keeps its plain values otherwise.
func (h *hostColumn) pack() error {
	f, ok, err := h.frameFor()
	if err != nil || !ok {
		return err
	}
	words, err := h.mapped(int(f.Words(h.n)) * 4)
	if err != nil {
		return err
	}
	if err := forpack.Pack(h.data, h.t.Kind.Width(), h.n, f, uint32s(words), 0); err != nil {
		return err
	}
	h.packed, h.data = &hostPacked{words: words, frame: f}, nil
	return nil
}

// uint32s views b (a map: 4-byte aligned) as little-endian words.
func uint32s(b []byte) []uint32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), len(b)/4)
}

// placePacked allocates c's packed words and copies h's in. Callers
// hold d.mu; on error the caller frees c.
func (d *Device) placePacked(c *column, h *hostColumn, what string) error {
	p := h.packed
	c.pack = &packedColumn{frame: p.frame, bytes: int64(len(p.words))}
	var err error
	if c.pack.words, err = d.allocDirect(int64(len(p.words)), what+" (packed)"); err != nil {
		return err
	}
	return d.copyIn(c.pack.words, p.words, what+" (packed)")
}

// unpack writes a packed column's plain values (once: they stay until the
// column is released) for the operations that read values in place.
// Callers hold d.mu.
func (d *Device) unpack(c *column) error {
	if c.pack == nil || c.data != 0 {
		return nil
	}
	data, err := d.unpackRows(c, c.n)
	if err == nil {
		c.data = data
	}
	return err
}

// unpackRows writes c's first n rows plain into a new buffer of c.n rows.
func (d *Device) unpackRows(c *column, n int) (uint64, error) {
	w := c.t.Kind.Width()
	data, err := d.allocDirect(int64(c.n*w), fmt.Sprintf("%s column of %d rows unpacked", c.t, c.n))
	if err != nil || n == 0 {
		return data, err
	}
	args := []uint64{uint64(n), c.pack.words, c.pack.frameWord(), data, uint64(w)}
	if err := d.timedLaunch(d.util, "rg_unpack", d.gridFor(int64(n), blockThreads), blockThreads, 0, args); err != nil {
		d.freeDirect(data)
		return 0, err
	}
	return data, nil
}

// freePacked frees a packed column's buffers (allocDirect's); with d.mu held.
func (d *Device) freePacked(c *column) {
	if c.pack == nil {
		return
	}
	if c.pack.words != 0 {
		d.freeDirect(c.pack.words)
	}
	c.pack = nil
}

var _ gpu.PackedColumn = (*column)(nil)

// PackedBytes is the packed words' bytes, 0 when c is plain.
func (c *column) PackedBytes() int64 {
	if c.pack == nil {
		return 0
	}
	return c.pack.bytes
}

// ValueBytes is the packed bytes and the plain values' where there are
// (Len() x the kind's width, as gpu.ValueBytes counts a plain column).
func (c *column) ValueBytes() int64 {
	n := c.PackedBytes()
	if c.data != 0 {
		n += int64(c.n * c.t.Kind.Width())
	}
	return n
}
