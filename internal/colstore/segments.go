package colstore

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// SegmentWriter keeps a column that is read a segment at a time, without
// ever holding all of it: each segment is one record batch of the column's
// file, written in the background while the reader goes on to the next
// (at most one write under way: the host holds at most two segments for
// it). The file appears, whole, at Commit; Abort leaves nothing behind.
// A dictionary form's segments share one dictionary, written at Commit.
type SegmentWriter struct {
	s       *Store
	k       Key
	base    string
	release func() // the disk space reserved
	f       *os.File
	w       *ipc.FileWriter
	schema  *arrow.Schema
	dict    *array.String
	busy    chan error // the write under way, nil when none
	err     error
}

// NewSegmentWriter starts keeping the column k of about estimate bytes, or
// is nil when the store keeps nothing more (its limit, the disk's free
// space: the reason counts as a skipped write).
func (s *Store) NewSegmentWriter(k Key, estimate int64) *SegmentWriter {
	release, err := s.room(k, estimate)
	if release == nil {
		s.skipped(err)
		return nil
	}
	return &SegmentWriter{s: s, k: k, base: k.file(s.dir), release: release}
}

// Append writes arr, the column's next segment (the codes of a dictionary
// array in the dictionary form), in the background; it takes its own
// reference to arr. It first waits for the previous segment's write.
func (w *SegmentWriter) Append(arr arrow.Array) {
	if w.wait() != nil {
		return
	}
	part := arr
	if w.k.Form == FormDictionary {
		// The segments share one dictionary (the reader's contract); its
		// length is checked, not its strings.
		d, ok := arr.(*array.Dictionary)
		var vals *array.String
		if ok {
			vals, ok = d.Dictionary().(*array.String)
		}
		if !ok || w.dict != nil && vals.Len() != w.dict.Len() {
			w.err = fmt.Errorf("colstore: a %s segment for the dictionary form", arr.DataType())
			return
		}
		if w.dict == nil {
			vals.Retain()
			w.dict = vals
		}
		part = d.Indices()
	}
	if w.w == nil {
		if w.err = w.create(part.DataType()); w.err != nil {
			return
		}
	}
	part.Retain()
	w.busy = make(chan error, 1)
	go func(busy chan error) {
		defer part.Release()
		rec := array.NewRecordBatch(w.schema, []arrow.Array{part}, int64(part.Len()))
		defer rec.Release()
		busy <- w.w.Write(rec)
	}(w.busy)
}

func (w *SegmentWriter) create(t arrow.DataType) error {
	f, err := os.CreateTemp(filepath.Dir(w.base), filepath.Base(w.base)+".arrow.*.tmp")
	if err != nil {
		return err
	}
	schema := columnSchema(t, w.k.what())
	iw, err := ipc.NewFileWriter(f, ipc.WithSchema(schema))
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	w.f, w.w, w.schema = f, iw, schema
	return nil
}

// wait waits for the write under way and returns the writer's error.
func (w *SegmentWriter) wait() error {
	if w.busy != nil {
		if err := <-w.busy; err != nil && w.err == nil {
			w.err = err
		}
		w.busy = nil
	}
	return w.err
}

// Commit waits for the last write and puts the file in place (Abort's
// cleanup when a write failed).
func (w *SegmentWriter) Commit() {
	if w.wait() != nil || w.w == nil {
		w.Abort()
		return
	}
	err := w.w.Close()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err == nil && w.dict != nil {
		err = writeArray(w.base+".dict.arrow", w.dict, w.k.what())
	}
	if err == nil {
		err = os.Rename(w.f.Name(), w.base+".arrow")
	}
	if err != nil {
		w.err = err
		w.Abort()
		return
	}
	var size int64
	for _, p := range []string{w.base + ".arrow", w.base + ".dict.arrow"} {
		if st, err := os.Stat(p); err == nil {
			size += st.Size()
		}
	}
	w.finish()
	w.s.written(size)
}

// Abort waits for the write under way and removes what was written.
func (w *SegmentWriter) Abort() {
	w.wait()
	if w.w != nil {
		w.w.Close()
		w.f.Close()
		os.Remove(w.f.Name())
		w.w = nil
	}
	w.finish()
	w.s.skipped(w.err)
}

func (w *SegmentWriter) finish() {
	if w.dict != nil {
		w.dict.Release()
		w.dict = nil
	}
	if w.release != nil {
		w.release()
		w.release = nil
	}
}
