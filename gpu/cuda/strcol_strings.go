package cuda

import (
	"context"
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rigel-db/rigel/gpu"
)

// Str columns (strings in Arrow layout, gpu/ext_strings.go). An upload
// holds the Arrow layout itself: data is the Len()+1 int32 offsets (from
// 0), str the UTF-8 bytes, valid one byte per row as for every column.
// Every Str column an operation makes (a projection, a gather, a sort's
// payload, a group key) holds views instead (views set): one 64-bit word
// per row, the string's start in the upload's characters in the low 32
// bits and its length in the high 32, and shares the upload's characters
// (strChars, reference-counted) rather than copying them. A view is a
// fixed-width value, so gathers, sorts and hash tables move it like an
// int64; only Download copies characters (into a fresh Arrow array), and
// only the comparisons of strings (group keys, sort keys, predicates) read
// them.
//
// In a kernel's Args an input column has three words: data, valid, and
// the characters' pointer with bit 0 set when data holds views (inputArgs),
// so that one generated kernel reads either layout (the test is uniform
// across a launch). String join keys are refused (gpu/ext_strings.go).

// strChars is the characters of one Str upload; refs counts the columns
// that use them (the upload and every column of views made from it), all
// under d.mu.
type strChars struct {
	ptr  uint64
	n    int64
	refs int
}

// viewWidth is the bytes of one view.
const viewWidth = 8

// devWidth is the bytes per row of a column of type t that an operation
// makes: a Str one holds views.
func devWidth(t gpu.Type) int {
	if t.Kind == gpu.Str {
		return viewWidth
	}
	return t.Kind.Width()
}

// shareStr makes c (a new Str column of views) use src's characters.
func (c *column) shareStr(src *column) {
	if src == nil || src.str == nil {
		return
	}
	src.str.refs++
	c.str = src.str
}

// dropChars releases one reference to s, freeing the characters with the
// last one. d.mu held.
func (d *Device) dropChars(s *strChars) {
	s.refs--
	if s.refs == 0 {
		d.freeDirect(s.ptr)
	}
}

// inputArgs are the three Args words of an input column.
func inputArgs(c *column) (data, valid, aux uint64) {
	if c.readPacked() { // decoded by the kernel (packed.go)
		return c.pack.words, c.valid, c.pack.frameWord()
	}
	if c.str != nil {
		aux = c.str.ptr
		if c.views {
			aux |= 1
		}
	}
	return c.data, c.valid, aux
}

var _ gpu.StrUploader = (*Device)(nil)

