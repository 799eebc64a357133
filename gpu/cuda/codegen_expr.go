package cuda

import (
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/rigel-db/rigel/gpu"
)

// exprGen turns kernel-IR expressions into CUDA C++ statements. Each node
// becomes a value variable vN and a null flag nN, declared in the current
// block; intermediates stay in registers.
type exprGen struct {
	p      *gpu.Pipeline
	b      *strings.Builder
	tmp    int
	indent string
	// colVar names the loaded value/null variables of input columns.
	colVar map[int]bool
	// packed are the inputs that arrive packed: their loads decode.
	packed packedInputs
	// memo holds the variables of expressions already emitted: the
	// translator shares one node where a value is used twice (Q1's
	// price * (1 - disc) feeds two sums), and it is computed once.
	memo map[*gpu.Expr]memoEntry
	// caseScopes is the path of CASE branch blocks now open; a memo entry
	// made inside a branch is visible only while that branch is open.
	caseScopes []int
	nextScope  int
}

type memoEntry struct {
	v, n   string
	indent string // the block depth it was emitted at
	scopes []int  // the CASE branch path it was emitted in
}

// visible reports whether an emitted variable is in scope here: emitted at
// this depth or shallower, on the current CASE branch path.
func (g *exprGen) visible(m memoEntry) bool {
	if len(m.indent) > len(g.indent) || len(m.scopes) > len(g.caseScopes) {
		return false
	}
	for i, s := range m.scopes {
		if g.caseScopes[i] != s {
			return false
		}
	}
	return true
}

func (g *exprGen) pushScope() {
	g.nextScope++
	g.caseScopes = append(g.caseScopes, g.nextScope)
}

func (g *exprGen) popScope() { g.caseScopes = g.caseScopes[:len(g.caseScopes)-1] }

func (g *exprGen) line(format string, args ...any) {
	g.b.WriteString(g.indent)
	fmt.Fprintf(g.b, format, args...)
	g.b.WriteByte('\n')
}

func (g *exprGen) fresh() int { g.tmp++; return g.tmp }

// ctype is the register type of a kind.
func ctype(k gpu.Kind) string {
	switch k {
	case gpu.Bool:
		return "int"
	case gpu.Decimal128:
		return "i128"
	case gpu.Float32:
		return "float"
	case gpu.Float64:
		return "double"
	}
	return "long long"
}

// stype is the memory type of a kind (one value of devWidth bytes).
func stype(k gpu.Kind) string {
	switch k {
	case gpu.Bool:
		return "uint8_t"
	case gpu.Int8:
		return "int8_t"
	case gpu.Int16:
		return "int16_t"
	case gpu.Int32, gpu.Date32, gpu.Dict:
		return "int32_t"
	case gpu.Int64, gpu.Decimal64:
		return "int64_t"
	case gpu.Str:
		return "uint64_t" // a view (strcol_strings.go)
	case gpu.Decimal128:
		return "i128"
	case gpu.Float32:
		return "float"
	case gpu.Float64:
		return "double"
	}
	return "void"
}

// inputWord is the index in Args of input column i's data pointer; its
// validity pointer (0 when the column has no nulls) and its characters
// (Str columns, inputArgs) follow it.
func inputWord(i int) int { return 2 + 3*i }

// loadColumn declares cI/cnI for input column i at the current row `i`.
func (g *exprGen) loadColumn(c int) {
	if g.colVar[c] {
		return
	}
	g.colVar[c] = true
	t := g.p.Inputs[c]
	w := inputWord(c)
	if t.Kind == gpu.Str {
		g.loadStrColumn(c, t, w, "i") // codegen_strrow.go
		return
	}
	g.line("const %s c%d = %s;", ctype(t.Kind), c, g.columnValue(c, t, w, "i"))
	if t.Nullable {
		g.line("const bool cn%d = A.a[%d] != 0 && ((const uint8_t *)A.a[%d])[i] == 0;", c, w+1, w+1)
	} else {
		g.line("const bool cn%d = false;", c)
	}
	g.line("(void)c%d; (void)cn%d;", c, c)
}

