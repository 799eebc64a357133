package cuda

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/forpack"
)

// Packed table columns. An upload of an integer kind (packedKinds) is kept
// in one frame of reference (gpu/forpack), its differences from the base
// in 8, 16 or 32 bits (byteWidth), when that saves at least a quarter of
// its bytes: TPC-H's lineitem decimals and dates take 1 to 4 bytes a row
// instead of 8 or 4. Generated kernels read a packed input with one load
// of its width and add the base (columnValue: their sources are
// specialised to which inputs are packed, packedInputs); the program
// interpreter decodes any frame (rg_unpacked). The operations that read a
// column's values in place (sort, join keys, gather, concat, download)
// see it plain: checkColumns writes the plain values once (rg_unpack) and
// keeps them beside the packed ones until the column is released.
//
// On by default for columns of at least packMinRows rows
// (RIGEL_DEVICE_PACKING=off keeps every column plain, "all" packs columns
// of any length): on an H200 at TPC-H SF10, hot 2.214 and 2.269 ms packed
// against 2.270 and 2.404 plain in the same call, cold 1.10x DuckDB
// either way, first runs equal, lineitem's Q1 columns 3.7x smaller
// (bench/results/2026-11-28-h200-tpch-sf10-packed-device-v41.md). What
// came before: bit widths decoded in registers made hot worse (2.35-2.41
// ms against 2.17: bench/results/2026-11-28-h200-tpch-sf10-packed-v37.md),
// a branch per column between the packed and the plain load serialised
// the loads (bench/results/2026-11-28-h200-tpch-sf10-packing-off-v38-check.md),
// and with that branch gone bit widths still cost 64-bit address
// arithmetic and two loads a value, and packing on the host made cold
// runs 1.4x slower
// (bench/results/2026-11-28-h200-tpch-sf10-packed-specialised-v39.md).

// packedKinds are the kinds a column may be packed in: two's complement
// integers of 4 or 8 bytes (dictionary codes included).
var packedKinds = map[gpu.Kind]bool{gpu.Int32: true, gpu.Int64: true, gpu.Date32: true, gpu.Decimal64: true, gpu.Dict: true}

// packMinRows is the smallest column packed by default: below it the
// plain column is small enough that packing's two kernels and its read
// back are not worth it.
const packMinRows = 1 << 16

// maxPackedRows bounds a packed column: kernels index its rows and words
// in 32 bits (rg_unpacked).
const maxPackedRows = 1 << 32

// packing is the RIGEL_DEVICE_PACKING policy.
type packing uint8

const (
	packOff   packing = iota
	packLarge         // columns of at least packMinRows rows
	packAll
)

// packingPolicy is the process's policy, read once. It decides both which
// uploads pack and whether kernels read packed columns as they are
// (packedLoads, readPacked) or their unpacked copies. Only a test that
// owns the columns it makes changes it (TestBattery).
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

// readPacked reports whether kernels get c's packed words (inputArgs)
// rather than plain values.
func (c *column) readPacked() bool { return c.pack != nil && packedLoads() }

// packedInputs are a kernel's inputs that arrive packed (readPacked), in
// ascending order, with their frames' widths. A generated kernel's source
// is specialised to them (columnValue): a packed input's load is one of
// its width, and the others load plain, with no branch between the two,
// which kept each column's loads from issuing before the previous
// column's words arrived
// (bench/results/2026-11-28-h200-tpch-sf10-packing-off-v38-check.md). They
// are part of the source's memo key (srcKey.packed); the program
// interpreter, which runs while a kernel compiles, decodes either form.
type packedInputs []packedInput

type packedInput struct {
	input int
	width uint8
}

// packedOf is the packed inputs of a kernel over cols (nil where a column
// is not known: plain).
func packedOf(cols []*column) packedInputs {
	var s packedInputs
	for i, c := range cols {
		if c != nil && c.readPacked() {
			s = append(s, packedInput{i, c.pack.frame.Width})
		}
	}
	return s
}

// width is input c's packed width; ok is false when c is plain.
func (s packedInputs) width(c int) (w uint8, ok bool) {
	for _, p := range s {
		if p.input == c {
			return p.width, true
		}
	}
	return 0, false
}

// key is s as srcKey holds it: "" when no input is packed.
func (s packedInputs) key() string {
	if len(s) == 0 {
		return ""
	}
	return fmt.Sprint([]packedInput(s))
}

