package cuda

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/rigel-db/rigel/gpu"
)

// The precompiled path (issue 23). A pipeline whose generated kernel is
// not compiled yet runs at once on fixed kernels (kernels/program.cu)
// that interpret a compact program of its filter, projections and
// aggregate, while its own kernel compiles in the background for later
// runs (run.go, agg_run.go: fusedReady). The interpreter compiles once
// per device, with the hand-written modules (kernelfiles.go), never per
// query. Each instruction does what the generated code of its node does,
// so both paths give the same bits: the device battery runs on both
// (RIGEL_PROGRAM=always).
//
// What it does not run (a string function over strings in Arrow layout
// other than the predicates of program_strmatch.go, the numeric functions of
// codegen_num.go but abs and round, the fused join kernels) waits for its
// generated kernel as before; a fused probe that
// is not compiled yet gives way to the composed join (HashJoin, Gather,
// then Run on this path) where the engine allows it (gpu.MayCompose).

//go:embed kernels/program.cu
var programSrc string

// programFile is the interpreter's module. Its kind and aggregate codes
// are gpu's own, written as defines so that the two cannot drift.
var programFile = kernelFile{"rigel_program.cu", preludeSrc + programDefines() + programSrc}

func programDefines() string {
	var b strings.Builder
	for _, k := range []struct {
		name string
		v    int
	}{
		{"PK_BOOL", int(gpu.Bool)}, {"PK_INT8", int(gpu.Int8)}, {"PK_INT16", int(gpu.Int16)}, {"PK_INT32", int(gpu.Int32)},
		{"PK_INT64", int(gpu.Int64)}, {"PK_FLOAT32", int(gpu.Float32)}, {"PK_FLOAT64", int(gpu.Float64)},
		{"PK_DATE32", int(gpu.Date32)}, {"PK_DECIMAL64", int(gpu.Decimal64)}, {"PK_DECIMAL128", int(gpu.Decimal128)},
		{"PK_DICT", int(gpu.Dict)}, {"PK_STR", int(gpu.Str)},
		{"PAGG_COUNT_STAR", int(gpu.AggCountStar)}, {"PAGG_COUNT", int(gpu.AggCount)}, {"PAGG_SUM", int(gpu.AggSum)},
		{"PAGG_MIN", int(gpu.AggMin)}, {"PAGG_MAX", int(gpu.AggMax)},
	} {
		fmt.Fprintf(&b, "#define %s %d\n", k.name, k.v)
	}
	return b.String()
}

// Instruction codes: program.cu's PI_* enum, in its order.
const (
	piLoad = iota + 1
	piConst
	piMov
	piArithI
	piArithF
	piNegI
	piNegF
	piCmp
	piAnd
	piOr
	piNot
	piIsNull
	piIsNotNull
	piCastII
	piCastIF
	piCastFF
	piJmp
	piJmpF
	piStrPred
	piStrMap
	piDatePart
	piStrMatch
	piAbsI
	piAbsF
	piRoundI
	piRoundF
)

// Program header words (program.cu's PG_*).
const (
	pgN = iota
	pgStatus
	pgInputs
	pgStrs
	pgProj
	pgNProj
	pgCode
	pgConst
	pgFilterEnd
	pgFilterReg
	pgProjEnd
	pgAggs
	pgNAggs
	pgKeys
	pgNKeys
	pgSlotWords
	pgPSlots
	pgGroups
	pgKeyWords
	pgNullWord
	pgOuts
	pgHeaderWords
)

// programMaxRegs is program.cu's PG_MAXREG; noKFit is an instruction's
// "no range to test".
const (
	programMaxRegs = 48
	noKFit         = 0xffff
)

// errNoProgram wraps what the interpreter does not run.
var errNoProgram = errors.New("not on the precompiled path")