// columnValue is the expression of row `row` of input column c, at Args
// word w: a plain load, or for a packed input (packedInputs: gpu/forpack)
// its difference from the frame's base, the column's third word >> 7,
// read with one load of the frame's width, or none for width 0.
func (g *exprGen) columnValue(c int, t gpu.Type, w int, row string) string {
	width, packed := g.packed.width(c)
	if !packed {
		return fmt.Sprintf("(%s)((const %s *)A.a[%d])[%s]", ctype(t.Kind), stype(t.Kind), w, row)
	}
	base := fmt.Sprintf("((long long)A.a[%d] >> 7)", w+2)
	switch width {
	case 0:
		return fmt.Sprintf("(%s)%s", ctype(t.Kind), base)
	case 8, 16, 32:
		return fmt.Sprintf("(%s)(%s + (long long)((const uint%d_t *)A.a[%d])[%s])", ctype(t.Kind), base, width, w, row)
	}
	return fmt.Sprintf("(%s)(%s)rg_unpacked(A.a[%d], A.a[%d], %s)", ctype(t.Kind), stype(t.Kind), w, w+2, row)
}

// columnsOf adds the input columns e reads to set.
func columnsOf(e *gpu.Expr, set map[int]bool) {
	if e == nil {
		return
	}
	if e.Op == gpu.OpCol {
		set[e.Col] = true
	}
	for _, a := range e.Args {
		columnsOf(a, set)
	}
}

// i128Lit renders a big integer as a 128-bit literal.
func i128Lit(v *big.Int) string {
	hi, lo := i128Words(v)
	return fmt.Sprintf("I128(0x%xull, 0x%xull)", hi, lo)
}

// i128Words is v's two's complement in 128 bits, high word first.
func i128Words(v *big.Int) (hi, lo uint64) {
	u := new(big.Int).Set(v)
	if u.Sign() < 0 {
		u.Add(u, new(big.Int).Lsh(big.NewInt(1), 128))
	}
	lo = new(big.Int).And(u, new(big.Int).SetUint64(math.MaxUint64)).Uint64()
	hi = new(big.Int).Rsh(u, 64).Uint64()
	return hi, lo
}

func pow10(n int32) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

// rangeOf gives the inclusive bounds a value of type t must lie within.
func rangeOf(t gpu.Type) (lo, hi *big.Int) {
	bits := map[gpu.Kind]uint{gpu.Int8: 8, gpu.Int16: 16, gpu.Int32: 32, gpu.Date32: 32, gpu.Dict: 32,
		gpu.Int64: 64, gpu.Decimal64: 64, gpu.Decimal128: 128}[t.Kind]
	hi = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), bits-1), big.NewInt(1))
	lo = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), bits-1))
	if t.Kind == gpu.Decimal64 || t.Kind == gpu.Decimal128 {
		p := new(big.Int).Sub(pow10(t.Precision), big.NewInt(1))
		if p.Cmp(hi) < 0 {
			hi = p
			lo = new(big.Int).Neg(p)
		}
	}
	return lo, hi
}

// checkFit raises the overflow flag when the i128 expression r does not fit
// t. Bounds that equal the full 128-bit range need no test.
func (g *exprGen) checkFit(r string, t gpu.Type) {
	lo, hi := rangeOf(t)
	full := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))
	if hi.Cmp(full) == 0 {
		return
	}
	g.line("if (%s < %s || %s > %s) rg_raise(status, RG_OVERFLOW);", r, i128Lit(lo), r, i128Lit(hi))
}

func scaleOf(t gpu.Type) int32 {
	if t.Kind == gpu.Decimal64 || t.Kind == gpu.Decimal128 {
		return t.Scale
	}
	return 0
}