func packingFromEnv() packing {
	switch os.Getenv("RIGEL_DEVICE_PACKING") {
	case "off":
		return packOff
	case "all":
		return packAll
	}
	return packLarge
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

// packs reports whether the policy packs a column of kind k and rows rows
// (before its values are read).
func (p packing) packs(k gpu.Kind, rows int) bool {
	if p == packOff || !packedKinds[k] || rows == 0 || int64(rows) >= maxPackedRows {
		return false
	}
	return p == packAll || rows >= packMinRows
}

// byteWidth rounds a frame's width up to 0, 8, 16 or 32 bits: a kernel
// then reads a value with one load of its width (columnValue), as a plain
// one, and adds the base; bit widths that straddle words took two loads,
// a funnel shift and 64-bit address arithmetic per value, which made
// TPC-H's hot kernels slower than plain ones though they read a sixth of
// the bytes (bench/results/2026-11-28-h200-tpch-sf10-packed-specialised-v39.md).
func byteWidth(w uint8) uint8 {
	switch {
	case w == 0:
		return 0
	case w <= 8:
		return 8
	case w <= 16:
		return 16
	}
	return 32
}

// frameFor is the frame n values of kind k in [lo, hi] pack in when that
// saves at least a quarter of their bytes; ok is false otherwise.
func frameFor(k gpu.Kind, n int, lo, hi int64) (f forpack.Frame, ok bool) {
	if f, ok = forpack.FrameOf(lo, hi); !ok {
		return f, false
	}
	f.Width = byteWidth(f.Width)
	return f, frameFits(f) && f.Bytes(n) <= int64(n*k.Width())*3/4
}

// valueRange is the smallest and largest of n plain values of kind k at
// data, found on the device (rg_minmax) and read back; some is false for
// no values. Callers hold d.mu.
func (d *Device) valueRange(data uint64, k gpu.Kind, n int) (lo, hi int64, some bool, err error) {
	if n == 0 {
		return 0, 0, false, nil
	}
	out, err := d.pool.get(16, "a column's range")
	if err != nil {
		return 0, 0, false, err
	}
	defer d.pool.put(out)
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], math.MaxInt64)
	binary.LittleEndian.PutUint64(b[8:], 1<<63) // math.MinInt64
	if err := d.copyIn(out, b[:], "a column's range"); err != nil {
		return 0, 0, false, err
	}
	args := []uint64{uint64(n), data, uint64(k.Width()), out}
	if err := d.timedLaunch(d.util, "rg_minmax", d.gridFor(int64(n), blockThreads), blockThreads, 0, args); err != nil {
		return 0, 0, false, err
	}
	if err := d.copyOut(b[:], out, "a column's range"); err != nil {
		return 0, 0, false, err
	}
	return int64(binary.LittleEndian.Uint64(b[:8])), int64(binary.LittleEndian.Uint64(b[8:])), true, nil
}

// newPacked allocates the words of a column of rows rows packed in f, its
// pad words zeroed. Callers hold d.mu.
func (d *Device) newPacked(f forpack.Frame, rows int, what string) (*packedColumn, error) {
	p := &packedColumn{frame: f, bytes: f.Bytes(rows)}
	var err error
	if p.words, err = d.allocDirect(p.bytes, what+" (packed)"); err != nil {
		return nil, err
	}
	// The zero words after the last value (forpack.PadWords).
	if err := d.cx.memset(p.words+uint64(p.bytes)-4*forpack.PadWords, 0, 4*forpack.PadWords, d.stream); err != nil {
		d.freeDirect(p.words)
		return nil, err
	}
	return p, nil
}

// packRows writes n plain values of kind k at data into p's words from
// row at, in p's frame (every value must lie in it), on the device
// (rg_pack). Callers hold d.mu.
func (d *Device) packRows(p *packedColumn, at int, data uint64, k gpu.Kind, n int) error {
	if n == 0 || p.frame.Width == 0 {
		return nil
	}
	args := []uint64{uint64(n), data, uint64(k.Width()), uint64(p.frame.Base), uint64(p.frame.Width), p.words, uint64(at)}
	return d.timedLaunch(d.util, "rg_pack", d.gridFor(int64(n), blockThreads), blockThreads, 0, args)
}

// packPlaced packs a table column just uploaded plain (c.data), on the
// device, when the policy packs it and packing saves a quarter of its
// bytes: the plain values are freed, so the device holds the packed ones
// only. Packing on the device costs a kernel and a 16-byte read back; on
// the host it took two passes over the values, which made cold runs from
// the column store slower than the smaller upload saved
// (bench/results/2026-11-28-h200-tpch-sf10-packed-specialised-v39.md).
// Callers hold d.mu.
func (d *Device) packPlaced(c *column) error {
	if !packingPolicy.packs(c.t.Kind, c.n) || c.data == 0 || c.pooled {
		return nil
	}
	lo, hi, some, err := d.valueRange(c.data, c.t.Kind, c.n)
	if err != nil || !some {
		return err
	}
	f, ok := frameFor(c.t.Kind, c.n, lo, hi)
	if !ok {
		return nil
	}
	p, err := d.newPacked(f, c.n, fmt.Sprintf("%s column of %d rows", c.t, c.n))
	if err != nil {
		return err
	}
	if err := d.packRows(p, 0, c.data, c.t.Kind, c.n); err != nil {
		d.freeDirect(p.words)
		return err
	}
	d.freeDirect(c.data)
	c.data, c.pack = 0, p
	return nil
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
	// From where the column's own buffers come, where freeColumn returns
	// them: the pool for a restored segment (spill.go).
	alloc, free := d.buffersOf(c)
	data, err := alloc(int64(c.n*w), fmt.Sprintf("%s column of %d rows unpacked", c.t, c.n))
	if err != nil || n == 0 {
		return data, err
	}
	args := []uint64{uint64(n), c.pack.words, c.pack.frameWord(), data, uint64(w)}
	if err := d.timedLaunch(d.util, "rg_unpack", d.gridFor(int64(n), blockThreads), blockThreads, 0, args); err != nil {
		free(data)
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
		_, free := d.buffersOf(c) // the pool for a restored segment (spill.go)
		free(c.pack.words)
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
