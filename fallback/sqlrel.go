package fallback

import (
	"fmt"
	"math"
	"strings"

	"github.com/rigel-db/rigel/internal/sqltext"
	"github.com/rigel-db/rigel/substrait"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// Writer turns a Substrait relation tree into one DuckDB query. Every
// relation becomes a SELECT whose output columns are named c0, c1, ... in
// the relation's order (after its emit), nested as a derived table with a
// unique alias (t1, t2, ...) in its parent; expressions refer to input
// fields as alias.cN, and outer references reach the alias of the query
// that holds the subquery. Every computed value is cast to the type the
// plan declares, so the result has the plan's types, not DuckDB's.
//
// Anything without an exact DuckDB equivalent is an error naming it: a
// wrong SQL text would be a wrong answer.
type Writer struct {
	// Input, when set, is asked about each relation below the root that is
	// not in a subquery: a non-empty view name says that the relation's
	// rows are computed elsewhere and registered as a DuckDB view of that
	// name, with columns c0, c1, ... Named table reads are never asked:
	// DuckDB reads its own tables.
	// A non-empty query instead is the relation already written as DuckDB
	// SQL with columns c0, c1, ... (by a Writer whose views the caller
	// keeps), which goes into the query as it is: a relation below a
	// chain of fallbacks is then written once, not again at every level.
	Input func(r plan.Rel) (view, query string, err error)
	// ArrowFiles, when set, is asked for the name of a registered table
	// that will hold the base schema's columns (c0, c1, ...) of a
	// LocalFiles read of Arrow IPC files, which DuckDB cannot read itself
	// (arrowipc.go). Unset, such a read is refused.
	ArrowFiles func(r *plan.LocalFileReadRel) (table string, err error)
	seq        int
}

// Query writes r as a query with columns c0, c1, ...
func (w *Writer) Query(r plan.Rel) (string, error) {
	return w.rel(r, nil, true)
}

// PlanSQL writes a whole plan as one DuckDB query whose columns carry the
// plan's output names (c0, ... where it has none).
func PlanSQL(root plan.Rel, names []string) (string, error) {
	return (&Writer{}).planSQL(root, names)
}

func (w *Writer) planSQL(root plan.Rel, names []string) (string, error) {
	q, err := w.rel(root, nil, false)
	if err != nil {
		return "", err
	}
	n := len(root.RecordType().Types())
	cols := make([]string, n)
	for i := range cols {
		name := fmt.Sprintf("c%d", i)
		if i < len(names) {
			name = names[i]
		}
		cols[i] = fmt.Sprintf("c%d AS %s", i, sqltext.Ident(name))
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM (" + q + ") AS " + w.alias(), nil
}

func (w *Writer) alias() string {
	w.seq++
	return fmt.Sprintf("t%d", w.seq)
}

// from writes an input relation as a derived table (or the view that holds
// its rows) and returns its alias.
func (w *Writer) from(r plan.Rel, outer *scope, leaves bool) (string, string, error) {
	if leaves && w.Input != nil {
		if _, isRead := r.(*plan.NamedTableReadRel); !isRead {
			view, query, err := w.Input(r)
			if err != nil {
				return "", "", err
			}
			if query != "" {
				a := w.alias()
				return "(" + query + ") AS " + a, a, nil
			}
			if view != "" {
				// The columns are cast to the plan's types: the device may
				// hold a value in a wider type than the plan declares.
				ts := r.RecordType().Types()
				cols := make([]string, len(ts))
				for i, t := range ts {
					st, err := sqlType(t)
					if err != nil {
						return "", "", err
					}
					cols[i] = fmt.Sprintf("CAST(c%d AS %s) AS c%d", i, st, i)
				}
				a := w.alias()
				return "(SELECT " + strings.Join(cols, ", ") + " FROM " + sqltext.Ident(view) + ") AS " + a, a, nil
			}
		}
	}
	q, err := w.rel(r, outer, leaves)
	if err != nil {
		return "", "", err
	}
	a := w.alias()
	return "(" + q + ") AS " + a, a, nil
}

// selectList names the direct output columns c0..., through the emit.
func selectList(r plan.Rel, direct []string) (string, error) {
	cols := direct
	if m, ok := r.(interface{ OutputMapping() []int32 }); ok && m.OutputMapping() != nil {
		cols = nil
		for _, j := range m.OutputMapping() {
			if j < 0 || int(j) >= len(direct) {
				return "", fmt.Errorf("fallback SQL: emit refers to column %d of %d", j, len(direct))
			}
			cols = append(cols, direct[j])
		}
	}
	if len(cols) == 0 {
		return "", fmt.Errorf("fallback SQL: a relation without output columns")
	}
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = fmt.Sprintf("%s AS c%d", c, i)
	}
	return strings.Join(out, ", "), nil
}

func relName(r plan.Rel) string {
	return strings.TrimPrefix(fmt.Sprintf("%T", r), "*plan.")
}

// rel writes one relation. outer is the scope of the expression holding it
// as a subquery (nil at the top); leaves says whether its inputs may come
// from Input.
func (w *Writer) rel(r plan.Rel, outer *scope, leaves bool) (string, error) {
	q, err := w.relBody(r, outer, leaves)
	if err != nil && !strings.Contains(err.Error(), "fallback SQL: in ") {
		err = fmt.Errorf("fallback SQL: in %s: %w", relName(r), err)
	}
	return q, err
}

func (w *Writer) relBody(r plan.Rel, outer *scope, leaves bool) (string, error) {
	switch x := r.(type) {
	case *plan.NamedTableReadRel:
		return w.namedRead(x, outer)
	case *plan.VirtualTableReadRel:
		return w.values(x, outer)
	case *plan.LocalFileReadRel:
		return w.localFiles(x, outer)
	case *plan.FilterRel:
		src, a, err := w.from(x.Input(), outer, leaves)
		if err != nil {
			return "", err
		}
		sc := aliasScope(a, len(x.Input().RecordType().Types()), outer)
		cond, err := w.expr(x.Condition(), sc)
		if err != nil {
			return "", err
		}
		sel, err := selectList(r, sc.cols)
		if err != nil {
			return "", err
		}
		return "SELECT " + sel + " FROM " + src + " WHERE " + cond, nil
	case *plan.ProjectRel:
		src, a, err := w.from(x.Input(), outer, leaves)
		if err != nil {
			return "", err
		}
		sc := aliasScope(a, len(x.Input().RecordType().Types()), outer)
		exprs, err := w.exprs(x.Expressions(), sc)
		if err != nil {
			return "", err
		}
		sel, err := selectList(r, append(append([]string(nil), sc.cols...), exprs...))
		if err != nil {
			return "", err
		}
		return "SELECT " + sel + " FROM " + src, nil
	case *plan.AggregateRel:
		return w.aggregateRel(x, outer, leaves)
	case *plan.JoinRel:
		return w.join(x, outer, leaves)
	case *plan.CrossRel:
		ls, la, err := w.from(x.Left(), outer, leaves)
		if err != nil {
			return "", err
		}
		rs, ra, err := w.from(x.Right(), outer, leaves)
		if err != nil {
			return "", err
		}
		cols := append(aliasScope(la, len(x.Left().RecordType().Types()), nil).cols,
			aliasScope(ra, len(x.Right().RecordType().Types()), nil).cols...)
		sel, err := selectList(r, cols)
		if err != nil {
			return "", err
		}
		return "SELECT " + sel + " FROM " + ls + " CROSS JOIN " + rs, nil
	case *plan.SortRel:
		src, a, err := w.from(x.Input(), outer, leaves)
		if err != nil {
			return "", err
		}
		sc := aliasScope(a, len(x.Input().RecordType().Types()), outer)
		keys, err := w.sortKeys(x.Sorts(), sc)
		if err != nil {
			return "", err
		}
		sel, err := selectList(r, sc.cols)
		if err != nil {
			return "", err
		}
		return "SELECT " + sel + " FROM " + src + " ORDER BY " + keys, nil
	case *plan.FetchRel:
		return w.fetch(x, outer, leaves)
	case *plan.SetRel:
		return w.set(x, outer, leaves)
	}
	return "", fmt.Errorf("fallback SQL: relation %s has no DuckDB form here", relName(r))
}

func (w *Writer) namedRead(x *plan.NamedTableReadRel, outer *scope) (string, error) {
	if len(x.Names()) == 0 {
		return "", fmt.Errorf("fallback SQL: named table without a name")
	}
	parts := make([]string, len(x.Names()))
	for i, n := range x.Names() {
		parts[i] = sqltext.Ident(n)
	}
	base := x.BaseSchema()
	if len(base.Names) != len(base.Struct.Types) {
		return "", fmt.Errorf("fallback SQL: table %s with a nested base schema", strings.Join(x.Names(), "."))
	}
	a := w.alias()
	sc, err := castScope(base, func(i int) string { return a + "." + sqltext.Ident(base.Names[i]) }, outer)
	if err != nil {
		return "", err
	}
	return w.readBody(x, sc, strings.Join(parts, ".")+" AS "+a)
}

// castScope is the scope of a read's base columns, column i read as col(i)
// and cast to the type the plan declares for it (a producer may declare
// INTEGER keys for BIGINT columns).
func castScope(base types.NamedStruct, col func(i int) string, outer *scope) (*scope, error) {
	sc := &scope{cols: make([]string, len(base.Names)), outer: outer}
	for i, n := range base.Names {
		t, err := sqlType(base.Struct.Types[i])
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", n, err)
		}
		sc.cols[i] = "CAST(" + col(i) + " AS " + t + ")"
	}
	return sc, nil
}