// program is a pipeline compiled for program.cu.
type program struct {
	p      *gpu.Pipeline
	code   []int32 // four words an instruction
	consts [][2]uint64
	regs   int
	strs   []*gpu.Expr // strNodes order: the table index of each string node
	// filterEnd: the filter's instructions are [0, filterEnd), its value
	// in filterReg; 0 without a filter. The projections' follow, to
	// projEnd, each in projReg (-1: not computed, an aggregate's unread
	// projection).
	filterEnd, filterReg int
	projEnd              int
	projReg              []int
	// labels to patch: instruction index -> label
	fixups map[int]int
	labels []int
	// free: registers whose value was read by the one instruction that
	// reads it (every value but the filter's and the projections' is
	// read once: shared subexpressions compile again), for reuse.
	free []int
}

func (pr *program) reg() (int, error) {
	if n := len(pr.free); n > 0 {
		r := pr.free[n-1]
		pr.free = pr.free[:n-1]
		return r, nil
	}
	if pr.regs >= programMaxRegs {
		return 0, fmt.Errorf("more than %d values at once: %w", programMaxRegs, errNoProgram)
	}
	pr.regs++
	return pr.regs - 1, nil
}

// release gives back registers already read.
func (pr *program) release(rs ...int) { pr.free = append(pr.free, rs...) }

func (pr *program) emit(op, kind, akind, flags, d, a, b, c int, imm int32) int {
	pr.code = append(pr.code, int32(op|kind<<8|akind<<16|flags<<24), int32(d|a<<16), int32(b|c<<16), imm)
	return len(pr.code)/4 - 1
}

func (pr *program) constant(lo, hi uint64) int {
	pr.consts = append(pr.consts, [2]uint64{lo, hi})
	return len(pr.consts) - 1
}

func (pr *program) bigConst(v *big.Int) int {
	hi, lo := i128Words(v)
	return pr.constant(lo, hi)
}

// fit is the constant pair [lo, hi] a result of type t must lie within,
// or noKFit where the 128-bit storage is the range (checkFit).
func (pr *program) fit(t gpu.Type) int {
	lo, hi := rangeOf(t)
	full := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))
	if hi.Cmp(full) == 0 {
		return noKFit
	}
	i := pr.bigConst(lo)
	pr.bigConst(hi)
	return i
}

func (pr *program) newLabel() int { pr.labels = append(pr.labels, -1); return len(pr.labels) - 1 }
func (pr *program) place(l int)   { pr.labels[l] = len(pr.code) / 4 }
func (pr *program) jump(op, a, label int) {
	i := pr.emit(op, 0, 0, 0, 0, a, 0, 0, 0)
	pr.fixups[i] = label
}

// compileProgram compiles p's filter and the projections marked in
// project (nil: all) for program.cu, or says why it cannot
// (errNoProgram, or the error the generated code would give).
func compileProgram(p *gpu.Pipeline, project []bool) (*program, error) {
	pr := &program{p: p, strs: strNodes(p), fixups: map[int]int{}}
	if p.Filter != nil {
		if p.Filter.Type.Kind != gpu.Bool {
			return nil, fmt.Errorf("filter is %s, not bool", p.Filter.Type)
		}
		r, err := pr.expr(p.Filter)
		if err != nil {
			return nil, fmt.Errorf("filter: %w", err)
		}
		pr.filterReg = r
		pr.filterEnd = len(pr.code) / 4
		if pr.filterEnd == 0 { // a filter of one constant still needs its instruction
			return nil, fmt.Errorf("filter without instructions: %w", errNoProgram)
		}
	}
	pr.projReg = make([]int, len(p.Project))
	for j, e := range p.Project {
		pr.projReg[j] = -1
		if project != nil && !project[j] {
			continue
		}
		r, err := pr.expr(e)
		if err != nil {
			return nil, fmt.Errorf("project #%d: %w", j, err)
		}
		pr.projReg[j] = r
	}
	pr.projEnd = len(pr.code) / 4
	for i, l := range pr.fixups {
		pr.code[4*i+3] = int32(pr.labels[l])
	}
	return pr, nil
}

