package cuda

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rigel-db/rigel/gpu"
)

// ProgramChecker evaluates the interpreter's programs in Go, as
// kernels/program.cu evaluates them (one case per PI_* case there), so
// that a machine without a GPU checks what compileProgram makes of a
// pipeline: the device battery and the differential test against the
// host device (TestProgramMatchesHost), the TPC-H queries against DuckDB
// (conformance's TestTPCHProgram). The CUDA interpreter itself runs the
// battery on a GPU (RIGEL_PROGRAM=always ./cuda.test -test.run
// 'TestBattery|TestDifferential').

// evalValue is a register: an integer (sign-extended, as i128), a float
// (a float32 held exactly as a float64), a null flag, and for a Dict
// value the dictionary its code indexes.
type evalValue struct {
	i    *big.Int
	f    float64
	null bool
	dict *array.String
	s    string // a Str value (strings in Arrow layout pass through)
}

var (
	i128Min = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 127))
	i128Max = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))
)

func fitsI128(v *big.Int) bool { return v.Cmp(i128Min) >= 0 && v.Cmp(i128Max) <= 0 }

// narrow keeps the low 64 bits, sign-extended (pg_narrow), but for
// decimal128.
func narrow(v *big.Int, k gpu.Kind) *big.Int {
	if k == gpu.Decimal128 || v.IsInt64() {
		return v
	}
	m := new(big.Int).And(v, new(big.Int).SetUint64(math.MaxUint64))
	return big.NewInt(int64(m.Uint64()))
}

// programEval runs pr over input arrays; overflow is the status flag.
type programEval struct {
	pr       *program
	in       []arrow.Array
	dicts    []*array.String // a Dict input's dictionary (its codes index it)
	strTable [][]byte        // predicate tables by string node
	strCodes [][]int32       // map tables
	strDicts []*array.String
	overflow bool
}

func (ev *programEval) konst(i int) *big.Int {
	c := ev.pr.consts[i]
	v := new(big.Int).SetUint64(c[1])
	v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(c[0]))
	if c[1]>>63 == 1 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), 128))
	}
	return v
}

func (ev *programEval) fit(r *big.Int, c int) {
	if c != noKFit && (r.Cmp(ev.konst(c)) < 0 || r.Cmp(ev.konst(c+1)) > 0) {
		ev.overflow = true
	}
}

// exact is an integer instruction's result x: the overflow flag where it
// leaves 128 bits or the range at constant c (noKFit: none), then the
// value as a register of kind k keeps it.
func (ev *programEval) exact(x *big.Int, c int, k gpu.Kind) evalValue {
	if !fitsI128(x) {
		ev.overflow = true
	}
	ev.fit(x, c)
	return evalValue{i: narrow(x, k)}
}

func (ev *programEval) load(c int, k gpu.Kind, row int) evalValue {
	a := ev.in[c]
	v := evalValue{null: a.IsNull(row), i: new(big.Int)}
	switch x := a.(type) {
	case *array.Boolean:
		if x.Value(row) {
			v.i.SetInt64(1)
		}
	case *array.Int8:
		v.i.SetInt64(int64(x.Value(row)))
	case *array.Int16:
		v.i.SetInt64(int64(x.Value(row)))
	case *array.Int32:
		v.i.SetInt64(int64(x.Value(row)))
	case *array.Int64:
		v.i.SetInt64(x.Value(row))
	case *array.Date32:
		v.i.SetInt64(int64(x.Value(row)))
	case *array.Float32:
		v.f = float64(x.Value(row))
	case *array.Float64:
		v.f = x.Value(row)
	case *array.Decimal128:
		v.i = x.Value(row).BigInt()
	case *array.String: // a Dict column, downloaded as its strings, or a Str one
		if k == gpu.Str {
			v.s = x.Value(row)
			break
		}
		dict := ev.dicts[c]
		v.dict = dict
		if !v.null {
			code := sort.Search(dict.Len(), func(j int) bool { return dict.Value(j) >= x.Value(row) })
			v.i.SetInt64(int64(code))
		}
	default:
		panic(fmt.Sprintf("program eval: input %d of %T", c, a))
	}
	return v
}