// expr emits e and returns the names of its value and null variables.
func (g *exprGen) expr(e *gpu.Expr) (v, n string, err error) {
	if e == nil {
		return "", "", fmt.Errorf("nil expression")
	}
	if err := validType(e.Type); err != nil {
		return "", "", fmt.Errorf("%s: %w", e, err)
	}
	for _, a := range e.Args {
		if a == nil {
			return "", "", fmt.Errorf("%s: nil argument", e.Op)
		}
	}
	if err := checkArgKinds(e); err != nil {
		return "", "", err
	}
	switch e.Op {
	case gpu.OpAnd, gpu.OpOr, gpu.OpNot:
		for _, a := range e.Args {
			if a.Type.Kind != gpu.Bool {
				return "", "", fmt.Errorf("%s: argument %s is %s, not bool", e.Op, a, a.Type)
			}
		}
		if e.Type.Kind != gpu.Bool {
			return "", "", fmt.Errorf("%s gives %s, not bool", e.Op, e.Type)
		}
	}
	switch e.Op {
	case gpu.OpCol:
		if e.Col < 0 || e.Col >= len(g.p.Inputs) {
			return "", "", fmt.Errorf("column $%d out of range (%d inputs)", e.Col, len(g.p.Inputs))
		}
		if g.p.Inputs[e.Col].Kind != e.Type.Kind {
			return "", "", fmt.Errorf("column $%d is %s, expression says %s", e.Col, g.p.Inputs[e.Col], e.Type)
		}
		g.loadColumn(e.Col)
		return fmt.Sprintf("c%d", e.Col), fmt.Sprintf("cn%d", e.Col), nil
	case gpu.OpConst:
		return g.constant(e)
	}
	if m, ok := g.memo[e]; ok && g.visible(m) {
		return m.v, m.n, nil
	}
	if v, n, err = g.compute(e); err != nil {
		return "", "", err
	}
	if g.memo == nil {
		g.memo = map[*gpu.Expr]memoEntry{}
	}
	g.memo[e] = memoEntry{v: v, n: n, indent: g.indent, scopes: append([]int(nil), g.caseScopes...)}
	return v, n, nil
}

