package cuda

import (
	"fmt"
	"strings"

	"github.com/rigel-db/rigel/gpu"
)

// Left join probe kernels (RunProbeLeft): rg_probe_count and
// rg_probe_write of codegen_probe.go, with the Args layout and the passes
// of the inner join's, over every probe row (no selection). A probe row
// walks its chain: a pair matches when the join condition cond holds, and
// is written when the pipeline's filter holds too. A row that no pair
// matches is written once more, when the filter holds for it, with every
// build column null: the padded row, evaluated in a scope of its own
// where the build columns are declared null (nullAt).
//
// pt is the pipeline whose filter is the conjunction of cond and the
// pipeline's filter: it lays out the Args (its string tables cover both)
// and gives the inputs; cond and filter (either may be nil: true) are the
// parts generated apart.
func probeLeftSource(pt *gpu.Pipeline, packed packedInputs, cond, filter *gpu.Expr, single bool, np int) (string, error) {
	if pt.Sink != gpu.SinkMaterialize {
		return "", fmt.Errorf("left join probe kernels for sink %d: %w", pt.Sink, gpu.ErrUnsupported)
	}
	var b strings.Builder
	b.WriteString(preludeSrc)
	b.WriteString(joinFindSrc) // rg_jn_block_scan
	S := sinkWord(pt)
	items := joinTile / joinThreads
	tests := []*gpu.Expr{cond, filter}

	probeKernelHead(&b, S, "rg_probe_count", false, cond != nil || filter != nil)
	b.WriteString("    uint64_t sum = 0;\n")
	fmt.Fprintf(&b, "    for (int k = 0; k < %d; k++) {\n", items)
	b.WriteString(probeKernelEntry)
	if cond == nil && filter == nil {
		// Every pair is written, and a row without one once: the counts
		// are the chain lengths (join.cu's clen), no walk needed.
		fmt.Fprintf(&b, "      if (ix < n) {\n        const int32_t rr = rep[ix];\n        const uint32_t cnt = rr < 0 || unique ? 1u : ((const uint32_t *)A.a[%d])[rr];\n", S+pbClen)
		if single {
			b.WriteString("        if (cnt > 1) rg_raise(status, RG_SUBQUERY_ROWS);\n")
		}
		b.WriteString("        pcnt[ix] = cnt;\n        sum += cnt;\n      }\n    }\n")
		return leftWrite(&b, pt, packed, cond, filter, np, S)
	}
	b.WriteString("      if (ix < n) {\n        uint32_t cnt = 0, matches = 0;\n        bool m = false;\n        const int32_t rr = rep[ix];\n        const long long i = ix;\n        (void)i;\n")
	g, err := leftWalk(&b, pt, packed, cond, filter, np, nonNil(tests...))
	if err != nil {
		return "", err
	}
	g.line("cnt += pass;")
	g.line("matches++;")
	g.indent = g.indent[:len(g.indent)-2]
	g.line("}")
	b.WriteString("          }\n        }\n        if (!m) {\n")
	if err := paddedRow(pt, packed, &b, filter, nil, np, func(gp *exprGen) error {
		gp.line("cnt = pass;")
		return nil
	}); err != nil {
		return "", err
	}
	b.WriteString("        }\n")
	if single {
		b.WriteString("        if (matches > 1) rg_raise(status, RG_SUBQUERY_ROWS);\n")
	} else {
		b.WriteString("        (void)matches;\n")
	}
	b.WriteString("        pcnt[ix] = cnt;\n        sum += cnt;\n      }\n    }\n")
	return leftWrite(&b, pt, packed, cond, filter, np, S)
}

// leftWrite ends rg_probe_count (its tile's total) and generates
// rg_probe_write.
func leftWrite(b *strings.Builder, pt *gpu.Pipeline, packed packedInputs, cond, filter *gpu.Expr, np, S int) (string, error) {
	items := joinTile / joinThreads
	tests := []*gpu.Expr{cond, filter}
	fmt.Fprintf(b, "    uint64_t total;\n    rg_jn_block_scan(sum, &total, sh);\n    if (threadIdx.x == 0) ((uint64_t *)A.a[%d])[t] = total;\n", S+pbCounts)
	b.WriteString(probeKernelTail)

	probeKernelHead(b, S, "rg_probe_write", false, true)
	fmt.Fprintf(b, "    uint64_t base = ((const uint64_t *)A.a[%d])[t];\n", S+pbCounts)
	fmt.Fprintf(b, "    for (int k = 0; k < %d; k++) {\n", items)
	b.WriteString(probeKernelEntry)
	b.WriteString("      int32_t rr = -1;\n      uint64_t cnt = 0;\n      if (ix < n) {\n        rr = rep[ix];\n        cnt = pcnt[ix];\n      }\n")
	b.WriteString("      uint64_t total;\n      unsigned long long pos = base + rg_jn_block_scan(cnt, &total, sh);\n")
	b.WriteString("      if (cnt > 0) {\n        const long long i = ix;\n        (void)i;\n        bool m = false;\n")
	g, err := leftWalk(b, pt, packed, cond, filter, np, append(nonNil(tests...), pt.Project...))
	if err != nil {
		return "", err
	}
	g.line("if (pass) {")
	g.indent += "  "
	_, bc := probeSide(np, pt.Project...)
	if err := loadAllAt(g, bc, "bj"); err != nil {
		return "", err
	}
	if err := writeRow(g, pt, S); err != nil {
		return "", err
	}
	g.indent = g.indent[:len(g.indent)-2]
	g.line("}")
	g.indent = g.indent[:len(g.indent)-2]
	g.line("}")
	b.WriteString("          }\n        }\n        if (!m) {\n")
	if err := paddedRow(pt, packed, b, filter, pt.Project, np, func(gp *exprGen) error {
		gp.line("if (pass) {")
		gp.indent += "  "
		if err := writeRow(gp, pt, S); err != nil {
			return err
		}
		gp.indent = gp.indent[:len(gp.indent)-2]
		gp.line("}")
		return nil
	}); err != nil {
		return "", err
	}
	b.WriteString("        }\n      }\n      base += total;\n    }\n")
	b.WriteString(probeKernelTail)
	return b.String(), nil
}

