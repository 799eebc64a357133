package cuda

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/rigel-db/rigel/gpu"
)

// String operations (OpStrPred, OpStrMap) run through tables built on the
// host over the argument's dictionary (gpu/strfunc.go): one byte per code
// for a predicate, one int32 code into a new dictionary for a function. The
// tables are uploaded before the launch; their device pointers follow the
// input columns in Args, one word per string node in strNodes order. The
// kernel source does not depend on the patterns, so one compiled kernel
// serves every pattern of the same shape.

// pipelineNodes lists the distinct expression nodes of a pipeline, children
// before parents (filter first, then projections).
func pipelineNodes(p *gpu.Pipeline) []*gpu.Expr {
	var out []*gpu.Expr
	seen := map[*gpu.Expr]bool{}
	var walk func(e *gpu.Expr)
	walk = func(e *gpu.Expr) {
		if e == nil || seen[e] {
			return
		}
		seen[e] = true
		for _, a := range e.Args {
			walk(a)
		}
		out = append(out, e)
	}
	walk(p.Filter)
	for _, e := range p.Project {
		walk(e)
	}
	return out
}

// strNodes lists the distinct string nodes of a pipeline that read a table,
// children before parents, so that a node's argument dictionary is known
// when its table is built. A predicate over a Str column has none: it runs
// per row on the column's characters (codegen_strrow.go).
func strNodes(p *gpu.Pipeline) []*gpu.Expr {
	var out []*gpu.Expr
	for _, e := range pipelineNodes(p) {
		if e.Op != gpu.OpStrPred && e.Op != gpu.OpStrMap {
			continue
		}
		if len(e.Args) == 1 && e.Args[0] != nil && e.Args[0].Type.Kind == gpu.Str {
			continue
		}
		out = append(out, e)
	}
	return out
}

// strWord is the Args word of node e's table pointer.
func strWord(p *gpu.Pipeline, e *gpu.Expr) (int, error) {
	for i, s := range strNodes(p) {
		if s == e {
			return inputWord(len(p.Inputs)) + i, nil
		}
	}
	return 0, fmt.Errorf("%s: not a string node of the pipeline", e)
}

// strExpr emits a table lookup. A null argument never reads the table (its
// code may be anything, and the dictionary may be empty).
func (g *exprGen) strExpr(e *gpu.Expr, v, n string, args, nulls []string) error {
	if len(e.Args) == 1 && e.Args[0].Type.Kind == gpu.Str {
		return g.strRowExpr(e, v, n) // codegen_strrow.go
	}
	if isPlaceIn(e) || isCodeIn(e) { // dictorder.go: a place, or a code in a merged dictionary
		switch {
		case isPlaceIn(e) && (len(e.Args) != 2 || e.Args[1].Type.Kind != gpu.Dict || e.Type.Kind != gpu.Int32):
			return fmt.Errorf("%s takes two dict arguments and gives int32", e)
		case isCodeIn(e) && (len(e.Args) < 2 || e.Type.Kind != gpu.Dict):
			return fmt.Errorf("%s takes dict arguments and gives dict", e)
		case e.Args[0].Type.Kind != gpu.Dict:
			return fmt.Errorf("%s reads a dict value", e)
		}
		w, err := strWord(g.p, e)
		if err != nil {
			return err
		}
		g.line("if (!%s) %s = ((const int32_t *)A.a[%d])[%s];", n, v, w, args[0])
		return nil
	}
	if len(e.Args) != 1 || e.Args[0].Type.Kind != gpu.Dict {
		return fmt.Errorf("%s takes one dict argument", e.Op)
	}
	if err := e.Str.Check(); err != nil {
		return fmt.Errorf("%s: %w", e, err)
	}
	w, err := strWord(g.p, e)
	if err != nil {
		return err
	}
	if e.Op == gpu.OpStrPred {
		if e.Type.Kind != gpu.Bool || !e.Str.IsPredicate() {
			return fmt.Errorf("%s: a string predicate gives bool", e)
		}
		g.line("if (!%s) %s = ((const uint8_t *)A.a[%d])[%s];", n, v, w, args[0])
		return nil
	}
	if e.Type.Kind != gpu.Dict || e.Str.IsPredicate() {
		return fmt.Errorf("%s: a string function gives dict", e)
	}
	g.line("if (!%s) %s = ((const int32_t *)A.a[%d])[%s];", n, v, w, args[0])
	return nil
}