// compute emits the code of one operation (not a column or constant).
func (g *exprGen) compute(e *gpu.Expr) (v, n string, err error) {
	id := g.fresh()
	v, n = fmt.Sprintf("v%d", id), fmt.Sprintf("n%d", id)
	ct := ctype(e.Type.Kind)
	switch e.Op {
	case gpu.OpAnd, gpu.OpOr:
		if len(e.Args) == 0 {
			return "", "", fmt.Errorf("%s without arguments", e.Op)
		}
		// Kleene logic: a false (AND) / true (OR) argument decides; else any
		// null makes the result null.
		g.line("bool %s_d = false, %s_u = false;", v, v)
		for _, a := range e.Args {
			av, an, err := g.expr(a)
			if err != nil {
				return "", "", err
			}
			if e.Op == gpu.OpAnd {
				g.line("if (!%s && !%s) %s_d = true;", an, av, v)
			} else {
				g.line("if (!%s && %s) %s_d = true;", an, av, v)
			}
			g.line("if (%s) %s_u = true;", an, v)
		}
		if e.Op == gpu.OpAnd {
			g.line("const int %s = !%s_d; const bool %s = !%s_d && %s_u;", v, v, n, v, v)
		} else {
			g.line("const int %s = %s_d; const bool %s = !%s_d && %s_u;", v, v, n, v, v)
		}
		return v, n, nil
	case gpu.OpCase:
		return v, n, g.caseExpr(e, v, n)
	case gpu.OpStrMap:
		if isCodeIn(e) { // dictorder.go: the other arguments only name the dictionaries merged
			xv, xn, err := g.expr(e.Args[0])
			if err != nil {
				return "", "", err
			}
			g.line("%s %s = 0; bool %s = %s;", ct, v, n, xn)
			return v, n, g.strExpr(e, v, n, []string{xv}, []string{xn})
		}
	}
	args := make([]string, len(e.Args))
	nulls := make([]string, len(e.Args))
	for i, a := range e.Args {
		if args[i], nulls[i], err = g.expr(a); err != nil {
			return "", "", err
		}
	}
	need := func(k int) error {
		if len(e.Args) != k {
			return fmt.Errorf("%s takes %d arguments, got %d", e.Op, k, len(e.Args))
		}
		return nil
	}
	switch e.Op {
	case gpu.OpIsNull, gpu.OpIsNotNull:
		if err := need(1); err != nil {
			return "", "", err
		}
		neg := ""
		if e.Op == gpu.OpIsNotNull {
			neg = "!"
		}
		g.line("const int %s = %s%s; const bool %s = false;", v, neg, nulls[0], n)
		return v, n, nil
	case gpu.OpNot:
		if err := need(1); err != nil {
			return "", "", err
		}
		g.line("const int %s = !%s; const bool %s = %s;", v, args[0], n, nulls[0])
		return v, n, nil
	}
	g.line("%s %s = 0; bool %s = %s;", ct, v, n, strings.Join(append([]string{"false"}, nulls...), " || "))
	switch e.Op {
	case gpu.OpAdd, gpu.OpSub, gpu.OpMul, gpu.OpDiv:
		if err := need(2); err != nil {
			return "", "", err
		}
		return v, n, g.arith(e, v, n, args)
	case gpu.OpNeg:
		if err := need(1); err != nil {
			return "", "", err
		}
		if e.Type.Kind.IsFloat() {
			g.line("if (!%s) %s = -(%s)%s;", n, v, ct, args[0])
			return v, n, nil
		}
		if !e.Type.Kind.IsInteger() {
			return "", "", fmt.Errorf("neg of %s: %w", e.Type, gpu.ErrUnsupported)
		}
		g.line("if (!%s) { i128 r; if (rg_sub128(0, (i128)%s, &r)) rg_raise(status, RG_OVERFLOW);", n, args[0])
		g.checkFit("r", e.Type)
		g.line("  %s = (%s)r; }", v, ct)
		return v, n, nil
	case gpu.OpEq, gpu.OpNe, gpu.OpLt, gpu.OpLe, gpu.OpGt, gpu.OpGe:
		if err := need(2); err != nil {
			return "", "", err
		}
		ak, bk := e.Args[0].Type.Kind, e.Args[1].Type.Kind
		if ak != bk {
			return "", "", fmt.Errorf("comparison of %s with %s: the translator must cast to one kind", e.Args[0].Type, e.Args[1].Type)
		}
		if (ak == gpu.Decimal64 || ak == gpu.Decimal128) && e.Args[0].Type.Scale != e.Args[1].Type.Scale {
			return "", "", fmt.Errorf("comparison of %s with %s: scales differ", e.Args[0].Type, e.Args[1].Type)
		}
		op := map[gpu.Op]string{gpu.OpEq: "==", gpu.OpNe: "!=", gpu.OpLt: "<", gpu.OpLe: "<=", gpu.OpGt: ">", gpu.OpGe: ">="}[e.Op]
		if ak.IsFloat() {
			// SQL float order: NaN equals NaN and sorts above everything.
			g.line("if (!%s) %s = rg_fcmp((double)%s, (double)%s) %s 0;", n, v, args[0], args[1], op)
		} else {
			g.line("if (!%s) %s = %s %s %s;", n, v, args[0], op, args[1])
		}
		return v, n, nil
	case gpu.OpCast:
		if err := need(1); err != nil {
			return "", "", err
		}
		return v, n, g.cast(e.Args[0].Type, e.Type, args[0], v, n)
	case gpu.OpStrPred, gpu.OpStrMap:
		return v, n, g.strExpr(e, v, n, args, nulls)
	case gpu.OpYear, gpu.OpMonth, gpu.OpDay:
		return v, n, g.datePart(e, v, n, args)
	case gpu.OpAddMonths, gpu.OpAddDayInterval:
		return v, n, g.dateAdd(e, v, n, args)
	case gpu.OpAvgDivide:
		s := scaleOf(e.Args[0].Type)
		if err := need(3); err != nil {
			return "", "", err
		}
		if e.Args[2].Op != gpu.OpConst || s > gpu.MaxAvgScale || e.Type.Kind != gpu.Float64 {
			return "", "", fmt.Errorf("avg_divide of %s in mode %s giving %s", e.Args[0].Type, e.Args[2], e.Type)
		}
		g.line("if (!%s) %s = rg_avg_divide((i128)%s, (long long)%s, %sull, %d);", n, v, args[0], args[1], pow10(s), e.Args[2].Const.I64)
		return v, n, nil
	case gpu.OpStatMoments:
		if err := need(4); err != nil {
			return "", "", err
		}
		s := scaleOf(e.Args[1].Type)
		k := gpu.AggKind(e.Args[3].Const.I64)
		if e.Args[3].Op != gpu.OpConst || !k.IsStatAgg() || s > gpu.MaxStatScale || scaleOf(e.Args[2].Type) != 2*s || e.Type.Kind != gpu.Float64 {
			return "", "", fmt.Errorf("stat_moments of %s and %s as %s giving %s", e.Args[1].Type, e.Args[2].Type, e.Args[3], e.Type)
		}
		sample := k == gpu.AggVarSamp || k == gpu.AggStdDevSamp
		root := k == gpu.AggStdDevSamp || k == gpu.AggStdDevPop
		g.line("if (!%s) { if ((long long)%s < %d) %s = true; else %s = rg_stat_moments((long long)%s, (i128)%s, (i128)%s, %v, %v, %s.0); }",
			n, args[0], k.StatMinCount(), n, v, args[0], args[1], args[2], sample, root, pow10(2*s))
		return v, n, nil
	}
	if ok, err := g.numExpr(e, v, n, args, nulls); ok { // codegen_num.go
		return v, n, err
	}
	return "", "", fmt.Errorf("operator %s: %w", e.Op, gpu.ErrUnsupported)
}