// leftWalk emits, for probe row i, the loads of the probe columns es read
// and the walk of its chain; in the walk, where cond holds, m = true and
// the filter's `pass`. The caller writes what pass does, then closes the
// cond block (the generator's indent) and the walk.
func leftWalk(b *strings.Builder, pt *gpu.Pipeline, packed packedInputs, cond, filter *gpu.Expr, np int, es []*gpu.Expr) (*exprGen, error) {
	g := newExprGen(pt, packed, b, "        ")
	pc, _ := probeSide(np, es...)
	if err := loadAllAt(g, pc, "i"); err != nil {
		return nil, err
	}
	b.WriteString("        if (rr >= 0) {\n          for (int32_t bj = rr; bj >= 0; bj = unique ? -1 : next[bj]) {\n")
	g.indent = "            "
	if err := leftTest(g, cond, "cpass", np); err != nil {
		return nil, err
	}
	g.line("if (cpass) {")
	g.indent += "  "
	g.line("m = true;")
	if err := leftTest(g, filter, "pass", np); err != nil {
		return nil, err
	}
	return g, nil
}

// leftTest emits, inside the chain walk, the loads of the build columns e
// reads and `const bool name`: e holds (true when e is nil).
func leftTest(g *exprGen, e *gpu.Expr, name string, np int) error {
	if e == nil {
		g.line("const bool %s = true;", name)
		return nil
	}
	if e.Type.Kind != gpu.Bool {
		return fmt.Errorf("%s is %s, not bool", e, e.Type)
	}
	_, bc := probeSide(np, e)
	if err := loadAllAt(g, bc, "bj"); err != nil {
		return err
	}
	loadAll(g, e)
	v, n, err := g.expr(e)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	g.line("const bool %s = !%s && %s;", name, n, v)
	return nil
}

// paddedRow emits the padded row's scope: the probe columns that filter
// and project read, loaded at row i, the build columns declared null,
// `pass` (the filter), then body.
func paddedRow(pt *gpu.Pipeline, packed packedInputs, b *strings.Builder, filter *gpu.Expr, project []*gpu.Expr, np int, body func(gp *exprGen) error) error {
	gp := newExprGen(pt, packed, b, "          ")
	pc, bc := probeSide(np, append(nonNil(filter), project...)...)
	if err := loadAllAt(gp, pc, "i"); err != nil {
		return err
	}
	for _, c := range bc {
		if err := nullAt(gp, c); err != nil {
			return err
		}
	}
	if err := leftTest(gp, filter, "pass", np); err != nil {
		return err
	}
	return body(gp)
}

// writeRow emits the writes of row pos's projections, then pos++ (the
// inner and the left join kernels).
func writeRow(g *exprGen, p *gpu.Pipeline, S int) error {
	for j, e := range p.Project {
		v, n, err := g.expr(e)
		if err != nil {
			return fmt.Errorf("project #%d: %w", j, err)
		}
		dw := S + pbOut + 2*j
		g.line("((%s *)A.a[%d])[pos] = (%s)%s;", stype(e.Type.Kind), dw, stype(e.Type.Kind), v)
		if e.Type.Nullable {
			g.line("((uint8_t *)A.a[%d])[pos] = %s ? 0 : 1;", dw+1, n)
		} else {
			g.line("(void)%s;", n)
		}
	}
	g.line("pos++;")
	return nil
}

// nullAt declares input column c null, as loadAt declares it loaded: the
// padded row's build columns.
func nullAt(g *exprGen, c int) error {
	t, declare, err := probeInput(g, c)
	if !declare || err != nil {
		return err
	}
	if t.Kind == gpu.Str {
		g.line("const uint8_t *const cs%d = (const uint8_t *)(A.a[%d] & ~1ull);", c, inputWord(c)+2)
		g.line("const uint64_t c%d = 0;", c)
		g.line("const bool cn%d = true;", c)
		g.line("(void)c%d; (void)cs%d; (void)cn%d;", c, c, c)
		return nil
	}
	g.line("const %s c%d = (%s)0;", ctype(t.Kind), c, ctype(t.Kind))
	g.line("const bool cn%d = true;", c)
	g.line("(void)c%d; (void)cn%d;", c, c)
	return nil
}

// nonNil is es without its nil entries.
func nonNil(es ...*gpu.Expr) []*gpu.Expr {
	var out []*gpu.Expr
	for _, e := range es {
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}