// readBody applies a read's filter, projection mask and emit to its base
// columns.
func (w *Writer) readBody(x interface {
	plan.Rel
	Filter() expr.Expression
	Projection() *expr.MaskExpression
}, sc *scope, src string) (string, error) {
	where := ""
	if f := x.Filter(); f != nil {
		cond, err := w.expr(f, sc)
		if err != nil {
			return "", err
		}
		where = " WHERE " + cond
	}
	direct := sc.cols
	if p := x.Projection(); p != nil {
		sel := p.ToProto().GetSelect()
		if sel == nil {
			return "", fmt.Errorf("fallback SQL: projection mask without a struct select")
		}
		direct = nil
		for _, it := range sel.GetStructItems() {
			f := int(it.GetField())
			if it.GetChild() != nil || f < 0 || f >= len(sc.cols) {
				return "", fmt.Errorf("fallback SQL: projection mask item %d (nested or out of range)", f)
			}
			direct = append(direct, sc.cols[f])
		}
	}
	sel, err := selectList(x, direct)
	if err != nil {
		return "", err
	}
	return "SELECT " + sel + " FROM " + src + where, nil
}

func (w *Writer) values(x *plan.VirtualTableReadRel, outer *scope) (string, error) {
	ts := x.RecordType().Types()
	if len(ts) == 0 {
		return "", fmt.Errorf("fallback SQL: a virtual table without columns")
	}
	sqlTypes := make([]string, len(ts))
	for i, t := range ts {
		s, err := sqlType(t)
		if err != nil {
			return "", err
		}
		sqlTypes[i] = s
	}
	a := w.alias()
	cols := make([]string, len(ts))
	for i := range cols {
		cols[i] = fmt.Sprintf("c%d", i)
	}
	var src string
	if len(x.Values()) == 0 {
		nulls := make([]string, len(ts))
		for i, t := range sqlTypes {
			nulls[i] = fmt.Sprintf("CAST(NULL AS %s) AS c%d", t, i)
		}
		src = "(SELECT " + strings.Join(nulls, ", ") + " WHERE false) AS " + a
	} else {
		rows := make([]string, len(x.Values()))
		for i, row := range x.Values() {
			if len(row) != len(ts) {
				return "", fmt.Errorf("fallback SQL: virtual table row %d has %d values for %d columns", i, len(row), len(ts))
			}
			vals := make([]string, len(row))
			for j, e := range row {
				v, err := w.expr(e, &scope{outer: outer})
				if err != nil {
					return "", err
				}
				vals[j] = "CAST(" + v + " AS " + sqlTypes[j] + ")"
			}
			rows[i] = "(" + strings.Join(vals, ", ") + ")"
		}
		src = "(VALUES " + strings.Join(rows, ", ") + ") AS " + a + "(" + strings.Join(cols, ", ") + ")"
	}
	return w.readBody(x, aliasScope(a, len(ts), outer), src)
}