// constant emits a literal as an RG_K* marker of its bits (prelude.cuh):
// hoistConstants moves each to the module's constant memory, so that the
// source does not depend on the value. Booleans and nulls stay literal:
// they decide the code's shape (a filter that is always false).
func (g *exprGen) constant(e *gpu.Expr) (string, string, error) {
	c := e.Const
	if c.Null {
		return "((" + ctype(e.Type.Kind) + ")0)", "true", nil
	}
	switch e.Type.Kind {
	case gpu.Float64:
		return fmt.Sprintf("RG_KF64(0x%016xull)", math.Float64bits(c.F64)), "false", nil
	case gpu.Float32:
		return fmt.Sprintf("RG_KF32(0x%016xull)", uint64(math.Float32bits(float32(c.F64)))), "false", nil
	case gpu.Decimal128:
		if c.I128 == nil {
			return "", "", fmt.Errorf("decimal128 constant without a value")
		}
		if c.I128.BitLen() > 127 {
			return "", "", fmt.Errorf("decimal128 constant %s does not fit 128 bits: %w", c.I128, gpu.ErrOverflow)
		}
		hi, lo := i128Words(c.I128)
		return fmt.Sprintf("RG_K128(0x%016xull, 0x%016xull)", hi, lo), "false", nil
	case gpu.Bool:
		if c.I64 != 0 {
			return "1", "false", nil
		}
		return "0", "false", nil
	}
	return fmt.Sprintf("RG_K64(0x%016xull)", uint64(c.I64)), "false", nil
}

// checkArgKinds refuses a binary arithmetic or comparison whose arguments
// are of two kinds (the generated code and the interpreter alike).
func checkArgKinds(e *gpu.Expr) error {
	switch e.Op {
	case gpu.OpAdd, gpu.OpSub, gpu.OpMul, gpu.OpDiv, gpu.OpEq, gpu.OpNe, gpu.OpLt, gpu.OpLe, gpu.OpGt, gpu.OpGe:
		if len(e.Args) == 2 && e.Args[0].Type.Kind != e.Args[1].Type.Kind {
			return fmt.Errorf("%s: arguments of kinds %s and %s (the translator must cast to one kind)", e, e.Args[0].Type.Kind, e.Args[1].Type.Kind)
		}
	}
	return nil
}