// dateAdd emits OpAddMonths and OpAddDayInterval (gpu/ir_datetime.go), as
// gpu/host's eval_datetime.go computes them: months move the civil date
// (its day clamped to the new month's last), a day interval must be whole
// days; a result beyond int32 days raises RG_OVERFLOW, an interval that is
// not whole days RG_DOMAIN.
func (g *exprGen) dateAdd(e *gpu.Expr, v, n string, args []string) error {
	if len(e.Args) < 2 || e.Args[0].Type.Kind != gpu.Date32 || e.Args[1].Type.Kind != gpu.Int64 || e.Type.Kind != gpu.Date32 {
		return fmt.Errorf("%s takes a date32 and an int64 and gives date32", e.Op)
	}
	g.line("if (!%s) {", n)
	if e.Op == gpu.OpAddDayInterval {
		if len(e.Args) != 3 || e.Args[2].Op != gpu.OpConst || e.Args[2].Const.I64 <= 0 {
			return fmt.Errorf("add_day_interval takes a positive constant unit")
		}
		g.line("  const long long per = 86400LL * (long long)(%s), iv = (long long)%s;", args[2], args[1])
		g.line("  const long long d = (long long)%s + iv / per;", args[0])
		g.line("  if (iv %% per != 0) rg_raise(status, RG_DOMAIN);")
	} else {
		g.line("  const long long months = (long long)%s;", args[1])
		g.line("  if (months > (1LL << 40) || months < -(1LL << 40)) rg_raise(status, RG_OVERFLOW);")
		g.civilFromDays(args[0])
		g.line("  const long long total = yy * 12 + mm - 1 + months;")
		g.line("  const long long ny = total >= 0 ? total / 12 : -((-total + 11) / 12);")
		g.line("  const long long nm = total - ny * 12 + 1;")
		g.line("  const bool leap = (ny %% 4 == 0 && ny %% 100 != 0) || ny %% 400 == 0;")
		g.line("  const long long dim = nm == 2 ? (leap ? 29 : 28) : (nm == 4 || nm == 6 || nm == 9 || nm == 11) ? 30 : 31;")
		g.line("  const long long nd = dd < dim ? dd : dim;")
		// days from civil (H. Hinnant).
		g.line("  const long long y2 = nm <= 2 ? ny - 1 : ny;")
		g.line("  const long long era2 = (y2 >= 0 ? y2 : y2 - 399) / 400;")
		g.line("  const long long yoe2 = y2 - era2 * 400;")
		g.line("  const long long doy2 = (153 * (nm > 2 ? nm - 3 : nm + 9) + 2) / 5 + nd - 1;")
		g.line("  const long long doe2 = yoe2 * 365 + yoe2 / 4 - yoe2 / 100 + doy2;")
		g.line("  const long long d = era2 * 146097 + doe2 - 719468;")
	}
	g.line("  if (d < -2147483648LL || d > 2147483647LL) rg_raise(status, RG_OVERFLOW);")
	g.line("  %s = (int)d;", v)
	g.line("}")
	return nil
}

// civilFromDays declares yy, mm and dd, the proleptic Gregorian year,
// month and day of the date days (days since 1970-01-01), by H. Hinnant's
// civil_from_days, exact for every int32 day.
func (g *exprGen) civilFromDays(days string) {
	g.line("  const long long z = (long long)%s + 719468;", days)
	g.line("  const long long era = (z >= 0 ? z : z - 146096) / 146097;")
	g.line("  const long long doe = z - era * 146097;")
	g.line("  const long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;")
	g.line("  const long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);")
	g.line("  const long long mp = (5 * doy + 2) / 153;")
	g.line("  const long long dd = doy - (153 * mp + 2) / 5 + 1;")
	g.line("  const long long mm = mp < 10 ? mp + 3 : mp - 9;")
	g.line("  const long long yy = yoe + era * 400 + (mm <= 2 ? 1 : 0);")
}