func (w *Writer) aggregateRel(x *plan.AggregateRel, outer *scope, leaves bool) (string, error) {
	src, a, err := w.from(x.Input(), outer, leaves)
	if err != nil {
		return "", err
	}
	sc := aliasScope(a, len(x.Input().RecordType().Types()), outer)
	sets := x.GroupingReferences()
	if len(sets) > 1 {
		// The output of several grouping sets (one column per reference,
		// or per distinct expression plus a set index) is read differently
		// by substrait-go and the spec; refused rather than guessed.
		return "", fmt.Errorf("fallback SQL: an aggregate with %d grouping sets", len(sets))
	}
	groupExprs, err := w.exprs(x.GroupingExpressions(), sc)
	if err != nil {
		return "", err
	}
	var direct, keys []string
	for _, set := range sets {
		for _, ref := range set {
			if int(ref) >= len(groupExprs) {
				return "", fmt.Errorf("fallback SQL: grouping reference %d of %d expressions", ref, len(groupExprs))
			}
			direct = append(direct, groupExprs[ref])
			keys = append(keys, groupExprs[ref])
		}
	}
	for _, m := range x.Measures() {
		s, err := w.aggregate(m.Measure(), m.Filter(), sc)
		if err != nil {
			return "", err
		}
		direct = append(direct, s)
	}
	sel, err := selectList(x, direct)
	if err != nil {
		return "", err
	}
	q := "SELECT " + sel + " FROM " + src
	if len(keys) > 0 {
		q += " GROUP BY " + strings.Join(keys, ", ")
	} else if len(sets) == 1 && len(x.Measures()) == 0 {
		// One empty grouping set and no measures: one row of nothing,
		// which has no SQL form with columns. Not reachable with output
		// columns; kept as an error for clarity.
		return "", fmt.Errorf("fallback SQL: an aggregate without keys or measures")
	}
	return q, nil
}

