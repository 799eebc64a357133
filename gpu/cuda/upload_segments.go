package cuda

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rigel-db/rigel/gpu"
)

var _ gpu.SegmentUploader = (*Device)(nil)

// UploadSegments fills a table column of rows rows a segment at a time
// (gpu.SegmentUploader): the column is allocated at the first segment, as
// Upload allocates one (outside the pool), and each segment is encoded and
// copied in at its first row. The device's lock is held for a segment's
// copy, not while the source reads the next one. A validity buffer is
// made at the first segment with nulls (the rows before it marked valid):
// the column is nullable exactly when Upload of the whole would make it so.
func (d *Device) UploadSegments(ctx context.Context, rows int, segments func(put func(arrow.Array) error) error) (gpu.Column, error) {
	var c *column
	at := 0
	put := func(arr arrow.Array) error {
		defer arr.Release()
		if err := gpu.CtxErr(ctx); err != nil {
			return err
		}
		h, err := encode(arr)
		if err != nil {
			return err
		}
		defer h.free()
		d.mu.Lock()
		defer d.mu.Unlock()
		defer d.watch(ctx)()
		if d.closed {
			return fmt.Errorf("upload: CUDA device is closed")
		}
		if at+h.n > rows {
			return fmt.Errorf("upload: segments of more than the %d rows announced", rows)
		}
		if c == nil {
			t := h.t
			t.Nullable = false // a validity buffer comes with the first nulls
			c = &column{d: d, t: t, n: rows, dict: h.dict}
			if c.dict != nil {
				c.dict.Retain() // the column's own reference, released by freeColumn
			}
			if c.data, err = d.allocDirect(int64(rows*t.Kind.Width()), fmt.Sprintf("%s column of %d rows", t, rows)); err != nil {
				if c.dict != nil {
					c.dict.Release()
				}
				c = nil
				return err
			}
		} else if h.t.Kind != c.t.Kind || h.t.Scale != c.t.Scale {
			return fmt.Errorf("upload: a segment of %s after segments of %s", h.t, c.t)
		} else if c.t.Kind == gpu.Dict && !gpu.SameDictionary(c.dict, h.dict) {
			return fmt.Errorf("upload: a segment with another dictionary (%d strings, not %d)", dictLen(h.dict), dictLen(c.dict))
		}
		w := int64(c.t.Kind.Width())
		what := fmt.Sprintf("rows %d to %d of a %s column", at, at+h.n, c.t)
		if err := d.copyIn(c.data+uint64(int64(at)*w), h.data, what); err != nil {
			return err
		}
		if h.valid != nil && c.valid == 0 {
			if c.valid, err = d.allocDirect(int64(rows), what+" validity"); err != nil {
				return err
			}
			c.t.Nullable = true
			if err := d.cx.memset(c.valid, 1, int64(at), d.stream); err != nil {
				return err
			}
		}
		switch {
		case h.valid != nil:
			err = d.copyIn(c.valid+uint64(at), h.valid, what+" validity")
		case c.valid != 0:
			err = d.cx.memset(c.valid+uint64(at), 1, int64(h.n), d.stream)
		}
		if err != nil {
			return err
		}
		at += h.n
		return nil
	}
	err := segments(put)
	if err == nil && at != rows {
		err = fmt.Errorf("upload: segments of %d rows, %d announced", at, rows)
	}
	if err != nil {
		if c != nil {
			d.mu.Lock()
			d.freeColumn(c)
			d.mu.Unlock()
		}
		return nil, err
	}
	if c == nil { // no segment: an empty column needs a type
		return nil, fmt.Errorf("upload: no segment")
	}
	return c, nil
}