// datePart emits the year, month or day of a date (days since 1970-01-01),
// by H. Hinnant's civil_from_days, exact for every int32 day.
func (g *exprGen) datePart(e *gpu.Expr, v, n string, args []string) error {
	if len(e.Args) != 1 || e.Args[0].Type.Kind != gpu.Date32 || e.Type.Kind != gpu.Int64 {
		return fmt.Errorf("%s takes a date32 and gives int64", e.Op)
	}
	g.line("if (!%s) {", n)
	g.civilFromDays(args[0])
	switch e.Op {
	case gpu.OpYear:
		g.line("  %s = yy; (void)dd;", v)
	case gpu.OpMonth:
		g.line("  %s = mm; (void)dd; (void)yy;", v)
	default:
		g.line("  %s = dd; (void)yy;", v)
	}
	g.line("}")
	return nil
}

// strTables holds the host-built tables of one Run.
type strTables struct {
	pred  map[*gpu.Expr][]byte
	codes map[*gpu.Expr][]int32
	dicts map[*gpu.Expr]*array.String // OpStrMap results
	// argDict: the dictionary each node's table was built over.
	argDict map[*gpu.Expr]*array.String
	// merged: the merged dictionaries of StrCodeIn nodes, by the
	// dictionaries merged (mergedDict).
	merged map[string]*array.String
}

// buildStrTables evaluates every string node over its argument's
// dictionary.
func buildStrTables(p *gpu.Pipeline, cols []*column) (*strTables, error) {
	st := &strTables{pred: map[*gpu.Expr][]byte{}, codes: map[*gpu.Expr][]int32{}, dicts: map[*gpu.Expr]*array.String{}, argDict: map[*gpu.Expr]*array.String{}}
	if err := gpu.CheckStrUses(p); err != nil {
		return nil, err
	}
	for _, e := range strNodes(p) {
		if isPlaceIn(e) && len(e.Args) == 2 { // dictorder.go
			from := st.dictOf(e.Args[0], cols)
			codes, err := placeTable(from, st.dictOf(e.Args[1], cols))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", e, err)
			}
			st.codes[e], st.argDict[e] = codes, from
			continue
		}
		if isCodeIn(e) && len(e.Args) >= 2 { // dictorder.go
			from, merged := st.dictOf(e.Args[0], cols), st.mergedDict(e, cols)
			if from == nil || merged == nil {
				return nil, fmt.Errorf("%s: a value without a dictionary", e)
			}
			st.codes[e], st.dicts[e], st.argDict[e] = gpu.DictCodeMap(from, merged), merged, from
			continue
		}
		if len(e.Args) != 1 || e.Args[0] == nil {
			return nil, fmt.Errorf("%s takes one argument", e.Op)
		}
		if err := e.Str.Check(); err != nil {
			return nil, fmt.Errorf("%s: %w", e, err)
		}
		dict := st.dictOf(e.Args[0], cols)
		st.argDict[e] = dict
		if e.Op == gpu.OpStrPred {
			t, err := e.Str.PredicateTable(dict)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", e, err)
			}
			st.pred[e] = t
			continue
		}
		codes, out, err := e.Str.MapTable(dict)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e, err)
		}
		st.codes[e], st.dicts[e] = codes, out
	}
	return st, nil
}

// checkDictProjections refuses a Dict projection of p that reads no dict
// column of cols: its output would have no dictionary.
func (st *strTables) checkDictProjections(p *gpu.Pipeline, cols []*column) error {
	for _, e := range p.Project {
		if e.Type.Kind == gpu.Dict && st.dictOf(e, cols) == nil {
			return fmt.Errorf("dict projection %s reads no dict column: %w", e, gpu.ErrUnsupported)
		}
	}
	return nil
}