func (w *Writer) join(x *plan.JoinRel, outer *scope, leaves bool) (string, error) {
	ls, la, err := w.from(x.Left(), outer, leaves)
	if err != nil {
		return "", err
	}
	rs, ra, err := w.from(x.Right(), outer, leaves)
	if err != nil {
		return "", err
	}
	left := aliasScope(la, len(x.Left().RecordType().Types()), outer).cols
	right := aliasScope(ra, len(x.Right().RecordType().Types()), outer).cols
	sc := &scope{cols: append(append([]string(nil), left...), right...), outer: outer}
	cond := "true"
	if x.Expr() != nil {
		if cond, err = w.expr(x.Expr(), sc); err != nil {
			return "", err
		}
	}
	var kind string
	direct := sc.cols
	switch x.Type() {
	case plan.JoinTypeInner:
		kind = "INNER JOIN"
	case plan.JoinTypeLeft:
		kind = "LEFT JOIN"
	case plan.JoinTypeRight:
		kind = "RIGHT JOIN"
	case plan.JoinTypeOuter:
		kind = "FULL OUTER JOIN"
	case plan.JoinTypeLeftSemi:
		kind, direct = "SEMI JOIN", left
	case plan.JoinTypeLeftAnti:
		kind, direct = "ANTI JOIN", left
	case plan.JoinTypeRightSemi, plan.JoinTypeRightAnti:
		// DuckDB's SEMI and ANTI keep the left side: the sides swap.
		kind = map[plan.JoinType]string{plan.JoinTypeRightSemi: "SEMI JOIN", plan.JoinTypeRightAnti: "ANTI JOIN"}[x.Type()]
		ls, rs, direct = rs, ls, right
	default:
		return "", fmt.Errorf("fallback SQL: join type %s has no DuckDB form here", x.Type())
	}
	q := " FROM " + ls + " " + kind + " " + rs + " ON " + cond
	// substrait-go answers a literal true for a join without one.
	if pf := x.PostJoinFilter(); pf != nil && !isTrue(pf) {
		switch x.Type() {
		case plan.JoinTypeInner:
		default:
			return "", fmt.Errorf("fallback SQL: a post-join filter on a %s join", x.Type())
		}
		f, err := w.expr(pf, sc)
		if err != nil {
			return "", err
		}
		q += " WHERE " + f
	}
	sel, err := selectList(x, direct)
	if err != nil {
		return "", err
	}
	return "SELECT " + sel + q, nil
}

func (w *Writer) fetch(x *plan.FetchRel, outer *scope, leaves bool) (string, error) {
	off, count, input, err := foldFetches(x)
	if err != nil {
		return "", err
	}
	limit := ""
	if count >= 0 {
		limit = fmt.Sprintf(" LIMIT %d", count)
	}
	offset := ""
	if off > 0 {
		offset = fmt.Sprintf(" OFFSET %d", off)
	}
	// A fetch over a sort is one SELECT ... ORDER BY ... LIMIT, so that
	// the rows kept are the first ones in the sort's order whatever DuckDB
	// does with the order of derived tables.
	if s, ok := input.(*plan.SortRel); ok {
		q, err := w.rel(s, outer, leaves)
		if err != nil {
			return "", err
		}
		if x.OutputMapping() == nil {
			return q + limit + offset, nil
		}
		// An emit on the fetch: select from the limited sort, which keeps
		// its order in DuckDB (order-preserving projections).
		a := w.alias()
		sel, err := selectList(x, aliasScope(a, len(s.RecordType().Types()), nil).cols)
		if err != nil {
			return "", err
		}
		return "SELECT " + sel + " FROM (" + q + limit + offset + ") AS " + a, nil
	}
	src, a, err := w.from(input, outer, leaves)
	if err != nil {
		return "", err
	}
	sel, err := selectList(x, aliasScope(a, len(input.RecordType().Types()), nil).cols)
	if err != nil {
		return "", err
	}
	return "SELECT " + sel + " FROM " + src + limit + offset, nil
}

