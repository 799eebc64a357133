package cuda

import (
	"encoding/binary"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rigel-db/rigel/gpu"
)

// decodeDict runs on the host: no GPU needed. The dictionary is a slice of
// a larger array so that its offsets do not start at 0.
func TestDecodeDict(t *testing.T) {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	b.AppendValues([]string{"skip", "", "a", "héllo", "zz"}, nil)
	full := b.NewStringArray()
	defer full.Release()
	dict := array.NewSlice(full, 1, 5).(*array.String)
	defer dict.Release()

	codes := []int32{2, 0, -7, 3, 1, 2}
	valid := []byte{1, 1, 0, 1, 1, 1}
	h := &hostColumn{t: gpu.Type{Kind: gpu.Dict, Nullable: true}, n: len(codes), valid: valid, dict: dict, data: make([]byte, 4*len(codes))}
	for i, c := range codes {
		binary.LittleEndian.PutUint32(h.data[i*4:], uint32(c))
	}
	arr, err := decodeDict(h)
	if err != nil {
		t.Fatal(err)
	}
	defer arr.Release()
	s := arr.(*array.String)
	want := []string{"héllo", "", "", "zz", "a", "héllo"}
	if s.Len() != len(want) || s.NullN() != 1 || !s.IsNull(2) {
		t.Fatalf("got %v (len %d, %d nulls), want %q with row 2 null", s, s.Len(), s.NullN(), want)
	}
	for i, w := range want {
		if i != 2 && s.Value(i) != w {
			t.Errorf("row %d: %q, want %q", i, s.Value(i), w)
		}
	}

	binary.LittleEndian.PutUint32(h.data[0:], 4) // one past the dictionary
	if _, err := decodeDict(h); err == nil {
		t.Error("a code past the dictionary decoded without an error")
	}
}

// An empty table's string column: no rows, and a dictionary without an
// offsets buffer (SELECT * FROM an empty table once indexed offsets[0]).
func TestDecodeDictEmpty(t *testing.T) {
	empty := array.NewData(arrow.BinaryTypes.String, 0, []*memory.Buffer{nil, nil, nil}, nil, 0, 0)
	defer empty.Release()
	dict := array.NewStringData(empty)
	defer dict.Release()
	for _, valid := range [][]byte{nil, {0, 0}} {
		h := &hostColumn{t: gpu.Type{Kind: gpu.Dict, Nullable: valid != nil}, n: len(valid), valid: valid, dict: dict, data: make([]byte, 4*len(valid))}
		arr, err := decodeDict(h)
		if err != nil {
			t.Fatal(err)
		}
		if arr.Len() != len(valid) || arr.NullN() != len(valid) {
			t.Errorf("%d rows, %d nulls; want %d of each", arr.Len(), arr.NullN(), len(valid))
		}
		arr.Release()
	}
}

func TestValidityBitmap(t *testing.T) {
	if b, nulls := validityBitmap(nil); b != nil || nulls != 0 {
		t.Fatalf("no validity: got %v, %d nulls", b, nulls)
	}
	valid := []byte{1, 0, 1, 1, 0, 0, 1, 1, 1, 0}
	b, nulls := validityBitmap(valid)
	if nulls != 4 {
		t.Fatalf("%d nulls, want 4", nulls)
	}
	for i, v := range valid {
		if bitutil.BitIsSet(b.Bytes(), i) != (v != 0) {
			t.Fatalf("row %d: bit %v, validity byte %d", i, bitutil.BitIsSet(b.Bytes(), i), v)
		}
	}
}
