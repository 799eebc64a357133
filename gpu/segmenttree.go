package gpu

// The order in which DuckDB adds a window frame's doubles.
//
// DuckDB (1.5.3, src/function/window/window_segment_tree.cpp) computes
// sum and avg over an ordered frame with a segment tree over all the rows
// of a hash group: level 0 holds the values, and an entry of level k+1
// the sum of TreeFanout consecutive entries of level k, added one after
// the other onto 0. sum and avg are order-dependent aggregates there (the
// default), so a frame [begin, end) is summed onto 0 from left to right:
//  1. the rows from begin to the end of its parent (all rows to end when
//     both ends share a parent);
//  2. from level 1 upwards, while the frame spans more than one parent,
//     the entries from begin to the end of its parent (when begin is not
//     a parent's first child); begin and end then move to their parents
//     (begin to the next one when it was ragged). At the level where both
//     ends share a parent, the entries between them;
//  3. back down the levels, each level's entries from the last parent's
//     first child up to end (where end was not a parent's first child);
//  4. the rows from the last parent's first row up to end.
//
// Floating-point addition does not associate, so a sum added in any other
// order (a running sum, a difference of running sums) can differ from
// DuckDB's in its last bits. Followed exactly, the bytes are DuckDB's
// wherever its hash group is the window's whole input in the same order:
// a window with no PARTITION BY (checked against DuckDB by conformance's
// TestWindowSumsHost). With PARTITION BY, DuckDB's hash groups hold the
// partitions that hash to one bin, and the tree's alignment depends on
// them; a tree over the sorted input then gives the same kind of sum (its
// error bound), not always the same bits.
//
// Null values add nothing: a sum that starts at +0.0 is never -0.0, so
// adding +0.0 in a null's place leaves it unchanged (callers pass nulls as
// 0 and count the values apart).

// TreeFanout is the entries of one level that one entry of the next sums.
const TreeFanout = 16

// SegmentTree is DuckDB's window segment tree over some doubles.
type SegmentTree struct {
	// Levels[0] are the values; Levels[k+1][j] sums Levels[k][16j..16j+15].
	Levels [][]float64
}

// NewSegmentTree builds the tree's levels over vals (kept, not copied).
func NewSegmentTree(vals []float64) SegmentTree {
	levels := [][]float64{vals}
	for cur := vals; len(cur) > 1; {
		next := make([]float64, (len(cur)+TreeFanout-1)/TreeFanout)
		for j := range next {
			next[j] = sumRange(cur, j*TreeFanout, min(len(cur), (j+1)*TreeFanout), 0)
		}
		levels = append(levels, next)
		cur = next
	}
	return SegmentTree{Levels: levels}
}

// sumRange adds vals[from:to] onto acc, one after the other.
func sumRange(vals []float64, from, to int, acc float64) float64 {
	for _, v := range vals[from:to] {
		acc += v
	}
	return acc
}

// Sum is the sum of the values in [begin, end), added in DuckDB's order;
// 0 for an empty frame.
func (t SegmentTree) Sum(begin, end int) float64 {
	if begin >= end {
		return 0
	}
	rows := t.Levels[0]
	pb, pe := begin/TreeFanout, end/TreeFanout
	if pb == pe {
		return sumRange(rows, begin, end, 0)
	}
	acc := 0.0
	if first := pb * TreeFanout; begin != first {
		acc = sumRange(rows, begin, first+TreeFanout, acc)
	}
	// Up the levels with the left ends, then down with the right ones:
	// rightEnds[l] is level l's e where its right end was ragged.
	var rightEnds [16]int
	top := 0
	b, e := pb, pe
	if begin != pb*TreeFanout {
		b++
	}
	for l := 1; l < len(t.Levels); l++ {
		top = l
		lpb, lpe := b/TreeFanout, e/TreeFanout
		if lpb == lpe {
			acc = sumRange(t.Levels[l], b, e, acc)
			break
		}
		if first := lpb * TreeFanout; b != first {
			acc = sumRange(t.Levels[l], b, first+TreeFanout, acc)
			lpb++
		}
		rightEnds[l] = e
		b, e = lpb, lpe
	}
	for l := top - 1; l >= 1; l-- {
		if e := rightEnds[l]; e != e/TreeFanout*TreeFanout {
			acc = sumRange(t.Levels[l], e/TreeFanout*TreeFanout, e, acc)
		}
	}
	if last := pe * TreeFanout; end != last {
		acc = sumRange(rows, last, end, acc)
	}
	return acc
}