// dictOf is the dictionary of a Dict expression, OpStrMap results included.
// A CASE takes its dictionary from its value branches only: a condition
// may compare another string column, whose dictionary is not the result's.
func (st *strTables) dictOf(e *gpu.Expr, cols []*column) *array.String {
	if e == nil || e.Type.Kind != gpu.Dict {
		return nil
	}
	switch e.Op {
	case gpu.OpStrMap:
		if st == nil {
			return nil
		}
		return st.dicts[e]
	case gpu.OpCol:
		if e.Col < len(cols) {
			return cols[e.Col].dict
		}
		return nil
	case gpu.OpCase:
		for i, a := range e.Args {
			if gpu.IsCaseValue(i, len(e.Args)) {
				if d := st.dictOf(a, cols); d != nil {
					return d
				}
			}
		}
		return nil
	}
	for _, a := range e.Args {
		if d := st.dictOf(a, cols); d != nil {
			return d
		}
	}
	return nil
}


// checkDictMixing refuses a pipeline that compares or mixes codes of two
// different dictionaries (two string columns of different tables, say): a
// code means a string only in its own dictionary, so such a comparison or
// CASE would answer wrongly. Run and the probes have made such
// comparisons ones of places and such CASEs ones of codes in a merged
// dictionary first (dictorder.go), so this is the check that they did.
func (st *strTables) checkDictMixing(p *gpu.Pipeline, cols []*column) error {
	mixed := func(e *gpu.Expr, a, b *array.String) error {
		if a == nil || b == nil || gpu.SameDictionary(a, b) {
			return nil
		}
		return fmt.Errorf("%s: dict values from two different dictionaries (%d and %d strings): %w", e, a.Len(), b.Len(), gpu.ErrUnsupported)
	}
	for _, e := range pipelineNodes(p) {
		switch e.Op {
		case gpu.OpEq, gpu.OpNe, gpu.OpLt, gpu.OpLe, gpu.OpGt, gpu.OpGe:
			if len(e.Args) != 2 || e.Args[0].Type.Kind != gpu.Dict {
				continue
			}
			if err := mixed(e, st.dictOf(e.Args[0], cols), st.dictOf(e.Args[1], cols)); err != nil {
				return err
			}
		case gpu.OpCase:
			if e.Type.Kind != gpu.Dict {
				continue
			}
			var first *array.String
			for i, a := range e.Args {
				if !gpu.IsCaseValue(i, len(e.Args)) {
					continue
				}
				d := st.dictOf(a, cols)
				if err := mixed(e, first, d); err != nil {
					return err
				}
				if first == nil {
					first = d
				}
			}
		}
	}
	return nil
}

// upload copies the tables into one pool block and writes their pointers
// into args; the caller puts the block back after the run.
func (d *Device) uploadStrTables(p *gpu.Pipeline, st *strTables, args []uint64) (block uint64, err error) {
	nodes := strNodes(p)
	if len(nodes) == 0 {
		return 0, nil
	}
	base := inputWord(len(p.Inputs))
	offs := make([]int, len(nodes))
	size := 0
	for i, e := range nodes {
		if ptr, ok := d.cachedStrTable(e, st.argDict[e], tableBytes(st, e)); ok {
			args[base+i], offs[i] = ptr, -1
			continue
		}
		offs[i] = size
		size += max(alignUp(len(tableBytes(st, e))), batchAlign) // an empty table still gets a valid pointer
	}
	if size == 0 {
		return 0, nil
	}
	buf := make([]byte, size)
	for i, e := range nodes {
		if offs[i] >= 0 {
			copy(buf[offs[i]:], tableBytes(st, e))
		}
	}
	block, err = d.pool.get(int64(size), "string tables")
	if err != nil {
		return 0, err
	}
	if err := d.copyIn(block, buf, "string tables"); err != nil {
		d.pool.put(block)
		return 0, err
	}
	for i := range nodes {
		if offs[i] >= 0 {
			args[base+i] = block + uint64(offs[i])
		}
	}
	return block, nil
}