// run interprets instructions [pc, end) for row, as pg_run.
func (ev *programEval) run(pc, end, row int, r []evalValue) {
	code := ev.pr.code
	for pc < end {
		w0, w1, w2, imm := code[4*pc], code[4*pc+1], code[4*pc+2], int(code[4*pc+3])
		pc++
		op, kind, ak, fl := int(w0&0xff), gpu.Kind((w0>>8)&0xff), gpu.Kind((w0>>16)&0xff), int((w0>>24)&0xff)
		d, a, b, c := int(w1&0xffff), int((w1>>16)&0xffff), int(w2&0xffff), int((w2>>16)&0xffff)
		zero := evalValue{i: new(big.Int), null: true}
		switch op {
		case piLoad:
			r[d] = ev.load(imm, kind, row)
		case piConst:
			if fl&1 == 1 {
				r[d] = zero
			} else if kind.IsFloat() {
				r[d] = evalValue{i: new(big.Int), f: math.Float64frombits(ev.pr.consts[imm][0])}
			} else {
				r[d] = evalValue{i: ev.konst(imm)}
			}
		case piMov:
			r[d] = r[a]
		case piArithI:
			if r[a].null || r[b].null {
				r[d] = zero
				break
			}
			x := new(big.Int)
			switch fl {
			case 0:
				x.Add(r[a].i, r[b].i)
			case 1:
				x.Sub(r[a].i, r[b].i)
			default:
				x.Mul(r[a].i, r[b].i)
			}
			r[d] = ev.exact(x, c, kind)
		case piArithF:
			if r[a].null || r[b].null {
				r[d] = zero
				break
			}
			var f float64
			if kind == gpu.Float32 {
				x, y := float32(r[a].f), float32(r[b].f)
				f = float64([]float32{x + y, x - y, x * y, x / y}[fl])
			} else {
				x, y := r[a].f, r[b].f
				f = []float64{x + y, x - y, x * y, x / y}[fl]
			}
			r[d] = evalValue{i: new(big.Int), f: f}
		case piNegI, piAbsI:
			if r[a].null {
				r[d] = zero
				break
			}
			x := new(big.Int).Neg(r[a].i)
			if op == piAbsI {
				x.Abs(r[a].i)
			}
			r[d] = ev.exact(x, c, kind)
		case piNegF, piAbsF:
			if r[a].null {
				r[d] = zero
				break
			}
			f := -r[a].f
			if op == piAbsF {
				f = math.Abs(r[a].f)
			}
			r[d] = evalValue{i: new(big.Int), f: f}
		case piCmp:
			if r[a].null || r[b].null {
				r[d] = zero
				break
			}
			var s int
			if ak.IsFloat() {
				s = gpu.FloatOrder(r[a].f, r[b].f) // rg_fcmp
			} else {
				s = r[a].i.Cmp(r[b].i)
			}
			ok := []bool{s == 0, s != 0, s < 0, s <= 0, s > 0, s >= 0}[fl]
			r[d] = boolValue(ok, false)
		case piAnd, piOr:
			want := op == piOr
			dec := (!r[a].null && (r[a].i.Sign() != 0) == want) || (!r[b].null && (r[b].i.Sign() != 0) == want)
			u := r[a].null || r[b].null
			v := !dec
			if want {
				v = dec
			}
			r[d] = boolValue(v, !dec && u)
		case piNot:
			r[d] = boolValue(r[a].i.Sign() == 0, r[a].null)
		case piIsNull:
			r[d] = boolValue(r[a].null, false)
		case piIsNotNull:
			r[d] = boolValue(!r[a].null, false)
		case piCastII:
			if r[a].null {
				r[d] = zero
				break
			}
			x := new(big.Int).Set(r[a].i)
			switch fl {
			case 1:
				x.Mul(x, ev.konst(imm))
			case 2:
				x = divRound(x, ev.konst(imm))
			case 3:
				x.SetInt64(0)
			}
			r[d] = ev.exact(x, c, kind)
		case piCastIF:
			if r[a].null {
				r[d] = zero
				break
			}
			q := new(big.Rat).SetFrac(r[a].i, ev.konst(c))
			var f float64
			if kind == gpu.Float32 {
				f32, _ := q.Float32()
				f = float64(f32)
			} else {
				f, _ = q.Float64()
			}
			r[d] = evalValue{i: new(big.Int), f: f}
		case piCastFF:
			if r[a].null {
				r[d] = zero
				break
			}
			f := r[a].f
			if kind == gpu.Float32 {
				f = float64(float32(f))
			}
			r[d] = evalValue{i: new(big.Int), f: f}
		case piJmp:
			pc = imm
		case piJmpF:
			if r[a].null || r[a].i.Sign() == 0 {
				pc = imm
			}
		case piStrPred:
			if r[a].null {
				r[d] = zero
				break
			}
			r[d] = boolValue(ev.strTable[imm][r[a].i.Int64()] != 0, false)
		case piStrMap:
			if r[a].null {
				r[d] = zero
				r[d].dict = ev.strDicts[imm]
				break
			}
			r[d] = evalValue{i: big.NewInt(int64(ev.strCodes[imm][r[a].i.Int64()])), dict: ev.strDicts[imm]}
		case piStrMatch:
			if r[a].null {
				r[d] = zero
				break
			}
			ok, err := strMatchWords(ev.matcher(c), []byte(r[a].s))
			if err != nil {
				panic(fmt.Sprintf("program eval: %v", err))
			}
			r[d] = boolValue(ok, false)
		case piRoundI:
			if r[a].null {
				r[d] = zero
				break
			}
			x := new(big.Int).Set(r[a].i)
			switch fl {
			case 1:
				x.SetInt64(0)
			case 2:
				k := ev.konst(imm)
				x.Mul(divRound(x, k), k)
			}
			r[d] = ev.exact(x, c, kind) // the value or zero lie in range: checked all the same
		case piRoundF:
			if r[a].null || r[b].null {
				r[d] = zero
				break
			}
			f := gpu.RoundFloat(r[a].f, r[b].i.Int64())
			if kind == gpu.Float32 {
				f = float64(float32(f))
			}
			r[d] = evalValue{i: new(big.Int), f: f}
		case piDatePart:
			if r[a].null {
				r[d] = zero
				break
			}
			y, m, dd := gpu.CivilFromDays(r[a].i.Int64())
			r[d] = evalValue{i: big.NewInt([]int64{y, m, dd}[fl])}
		default:
			panic(fmt.Sprintf("program eval: instruction %d", op))
		}
	}
}