// checkArith checks the types of a binary + - * / (floats, or integers
// and decimals with the scales the IR requires): what the generated code
// and the interpreter (program.go) both take.
func checkArith(e *gpu.Expr) error {
	a, b, t := e.Args[0].Type, e.Args[1].Type, e.Type
	if t.Kind.IsFloat() {
		if !a.Kind.IsFloat() || !b.Kind.IsFloat() {
			return fmt.Errorf("%s of %s and %s to %s: %w", e.Op, a, b, t, gpu.ErrUnsupported)
		}
		return nil
	}
	if !t.Kind.IsInteger() || !a.Kind.IsInteger() || !b.Kind.IsInteger() || e.Op == gpu.OpDiv {
		return fmt.Errorf("%s of %s and %s to %s: %w", e.Op, a, b, t, gpu.ErrUnsupported)
	}
	if e.Op != gpu.OpMul && scaleOf(a) != scaleOf(b) {
		return fmt.Errorf("%s of %s and %s: scales differ", e.Op, a, b)
	}
	if e.Op == gpu.OpMul && scaleOf(t) != scaleOf(a)+scaleOf(b) {
		return fmt.Errorf("%s of %s and %s to %s: result scale must be the sum", e.Op, a, b, t)
	}
	if e.Op != gpu.OpMul && scaleOf(t) != scaleOf(a) {
		return fmt.Errorf("%s of %s and %s to %s: result scale differs", e.Op, a, b, t)
	}
	return nil
}

func (g *exprGen) arith(e *gpu.Expr, v, n string, args []string) error {
	if err := checkArith(e); err != nil {
		return err
	}
	t := e.Type
	ct := ctype(t.Kind)
	sym := map[gpu.Op]string{gpu.OpAdd: "+", gpu.OpSub: "-", gpu.OpMul: "*", gpu.OpDiv: "/"}[e.Op]
	if t.Kind.IsFloat() {
		g.line("if (!%s) %s = (%s)%s %s (%s)%s;", n, v, ct, args[0], sym, ct, args[1])
		return nil
	}
	g.line("if (!%s) {", n)
	if fits64(e.Args[0]) && fits64(e.Args[1]) {
		// Both fit 64 bits: the exact result fits 128 bits (one 64x64->128
		// multiply); check it once against the result type.
		g.line("  const i128 r = (i128)(long long)%s %s (i128)(long long)%s;", args[0], sym, args[1])
	} else {
		fn := map[gpu.Op]string{gpu.OpAdd: "rg_add128", gpu.OpSub: "rg_sub128", gpu.OpMul: "rg_mul128"}[e.Op]
		g.line("  i128 r; if (%s((i128)%s, (i128)%s, &r)) rg_raise(status, RG_OVERFLOW);", fn, args[0], args[1])
	}
	if !withinType(bound(e), t) {
		g.checkFit("r", t)
	}
	g.line("  %s = (%s)r;", v, ct)
	g.line("}")
	return nil
}

func (g *exprGen) cast(from, to gpu.Type, a, v, n string) error {
	ct := ctype(to.Kind)
	switch {
	case from.Kind.IsInteger() && to.Kind.IsInteger():
		sIn, sOut := scaleOf(from), scaleOf(to)
		g.line("if (!%s) {", n)
		g.line("  i128 r = (i128)%s;", a)
		if sOut > sIn {
			if sOut-sIn > 38 {
				return fmt.Errorf("cast %s to %s: scale step too large", from, to)
			}
			g.line("  if (rg_mul128(r, %s, &r)) rg_raise(status, RG_OVERFLOW);", i128Lit(pow10(sOut-sIn)))
		} else if sIn > sOut {
			if sIn-sOut > 38 {
				g.line("  r = 0;") // |v| < 10^38 <= 10^(sIn-sOut)/2: rounds to zero
			} else {
				g.line("  r = rg_div_round(r, %s);", i128Lit(pow10(sIn-sOut)))
			}
		}
		g.checkFit("r", to)
		g.line("  %s = (%s)r;", v, ct)
		g.line("}")
		return nil
	case from.Kind.IsInteger() && to.Kind.IsFloat():
		// Rounded once (see rg_dec_to_f64); a float32 result is exact in
		// the double the helper returns.
		s := scaleOf(from)
		toF := "false"
		if to.Kind == gpu.Float32 {
			toF = "true"
		}
		// Fast paths where one IEEE operation on exact operands is the
		// correctly rounded result.
		mant, maxPow := "9007199254740992", int32(22)
		if to.Kind == gpu.Float32 {
			mant, maxPow = "16777216", 10
		}
		g.line("if (!%s) {", n)
		g.line("  const i128 x = (i128)%s;", a)
		switch {
		case s == 0:
			g.line("  if (x >= (i128)(-9223372036854775807LL - 1) && x <= (i128)9223372036854775807LL) %s = (%s)(long long)x;", v, ct)
		case s <= maxPow:
			g.line("  if (x >= -(i128)%sLL && x <= (i128)%sLL) %s = (%s)(long long)x / (%s)1e%d;", mant, mant, v, ct, ct, s)
		default:
			g.line("  if (false) {}")
		}
		g.line("  else %s = (%s)rg_dec_to_f64(x, (u128)%s, %s);", v, ct, i128Lit(pow10(s)), toF)
		g.line("}")
		return nil
	case from.Kind.IsFloat() && to.Kind.IsFloat():
		g.line("if (!%s) %s = (%s)%s;", n, v, ct, a)
		return nil
	case from.Kind.IsFloat() && (to.Kind == gpu.Int8 || to.Kind == gpu.Int16 || to.Kind == gpu.Int32 || to.Kind == gpu.Int64):
		// Half to even (rint, in the default rounding mode), as DuckDB's
		// nearbyint; the type's range is [-2^k, 2^k), NaN outside it.
		lo, _ := rangeOf(to)
		g.line("if (!%s) { const double x = rint((double)%s);", n, a)
		g.line("  if (!(x >= %s.0 && x < -(%s.0))) rg_raise(status, RG_OVERFLOW); else %s = (%s)x; }", lo, lo, v, ct)
		return nil
	case from.Kind == to.Kind && (from.Kind == gpu.Bool || from.Kind == gpu.Dict):
		g.line("if (!%s) %s = %s;", n, v, a)
		return nil
	}
	return fmt.Errorf("cast %s to %s: %w", from, to, gpu.ErrUnsupported)
}