// UploadStr copies a utf8 or large_utf8 array as a Str column: the offsets
// (rebased to 0 on the host only when the array does not start at 0) and
// the characters each go in one bulk copy through the pinned buffers.
func (d *Device) UploadStr(ctx context.Context, arr arrow.Array) (gpu.Column, error) {
	if err := gpu.CtxErr(ctx); err != nil {
		return nil, err
	}
	if arr == nil {
		return nil, fmt.Errorf("upload strings: nil array")
	}
	l, err := gpu.ArrowStrLayout(arr)
	if err != nil {
		return nil, fmt.Errorf("upload strings: %w", err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	defer d.watch(ctx)()
	if d.closed {
		return nil, fmt.Errorf("upload strings: CUDA device is closed")
	}
	n := l.Len()
	c := &column{d: d, t: gpu.Type{Kind: gpu.Str, Nullable: l.Nulls > 0}, n: n}
	what := fmt.Sprintf("str column of %d rows", n)
	// The offsets' bytes as the device reads them (the host is
	// little-endian, as every supported CUDA host).
	offs := unsafe.Slice((*byte)(unsafe.Pointer(&l.Offsets[0])), 4*len(l.Offsets))
	err = func() error {
		var err error
		if c.data, err = d.allocDirect(int64(len(offs)), what+" offsets"); err != nil {
			return err
		}
		if err = d.copyIn(c.data, offs, what+" offsets"); err != nil {
			return err
		}
		// At least one byte: a column of empty strings still gets a
		// pointer the kernels may offset by zero. A multiple of 8: kernels
		// read a view's bytes in aligned words (prelude.cuh's rg_strw).
		ptr, err := d.allocDirect((max(int64(len(l.Chars)), 1)+7)&^7, what+" characters")
		if err != nil {
			return err
		}
		c.str = &strChars{ptr: ptr, n: int64(len(l.Chars)), refs: 1}
		if err = d.copyIn(ptr, l.Chars, what+" characters"); err != nil {
			return err
		}
		if l.Valid != nil {
			if c.valid, err = d.allocDirect(int64(n), what+" validity"); err != nil {
				return err
			}
			return d.copyIn(c.valid, l.Valid, what+" validity")
		}
		return nil
	}()
	if err != nil {
		d.freeColumn(c)
		return nil, err
	}
	return c, nil
}

// CharBytes is the characters of a Str upload on the device
// (gpu.StrColumn); 0 for other columns, and for columns of views, which
// share their upload's.
func (c *column) CharBytes() int64 {
	if c.str == nil || c.views {
		return 0
	}
	return c.str.n
}

// asInputs is asColumns for the operations that take Str columns.
func (d *Device) asInputs(cols []gpu.Column) ([]*column, error) {
	return d.checkColumns(cols, acceptStr)
}

// asPipelineInputs is asInputs for generated kernels and the program
// interpreter, which read packed columns as they are (inputArgs) while
// packedLoads.
func (d *Device) asPipelineInputs(cols []gpu.Column) ([]*column, error) {
	return d.checkColumns(cols, pipelineAccepts())
}

// strViewsOf returns cs with each Str upload replaced by a column of views
// of it (rg_str_views), which the caller frees with release; columns of
// views and other kinds are returned as they are. Gather, Concat and Sort
// then move every Str column as 8-byte values. d.mu held.
func (d *Device) strViewsOf(cs []*column) (out []*column, release func(), err error) {
	return d.strViewsWhere(cs, nil)
}

// strViewsWhere is strViewsOf for the columns i where want(i) (all when
// want is nil).
func (d *Device) strViewsWhere(cs []*column, want func(i int) bool) (out []*column, release func(), err error) {
	var made []*column
	release = func() {
		for _, c := range made {
			d.freeColumn(c)
		}
	}
	out = append([]*column(nil), cs...)
	for i, c := range cs {
		if c.t.Kind != gpu.Str || c.views || (want != nil && !want(i)) {
			continue
		}
		v, err := d.newOutput(c.t, c.n, nil, fmt.Sprintf("views of a str column of %d rows", c.n))
		if err != nil {
			release()
			return nil, nil, err
		}
		made = append(made, v)
		v.views = true
		v.shareStr(c)
		if c.valid != 0 {
			if err := d.copyDtoD(v.valid, c.valid, int64(c.n)); err != nil {
				release()
				return nil, nil, err
			}
		}
		if c.n > 0 {
			if err := d.timedLaunch(d.util, "rg_str_views", d.gridFor(int64(c.n), blockThreads), blockThreads, 0, []uint64{uint64(c.n), c.data, v.data}); err != nil {
				release()
				return nil, nil, err
			}
		}
		out[i] = v
	}
	return out, release, nil
}

// strDownload is a Str column being downloaded: the device buffers that
// make its Arrow array, as columns of device layout for fetchBatch (offs:
// an upload's int32 offsets or a compaction's uint64 ones; chars; valid:
// the validity bytes, nil when there are none).
type strDownload struct {
	n                  int
	offs, chars, valid *column
}

// stageStrDownloads prepares Str columns for one batched fetch. An upload
// gives its own buffers. A column of views is compacted on the device:
// rg_str_lens and rg_scan make its offsets, one read of every column's
// total (a single synchronization for them all) sizes the characters, and
// rg_str_compact copies each string to its offset. Buffers come from tmp.
// d.mu held.
func (d *Device) stageStrDownloads(cs []*column, tmp *temps) ([]strDownload, error) {
	out := make([]strDownload, len(cs))
	var compact []int
	for i, c := range cs {
		if c.str == nil {
			return nil, fmt.Errorf("str column of %d rows without characters", c.n)
		}
		out[i] = strDownload{n: c.n}
		if c.valid != 0 {
			out[i].valid = &column{t: gpu.Type{Kind: gpu.Int8}, n: c.n, data: c.valid}
		}
		if !c.views {
			out[i].offs = &column{t: gpu.Type{Kind: gpu.Int32}, n: c.n + 1, data: c.data}
			out[i].chars = &column{t: gpu.Type{Kind: gpu.Int8}, n: int(c.str.n), data: c.str.ptr}
			continue
		}
		what := fmt.Sprintf("str column of %d rows", c.n)
		lens, err := tmp.get(int64(max(c.n, 1))*4, what+" lengths")
		if err != nil {
			return nil, err
		}
		offs, err := tmp.get(int64(c.n+1)*8, what+" offsets")
		if err != nil {
			return nil, err
		}
		if c.n > 0 {
			if err := d.timedLaunch(d.util, "rg_str_lens", d.gridFor(int64(c.n), blockThreads), blockThreads, 0, []uint64{uint64(c.n), c.data, c.valid, lens}); err != nil {
				return nil, err
			}
		}
		if err := d.timedLaunch(d.util, "rg_scan", 1, 1024, 0, []uint64{uint64(c.n), lens, offs}); err != nil {
			return nil, err
		}
		out[i].offs = &column{t: gpu.Type{Kind: gpu.Int64}, n: c.n + 1, data: offs}
		compact = append(compact, i)
	}
	if len(compact) == 0 {
		return out, nil
	}
	totals, err := tmp.get(int64(len(compact))*8, "string download totals")
	if err != nil {
		return nil, err
	}
	for k, i := range compact {
		if err := d.copyDtoD(totals+uint64(8*k), out[i].offs.data+uint64(8*cs[i].n), 8); err != nil {
			return nil, err
		}
	}
	tb := make([]byte, 8*len(compact))
	if err := d.copyOut(tb, totals, "string download totals"); err != nil {
		return nil, err
	}
	for k, i := range compact {
		c := cs[i]
		total := int64(binary.LittleEndian.Uint64(tb[8*k:]))
		if total > gpu.MaxStrChars {
			return nil, fmt.Errorf("str column of %d rows: %d bytes of characters, beyond utf8's int32 offsets: %w", c.n, total, gpu.ErrUnsupported)
		}
		chars, err := tmp.get(max(total, 1), fmt.Sprintf("characters of a str column of %d rows", c.n))
		if err != nil {
			return nil, err
		}
		if total > 0 {
			args := []uint64{uint64(c.n), c.data, out[i].offs.data, c.str.ptr, chars}
			if err := d.timedLaunch(d.util, "rg_str_compact", d.gridFor(int64(c.n), blockThreads), blockThreads, 0, args); err != nil {
				return nil, err
			}
		}
		out[i].chars = &column{t: gpu.Type{Kind: gpu.Int8}, n: int(total), data: chars}
	}
	return out, nil
}

// parts lists s's buffers for fetchBatch.
func (s *strDownload) parts() []*column {
	ps := []*column{s.offs, s.chars}
	if s.valid != nil {
		ps = append(ps, s.valid)
	}
	return ps
}

// array builds the utf8 array from the fetched parts (in parts' order).
func (s *strDownload) array(hs []*hostColumn) (arrow.Array, error) {
	offs := hs[0].data
	if hs[0].t.Kind == gpu.Int64 { // a compaction's: to utf8's int32
		o32 := make([]byte, 4*(s.n+1))
		for i := 0; i <= s.n; i++ {
			binary.LittleEndian.PutUint32(o32[4*i:], uint32(binary.LittleEndian.Uint64(offs[8*i:])))
		}
		offs = o32
	}
	var valid []byte
	if s.valid != nil {
		valid = hs[2].data
	}
	bitmap, nulls := validityBitmap(valid)
	data := array.NewData(arrow.BinaryTypes.String, s.n,
		[]*memory.Buffer{bitmap, memory.NewBufferBytes(offs), memory.NewBufferBytes(hs[1].data)}, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}

// newExprOutput is newOutput for the column that expression e fills: a
// Dict one takes its dictionary, a Str one (a bare Str input column, the
// only Str expression gpu.CheckStrUses lets through) shares its input's
// characters.
func (d *Device) newExprOutput(e *gpu.Expr, n int, cols []*column, st *strTables, what string) (*column, error) {
	var src *column
	if e.Type.Kind == gpu.Str {
		if e.Op != gpu.OpCol || e.Col < 0 || e.Col >= len(cols) || cols[e.Col].str == nil {
			return nil, fmt.Errorf("str output %s is not a str input column: %w", e, gpu.ErrUnsupported)
		}
		src = cols[e.Col]
	}
	c, err := d.newOutput(e.Type, n, st.dictOf(e, cols), what)
	if err == nil {
		c.shareStr(src)
	}
	return c, err
}