// foldFetches folds x and the fetches without an emit straight below it
// into one offset and count (negative: no limit) over the lowest one's
// input. DuckDB plans each nested LIMIT again, and over a correlated
// subquery its prepare time doubled with every level (14 levels: 374 ms,
// found by FuzzMutatedPlanRun), which nobody can interrupt.
func foldFetches(x *plan.FetchRel) (offset, count int64, input plan.Rel, err error) {
	offset, count, input = x.Offset(), x.Count(), x.Input()
	if offset < 0 {
		return 0, 0, nil, fmt.Errorf("fallback SQL: negative offset %d", offset)
	}
	for {
		f, ok := input.(*plan.FetchRel)
		if !ok || f.OutputMapping() != nil {
			return offset, count, input, nil
		}
		if f.Offset() < 0 {
			return 0, 0, nil, fmt.Errorf("fallback SQL: negative offset %d", f.Offset())
		}
		if offset > math.MaxInt64-f.Offset() {
			return 0, 0, nil, fmt.Errorf("fallback SQL: offsets %d and %d add past 2^63", offset, f.Offset())
		}
		// The outer fetch takes rows [offset, offset+count) of the inner
		// one's [f.Offset(), f.Offset()+f.Count()).
		if f.Count() >= 0 {
			left := max(f.Count()-offset, 0)
			if count < 0 || count > left {
				count = left
			}
		}
		offset += f.Offset()
		input = f.Input()
	}
}

func (w *Writer) set(x *plan.SetRel, outer *scope, leaves bool) (string, error) {
	ins := x.Inputs()
	if len(ins) < 2 {
		return "", fmt.Errorf("fallback SQL: a set operation with %d inputs", len(ins))
	}
	parts := make([]string, len(ins))
	for i, in := range ins {
		src, _, err := w.from(in, outer, leaves)
		if err != nil {
			return "", err
		}
		parts[i] = "(SELECT * FROM " + src + ")"
	}
	// The set semantics follow translate/setop.go: the distinct operations
	// are SQL's (rows compare with nulls equal), the primary input first.
	var body string
	switch x.Op() {
	case plan.SetOpUnionAll:
		body = strings.Join(parts, " UNION ALL ")
	case plan.SetOpUnionDistinct:
		body = strings.Join(parts, " UNION ")
	case plan.SetOpMinusPrimary:
		body = strings.Join(parts, " EXCEPT ")
	case plan.SetOpIntersectionMultiset:
		body = strings.Join(parts, " INTERSECT ")
	case plan.SetOpIntersectionPrimary:
		body = parts[0] + " INTERSECT (" + strings.Join(parts[1:], " UNION ALL ") + ")"
	case proto.SetRel_SET_OP_MINUS_PRIMARY_ALL:
		// max(0, m - (n1 + ... + nk)) copies: EXCEPT ALL, one secondary
		// input after the other.
		body = strings.Join(parts, " EXCEPT ALL ")
	case proto.SetRel_SET_OP_INTERSECTION_MULTISET_ALL:
		// min(m, n1, ..., nk) copies: INTERSECT ALL of every input.
		body = strings.Join(parts, " INTERSECT ALL ")
	default:
		return "", fmt.Errorf("fallback SQL: set operation %s has no DuckDB form here", x.Op())
	}
	// DuckDB gives each column the common supertype of the inputs' types
	// (DECIMAL(15,2) and DECIMAL(16,2) make DECIMAL(16,2)); the plan's
	// type is the primary input's.
	a := w.alias()
	ts := ins[0].RecordType().Types()
	cols := aliasScope(a, len(ts), nil).cols
	for i, t := range ts {
		st, err := sqlType(t)
		if err != nil {
			return "", err
		}
		cols[i] = "CAST(" + cols[i] + " AS " + st + ")"
	}
	sel, err := selectList(x, cols)
	if err != nil {
		return "", err
	}
	return "SELECT " + sel + " FROM (" + body + ") AS " + a, nil
}

// isTrue says whether e is the literal true.
func isTrue(e expr.Expression) bool {
	l, ok := e.(expr.Literal)
	if !ok {
		return false
	}
	p, err := substrait.LiteralProto(l)
	if err != nil {
		return false
	}
	b, ok := p.GetLiteralType().(*proto.Expression_Literal_Boolean)
	return ok && b.Boolean
}
