package cuda

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// PeakBytesLive is the most device memory held at once since ResetStats:
// a column uploaded and freed after the reset leaves the peak at least its
// size above what is held, and the next reset brings the peak back to
// what is held.
func TestPeakBytesLive(t *testing.T) {
	d := openOrSkip(t)
	ctx := context.Background()
	b := array.NewInt64Builder(memory.DefaultAllocator)
	for i := range 1 << 20 {
		b.Append(int64(i) * 7919) // too wide to pack into fewer bytes a row than half
	}
	arr := b.NewArray()
	defer arr.Release()
	d.ResetStats()
	before := d.Stats()
	if before.PeakBytesLive != before.BytesLive {
		t.Fatalf("after ResetStats the peak is %d bytes, %d held", before.PeakBytesLive, before.BytesLive)
	}
	col, err := d.Upload(ctx, arr)
	if err != nil {
		t.Fatal(err)
	}
	held := d.Stats().BytesLive - before.BytesLive
	col.Release()
	after := d.Stats()
	if held < 4<<20 || after.PeakBytesLive < before.BytesLive+held || after.BytesLive != before.BytesLive {
		t.Fatalf("a column of %d bytes: peak %d, held %d before and %d after", held, after.PeakBytesLive, before.BytesLive, after.BytesLive)
	}
	d.ResetStats()
	if s := d.Stats(); s.PeakBytesLive != s.BytesLive {
		t.Fatalf("after a second ResetStats the peak is %d bytes, %d held", s.PeakBytesLive, s.BytesLive)
	}
}