// expr compiles e into a fresh register. Shared subexpressions compile
// again where they recur: results do not depend on it.
func (pr *program) expr(e *gpu.Expr) (int, error) {
	if e == nil {
		return 0, fmt.Errorf("nil expression")
	}
	if err := validType(e.Type); err != nil {
		return 0, fmt.Errorf("%s: %w", e, err)
	}
	for _, a := range e.Args {
		if a == nil {
			return 0, fmt.Errorf("%s: nil argument", e.Op)
		}
		if a.Type.Kind == gpu.Str && e.Op == gpu.OpStrPred {
			return pr.strMatch(e)
		}
		if a.Type.Kind == gpu.Str {
			return 0, fmt.Errorf("%s over a str value: %w", e.Op, errNoProgram)
		}
	}
	if err := checkArgKinds(e); err != nil {
		return 0, err
	}
	k := int(e.Type.Kind)
	need := func(n int) error {
		if len(e.Args) != n {
			return fmt.Errorf("%s takes %d arguments, got %d", e.Op, n, len(e.Args))
		}
		return nil
	}
	args := func() ([]int, error) {
		rs := make([]int, len(e.Args))
		for i, a := range e.Args {
			r, err := pr.expr(a)
			if err != nil {
				return nil, err
			}
			rs[i] = r
		}
		return rs, nil
	}
	switch e.Op {
	case gpu.OpCol:
		if e.Col < 0 || e.Col >= len(pr.p.Inputs) {
			return 0, fmt.Errorf("column $%d out of range (%d inputs)", e.Col, len(pr.p.Inputs))
		}
		if pr.p.Inputs[e.Col].Kind != e.Type.Kind {
			return 0, fmt.Errorf("column $%d is %s, expression says %s", e.Col, pr.p.Inputs[e.Col], e.Type)
		}
		d, err := pr.reg()
		if err != nil {
			return 0, err
		}
		pr.emit(piLoad, k, 0, 0, d, 0, 0, 0, int32(e.Col))
		return d, nil
	case gpu.OpConst:
		return pr.constExpr(e)
	case gpu.OpCase:
		return pr.caseExpr(e)
	case gpu.OpAnd, gpu.OpOr:
		if len(e.Args) == 0 {
			return 0, fmt.Errorf("%s without arguments", e.Op)
		}
		for _, a := range e.Args {
			if a.Type.Kind != gpu.Bool {
				return 0, fmt.Errorf("%s: argument %s is %s, not bool", e.Op, a, a.Type)
			}
		}
		rs, err := args()
		if err != nil {
			return 0, err
		}
		op := piAnd
		if e.Op == gpu.OpOr {
			op = piOr
		}
		acc := rs[0]
		if len(rs) == 1 { // AND(x) is x with a null kept: x AND true
			t, err := pr.boolConst(e.Op == gpu.OpAnd)
			if err != nil {
				return 0, err
			}
			rs = append(rs, t)
		}
		for _, r := range rs[1:] {
			d, err := pr.reg()
			if err != nil {
				return 0, err
			}
			pr.emit(op, int(gpu.Bool), 0, 0, d, acc, r, 0, 0)
			pr.release(acc, r)
			acc = d
		}
		return acc, nil
	}
	rs, err := args()
	if err != nil {
		return 0, err
	}
	d, err := pr.reg()
	if err != nil {
		return 0, err
	}
	defer pr.release(rs...) // read by d's instruction (on success; an error ends the compile)
	switch e.Op {
	case gpu.OpIsNull, gpu.OpIsNotNull, gpu.OpNot:
		if err := need(1); err != nil {
			return 0, err
		}
		op := map[gpu.Op]int{gpu.OpIsNull: piIsNull, gpu.OpIsNotNull: piIsNotNull, gpu.OpNot: piNot}[e.Op]
		if e.Op == gpu.OpNot && e.Args[0].Type.Kind != gpu.Bool {
			return 0, fmt.Errorf("not: argument %s is %s, not bool", e.Args[0], e.Args[0].Type)
		}
		pr.emit(op, k, 0, 0, d, rs[0], 0, 0, 0)
		return d, nil
	case gpu.OpAdd, gpu.OpSub, gpu.OpMul, gpu.OpDiv:
		if err := need(2); err != nil {
			return 0, err
		}
		return d, pr.arith(e, d, rs)
	case gpu.OpNeg:
		if err := need(1); err != nil {
			return 0, err
		}
		switch {
		case e.Type.Kind.IsFloat():
			if e.Args[0].Type.Kind != e.Type.Kind {
				return 0, fmt.Errorf("neg of %s to %s: %w", e.Args[0].Type, e.Type, errNoProgram)
			}
			pr.emit(piNegF, k, 0, 0, d, rs[0], 0, 0, 0)
		case e.Type.Kind.IsInteger():
			pr.emit(piNegI, k, 0, 0, d, rs[0], 0, pr.fit(e.Type), 0)
		default:
			return 0, fmt.Errorf("neg of %s: %w", e.Type, gpu.ErrUnsupported)
		}
		return d, nil
	case gpu.OpEq, gpu.OpNe, gpu.OpLt, gpu.OpLe, gpu.OpGt, gpu.OpGe:
		if err := need(2); err != nil {
			return 0, err
		}
		a, b := e.Args[0].Type, e.Args[1].Type // one kind (checkArgKinds)
		if (a.Kind == gpu.Decimal64 || a.Kind == gpu.Decimal128) && a.Scale != b.Scale {
			return 0, fmt.Errorf("comparison of %s with %s: scales differ", a, b)
		}
		fl := map[gpu.Op]int{gpu.OpEq: 0, gpu.OpNe: 1, gpu.OpLt: 2, gpu.OpLe: 3, gpu.OpGt: 4, gpu.OpGe: 5}[e.Op]
		pr.emit(piCmp, k, int(a.Kind), fl, d, rs[0], rs[1], 0, 0)
		return d, nil
	case gpu.OpCast:
		if err := need(1); err != nil {
			return 0, err
		}
		return d, pr.cast(e.Args[0].Type, e.Type, d, rs[0])
	case gpu.OpStrPred, gpu.OpStrMap:
		if len(e.Args) != 1 || e.Args[0].Type.Kind != gpu.Dict {
			return 0, fmt.Errorf("%s takes one dict argument", e.Op)
		}
		if err := e.Str.Check(); err != nil {
			return 0, fmt.Errorf("%s: %w", e, err)
		}
		idx := -1
		for i, s := range pr.strs {
			if s == e {
				idx = i
			}
		}
		if idx < 0 {
			return 0, fmt.Errorf("%s: not a string node of the pipeline", e)
		}
		op := piStrPred
		if e.Op == gpu.OpStrMap {
			op = piStrMap
			if e.Type.Kind != gpu.Dict || e.Str.IsPredicate() {
				return 0, fmt.Errorf("%s: a string function gives dict", e)
			}
		} else if e.Type.Kind != gpu.Bool || !e.Str.IsPredicate() {
			return 0, fmt.Errorf("%s: a string predicate gives bool", e)
		}
		pr.emit(op, k, 0, 0, d, rs[0], 0, 0, int32(idx))
		return d, nil
	case gpu.OpAbs:
		if err := need(1); err != nil {
			return 0, err
		}
		a := e.Args[0].Type
		switch {
		case e.Type.Kind.IsFloat() && a.Kind == e.Type.Kind:
			pr.emit(piAbsF, k, 0, 0, d, rs[0], 0, 0, 0)
		case e.Type.Kind.IsInteger() && e.Type.Kind != gpu.Date32 && a.Kind == e.Type.Kind && scaleOf(a) == scaleOf(e.Type):
			pr.emit(piAbsI, k, 0, 0, d, rs[0], 0, pr.fit(e.Type), 0)
		default:
			return 0, fmt.Errorf("abs of %s giving %s: %w", a, e.Type, errNoProgram)
		}
		return d, nil
	case gpu.OpRound:
		if err := need(2); err != nil {
			return 0, err
		}
		return d, pr.round(e, d, rs)
	case gpu.OpYear, gpu.OpMonth, gpu.OpDay:
		if len(e.Args) != 1 || e.Args[0].Type.Kind != gpu.Date32 || e.Type.Kind != gpu.Int64 {
			return 0, fmt.Errorf("%s takes a date32 and gives int64", e.Op)
		}
		fl := map[gpu.Op]int{gpu.OpYear: 0, gpu.OpMonth: 1, gpu.OpDay: 2}[e.Op]
		pr.emit(piDatePart, k, 0, fl, d, rs[0], 0, 0, 0)
		return d, nil
	}
	return 0, fmt.Errorf("operator %s: %w", e.Op, errNoProgram)
}

