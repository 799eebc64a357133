package cuda

import (
	"fmt"
	"strings"

	"github.com/rigel-db/rigel/gpu"
)

// Per-row string predicates over Str columns (strings in Arrow layout).
// Each thread tests its row's bytes with code specialised to the constant:
// a LIKE becomes gpu.LikePlan's steps (anchored prefix, middle segments
// found left to right, suffix walked back from the end), every literal
// byte a compare against an immediate; a comparison or an IN list compares
// bytes in place. gpu.StrMatcher is the Go reference of the same steps and
// gpu/host runs it; the devicetest battery compares the two devices.
//
// loadStrColumn declares, for input column c at row `row`, its view (cC,
// strcol_strings.go), its characters (csC) and its null flag (cnC): an
// upload's view is made from its offsets, a column of views holds it.
func (g *exprGen) loadStrColumn(c int, t gpu.Type, w int, row string) {
	g.line("const uint64_t ca%d = A.a[%d];", c, w+2)
	g.line("const uint8_t *const cs%d = (const uint8_t *)(ca%d & ~1ull);", c, c)
	g.line("const uint64_t c%d = rg_str_view(A.a[%d], ca%d, %s);", c, w, c, row)
	if t.Nullable {
		g.line("const bool cn%d = A.a[%d] != 0 && ((const uint8_t *)A.a[%d])[%s] == 0;", c, w+1, w+1, row)
	} else {
		g.line("const bool cn%d = false;", c)
	}
	g.line("(void)c%d; (void)cs%d; (void)cn%d;", c, c, c)
}

// strRowExpr emits OpStrPred over a Str column: v = the predicate of the
// row's string, unless it is null (n, set by compute from the argument).
func (g *exprGen) strRowExpr(e *gpu.Expr, v, n string) error {
	a := e.Args[0]
	if e.Op != gpu.OpStrPred || a.Op != gpu.OpCol || e.Type.Kind != gpu.Bool {
		return fmt.Errorf("%s: only a string predicate of a str input column reads strings in Arrow layout: %w", e, gpu.ErrUnsupported)
	}
	if !gpu.StrPredOnStr(e.Str) {
		return fmt.Errorf("%s over strings in Arrow layout: %w", e, gpu.ErrUnsupported)
	}
	c := a.Col
	g.line("if (!%s) {", n)
	saved := g.indent
	g.indent += "  "
	// The body first: s and len are declared only where it reads them
	// (NVRTC warns about variables set and never used).
	outer := g.b
	var body strings.Builder
	g.b = &body
	err := g.strRowBody(e.Str)
	g.b = outer
	if err != nil {
		g.indent = saved
		return fmt.Errorf("%s: %w", e, err)
	}
	if strings.Contains(body.String(), "s[") {
		g.line("const uint8_t *s = cs%d + (uint32_t)c%d;", c, c)
	}
	if strings.Contains(body.String(), "len") {
		g.line("const int len = (int)(c%d >> 32);", c)
	}
	g.line("int r = 0;")
	g.b.WriteString(body.String())
	g.line("%s = r;", v)
	g.indent = saved
	g.line("}")
	return nil
}

// strRowBody sets r (declared) to whether the string s of len bytes
// satisfies f.
func (g *exprGen) strRowBody(f *gpu.StrFunc) error {
	if lp, ok := gpu.LikePlanOf(f); ok {
		g.likeMatch(lp)
		return nil
	}
	switch f.Kind {
	case gpu.StrCompare:
		g.compareConst(f.Pattern)
		op := map[gpu.Op]string{gpu.OpEq: "==", gpu.OpNe: "!=", gpu.OpLt: "<", gpu.OpLe: "<=", gpu.OpGt: ">", gpu.OpGe: ">="}[f.Op]
		g.line("r = cmp %s 0;", op)
		return nil
	case gpu.StrIn:
		alts := []string{"false"}
		for _, x := range f.List {
			alts = append(alts, equalsConst(x))
		}
		g.line("r = %s;", strings.Join(alts, " || "))
		return nil
	}
	return fmt.Errorf("string predicate %s over strings in Arrow layout: %w", f, gpu.ErrUnsupported)
}

