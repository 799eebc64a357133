package host

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rigel-db/rigel/gpu"
)

var _ gpu.SegmentUploader = (*Device)(nil)

// UploadSegments (gpu.SegmentUploader) uploads each segment and
// concatenates them: the reference device keeps its columns in host memory
// anyway, and Concat already says what one column of several parts is.
func (d *Device) UploadSegments(ctx context.Context, rows int, segments func(put func(arrow.Array) error) error) (gpu.Column, error) {
	var parts [][]gpu.Column
	release := func() {
		for _, p := range parts {
			p[0].Release()
		}
	}
	defer release()
	n := 0
	err := segments(func(arr arrow.Array) error {
		defer arr.Release()
		col, err := d.Upload(ctx, arr)
		if err != nil {
			return err
		}
		parts = append(parts, []gpu.Column{col})
		n += col.Len()
		return nil
	})
	if err != nil {
		return nil, err
	}
	if n != rows {
		return nil, fmt.Errorf("upload: segments of %d rows, %d announced", n, rows)
	}
	switch len(parts) {
	case 0:
		return nil, fmt.Errorf("upload: no segment")
	case 1:
		col := parts[0][0]
		parts = nil
		return col, nil
	}
	out, err := d.Concat(ctx, parts)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}