// strMatch compiles a string predicate over a Str input column: its
// matcher (program_strmatch.go) goes in the constants, the column's view in
// a register; PI_STRMATCH reads the characters from the input itself.
func (pr *program) strMatch(e *gpu.Expr) (int, error) {
	a := e.Args[0]
	if len(e.Args) != 1 || a.Op != gpu.OpCol || e.Type.Kind != gpu.Bool {
		return 0, fmt.Errorf("%s: only a string predicate of a str input column reads strings in Arrow layout: %w", e, gpu.ErrUnsupported)
	}
	w, err := encodeStrMatch(e.Str)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", e, err)
	}
	v, err := pr.expr(a)
	if err != nil {
		return 0, err
	}
	d, err := pr.reg()
	if err != nil {
		return 0, err
	}
	at := len(pr.consts)
	if at+len(w) > noKFit { // the index must fit the instruction's 16-bit field
		return 0, fmt.Errorf("%s: too many constants: %w", e, errNoProgram)
	}
	pr.consts = append(pr.consts, strMatchConsts(w)...)
	pr.emit(piStrMatch, int(gpu.Bool), 0, 0, d, v, 0, at, int32(a.Col))
	pr.release(v)
	return d, nil
}

// round compiles OpRound as codegen_num.go does: a float by any digit
// count (PI_ROUND_F), an exact number by a constant one (PI_ROUND_I: fl 0
// keeps it, 1 gives zero, 2 rounds to a multiple of K[imm]).
func (pr *program) round(e *gpu.Expr, d int, rs []int) error {
	t, a := e.Type, e.Args[0].Type
	if t.Kind.IsFloat() {
		if a.Kind != t.Kind || !e.Args[1].Type.Kind.IsInteger() {
			return fmt.Errorf("round of %s by %s giving %s: %w", a, e.Args[1].Type, t, errNoProgram)
		}
		pr.emit(piRoundF, int(t.Kind), 0, 0, d, rs[0], rs[1], 0, 0)
		return nil
	}
	c := e.Args[1]
	if !t.Kind.IsInteger() || t.Kind == gpu.Date32 || c.Op != gpu.OpConst || c.Const.Null {
		return fmt.Errorf("round of %s giving %s: %w", a, t, errNoProgram)
	}
	if a.Kind != t.Kind || scaleOf(a) != scaleOf(t) {
		return fmt.Errorf("round of %s giving %s", a, t)
	}
	drop := int64(scaleOf(t)) - c.Const.I64
	fl, imm := 0, 0
	switch {
	case drop > 38: // |x| < 10^38: rounds to zero
		fl = 1
	case drop > 0:
		fl, imm = 2, pr.bigConst(pow10(int32(drop)))
	}
	pr.emit(piRoundI, int(t.Kind), 0, fl, d, rs[0], 0, pr.fit(t), int32(imm))
	return nil
}