// likeMatch sets r to whether the row matches lp (gpu.LikePlan.Match).
func (g *exprGen) likeMatch(lp *gpu.LikePlan) {
	g.line("do {")
	in := g.indent
	g.indent += "  "
	if len(lp.Prefix) > 0 || lp.Anchored || len(lp.Middle) > 0 || len(lp.Suffix) > 0 {
		g.line("int pos = 0;")
	}
	if len(lp.Prefix) > 0 {
		g.line("bool ok = true;")
		g.segForward(lp.Prefix, "pos", "ok = false; break;")
		g.line("if (!ok) break;")
	}
	if lp.Anchored {
		g.line("r = pos == len;")
		g.indent = in
		g.line("} while (0);")
		return
	}
	for _, m := range lp.Middle {
		// The leftmost match starting at a code point boundary. A match
		// needs at least one byte per token, so no start past len - that
		// can succeed; a segment that begins with a literal byte (never a
		// continuation byte: the pattern is valid UTF-8) can only match at
		// a boundary, so it skips the boundary test.
		g.line("{")
		g.line("  int found = -1;")
		g.line("  for (int st = pos; st <= len - %d && found < 0; st++) {", len(m))
		if m[0] == gpu.LikeAny || m[0]&0xC0 == 0x80 {
			g.line("    if ((s[st] & 0xC0) == 0x80) continue;")
		}
		g.line("    int q = st; bool m = true;")
		g.indent += "    "
		g.segForward(m, "q", "m = false; break;")
		g.indent = g.indent[:len(g.indent)-4]
		g.line("    if (m) found = q;")
		g.line("  }")
		g.line("  if (found < 0) break;")
		g.line("  pos = found;")
		g.line("}")
	}
	if len(lp.Suffix) > 0 {
		g.line("{")
		g.line("  int q = len; bool m = true;")
		g.line("  do {")
		for k := len(lp.Suffix) - 1; k >= 0; k-- {
			if t := lp.Suffix[k]; t == gpu.LikeAny {
				g.line("    if (q <= 0) { m = false; break; }")
				g.line("    q--; while (q > 0 && (s[q] & 0xC0) == 0x80) q--;")
			} else {
				g.line("    if (q <= 0 || s[q - 1] != %d) { m = false; break; }", t)
				g.line("    q--;")
			}
		}
		g.line("  } while (0);")
		g.line("  if (!m || q < pos) break;")
		g.line("}")
	}
	g.line("r = 1;")
	g.indent = in
	g.line("} while (0);")
}

// segForward matches seg at variable x, advancing it; fail runs (inside a
// do-while of its own) on a mismatch.
func (g *exprGen) segForward(seg gpu.LikeSeg, x, fail string) {
	if len(seg) == 0 {
		return
	}
	g.line("do {")
	for _, t := range seg {
		if t == gpu.LikeAny {
			// One code point: its lead byte gives its length.
			g.line("  if (%s >= len) { %s }", x, fail)
			g.line("  { const uint8_t b = s[%s]; const int w = b < 0xC0 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4; %s += min(w, len - %s); }", x, x, x)
			continue
		}
		g.line("  if (%s >= len || s[%s] != %d) { %s }", x, x, t, fail)
		g.line("  %s++;", x)
	}
	g.line("} while (0);")
}

// compareConst declares cmp: the byte-wise order (-1, 0, 1) of the row's
// string against p, as Go's strings.Compare.
func (g *exprGen) compareConst(p string) {
	g.line("int cmp = 0;")
	for k := 0; k < len(p); k++ {
		g.line("if (cmp == 0) cmp = %d >= len ? -1 : s[%d] != %d ? (s[%d] < %d ? -1 : 1) : 0;", k, k, p[k], k, p[k])
	}
	g.line("if (cmp == 0 && len > %d) cmp = 1;", len(p))
}

// equalsConst is a C expression: the row's string equals x.
func equalsConst(x string) string {
	parts := []string{fmt.Sprintf("len == %d", len(x))}
	for k := 0; k < len(x); k++ {
		parts = append(parts, fmt.Sprintf("s[%d] == %d", k, x[k]))
	}
	return "(" + strings.Join(parts, " && ") + ")"
}
