package cuda

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rigel-db/rigel/gpu"
)

// A column spilled to pinned host memory and restored twice downloads as
// it was uploaded: packed (a decimal and a date in narrow frames), plain
// (a column too short to pack), with nulls, dictionary-encoded. A restore
// is freed with its run (the pool), the host copy by Release; a Str column
// is refused.
func TestSpillRestoreKeepsColumns(t *testing.T) {
	d := openOrSkip(t)
	ctx := context.Background()
	mem := memory.DefaultAllocator
	n := 1 << 17 // packMinRows and more: packed
	dec := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 15, Scale: 2})
	date := array.NewDate32Builder(mem)
	str := array.NewStringBuilder(mem)
	small := array.NewInt64Builder(mem)
	for i := range n {
		dec.Append(decimal128.FromI64(int64(i%5000) + 100))
		if i%7 == 0 {
			date.AppendNull()
		} else {
			date.Append(arrow.Date32(8000 + i%2500))
		}
		str.Append([]string{"AIR", "MAIL", "SHIP", "RAIL"}[i%4])
		if i < 100 {
			small.Append(int64(i) * -3)
		}
	}
	arrays := []arrow.Array{dec.NewArray(), date.NewArray(), str.NewArray(), small.NewArray()}
	for _, a := range arrays {
		defer a.Release()
	}
	for i, a := range arrays {
		col, err := d.Upload(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		want, err := d.Download(ctx, col)
		if err != nil {
			t.Fatal(err)
		}
		h, err := d.Spill(ctx, col)
		if err != nil {
			t.Fatalf("column %d: %v", i, err)
		}
		packed := col.(*column).pack != nil
		col.Release()
		if packed && h.Bytes() >= gpu.PlainBytes(col) {
			t.Errorf("column %d: the host copy of a packed column takes %d bytes, its plain values %d", i, h.Bytes(), gpu.PlainBytes(col))
		}
		for range 2 {
			back, err := d.Restore(ctx, h)
			if err != nil {
				t.Fatalf("column %d: %v", i, err)
			}
			got, err := d.Download(ctx, back)
			if err != nil {
				t.Fatal(err)
			}
			if !array.Equal(got, want) {
				t.Fatalf("column %d (packed %v) restored: %v, uploaded: %v", i, packed, got, want)
			}
			got.Release()
			back.Release()
		}
		want.Release()
		h.Release()
		if _, err := d.Restore(ctx, h); err == nil {
			t.Errorf("column %d: restored after its Release", i)
		}
	}
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"a", "bc"}, nil)
	sa := sb.NewArray()
	defer sa.Release()
	sc, err := d.UploadStr(ctx, sa)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Release()
	if _, err := d.Spill(ctx, sc); !errors.Is(err, gpu.ErrUnsupported) {
		t.Errorf("spilling a str column: %v, want ErrUnsupported", err)
	}
}

// Restores run on the copy stream beside the kernels (copystream.go): a
// segment restored ahead of the previous segment's run, whose buffers go
// back to the pool as the next restore takes buffers from it, still sums
// to its own values, round after round (a missing wait would let a kernel
// read a buffer the copy has not filled, or a copy overwrite one a kernel
// still reads).
func TestRestoreAheadOfKernels(t *testing.T) {
	d := openOrSkip(t)
	ctx := context.Background()
	const segments, n = 6, 1 << 22
	var hosts []gpu.HostColumn
	var want []int64
	for k := range segments {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		var sum int64
		for i := range n {
			v := int64(k)*1_000_003 + int64(i*7%1000)
			if k%2 == 1 {
				v = int64(i) * int64(k) // wide: plain, not packed narrow
			}
			b.Append(v)
			sum += v
		}
		arr := b.NewArray()
		col, err := d.Upload(ctx, arr)
		arr.Release()
		if err != nil {
			t.Fatal(err)
		}
		h, err := d.Spill(ctx, col)
		col.Release()
		if err != nil {
			t.Fatal(err)
		}
		defer h.Release()
		hosts, want = append(hosts, h), append(want, sum)
	}
	x := gpu.Col(0, tI64)
	q := &gpu.Pipeline{Inputs: []gpu.Type{tI64}, Sink: gpu.SinkAggregate, Project: []*gpu.Expr{x},
		Aggs: []gpu.Agg{{Kind: gpu.AggSum, Arg: 0, Type: nul(dec128(38, 0))}}}
	for round := range 3 {
		next, err := d.Restore(ctx, hosts[0])
		if err != nil {
			t.Fatal(err)
		}
		for k := range segments {
			cur := next
			if k+1 < segments {
				if next, err = d.Restore(ctx, hosts[k+1]); err != nil {
					t.Fatal(err)
				}
			}
			out, err := d.Run(ctx, q, []gpu.Column{cur})
			cur.Release()
			if err != nil {
				t.Fatal(err)
			}
			a, err := d.Download(ctx, out[0])
			releaseAll(out)
			if err != nil {
				t.Fatal(err)
			}
			if got := a.(*array.Decimal128).Value(0).LowBits(); int64(got) != want[k] {
				t.Errorf("round %d, segment %d: sum %d, want %d", round, k, int64(got), want[k])
			}
			a.Release()
		}
	}
}
