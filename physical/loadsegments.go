package physical

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rigel-db/rigel/gpu"
)

// A table column of more than a segment's rows loads a segment at a time
// where the source can read it so (SegmentReader) and the device can fill
// it so (gpu.SegmentUploader): the host then holds one segment of the
// column, not all of it. TPC-H SF100's lineitem columns are 600 M rows,
// 4.8 GB each at 8 bytes; Q1's 7 of them held 18.9 GB of host memory in one
// process (bench/results/2026-11-28-h200-tpch-sf100-v34.md). Strings in
// Arrow layout (gpu.Str) load whole: their characters are one buffer.

// defaultSegmentRows: 2^26 rows, 512 MB of 8-byte values. A table of at
// most this many rows (TPC-H SF10's lineitem has 60 M) loads as before.
const defaultSegmentRows = 1 << 26

// segmentRows is RIGEL_LOAD_SEGMENT_ROWS (0: whole columns), else
// defaultSegmentRows; read at every load, an error when it is not a count.
func segmentRows() (int64, error) {
	s := os.Getenv("RIGEL_LOAD_SEGMENT_ROWS")
	if s == "" {
		return defaultSegmentRows, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("RIGEL_LOAD_SEGMENT_ROWS: %q is not a number of rows (0 loads whole columns)", s)
	}
	return n, nil
}

// segmentsOf says whether column i of s, of rows rows, loads in segments
// of per rows from src onto dev (not one the source derives: derive.go).
func segmentsOf(src TableSource, dev gpu.Device, s *Scan, i int, rows, per int64) (SegmentReader, gpu.SegmentUploader) {
	sr, ok1 := src.(SegmentReader)
	su, ok2 := dev.(gpu.SegmentUploader)
	if !ok1 || !ok2 || per <= 0 || rows <= per || s.Types[i].Kind == gpu.Str || s.derived(i) != nil {
		return nil, nil
	}
	return sr, su
}

// loadSegments fills the device column of a table column a segment at a
// time, telling landed the bytes of each segment uploaded; it returns the
// column, the bytes read from the source and the time the uploads took.
func loadSegments(ctx context.Context, sr SegmentReader, su gpu.SegmentUploader, table, column string, t gpu.Type, rows, per int64, landed func(bytes int64)) (gpu.Column, int64, time.Duration, error) {
	var bytes int64
	var up time.Duration
	col, err := su.UploadSegments(ctx, int(rows), func(put func(arrow.Array) error) error {
		return sr.ReadColumnSegments(ctx, table, column, t.Kind == gpu.Dict, per, func(arr arrow.Array) error {
			n := arrayBytes(arr)
			bytes += n
			t0 := time.Now()
			err := put(arr)
			up += time.Since(t0)
			if err == nil {
				landed(n)
			}
			return err
		})
	})
	return col, bytes, up, err
}
