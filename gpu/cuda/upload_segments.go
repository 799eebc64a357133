package cuda

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/forpack"
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
// each segment continues the word the last one ended in (its last word,
// kept on the host, is sent again with the new bits). A segment outside
// the frame (sorted keys grow past the first segment's range) unpacks the
// rows placed so far into a plain column, which the rest fills as any
// plain column.
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

// segmentUpload is an UploadSegments in progress: the column, the rows
// placed (at), and for a packed column the bits of its last word.
type segmentUpload struct {
	d    *Device
	rows int
	c    *column
	at   int
	tail uint32 // a packed column's last word, partly filled
}

// put places segment h (h.n rows from row s.at).
func (s *segmentUpload) put(ctx context.Context, h *hostColumn) error {
	d := s.d
	// A packed column's segment is packed on the host, before the lock.
	var f forpack.Frame
	packed, fits := false, false
	if s.c == nil && packingPolicy.packs(h.t.Kind, s.rows) {
		var err error
		if f, packed, err = h.frameFor(); err != nil {
			return err
		}
		fits = packed
	} else if s.c != nil && s.c.pack != nil {
		packed, f = true, s.c.pack.frame
		lo, hi, some, err := forpack.Range(h.data, h.t.Kind.Width(), h.n)
		if err != nil {
			return err
		}
		fits = h.t.Kind == s.c.t.Kind && (!some || f.Holds(lo, hi))
	}
	var words []uint32
	bit := uint64(s.at) * uint64(f.Width)
	if packed && fits {
		b, err := h.mapped(int((bit%32+uint64(h.n)*uint64(f.Width)+31)/32) * 4)
		if err != nil {
			return err
		}
		words = uint32s(b)
		if len(words) > 0 {
			words[0] = s.tail
		}
		if err := forpack.Pack(h.data, h.t.Kind.Width(), h.n, f, words, uint(bit%32)); err != nil {
			return err
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	defer d.watch(ctx)()
	if d.closed {
		return fmt.Errorf("upload: CUDA device is closed")
	}
	if s.c == nil {
		if err := s.allocate(h, f, packed); err != nil {
			return err
		}
	} else if h.t.Kind != s.c.t.Kind || h.t.Scale != s.c.t.Scale {
		return fmt.Errorf("upload: a segment of %s after segments of %s", h.t, s.c.t)
	} else if s.c.t.Kind == gpu.Dict && !gpu.SameDictionary(s.c.dict, h.dict) {
		return fmt.Errorf("upload: a segment with another dictionary (%d strings, not %d)", dictLen(h.dict), dictLen(s.c.dict))
	}
	what := fmt.Sprintf("rows %d to %d of a %s column", s.at, s.at+h.n, s.c.t)
	if s.c.pack != nil && !fits {
		if err := s.toPlain(); err != nil {
			return err
		}
	}
	if s.c.pack != nil {
		if err := d.copyIn(s.c.pack.words+4*(bit/32), bytesOf(words), what+" (packed)"); err != nil {
			return err
		}
		s.tail = 0 // the next segment starts a word
		if end := uint64(s.at+h.n) * uint64(f.Width); end%32 != 0 && len(words) > 0 {
			s.tail = words[len(words)-1]
		}
	} else if err := d.copyIn(s.c.data+uint64(int64(s.at)*int64(s.c.t.Kind.Width())), h.data, what); err != nil {
		return err
	}
	if err := s.putValidity(h, what); err != nil {
		return err
	}
	s.at += h.n
	return nil
}

// allocate makes the column at its first segment h: packed in frame f
// when packed is set.
func (s *segmentUpload) allocate(h *hostColumn, f forpack.Frame, packed bool) error {
	d := s.d
	t := h.t
	t.Nullable = false // a validity buffer comes with the first nulls
	c := &column{d: d, t: t, n: s.rows, dict: h.dict}
	what := fmt.Sprintf("%s column of %d rows", t, s.rows)
	var err error
	if packed {
		c.pack = &packedColumn{frame: f, bytes: f.Bytes(s.rows)}
		if c.pack.words, err = d.allocDirect(c.pack.bytes, what+" (packed)"); err == nil {
			// The zero words after the last value (forpack.PadWords).
			err = d.cx.memset(c.pack.words+uint64(c.pack.bytes)-4*forpack.PadWords, 0, 4*forpack.PadWords, d.stream)
		}
	} else {
		c.data, err = d.allocDirect(int64(s.rows*t.Kind.Width()), what)
	}
	if err != nil {
		d.freePacked(c)
		return err
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

// bytesOf views words as bytes.
func bytesOf(words []uint32) []byte {
	if len(words) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), 4*len(words))
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
