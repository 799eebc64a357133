package ipcfiles

import (
	"encoding/binary"
	"errors"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// arrow-go trusts some counts and sizes in a file's metadata and allocates
// by them before reading anything: a damaged count (the number of a
// schema's fields, a buffer's uncompressed size) then asks for terabytes,
// and the Go runtime dies of it (out of memory is fatal, not a panic that
// can be recovered). The guards below keep every such allocation within
// what the file can hold, so that a damaged file is an error. Their
// messages hold no value read from the file (see readFile).

// limitAllocator refuses (with a panic that readFile recovers into an
// error) any single allocation above max.
type limitAllocator struct {
	memory.Allocator
	max int
}

func (a limitAllocator) Allocate(size int) []byte {
	a.check(size)
	return a.Allocator.Allocate(size)
}

func (a limitAllocator) Reallocate(size int, b []byte) []byte {
	a.check(size)
	return a.Allocator.Reallocate(size, b)
}

func (a limitAllocator) check(size int) {
	if size > a.max {
		panic("it asks for a buffer larger than a file of its size can hold")
	}
}

// allocLimit is the largest buffer a file of size bytes can need: a
// compressed buffer may grow when decompressed, so a generous factor.
func allocLimit(size int64) int {
	return int(min(size*256+64<<20, 1<<40))
}

// flatbuffer reads the few tables of Arrow's metadata that arrow-go
// allocates by, checking every position against the buffer.
type flatbuffer []byte

func (b flatbuffer) u32(pos int) (int, error) {
	if pos < 0 || pos+4 > len(b) {
		return 0, errors.New("a metadata offset points past the end of the metadata")
	}
	return int(binary.LittleEndian.Uint32(b[pos:])), nil
}

// field returns the absolute position of table field i (0 when absent).
func (b flatbuffer) field(table, i int) (int, error) {
	so, err := b.u32(table)
	if err != nil {
		return 0, err
	}
	vt := table - int(int32(so))
	if vt < 0 || vt+4 > len(b) {
		return 0, errors.New("a metadata table's vtable lies outside the metadata")
	}
	vtSize := int(binary.LittleEndian.Uint16(b[vt:]))
	at := 4 + 2*i
	if at+2 > vtSize || vt+at+2 > len(b) {
		return 0, nil
	}
	o := int(binary.LittleEndian.Uint16(b[vt+at:]))
	if o == 0 {
		return 0, nil
	}
	return table + o, nil
}

// ref follows the offset of table field i (a table, vector or string) to
// its absolute position (0 when absent).
func (b flatbuffer) ref(table, i int) (int, error) {
	p, err := b.field(table, i)
	if err != nil || p == 0 {
		return 0, err
	}
	o, err := b.u32(p)
	if err != nil {
		return 0, err
	}
	return p + o, nil
}

// vector checks the vector at table field i whose elements are elem bytes
// each, and returns its length and the position of its first element.
func (b flatbuffer) vector(table, i, elem int) (n, start int, err error) {
	p, err := b.ref(table, i)
	if err != nil || p == 0 {
		return 0, 0, err
	}
	n, err = b.u32(p)
	if err != nil {
		return 0, 0, err
	}
	if n > (len(b)-p-4)/elem {
		return 0, 0, errors.New("a metadata vector is longer than the metadata holds")
	}
	return n, p + 4, nil
}

// tables checks a vector of tables at table field i and each table in it.
func (b flatbuffer) tables(table, i int, check func(pos int) error) error {
	n, start, err := b.vector(table, i, 4)
	if err != nil {
		return err
	}
	for k := 0; k < n; k++ {
		o, err := b.u32(start + 4*k)
		if err != nil {
			return err
		}
		if err := check(start + 4*k + o); err != nil {
			return err
		}
	}
	return nil
}

// keyValues checks custom_metadata (field i): key and value strings.
func (b flatbuffer) keyValues(table, i int) error {
	return b.tables(table, i, func(kv int) error {
		for f := 0; f < 2; f++ {
			if _, _, err := b.vector(kv, f, 1); err != nil {
				return err
			}
		}
		return nil
	})
}

// schema checks a Schema table: fields (1), custom_metadata (2), features (3).
func (b flatbuffer) schema(pos int) error {
	if err := b.tables(pos, 1, func(f int) error { return b.fieldTable(f, 0) }); err != nil {
		return err
	}
	if err := b.keyValues(pos, 2); err != nil {
		return err
	}
	_, _, err := b.vector(pos, 3, 8)
	return err
}

// fieldTable checks a Field table: name (0), children (5), custom_metadata (6).
func (b flatbuffer) fieldTable(pos, depth int) error {
	if depth > 64 {
		return errors.New("metadata fields nested more than 64 deep")
	}
	if _, _, err := b.vector(pos, 0, 1); err != nil {
		return err
	}
	if err := b.tables(pos, 5, func(c int) error { return b.fieldTable(c, depth+1) }); err != nil {
		return err
	}
	return b.keyValues(pos, 6)
}

// checkFileSchema checks the schema in an IPC file's footer (the file ends
// with the footer, its int32 length and the magic ARROW1).
func checkFileSchema(data []byte) error {
	const tail = 4 + 6
	if len(data) < 8+tail {
		return errors.New("the file is too short for the Arrow IPC file format")
	}
	n := int(int32(binary.LittleEndian.Uint32(data[len(data)-tail:])))
	start := len(data) - tail - n
	if n <= 0 || start < 8 {
		return errors.New("the length of its footer does not fit the file")
	}
	b := flatbuffer(data[start : len(data)-tail])
	root, err := b.u32(0)
	if err != nil {
		return err
	}
	s, err := b.ref(root, 1)
	if err != nil {
		return err
	}
	if s == 0 {
		return errors.New("its footer holds no schema")
	}
	return b.schema(s)
}

// checkStreamSchema checks the schema message that opens an IPC stream
// (an optional continuation token 0xFFFFFFFF, the int32 length of the
// message, the Message flatbuffer whose header (field 2) is the schema).
func checkStreamSchema(head []byte) error {
	p := 0
	if len(head) >= 4 && binary.LittleEndian.Uint32(head) == 0xFFFFFFFF {
		p = 4
	}
	if len(head) < p+4 {
		return errors.New("it holds no schema message")
	}
	n := int(int32(binary.LittleEndian.Uint32(head[p:])))
	if n <= 0 || n > len(head)-p-4 {
		return errors.New("the length of its first message does not fit the file")
	}
	b := flatbuffer(head[p+4 : p+4+n])
	root, err := b.u32(0)
	if err != nil {
		return err
	}
	s, err := b.ref(root, 2)
	if err != nil {
		return err
	}
	if s == 0 {
		return errors.New("its first message has no header")
	}
	return b.schema(s)
}