// matcher reads the string matcher at constant c (program_strmatch.go):
// its words up to the end of the constants.
func (ev *programEval) matcher(c int) []uint16 {
	var w []uint16
	for _, k := range ev.pr.consts[c:] {
		for _, x := range k {
			w = append(w, uint16(x), uint16(x>>16), uint16(x>>32), uint16(x>>48))
		}
	}
	return w
}

func boolValue(v, null bool) evalValue {
	x := evalValue{i: new(big.Int), null: null}
	if v {
		x.i.SetInt64(1)
	}
	return x
}

// divRound is rg_div_round: half away from zero.
func divRound(v, d *big.Int) *big.Int {
	q, m := new(big.Int).QuoRem(v, d, new(big.Int))
	m.Abs(m).Mul(m, big.NewInt(2))
	if m.Cmp(d) >= 0 {
		if v.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// ProgramChecker is a device (the reference device it wraps, gpu/host's)
// whose Run evaluates the pipeline's program in Go where compileProgram
// makes one, as the CUDA device's interpreter would run it: the filter
// and projections row by row, then, for an aggregate, the reference's
// aggregate over the projected rows. Everything else is the reference's;
// joins are composed (it offers no fused join), so that their pipelines
// reach Run too.
type ProgramChecker struct {
	gpu.Device
	runs   int            // pipelines that ran on their programs
	regs   map[int]int    // how many of those used each register count
	missed map[string]int // why the others did not (errNoProgram's reasons)
}

// NewProgramChecker wraps ref (the host device).
func NewProgramChecker(ref gpu.Device) *ProgramChecker { return &ProgramChecker{Device: ref} }

// Runs is the number of pipelines that ran on their programs.
func (pd *ProgramChecker) Runs() int { return pd.runs }

// Missed counts, by reason, the pipelines the interpreter does not run
// (on the GPU they wait for their own kernels).
func (pd *ProgramChecker) Missed() map[string]int { return pd.missed }

// Close reports on stderr what ran on programs and why the rest did not
// (`rigel --device program` over a suite says what a first run on a GPU
// would leave to the compiler), then closes the reference.
func (pd *ProgramChecker) Close() error {
	fmt.Fprintf(os.Stderr, "program checker: %d pipelines ran on their programs", pd.runs)
	reasons := make([]string, 0, len(pd.missed))
	for r := range pd.missed {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	n := 0
	for _, r := range reasons {
		n += pd.missed[r]
	}
	fmt.Fprintf(os.Stderr, ", %d did not; pipelines by registers used: %v\n", n, pd.regs)
	for _, r := range reasons {
		fmt.Fprintf(os.Stderr, "  %d: %s\n", pd.missed[r], r)
	}
	return pd.Device.Close()
}

// UploadStr keeps strings in Arrow layout where the reference does, so
// that the programs that pass them through are checked too.
func (pd *ProgramChecker) UploadStr(ctx context.Context, arr arrow.Array) (gpu.Column, error) {
	su, ok := pd.Device.(gpu.StrUploader)
	if !ok {
		return nil, fmt.Errorf("upload strings: %w", gpu.ErrUnsupported)
	}
	return su.UploadStr(ctx, arr)
}

func (pd *ProgramChecker) Run(ctx context.Context, p *gpu.Pipeline, inputs []gpu.Column) ([]gpu.Column, error) {
	// The CUDA device checks a call (its columns, sink, keys, string
	// dictionaries) before it takes either path: the host's verdict on a
	// bad call stands in for those checks. An overflow is the program's
	// to find too.
	ref, err := pd.Device.Run(ctx, p, inputs)
	releaseAll(ref)
	if err != nil && !errors.Is(err, gpu.ErrOverflow) {
		return nil, err
	}
	var ap *aggPlan
	if p.Sink == gpu.SinkAggregate {
		// The plan the CUDA device makes (agg_run.go), over the inputs'
		// dictionary sizes.
		dictLen := make([]int, len(inputs))
		for i, c := range inputs {
			if d := c.Dictionary(); d != nil {
				dictLen[i] = d.Len()
			}
		}
		if ap, err = planAggregate(p, dictLen); err != nil {
			return pd.Device.Run(ctx, p, inputs)
		}
	}
	pr, _, err := programOf(p, ap)
	if err != nil {
		if errors.Is(err, errNoProgram) {
			if pd.missed == nil {
				pd.missed = map[string]int{}
			}
			pd.missed[err.Error()]++
		}
		return pd.Device.Run(ctx, p, inputs) // as the CUDA device: its generated kernel
	}
	for i, c := range inputs {
		if c.Type().Kind != p.Inputs[i].Kind || (c.Type().Nullable && !p.Inputs[i].Nullable) || c.Len() != inputs[0].Len() {
			return pd.Device.Run(ctx, p, inputs) // the host reports the bad call
		}
	}
	pd.runs++
	if pd.regs == nil {
		pd.regs = map[int]int{}
	}
	pd.regs[pr.regs]++
	in := make([]arrow.Array, len(inputs))
	for i, c := range inputs {
		if in[i], err = pd.Device.Download(ctx, c); err != nil {
			return nil, err
		}
		defer in[i].Release()
	}
	ev := &programEval{pr: pr, in: in}
	for _, c := range inputs {
		var d *array.String
		if dc, ok := c.(interface{ Dictionary() *array.String }); ok {
			d = dc.Dictionary()
		}
		ev.dicts = append(ev.dicts, d)
	}
	// The CUDA device compares two dictionaries' strings through places
	// and mixes them in a CASE through a merged dictionary (dictorder.go),
	// which the interpreter does not hold: the generated kernel runs them,
	// as here the host.
	for _, e := range scanPipeline(p).dictMixes {
		if meetsTwoDictionaries(e, func(a *gpu.Expr) *array.String { return argDictionary(a, ev.dicts) }) {
			return pd.Device.Run(ctx, p, inputs)
		}
	}
	for _, e := range pr.strs {
		dict := argDictionary(e.Args[0], ev.dicts)
		if dict == nil {
			return pd.Device.Run(ctx, p, inputs)
		}
		if e.Op == gpu.OpStrPred {
			tb, err := e.Str.PredicateTable(dict)
			if err != nil {
				return nil, err
			}
			ev.strTable = append(ev.strTable, tb)
			ev.strCodes, ev.strDicts = append(ev.strCodes, nil), append(ev.strDicts, nil)
		} else {
			codes, out, err := e.Str.MapTable(dict)
			if err != nil {
				return nil, err
			}
			ev.strTable = append(ev.strTable, nil)
			ev.strCodes, ev.strDicts = append(ev.strCodes, codes), append(ev.strDicts, out)
		}
	}
	n := 0
	if len(in) > 0 {
		n = in[0].Len()
	}
	regs := make([]evalValue, programMaxRegs)
	cols := make([][]any, len(p.Project))
	passed := 0
	for row := 0; row < n; row++ {
		if pr.filterEnd > 0 {
			ev.run(0, pr.filterEnd, row, regs)
			if f := regs[pr.filterReg]; f.null || f.i.Sign() == 0 {
				continue
			}
		}
		passed++
		ev.run(pr.filterEnd, pr.projEnd, row, regs)
		for j, e := range p.Project {
			if pr.projReg[j] < 0 {
				cols[j] = append(cols[j], nil)
				continue
			}
			cols[j] = append(cols[j], cellOf(regs[pr.projReg[j]], e.Type))
		}
	}
	if ev.overflow {
		return nil, fmt.Errorf("run %s: %w", p, gpu.ErrOverflow)
	}
	out := make([]gpu.Column, 0, len(p.Project))
	types := make([]gpu.Type, len(p.Project))
	for j, e := range p.Project {
		types[j] = e.Type
		if pr.projReg[j] < 0 { // an aggregate's unread projection: nulls stand in
			types[j] = e.Type.WithNullable(true)
		}
		a := buildArray(types[j], cols[j])
		var c gpu.Column
		if types[j].Kind == gpu.Str {
			c, err = pd.UploadStr(ctx, a)
		} else {
			c, err = pd.Device.Upload(ctx, a)
		}
		a.Release()
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		out = append(out, c)
	}
	if p.Sink == gpu.SinkMaterialize {
		return out, nil
	}
	if len(out) == 0 { // count(*) alone: a column of the passing rows to count
		vals := make([]any, passed)
		for i := range vals {
			vals[i] = true
		}
		a := buildArray(gpu.Type{Kind: gpu.Bool}, vals)
		c, err := pd.Device.Upload(ctx, a)
		a.Release()
		if err != nil {
			return nil, err
		}
		out, types = append(out, c), append(types, c.Type())
	}
	defer releaseAll(out)
	agg := &gpu.Pipeline{Sink: gpu.SinkAggregate, Keys: p.Keys, Aggs: p.Aggs, GroupHint: p.GroupHint}
	for j, c := range out {
		agg.Inputs = append(agg.Inputs, c.Type().WithNullable(types[j].Nullable || c.Type().Nullable))
		if j < len(p.Project) {
			agg.Project = append(agg.Project, gpu.Col(j, p.Project[j].Type.WithNullable(agg.Inputs[j].Nullable)))
		}
	}
	return pd.Device.Run(ctx, agg, out)
}

// argDictionary is the dictionary a string node's argument reads: an
// input column's, or a string function's over one.
func argDictionary(e *gpu.Expr, dicts []*array.String) *array.String {
	switch {
	case e.Op == gpu.OpCol && e.Col < len(dicts):
		return dicts[e.Col]
	case e.Op == gpu.OpStrMap:
		if d := argDictionary(e.Args[0], dicts); d != nil {
			_, out, err := e.Str.MapTable(d)
			if err == nil {
				return out
			}
		}
	}
	return nil
}

// cellOf is a register as a devicetest.MakeArray value of type t; a null
// where t is not nullable keeps its value, as the kernel writes it.
func cellOf(v evalValue, t gpu.Type) any {
	if v.null && t.Nullable {
		return nil
	}
	switch t.Kind {
	case gpu.Bool:
		return v.i.Sign() != 0
	case gpu.Float32, gpu.Float64:
		return v.f
	case gpu.Decimal64, gpu.Decimal128:
		return v.i
	case gpu.Str:
		return v.s
	case gpu.Dict:
		if v.dict == nil || !v.i.IsInt64() || v.i.Int64() < 0 || int(v.i.Int64()) >= v.dict.Len() {
			return ""
		}
		return v.dict.Value(int(v.i.Int64()))
	}
	return v.i.Int64()
}

// buildArray makes an Arrow array of type t from cellOf's values (nil:
// null).
func buildArray(t gpu.Type, vals []any) arrow.Array {
	var b array.Builder
	mem := memory.DefaultAllocator
	switch t.Kind {
	case gpu.Bool:
		b = array.NewBooleanBuilder(mem)
	case gpu.Int8:
		b = array.NewInt8Builder(mem)
	case gpu.Int16:
		b = array.NewInt16Builder(mem)
	case gpu.Int32:
		b = array.NewInt32Builder(mem)
	case gpu.Int64:
		b = array.NewInt64Builder(mem)
	case gpu.Float32:
		b = array.NewFloat32Builder(mem)
	case gpu.Float64:
		b = array.NewFloat64Builder(mem)
	case gpu.Date32:
		b = array.NewDate32Builder(mem)
	case gpu.Decimal64, gpu.Decimal128:
		b = array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: t.Precision, Scale: t.Scale})
	default: // Dict and Str: their strings
		b = array.NewStringBuilder(mem)
	}
	defer b.Release()
	for _, v := range vals {
		if v == nil {
			b.AppendNull()
			continue
		}
		switch x := b.(type) {
		case *array.BooleanBuilder:
			x.Append(v.(bool))
		case *array.Int8Builder:
			x.Append(int8(v.(int64)))
		case *array.Int16Builder:
			x.Append(int16(v.(int64)))
		case *array.Int32Builder:
			x.Append(int32(v.(int64)))
		case *array.Int64Builder:
			x.Append(v.(int64))
		case *array.Float32Builder:
			x.Append(float32(v.(float64)))
		case *array.Float64Builder:
			x.Append(v.(float64))
		case *array.Date32Builder:
			x.Append(arrow.Date32(v.(int64)))
		case *array.Decimal128Builder:
			x.Append(decimal128.FromBigInt(v.(*big.Int)))
		case *array.StringBuilder:
			x.Append(v.(string))
		}
	}
	return b.NewArray()
}

func releaseAll(cols []gpu.Column) {
	for _, c := range cols {
		if c != nil {
			c.Release()
		}
	}
}
