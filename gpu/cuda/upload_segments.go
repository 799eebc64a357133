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
//
// A column Upload would pack (packed.go) is packed segment by segment in
// the frame of its first segment, when that saves a quarter of the bytes:
// each segment is copied plain into a buffer of the pool and packed from
// there on the device (its frame's widths are whole bytes, so a segment
// starts at a byte of the words). A segment outside the frame (sorted
// keys grow past the first segment's range) unpacks the rows placed so
// far into a plain column, which the rest fills as any plain column.
func (d *Device) UploadSegments(ctx context.Context, rows int, segments func(put func(arrow.Array) error) error) (gpu.Column, error) {
	s := &segmentUpload{d: d, rows: rows}
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
		if s.at+h.n > rows {
			return fmt.Errorf("upload: segments of more than the %d rows announced", rows)
		}
		return s.put(ctx, h)
	}
	err := segments(put)
	if err == nil && s.at != rows {
		err = fmt.Errorf("upload: segments of %d rows, %d announced", s.at, rows)
	}
	if err != nil {
		s.free()
		return nil, err
	}
	if s.c == nil { // no segment: an empty column needs a type
		return nil, fmt.Errorf("upload: no segment")
	}
	return s.c, nil
}

// segmentUpload is an UploadSegments in progress: the column and the rows
// placed (at).
type segmentUpload struct {
	d    *Device
	rows int
	c    *column
	at   int
}

// put places segment h (h.n rows from row s.at).
func (s *segmentUpload) put(ctx context.Context, h *hostColumn) error {
	d := s.d
	d.mu.Lock()
	defer d.mu.Unlock()
	defer d.watch(ctx)()
	if d.closed {
		return fmt.Errorf("upload: CUDA device is closed")
	}
	if s.c != nil {
		if h.t.Kind != s.c.t.Kind || h.t.Scale != s.c.t.Scale {
			return fmt.Errorf("upload: a segment of %s after segments of %s", h.t, s.c.t)
		} else if s.c.t.Kind == gpu.Dict && !gpu.SameDictionary(s.c.dict, h.dict) {
			return fmt.Errorf("upload: a segment with another dictionary (%d strings, not %d)", dictLen(h.dict), dictLen(s.c.dict))
		}
	}
	what := fmt.Sprintf("rows %d to %d of a %s column", s.at, s.at+h.n, h.t)
	packing := s.c == nil && packingPolicy.packs(h.t.Kind, s.rows) || s.c != nil && s.c.pack != nil
	if !packing {
		if s.c == nil {
			if err := s.allocate(h, nil); err != nil {
				return err
			}
		}
		if err := d.copyIn(s.c.data+uint64(int64(s.at)*int64(s.c.t.Kind.Width())), h.data, what); err != nil {
			return err
		}
	} else if err := s.putPacked(h, what); err != nil {
		return err
	}
	if err := s.putValidity(h, what); err != nil {
		return err
	}
	s.at += h.n
	return nil
}

// putPacked places segment h of a column that packs: copied plain into a
// buffer of the pool, its range read there, and packed from it when it
// lies in the column's frame (the first segment's, which makes the
// column); else the column turns plain and the segment is copied from the
// buffer. d.mu held.
func (s *segmentUpload) putPacked(h *hostColumn, what string) error {
	d := s.d
	w := h.t.Kind.Width()
	stage, err := d.pool.get(int64(h.n*w), what)
	if err != nil {
		return err
	}
	defer d.pool.put(stage) // stream order: the pack reads it first
	if err := d.copyIn(stage, h.data, what); err != nil {
		return err
	}
	lo, hi, some, err := d.valueRange(stage, h.t.Kind, h.n)
	if err != nil {
		return err
	}
	if s.c == nil {
		var p *packedColumn
		if f, ok := frameFor(h.t.Kind, s.rows, lo, hi); ok && some {
			if p, err = d.newPacked(f, s.rows, fmt.Sprintf("%s column of %d rows", h.t, s.rows)); err != nil {
				return err
			}
		}
		if err := s.allocate(h, p); err != nil {
			return err
		}
	} else if some && !s.c.pack.frame.Holds(lo, hi) {
		if err := s.toPlain(); err != nil {
			return err
		}
	}
	if s.c.pack != nil {
		return d.packRows(s.c.pack, s.at, stage, h.t.Kind, h.n)
	}
	return d.copyDtoD(s.c.data+uint64(int64(s.at)*int64(w)), stage, int64(h.n*w))
}

// allocate makes the column at its first segment h: packed in p when p is
// not nil (the column then owns it), else plain.
func (s *segmentUpload) allocate(h *hostColumn, p *packedColumn) error {
	d := s.d
	t := h.t
	t.Nullable = false // a validity buffer comes with the first nulls
	c := &column{d: d, t: t, n: s.rows, dict: h.dict, pack: p}
	if p == nil {
		var err error
		if c.data, err = d.allocDirect(int64(s.rows*t.Kind.Width()), fmt.Sprintf("%s column of %d rows", t, s.rows)); err != nil {
			return err
		}
	}
	if c.dict != nil {
		c.dict.Retain() // the column's own reference, released by freeColumn
	}
	s.c = c
	return nil
}

// toPlain turns the packed column into a plain one holding the rows placed
// so far, for a segment outside its frame.
func (s *segmentUpload) toPlain() error {
	data, err := s.d.unpackRows(s.c, s.at)
	if err != nil {
		return err
	}
	s.d.freePacked(s.c)
	s.c.data = data
	return nil
}

// putValidity places h's validity at s.at (h.n rows).
func (s *segmentUpload) putValidity(h *hostColumn, what string) error {
	d, c := s.d, s.c
	if h.valid != nil && c.valid == 0 {
		var err error
		if c.valid, err = d.allocDirect(int64(s.rows), what+" validity"); err != nil {
			return err
		}
		c.t.Nullable = true
		if err := d.cx.memset(c.valid, 1, int64(s.at), d.stream); err != nil {
			return err
		}
	}
	switch {
	case h.valid != nil:
		return d.copyIn(c.valid+uint64(s.at), h.valid, what+" validity")
	case c.valid != 0:
		return d.cx.memset(c.valid+uint64(s.at), 1, int64(h.n), d.stream)
	}
	return nil
}

// free releases what the upload holds after an error.
func (s *segmentUpload) free() {
	if s.c != nil {
		s.d.mu.Lock()
		s.d.freeColumn(s.c)
		s.d.mu.Unlock()
	}
}