func (pr *program) boolConst(v bool) (int, error) {
	d, err := pr.reg()
	if err != nil {
		return 0, err
	}
	c := pr.constant(0, 0)
	if v {
		pr.consts[c][0] = 1
	}
	pr.emit(piConst, int(gpu.Bool), 0, 0, d, 0, 0, 0, int32(c))
	return d, nil
}

// constExpr loads a literal: a value as the generated code's constant()
// reads it (a float32 as the double of its float).
func (pr *program) constExpr(e *gpu.Expr) (int, error) {
	d, err := pr.reg()
	if err != nil {
		return 0, err
	}
	c := e.Const
	if c.Null {
		pr.emit(piConst, int(e.Type.Kind), 0, 1, d, 0, 0, 0, 0)
		return d, nil
	}
	var idx int
	switch e.Type.Kind {
	case gpu.Float64:
		idx = pr.constant(math.Float64bits(c.F64), 0)
	case gpu.Float32:
		idx = pr.constant(math.Float64bits(float64(float32(c.F64))), 0)
	case gpu.Decimal128:
		if c.I128 == nil {
			return 0, fmt.Errorf("decimal128 constant without a value")
		}
		if c.I128.BitLen() > 127 {
			return 0, fmt.Errorf("decimal128 constant %s does not fit 128 bits: %w", c.I128, gpu.ErrOverflow)
		}
		idx = pr.bigConst(c.I128)
	case gpu.Bool:
		v := uint64(0)
		if c.I64 != 0 {
			v = 1
		}
		idx = pr.constant(v, 0)
	default:
		// RG_K64's (long long): sign-extended.
		idx = pr.bigConst(big.NewInt(c.I64))
	}
	pr.emit(piConst, int(e.Type.Kind), 0, 0, d, 0, 0, 0, int32(idx))
	return d, nil
}