// caseExpr evaluates branches lazily: a branch that is not taken cannot
// raise an overflow.
func (g *exprGen) caseExpr(e *gpu.Expr, v, n string) error {
	if len(e.Args)%2 != 1 {
		return fmt.Errorf("case takes pairs and an else, got %d arguments", len(e.Args))
	}
	g.line("%s %s = 0; bool %s = true;", ctype(e.Type.Kind), v, n)
	saved := g.indent
	depth := 0
	for i := 0; i+1 < len(e.Args); i += 2 {
		g.line("{")
		g.indent += "  "
		g.pushScope() // the condition's block
		cv, cn, err := g.expr(e.Args[i])
		if err != nil {
			return err
		}
		g.line("if (!%s && %s) {", cn, cv)
		g.pushScope() // the taken branch
		vv, vn, err := g.expr(e.Args[i+1])
		if err != nil {
			return err
		}
		g.popScope()
		g.line("  %s = (%s)%s; %s = %s;", v, ctype(e.Type.Kind), vv, n, vn)
		g.line("} else {")
		g.pushScope() // the rest, inside the else
		depth++
	}
	ev, en, err := g.expr(e.Args[len(e.Args)-1])
	if err != nil {
		return err
	}
	g.line("  %s = (%s)%s; %s = %s;", v, ctype(e.Type.Kind), ev, n, en)
	for ; depth > 0; depth-- {
		g.popScope() // else
		g.popScope() // condition block
		g.line("}")
		g.indent = g.indent[:len(g.indent)-2]
		g.line("}")
	}
	g.indent = saved
	return nil
}

// validType rejects types no column can have.
func validType(t gpu.Type) error {
	switch t.Kind {
	case gpu.Decimal64:
		if t.Precision < 1 || t.Precision > 18 || t.Scale < 0 || t.Scale > t.Precision {
			return fmt.Errorf("invalid type %s (decimal64 needs precision 1..18, scale 0..precision)", t)
		}
	case gpu.Decimal128:
		if t.Precision < 1 || t.Precision > 38 || t.Scale < 0 || t.Scale > t.Precision {
			return fmt.Errorf("invalid type %s (decimal128 needs precision 1..38, scale 0..precision)", t)
		}
	case gpu.Bool, gpu.Int8, gpu.Int16, gpu.Int32, gpu.Int64, gpu.Float32, gpu.Float64, gpu.Date32, gpu.Dict, gpu.Str:
	default:
		return fmt.Errorf("invalid type kind %d", t.Kind)
	}
	return nil
}
