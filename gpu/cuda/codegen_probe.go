package cuda

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rigel-db/rigel/gpu"
)

// Probe kernels (RunProbe, SinkMaterialize): a pipeline evaluated over the
// pairs of an inner join without materializing them. The hash table is
// join.cu's (rg_join_build), and rg_join_count has left each probe row's
// representative build row in rep[] (-1: no match); the build rows of a
// key are the chain rep, next[rep], next[next[rep]], ... (-1 ends it).
// Each thread owns probe rows; it loads the probe row's columns once and
// walks the chain, loading the build row's columns at each step, so the
// pipeline's expressions read both sides straight from their columns.
//
// The output is written in two passes over the same tiles of joinTile
// probe rows as rg_join_count's (256 threads, 8 rows each):
//   - rg_probe_count (with a filter, or over a selection) counts the
//     passing pairs of each probe row into pcnt[] and of each tile into
//     counts[];
//   - offsets = scan(counts) (rg_jn_scan of join.cu);
//   - rg_probe_write gives each probe row its first output row (a block
//     scan of the per-row counts within the tile, from offsets[tile]) and
//     writes its passing pairs from there.
//
// Without a filter every pair passes: rg_join_count's tile counts and the
// chain lengths clen[rep] are the counts, rg_probe_count is not run and
// the pcnt word is 0.
//
// With a selection (sel, not 0: rg_jn_select's list of the probe rows with
// a match) the kernels walk the n rows of the list instead of every probe
// row: entry ix is probe row sel[ix], its representative rep[ix].
//
// Args: n, status, inputs (probe columns then build columns, 3 words
// each, inputArgs), string tables, then from S = sinkWord(p): rep, next, clen,
// counts|offsets, ntiles, pcnt, multi, sel, then 2 words (data, valid) per
// output. multi is join.cu's flag word: 0 when every chain is one row
// long, and the kernels then read neither clen nor next.
const (
	pbRep = iota
	pbNext
	pbClen
	pbCounts
	pbNTiles
	pbPcnt
	pbMulti
	pbSel
	pbOut
)

// probeSide splits the input columns an expression list reads into the
// probe side's (below np) and the build side's.
func probeSide(np int, es ...*gpu.Expr) (probe, build []int) {
	set := map[int]bool{}
	for _, e := range es {
		columnsOf(e, set)
	}
	for c := range set {
		if c < np {
			probe = append(probe, c)
		} else {
			build = append(build, c)
		}
	}
	sort.Ints(probe)
	sort.Ints(build)
	return probe, build
}

// loadAt declares cC/cnC for input column c at row `row` (the probe row i
// or the build row bj), as loadColumn does for a pipeline's single row
// index, and marks it loaded so that the expression generator reads it.
func loadAt(g *exprGen, c int, row string) error {
	t, declare, err := probeInput(g, c)
	if !declare || err != nil {
		return err
	}
	w := inputWord(c)
	if t.Kind == gpu.Str {
		g.loadStrColumn(c, t, w, row) // codegen_strrow.go
		return nil
	}
	g.line("const %s c%d = %s;", ctype(t.Kind), c, g.columnValue(c, t, w, row))
	if t.Nullable {
		g.line("const bool cn%d = A.a[%d] != 0 && ((const uint8_t *)A.a[%d])[%s] == 0;", c, w+1, w+1, row)
	} else {
		g.line("const bool cn%d = false;", c)
	}
	g.line("(void)c%d; (void)cn%d;", c, c)
	return nil
}

// probeInput checks input column c of a probe pipeline and marks it
// declared; declare is false when it already was.
func probeInput(g *exprGen, c int) (t gpu.Type, declare bool, err error) {
	if g.colVar[c] {
		return t, false, nil
	}
	if c < 0 || c >= len(g.p.Inputs) {
		return t, false, fmt.Errorf("column $%d of %d inputs", c, len(g.p.Inputs))
	}
	t = g.p.Inputs[c]
	if !probeLoadable[t.Kind] {
		return t, false, fmt.Errorf("input $%d of kind %s in a probe pipeline: %w", c, t.Kind, gpu.ErrUnsupported)
	}
	g.colVar[c] = true
	return t, true, nil
}

// probeLoadable lists the kinds loadAt reads (Str as a view). A kind stored otherwise (added later) is refused, and the
// engine joins first and runs the pipeline over the gathered columns.
var probeLoadable = map[gpu.Kind]bool{
	gpu.Bool: true, gpu.Int8: true, gpu.Int16: true, gpu.Int32: true, gpu.Int64: true,
	gpu.Float32: true, gpu.Float64: true, gpu.Date32: true, gpu.Decimal64: true,
	gpu.Decimal128: true, gpu.Dict: true, gpu.Str: true,
}

func loadAllAt(g *exprGen, cols []int, row string) error {
	for _, c := range cols {
		if err := loadAt(g, c, row); err != nil {
			return err
		}
	}
	return nil
}

// probeFilter emits, inside the chain walk, the loads of the build
// columns the filter reads and `pass`.
func probeFilter(g *exprGen, np int) error {
	if g.p.Filter != nil {
		_, bc := probeSide(np, g.p.Filter)
		if err := loadAllAt(g, bc, "bj"); err != nil {
			return err
		}
	}
	return rowFilter(g)
}