func (pr *program) arith(e *gpu.Expr, d int, rs []int) error {
	if err := checkArith(e); err != nil {
		return err
	}
	t := e.Type
	fl := map[gpu.Op]int{gpu.OpAdd: 0, gpu.OpSub: 1, gpu.OpMul: 2, gpu.OpDiv: 3}[e.Op]
	if t.Kind.IsFloat() {
		pr.emit(piArithF, int(t.Kind), 0, fl, d, rs[0], rs[1], 0, 0)
		return nil
	}
	pr.emit(piArithI, int(t.Kind), 0, fl, d, rs[0], rs[1], pr.fit(t), 0)
	return nil
}

func (pr *program) cast(from, to gpu.Type, d, a int) error {
	k := int(to.Kind)
	switch {
	case from.Kind.IsInteger() && to.Kind.IsInteger():
		sIn, sOut := scaleOf(from), scaleOf(to)
		fl, imm := 0, 0
		switch {
		case sOut > sIn:
			if sOut-sIn > 38 {
				return fmt.Errorf("cast %s to %s: scale step too large", from, to)
			}
			fl, imm = 1, pr.bigConst(pow10(sOut-sIn))
		case sIn > sOut && sIn-sOut > 38:
			fl = 3
		case sIn > sOut:
			fl, imm = 2, pr.bigConst(pow10(sIn-sOut))
		}
		pr.emit(piCastII, k, int(from.Kind), fl, d, a, 0, pr.fit(to), int32(imm))
		return nil
	case from.Kind.IsInteger() && to.Kind.IsFloat():
		s := scaleOf(from)
		p := pr.bigConst(pow10(s))
		f := 0
		if s <= 22 {
			f = pr.constant(math.Float64bits(math.Pow10(int(s))), 0)
		}
		pr.emit(piCastIF, k, int(from.Kind), 0, d, a, f, p, s)
		return nil
	case from.Kind.IsFloat() && to.Kind.IsFloat():
		pr.emit(piCastFF, k, int(from.Kind), 0, d, a, 0, 0, 0)
		return nil
	case from.Kind == to.Kind && (from.Kind == gpu.Bool || from.Kind == gpu.Dict):
		pr.emit(piMov, k, 0, 0, d, a, 0, 0, 0)
		return nil
	case from.Kind.IsFloat() && to.Kind.IsInteger():
		return fmt.Errorf("cast %s to %s: %w", from, to, errNoProgram) // the generated kernel's
	}
	return fmt.Errorf("cast %s to %s: %w", from, to, gpu.ErrUnsupported)
}

