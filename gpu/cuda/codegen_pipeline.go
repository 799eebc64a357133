package cuda

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rigel-db/rigel/gpu"
)

// Materialize kernels work in tiles of tileRows consecutive rows: rg_count
// counts passing rows per tile, rg_scan turns counts into offsets, rg_write
// writes each tile's rows at its offset in row order (warp ballots give
// each passing row its rank within the tile), so output order = input order.
const (
	blockThreads = 256
	tileItems    = 4
	tileRows     = blockThreads * tileItems
)

// sinkWord is the first Args word after the input columns and the string
// tables (codegen_str.go).
func sinkWord(p *gpu.Pipeline) int { return inputWord(len(p.Inputs)) + len(strNodes(p)) }

func newExprGen(p *gpu.Pipeline, packed packedInputs, b *strings.Builder, indent string) *exprGen {
	return &exprGen{p: p, packed: packed, b: b, indent: indent, colVar: map[int]bool{}}
}

// rowFilter emits the loads of the filter's columns and `pass`.
func rowFilter(g *exprGen) error {
	p := g.p
	if p.Filter == nil {
		g.line("const bool pass = true;")
		return nil
	}
	if p.Filter.Type.Kind != gpu.Bool {
		return fmt.Errorf("filter is %s, not bool", p.Filter.Type)
	}
	loadAll(g, p.Filter)
	v, n, err := g.expr(p.Filter)
	if err != nil {
		return fmt.Errorf("filter: %w", err)
	}
	g.line("const bool pass = !%s && %s;", n, v)
	return nil
}

// loadAll loads every column es read at the current scope, so that lazily
// evaluated branches find them declared.
func loadAll(g *exprGen, es ...*gpu.Expr) {
	set := map[int]bool{}
	for _, e := range es {
		columnsOf(e, set)
	}
	cols := make([]int, 0, len(set))
	for c := range set {
		cols = append(cols, c)
	}
	sort.Ints(cols)
	for _, c := range cols {
		if c >= 0 && c < len(g.p.Inputs) {
			g.loadColumn(c)
		}
	}
}

