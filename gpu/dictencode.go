package gpu

import (
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// encodePartRows is the fewest rows a part of a parallel dictionary
// encoding takes: below it, starting a goroutine costs more than it saves.
const encodePartRows = 1 << 16

// EncodeDictionary builds the sorted dictionary encoding of a string array.
// Both devices use it, so that codes are identical everywhere.
//
// It is the host's share of loading every dictionary-encoded column (a
// hash lookup a row: 37 ns a row for TPC-H's l_returnflag on the build
// machine, 2.3 s for the 60 M rows of SF10 on one core), so the rows are
// split into parts encoded side by side, each against its own map, and the
// parts' distinct strings merged and sorted once: the codes do not depend
// on the split.
func EncodeDictionary(arr arrow.Array) (*Dictionary, error) {
	return encodeDictionary(arr, runtime.GOMAXPROCS(0), make([]int32, arr.Len()))
}

// EncodeDictionaryInto is EncodeDictionary writing the codes into codes,
// arr.Len() of them (memory the caller manages: the CUDA device's upload
// keeps a table column's codes out of the Go heap, internal/offheap).
func EncodeDictionaryInto(arr arrow.Array, codes []int32) (*Dictionary, error) {
	if len(codes) != arr.Len() {
		return nil, fmt.Errorf("dictionary encoding: %d codes for %d rows", len(codes), arr.Len())
	}
	clear(codes)
	return encodeDictionary(arr, runtime.GOMAXPROCS(0), codes)
}

// encodeDictionary is EncodeDictionary over at most parts parts.
func encodeDictionary(arr arrow.Array, parts int, codes []int32) (*Dictionary, error) {
	if da, ok := arr.(*array.Dictionary); ok {
		if d, ok := encodedAlready(da, codes); ok {
			return d, nil
		}
		if vals, ok := da.Dictionary().(stringValues); ok {
			arr = decodedStrings{da, vals}
		}
	}
	sv, ok := arr.(stringValues)
	if !ok {
		return nil, fmt.Errorf("dictionary encoding of %s: %w", arr.DataType(), ErrUnsupported)
	}
	n := arr.Len()
	d := &Dictionary{Codes: codes}
	if arr.NullN() > 0 {
		d.Valid = make([]bool, n)
	}
	parts = max(1, min(parts, n/encodePartRows))
	ps := make([]dictPart, parts)
	var wg sync.WaitGroup
	for p := range ps {
		ps[p].lo, ps[p].hi = n*p/parts, n*(p+1)/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			ps[p].encode(sv, d)
		}()
	}
	wg.Wait()
	var all []string
	for _, p := range ps {
		if p.err != nil {
			return nil, p.err
		}
		all = append(all, p.distinct...)
	}
	// Go compares strings by bytes, without converting them: code order is
	// byte order.
	slices.Sort(all)
	all = slices.Compact(all)
	if len(all) > MaxDictionary {
		return nil, tooManyDistinct()
	}
	for p := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ps[p].remap(all, d)
		}()
	}
	wg.Wait()
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(all, nil)
	d.Values = b.NewStringArray()
	return d, nil
}

// encodedAlready is the encoding of a dictionary array of int32 indices
// into strings that are distinct and in byte order: its indices are the
// codes, copied into codes, and its dictionary the values. Not ok for any
// other dictionary array.
func encodedAlready(da *array.Dictionary, codes []int32) (*Dictionary, bool) {
	idx, ok1 := da.Indices().(*array.Int32)
	vals, ok2 := da.Dictionary().(*array.String)
	if !ok1 || !ok2 || vals.NullN() > 0 || vals.Len() > MaxDictionary {
		return nil, false
	}
	for i := 1; i < vals.Len(); i++ {
		if vals.Value(i-1) >= vals.Value(i) {
			return nil, false
		}
	}
	n := da.Len()
	raw := idx.Int32Values()
	// The bounds of the codes, tested without a validity test per row
	// where no code is null: a streamed table's dictionary columns come
	// here once a segment (physical's Chunked), and the bitmap test was most
	// of the host time of TPC-H Q1 under a 2 GB device budget at SF10
	// (device call 2 in bench/results/2026-11-28-h200-tpch-sf10-budget-2gb-v43.md).
	limit := int32(vals.Len())
	if idx.NullN() == 0 {
		for _, c := range raw {
			if c < 0 || c >= limit {
				return nil, false
			}
		}
	} else {
		for i, c := range raw {
			if idx.IsValid(i) && (c < 0 || c >= limit) {
				return nil, false
			}
		}
	}
	copy(codes, raw)
	d := &Dictionary{Codes: codes}
	if da.NullN() > 0 {
		d.Valid = make([]bool, n)
		for i := range n {
			if da.IsValid(i) {
				d.Valid[i] = true
			} else {
				codes[i] = 0
			}
		}
	}
	vals.Retain()
	d.Values = vals
	return d, true
}

// decodedStrings reads a dictionary array of strings as its strings.
type decodedStrings struct {
	*array.Dictionary
	values stringValues
}

func (d decodedStrings) Value(i int) string { return d.values.Value(d.GetValueIndex(i)) }

func tooManyDistinct() error {
	return fmt.Errorf("string column has more than %d distinct values: %w", MaxDictionary, ErrUnsupported)
}

// dictPart is rows [lo, hi) of a dictionary encoding: their codes in the
// part's own order of first appearance until remap.
type dictPart struct {
	lo, hi   int
	distinct []string
	err      error
}

func (p *dictPart) encode(sv stringValues, d *Dictionary) {
	index := make(map[string]int32)
	for i := p.lo; i < p.hi; i++ {
		if sv.IsNull(i) {
			continue
		}
		if d.Valid != nil {
			d.Valid[i] = true
		}
		s := sv.Value(i)
		c, ok := index[s]
		if !ok {
			if len(p.distinct) >= MaxDictionary {
				p.err = tooManyDistinct()
				return
			}
			s = string([]byte(s)) // detach from the Arrow buffer
			c = int32(len(p.distinct))
			index[s] = c
			p.distinct = append(p.distinct, s)
		}
		d.Codes[i] = c
	}
}

// remap turns the part's codes into positions in the sorted dictionary.
func (p *dictPart) remap(sorted []string, d *Dictionary) {
	to := make([]int32, len(p.distinct))
	for c, s := range p.distinct {
		i, _ := slices.BinarySearch(sorted, s)
		to[c] = int32(i)
	}
	for i := p.lo; i < p.hi; i++ {
		if d.Valid == nil || d.Valid[i] {
			d.Codes[i] = to[d.Codes[i]]
		}
	}
}