// caseExpr evaluates only the branch taken, as the generated code does:
// a branch not taken raises nothing.
func (pr *program) caseExpr(e *gpu.Expr) (int, error) {
	if len(e.Args)%2 != 1 {
		return 0, fmt.Errorf("case takes pairs and an else, got %d arguments", len(e.Args))
	}
	for i, a := range e.Args {
		if gpu.IsCaseValue(i, len(e.Args)) && a.Type.Kind != e.Type.Kind {
			return 0, fmt.Errorf("case value %s of %s gives %s: %w", a, a.Type, e.Type, errNoProgram)
		}
	}
	d, err := pr.reg()
	if err != nil {
		return 0, err
	}
	end := pr.newLabel()
	for i := 0; i+1 < len(e.Args); i += 2 {
		c, err := pr.expr(e.Args[i])
		if err != nil {
			return 0, err
		}
		next := pr.newLabel()
		pr.jump(piJmpF, c, next)
		pr.release(c)
		v, err := pr.expr(e.Args[i+1])
		if err != nil {
			return 0, err
		}
		pr.emit(piMov, int(e.Type.Kind), 0, 0, d, v, 0, 0, 0)
		pr.release(v)
		pr.jump(piJmp, 0, end)
		pr.place(next)
	}
	v, err := pr.expr(e.Args[len(e.Args)-1])
	if err != nil {
		return 0, err
	}
	pr.emit(piMov, int(e.Type.Kind), 0, 0, d, v, 0, 0, 0)
	pr.release(v)
	pr.place(end)
	return d, nil
}

// block lays out the program block (program.cu) for a run over cols with
// string tables at strPtrs; the aggregate's words (aggWords) are
// appended when given.
func (pr *program) block(n int, status uint64, cols []*column, strPtrs []uint64, agg *programAgg) []byte {
	w := make([]uint64, pgHeaderWords)
	w[pgN], w[pgStatus] = uint64(n), status
	w[pgInputs] = uint64(len(w))
	for _, c := range cols {
		data, valid, aux := inputArgs(c)
		w = append(w, data, valid, uint64(c.t.Kind), aux)
	}
	w[pgStrs] = uint64(len(w))
	w = append(w, strPtrs...)
	w[pgProj], w[pgNProj] = uint64(len(w)), uint64(len(pr.p.Project))
	for j, e := range pr.p.Project {
		r := pr.projReg[j]
		if r < 0 {
			r = 0
		}
		nullable := uint64(0)
		if e.Type.Nullable {
			nullable = 1
		}
		w = append(w, uint64(r)|uint64(e.Type.Kind)<<16|nullable<<24)
	}
	if len(w)%2 == 1 { // instructions are read as int4: 16-byte aligned
		w = append(w, 0)
	}
	w[pgCode] = uint64(len(w))
	for i := 0; i < len(pr.code); i += 4 {
		w = append(w, uint64(uint32(pr.code[i]))|uint64(uint32(pr.code[i+1]))<<32, uint64(uint32(pr.code[i+2]))|uint64(uint32(pr.code[i+3]))<<32)
	}
	if len(w)%2 == 1 { // constants are i128: 16-byte aligned
		w = append(w, 0)
	}
	w[pgConst] = uint64(len(w))
	for _, c := range pr.consts {
		w = append(w, c[0], c[1])
	}
	w[pgFilterEnd], w[pgFilterReg], w[pgProjEnd] = uint64(pr.filterEnd), uint64(pr.filterReg), uint64(pr.projEnd)
	if agg != nil {
		w[pgAggs], w[pgNAggs] = uint64(len(w)), uint64(len(agg.aggs))
		w = append(w, agg.aggs...)
		w[pgKeys], w[pgNKeys] = uint64(len(w)), uint64(len(agg.keys))
		w = append(w, agg.keys...)
		w[pgSlotWords], w[pgPSlots], w[pgGroups] = uint64(agg.slotWords), uint64(agg.pslots), uint64(agg.groups)
		w[pgKeyWords], w[pgNullWord] = uint64(agg.keyWords), uint64(int64(agg.nullWord))
		w[pgOuts] = uint64(len(w))
		w = append(w, agg.outs...)
	}
	b := make([]byte, 8*len(w))
	for i, x := range w {
		binary.LittleEndian.PutUint64(b[8*i:], x)
	}
	return b
}