// materializeSource generates rg_count and rg_write for a SinkMaterialize
// pipeline. Args: n, status, inputs..., then counts|offsets, ntiles,
// then 2 words (data, valid) per output column, then the pass mask.
//
// rg_count evaluates the filter once and keeps its warp ballots as a
// bitmap of n bits (the pass mask, word i/32 for row i); rg_write reads
// that bit instead of evaluating the filter again, so the filter's columns
// are read once and an expensive predicate (a LIKE over strings in Arrow
// layout) runs once, for 1 bit a row written and read back.
func materializeSource(p *gpu.Pipeline, packed packedInputs) (string, error) {
	var b strings.Builder
	b.WriteString(preludeSrc)
	S := sinkWord(p)
	maskWord := S + 2 + 2*len(p.Project)
	head := func(name string) {
		fmt.Fprintf(&b, "\nextern \"C\" __global__ void __launch_bounds__(%d) %s(const Args A) {\n", blockThreads, name)
		b.WriteString("  const long long n = (long long)A.a[0];\n \n")
		fmt.Fprintf(&b, "  const long long ntiles = (long long)A.a[%d];\n", S+1)
		fmt.Fprintf(&b, "  uint32_t *mask = (uint32_t *)A.a[%d];\n", maskWord)
		b.WriteString("  __shared__ uint32_t wcnt[32];\n  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;\n")
		b.WriteString("  for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {\n")
	}
	if p.Filter == nil {
		if err := writeEveryRow(p, packed, &b); err != nil {
			return "", err
		}
		return b.String(), nil
	}
	// rg_count. Rows i - lane .. i - lane + 31 are one warp's: the ballot
	// of their filter is mask word (i - lane) / 32.
	head("rg_count")
	b.WriteString("    uint32_t c = 0;\n")
	fmt.Fprintf(&b, "    for (int k = 0; k < %d; k++) {\n      const long long i = t * %d + k * %d + threadIdx.x;\n      bool ok = false;\n      if (i < n) {\n", tileItems, tileRows, blockThreads)
	g := newExprGen(p, packed, &b, "        ")
	if err := rowFilter(g); err != nil {
		return "", err
	}
	b.WriteString("        ok = pass;\n      }\n      c += ok;\n")
	b.WriteString("      const unsigned m = __ballot_sync(0xffffffffu, ok);\n")
	b.WriteString("      if (lane == 0 && i < n) mask[i >> 5] = m;\n    }\n")
	b.WriteString("    c = (uint32_t)rg_warp_sum64(c);\n    if (lane == 0) wcnt[warp] = c;\n    __syncthreads();\n")
	fmt.Fprintf(&b, "    if (threadIdx.x == 0) { uint32_t s = 0; for (int w = 0; w < %d; w++) s += wcnt[w]; ((uint32_t *)A.a[%d])[t] = s; }\n", blockThreads/32, S)
	b.WriteString("    __syncthreads();\n  }\n}\n")

	// rg_write: the pass mask in place of the filter.
	head("rg_write")
	fmt.Fprintf(&b, "    unsigned long long base = ((const unsigned long long *)A.a[%d])[t];\n", S)
	fmt.Fprintf(&b, "    for (int k = 0; k < %d; k++) {\n      const long long i = t * %d + k * %d + threadIdx.x;\n", tileItems, tileRows, blockThreads)
	b.WriteString("      const long long w0 = i - lane;\n")
	b.WriteString("      const unsigned m = w0 < n ? mask[w0 >> 5] : 0u;\n      const bool ok = (m >> lane) & 1u;\n")
	b.WriteString("      if (lane == 0) wcnt[warp] = __popc(m);\n      __syncthreads();\n")
	fmt.Fprintf(&b, "      unsigned before = 0, total = 0;\n      for (int w = 0; w < %d; w++) { if (w < warp) before += wcnt[w]; total += wcnt[w]; }\n", blockThreads/32)
	b.WriteString("      if (ok) {\n        const unsigned long long pos = base + before + __popc(m & ((1u << lane) - 1u));\n")
	if err := writeProjections(p, packed, &b); err != nil {
		return "", err
	}
	b.WriteString("      }\n      base += total;\n      __syncthreads();\n    }\n  }\n}\n")
	return b.String(), nil
}

// writeEveryRow generates rg_write alone for a pipeline without a filter:
// row i is output row i, so there is nothing to count and no offsets to
// read back before the launch (the same Args layout, with the counts word
// unused).
func writeEveryRow(p *gpu.Pipeline, packed packedInputs, b *strings.Builder) error {
	fmt.Fprintf(b, "\nextern \"C\" __global__ void __launch_bounds__(%d) rg_write(const Args A) {\n", blockThreads)
	b.WriteString("  const long long n = (long long)A.a[0];\n")
	b.WriteString("  for (long long pos = (long long)blockIdx.x * blockDim.x + threadIdx.x; pos < n; pos += (long long)gridDim.x * blockDim.x) {\n")
	b.WriteString("    const long long i = pos;\n")
	if err := writeProjections(p, packed, b); err != nil {
		return err
	}
	b.WriteString("  }\n}\n")
	return nil
}

// writeProjections stores the projections of row i at output row pos.
func writeProjections(p *gpu.Pipeline, packed packedInputs, b *strings.Builder) error {
	S := sinkWord(p)
	g := newExprGen(p, packed, b, "        ")
	loadAll(g, p.Project...)
	for j, e := range p.Project {
		v, n, err := g.expr(e)
		if err != nil {
			return fmt.Errorf("project #%d: %w", j, err)
		}
		dw := S + 2 + 2*j
		g.line("((%s *)A.a[%d])[pos] = (%s)%s;", stype(e.Type.Kind), dw, stype(e.Type.Kind), v)
		if e.Type.Nullable {
			g.line("((uint8_t *)A.a[%d])[pos] = %s ? 0 : 1;", dw+1, n)
		} else {
			g.line("(void)%s;", n)
		}
	}
	return nil
}