// probeKernelHead opens probe kernel name (Args from S = sinkWord as
// above): its pointers (sel: the selection's too; chain: the chains'), and
// the loop over the tiles of joinTile probe rows. probeKernelEntry, inside
// a loop over k, is a thread's probe row ix of tile t; probeKernelTail
// closes the tile loop and the kernel.
func probeKernelHead(b *strings.Builder, S int, name string, sel, chain bool) {
	fmt.Fprintf(b, "\nextern \"C\" __global__ void __launch_bounds__(%d) %s(const Args A) {\n", joinThreads, name)
	b.WriteString("  const long long n = (long long)A.a[0];\n")
	fmt.Fprintf(b, "  const int32_t *rep = (const int32_t *)A.a[%d];\n", S+pbRep)
	if chain {
		fmt.Fprintf(b, "  const int32_t *next = (const int32_t *)A.a[%d];\n", S+pbNext)
	}
	fmt.Fprintf(b, "  const bool unique = *(const uint32_t *)A.a[%d] == 0;\n", S+pbMulti)
	fmt.Fprintf(b, "  uint32_t *pcnt = (uint32_t *)A.a[%d];\n", S+pbPcnt)
	if sel {
		fmt.Fprintf(b, "  const int32_t *sel = (const int32_t *)A.a[%d];\n", S+pbSel)
	}
	fmt.Fprintf(b, "  const long long ntiles = (long long)A.a[%d];\n", S+pbNTiles)
	fmt.Fprintf(b, "  __shared__ uint64_t sh[%d];\n", joinThreads/32)
	b.WriteString("  for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {\n")
}

const probeKernelTail = "  }\n}\n"

var probeKernelEntry = fmt.Sprintf("      const long long ix = t * %d + k * %d + threadIdx.x;\n", joinTile, joinThreads)

// probeSource generates rg_probe_count and rg_probe_write for a
// SinkMaterialize pipeline whose first np inputs are the probe side's.
func probeSource(p *gpu.Pipeline, packed packedInputs, np int) (string, error) {
	if p.Sink != gpu.SinkMaterialize {
		return "", fmt.Errorf("probe kernels for sink %d: %w", p.Sink, gpu.ErrUnsupported)
	}
	var b strings.Builder
	b.WriteString(preludeSrc)
	b.WriteString(joinFindSrc) // rg_jn_block_scan
	S := sinkWord(p)
	items := joinTile / joinThreads
	head := func(name string) { probeKernelHead(&b, S, name, true, true) }
	tail, entry := probeKernelTail, probeKernelEntry

	head("rg_probe_count")
	b.WriteString("    uint64_t sum = 0;\n")
	fmt.Fprintf(&b, "    for (int k = 0; k < %d; k++) {\n", items)
	b.WriteString(entry)
	b.WriteString("      if (ix < n) {\n        uint32_t cnt = 0;\n        const int32_t rr = rep[ix];\n        if (rr >= 0) {\n          const long long i = sel ? sel[ix] : ix;\n          (void)i;\n")
	g := newExprGen(p, packed, &b, "          ")
	if p.Filter != nil {
		pc, _ := probeSide(np, p.Filter)
		if err := loadAllAt(g, pc, "i"); err != nil {
			return "", err
		}
	}
	b.WriteString("          for (int32_t bj = rr; bj >= 0; bj = unique ? -1 : next[bj]) {\n")
	g.indent = "            "
	if err := probeFilter(g, np); err != nil {
		return "", err
	}
	g.line("cnt += pass;")
	b.WriteString("          }\n        }\n        pcnt[ix] = cnt;\n        sum += cnt;\n      }\n    }\n")
	fmt.Fprintf(&b, "    uint64_t total;\n    rg_jn_block_scan(sum, &total, sh);\n    if (threadIdx.x == 0) ((uint64_t *)A.a[%d])[t] = total;\n", S+pbCounts)
	b.WriteString(tail)

	head("rg_probe_write")
	fmt.Fprintf(&b, "    uint64_t base = ((const uint64_t *)A.a[%d])[t];\n", S+pbCounts)
	fmt.Fprintf(&b, "    for (int k = 0; k < %d; k++) {\n", items)
	b.WriteString(entry)
	b.WriteString("      int32_t rr = -1;\n      uint64_t cnt = 0;\n      if (ix < n) {\n        rr = rep[ix];\n")
	fmt.Fprintf(&b, "        if (rr >= 0) cnt = pcnt ? pcnt[ix] : unique ? 1 : ((const uint32_t *)A.a[%d])[rr];\n", S+pbClen)
	b.WriteString("      }\n      uint64_t total;\n      unsigned long long pos = base + rg_jn_block_scan(cnt, &total, sh);\n")
	b.WriteString("      if (cnt > 0) {\n        const long long i = sel ? sel[ix] : ix;\n        (void)i;\n")
	g = newExprGen(p, packed, &b, "        ")
	all := append([]*gpu.Expr{p.Filter}, p.Project...)
	pc, _ := probeSide(np, all...)
	if err := loadAllAt(g, pc, "i"); err != nil {
		return "", err
	}
	b.WriteString("        for (int32_t bj = rr; bj >= 0; bj = unique ? -1 : next[bj]) {\n")
	g.indent = "          "
	if err := probeFilter(g, np); err != nil {
		return "", err
	}
	g.line("if (pass) {")
	g.indent += "  "
	_, bc := probeSide(np, p.Project...)
	if err := loadAllAt(g, bc, "bj"); err != nil {
		return "", err
	}
	if err := writeRow(g, p, S); err != nil { // codegen_probe_left.go
		return "", err
	}
	g.indent = g.indent[:len(g.indent)-2]
	g.line("}")
	b.WriteString("        }\n      }\n      base += total;\n    }\n")
	b.WriteString(tail)
	return b.String(), nil
}
