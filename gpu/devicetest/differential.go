package devicetest

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/rigel-db/rigel/gpu"
)

// Differential generates a random table (fresh data for each seed, nulls
// included) and runs random pipelines over it on ref and dev, comparing the
// results: exact for everything but floats (relative 1e-9), unordered for
// aggregates. When one device reports an error, the other must report one
// too, and ErrOverflow on one side must be ErrOverflow on the other.
func Differential(t *testing.T, ref, dev gpu.Device, seed int64) {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
	n := []int{0, 1, 7, 1000, 4097, 20000}[rng.IntN(6)]
	if seed%3 == 0 {
		n = 20000 // most seeds should exercise several chunks
	}
	g := &diffGen{rng: rng}
	arrs := g.table(n)
	defer ReleaseAll(arrs)
	refCols := make([]gpu.Column, len(arrs))
	devCols := make([]gpu.Column, len(arrs))
	defer ReleaseCols(refCols)
	defer ReleaseCols(devCols)
	for i, a := range arrs {
		g.inputs = append(g.inputs, inputType(a))
		var err error
		if refCols[i], err = ref.Upload(context.Background(), a); err != nil {
			t.Fatalf("seed %d: ref upload column %d: %v", seed, i, err)
		}
		if devCols[i], err = dev.Upload(context.Background(), a); err != nil {
			t.Fatalf("seed %d: dev upload column %d: %v", seed, i, err)
		}
	}
	// Round trip of the table itself first.
	if err := EqualRows(Rows(t, dev, devCols), RowStrings(arrs), true, 0); err != nil {
		t.Fatalf("seed %d: upload/download round trip on dev: %v", seed, err)
	}
	const pipelines = 40
	ok, errs := 0, 0
	defer func() { t.Logf("seed %d: %d rows, %d pipelines compared, %d overflowed on both", seed, n, ok, errs) }()
	for k := 0; k < pipelines; k++ {
		p := g.pipeline()
		name := fmt.Sprintf("seed%d/p%d", seed, k)
		refOut, refErr := runSafely(ref, p, refCols)
		devOut, devErr := runSafely(dev, p, devCols)
		func() {
			defer ReleaseCols(refOut)
			defer ReleaseCols(devOut)
			switch {
			case refErr != nil && devErr != nil:
				errs++
				if !errors.Is(refErr, gpu.ErrOverflow) {
					t.Errorf("%s: generated pipeline %s rejected: %v", name, p, refErr)
				}
				if errors.Is(refErr, gpu.ErrOverflow) != errors.Is(devErr, gpu.ErrOverflow) {
					t.Errorf("%s: %s\n  ref error: %v\n  dev error: %v", name, p, refErr, devErr)
				}
			case refErr != nil:
				t.Errorf("%s: %s\n  ref error: %v\n  dev succeeded", name, p, refErr)
			case devErr != nil:
				t.Errorf("%s: %s\n  dev error: %v\n  ref succeeded", name, p, devErr)
			default:
				ok++
				checkOutputTypes(t, p, devOut)
				want := Rows(t, ref, refOut)
				got := Rows(t, dev, devOut)
				if err := EqualRows(got, want, p.Sink == gpu.SinkMaterialize, 1e-9); err != nil {
					t.Errorf("%s: %s (%d rows in)\n%v", name, p, n, err)
				}
			}
		}()
	}
}

// inputType is the IR type a pipeline declares for an uploaded array:
// nullable exactly when the array holds a null.
func inputType(a arrow.Array) gpu.Type {
	t, err := gpu.TypeOf(a.DataType(), a.NullN() > 0)
	if err != nil {
		panic(err)
	}
	return t
}

// Columns of the random table, in order.
const (
	dcBool = iota
	dcI8
	dcI16
	dcI32
	dcI64
	dcF32
	dcF64
	dcDate
	dcDec64
	dcDec128
	dcDict
	dcCount
)

type diffGen struct {
	rng    *rand.Rand
	inputs []gpu.Type
}

func (g *diffGen) table(n int) []arrow.Array {
	dts := []arrow.DataType{Bool, I8, I16, I32, I64, F32, F64, Date, Dec(12, 2), Dec(30, 3), String}
	out := make([]arrow.Array, len(dts))
	// Values near the types' limits (overflow errors) only in some seeds, so
	// that other seeds compare many results.
	extremes := g.rng.IntN(3) == 0
	words := []string{"", "a", "b", "ab", "ba", "zz", "hello", "AIR", "MAIL", "SHIP", "é", "a\x00b"}
	for c, dt := range dts {
		nullRate := 0.0
		if g.rng.IntN(2) == 0 {
			nullRate = 0.05 + 0.3*g.rng.Float64()
		}
		vals := make([]any, n)
		for i := range vals {
			if g.rng.Float64() < nullRate {
				continue
			}
			switch c {
			case dcBool:
				vals[i] = g.rng.IntN(2) == 0
			case dcI8:
				vals[i] = int64(g.rng.IntN(256) - 128)
			case dcI16:
				vals[i] = int64(g.rng.IntN(2000) - 1000)
			case dcI32:
				vals[i] = int64(g.rng.IntN(200001) - 100000)
			case dcI64:
				// Mostly moderate, sometimes near the edge so that overflow
				// errors get exercised.
				switch r := g.rng.IntN(1000); {
				case r == 0 && extremes:
					vals[i] = int64(g.rng.Uint64())
				case r < 100:
					vals[i] = g.rng.Int64N(2e12) - 1e12
				default:
					vals[i] = g.rng.Int64N(6e4) - 3e4
				}
			case dcF32:
				vals[i] = float64(float32(g.rng.NormFloat64() * 100))
			case dcF64:
				vals[i] = g.rng.NormFloat64() * 1e6
			case dcDate:
				vals[i] = int64(8000 + g.rng.IntN(3000))
			case dcDec64:
				vals[i] = g.rng.Int64N(2e11) - 1e11 // |x| < 10^12
			case dcDec128:
				// Up to 30 digits: two random halves of 15 digits each.
				v := big.NewInt(g.rng.Int64N(1e15))
				if extremes || g.rng.IntN(4) == 0 {
					v.Mul(v, pow10(int64(g.rng.IntN(16))))
				}
				v.Add(v, big.NewInt(g.rng.Int64N(1e15)))
				if g.rng.IntN(2) == 0 {
					v.Neg(v)
				}
				vals[i] = v
			case dcDict:
				vals[i] = words[g.rng.IntN(len(words))]
			}
		}
		out[c] = MakeArray(dt, vals...)
	}
	return out
}

func (g *diffGen) col(c int) *gpu.Expr { return gpu.Col(c, g.inputs[c]) }

func nullable(args ...*gpu.Expr) bool {
	for _, a := range args {
		if a.Type.Nullable {
			return true
		}
	}
	return false
}

func call(op gpu.Op, t gpu.Type, args ...*gpu.Expr) *gpu.Expr {
	return gpu.Call(op, t.WithNullable(nullable(args...)), args...)
}

// intExpr returns an Int64 expression.
func (g *diffGen) intExpr(depth int) *gpu.Expr {
	if depth <= 0 || g.rng.IntN(3) == 0 {
		switch g.rng.IntN(5) {
		case 0:
			return g.col(dcI64)
		case 1:
			return call(gpu.OpCast, TI64, g.col([]int{dcI8, dcI16, dcI32}[g.rng.IntN(3)]))
		case 2:
			return gpu.Const(TI64, gpu.Value{I64: g.rng.Int64N(2001) - 1000})
		case 3:
			return call(gpu.OpCast, TI64, g.col(dcDec64)) // rounds half away from zero
		default:
			return call(gpu.OpAdd, TI64, g.col(dcI32), g.col(dcI32)) // int32+int32 -> int64
		}
	}
	a, b := g.intExpr(depth-1), g.intExpr(depth-1)
	switch g.rng.IntN(6) {
	case 0:
		return call(gpu.OpAdd, TI64, a, b)
	case 1:
		return call(gpu.OpSub, TI64, a, b)
	case 2:
		return call(gpu.OpMul, TI64, a, b)
	case 3:
		return call(gpu.OpNeg, TI64, a)
	case 4:
		return g.caseOf(TI64, depth, a, b)
	default:
		// Narrowing cast: range errors on some rows.
		return call(gpu.OpCast, TI64, call(gpu.OpCast, TI32, a))
	}
}

// decExpr returns a decimal expression: Decimal64(18,2) or Decimal128(38,s).
func (g *diffGen) decExpr(depth int) *gpu.Expr {
	if depth <= 0 || g.rng.IntN(3) == 0 {
		switch g.rng.IntN(4) {
		case 0:
			return call(gpu.OpCast, TDec64(18, 2), g.col(dcDec64))
		case 1:
			return call(gpu.OpCast, TDec64(18, 2), g.col(dcDec128)) // rescale down, rounding
		case 2:
			return call(gpu.OpCast, TDec64(18, 2), g.col(dcI32))
		default:
			return gpu.Const(TDec64(18, 2), gpu.Value{I64: g.rng.Int64N(20001) - 10000})
		}
	}
	a, b := g.decExpr(depth-1), g.decExpr(depth-1)
	a = call(gpu.OpCast, TDec64(18, 2), a)
	b = call(gpu.OpCast, TDec64(18, 2), b)
	switch g.rng.IntN(5) {
	case 0:
		return call(gpu.OpAdd, TDec64(18, 2), a, b)
	case 1:
		return call(gpu.OpSub, TDec128(38, 2), call(gpu.OpCast, TDec128(38, 2), a), call(gpu.OpCast, TDec128(38, 2), b))
	case 2:
		return call(gpu.OpMul, TDec128(38, 4), a, b)
	case 3:
		return call(gpu.OpNeg, TDec64(18, 2), a)
	default:
		return call(gpu.OpMul, TDec64(18, 4), a, b) // overflows for large products
	}
}

func (g *diffGen) floatExpr(depth int) *gpu.Expr {
	if depth <= 0 || g.rng.IntN(3) == 0 {
		switch g.rng.IntN(5) {
		case 0:
			return g.col(dcF64)
		case 1:
			return call(gpu.OpCast, TF64, g.col(dcF32))
		case 2:
			return call(gpu.OpCast, TF64, g.col(dcDec128))
		case 3:
			return call(gpu.OpCast, TF64, g.col(dcI64))
		default:
			return gpu.Const(TF64, gpu.Value{F64: g.rng.NormFloat64()})
		}
	}
	a, b := g.floatExpr(depth-1), g.floatExpr(depth-1)
	op := []gpu.Op{gpu.OpAdd, gpu.OpSub, gpu.OpMul, gpu.OpDiv}[g.rng.IntN(4)]
	return call(op, TF64, a, b)
}

func (g *diffGen) caseOf(t gpu.Type, depth int, a, b *gpu.Expr) *gpu.Expr {
	c := g.boolExpr(depth - 1)
	e := gpu.Call(gpu.OpCase, t.WithNullable(nullable(a, b)), c, a, b)
	return e
}

// boolExpr returns a Bool expression.
func (g *diffGen) boolExpr(depth int) *gpu.Expr {
	cmp := []gpu.Op{gpu.OpEq, gpu.OpNe, gpu.OpLt, gpu.OpLe, gpu.OpGt, gpu.OpGe}
	if depth <= 0 || g.rng.IntN(3) == 0 {
		op := cmp[g.rng.IntN(len(cmp))]
		switch g.rng.IntN(9) {
		case 0:
			return g.col(dcBool)
		case 1:
			return call(op, TBool, g.col(dcI8), gpu.Const(TI8, gpu.Value{I64: int64(g.rng.IntN(256) - 128)}))
		case 2:
			return call(op, TBool, g.col(dcDate), gpu.Const(TDate, gpu.Value{I64: int64(8000 + g.rng.IntN(3000))}))
		case 3:
			return call(op, TBool, g.col(dcDict), gpu.Const(TDict, gpu.Value{I64: int64(g.rng.IntN(4))}))
		case 4:
			return call(op, TBool, g.col(dcF64), gpu.Const(TF64, gpu.Value{F64: g.rng.NormFloat64() * 1e6}))
		case 5:
			return call(op, TBool, g.col(dcDec64), gpu.Const(TDec64(12, 2), gpu.Value{I64: g.rng.Int64N(2e11) - 1e11}))
		case 6:
			return call(op, TBool, g.col(dcDec128), gpu.Const(TDec128(30, 3), gpu.Value{I128: big.NewInt(g.rng.Int64N(2e15) - 1e15)}))
		case 7:
			return call(op, TBool, g.col(dcI16), call(gpu.OpCast, TI16, g.col(dcI8)))
		default:
			return gpu.Call([]gpu.Op{gpu.OpIsNull, gpu.OpIsNotNull}[g.rng.IntN(2)], TBool, g.col(g.rng.IntN(dcCount)))
		}
	}
	switch g.rng.IntN(5) {
	case 0, 1:
		op := []gpu.Op{gpu.OpAnd, gpu.OpOr}[g.rng.IntN(2)]
		args := make([]*gpu.Expr, 2+g.rng.IntN(2))
		for i := range args {
			args[i] = g.boolExpr(depth - 1)
		}
		return call(op, TBool, args...)
	case 2:
		return call(gpu.OpNot, TBool, g.boolExpr(depth-1))
	case 3:
		return call(cmp[g.rng.IntN(len(cmp))], TBool, g.intExpr(depth-1), g.intExpr(depth-1))
	default:
		wide := TDec128(38, 4)
		return call(cmp[g.rng.IntN(len(cmp))], TBool, call(gpu.OpCast, wide, g.decExpr(depth-1)), call(gpu.OpCast, wide, g.decExpr(depth-1)))
	}
}

// pipeline builds a random pipeline over the table.
func (g *diffGen) pipeline() *gpu.Pipeline {
	p := &gpu.Pipeline{Inputs: g.inputs, Sink: gpu.SinkMaterialize}
	if g.rng.IntN(3) > 0 {
		p.Filter = g.boolExpr(2)
	}
	depth := 1 + g.rng.IntN(2)
	nproj := 1 + g.rng.IntN(4)
	for i := 0; i < nproj; i++ {
		switch g.rng.IntN(6) {
		case 0:
			p.Project = append(p.Project, g.intExpr(depth))
		case 1:
			p.Project = append(p.Project, g.decExpr(depth))
		case 2:
			p.Project = append(p.Project, g.floatExpr(depth))
		case 3:
			p.Project = append(p.Project, g.boolExpr(depth))
		case 4:
			p.Project = append(p.Project, g.col(dcDict))
		default:
			p.Project = append(p.Project, g.col(g.rng.IntN(dcCount)))
		}
	}
	if g.rng.IntN(2) == 0 {
		return p
	}
	p.Sink = gpu.SinkAggregate
	// Keys: a few low-cardinality columns, appended to the projection.
	keyCols := []int{dcBool, dcI8, dcDate, dcDict, dcDec64}
	for k := g.rng.IntN(3); k > 0; k-- {
		c := keyCols[g.rng.IntN(len(keyCols))]
		switch c {
		case dcDate:
			// Low-cardinality keys through an expression.
			p.Project = append(p.Project, call(gpu.OpGt, TBool, g.col(dcDate), gpu.Const(TDate, gpu.Value{I64: 9500})))
		case dcDec64:
			p.Project = append(p.Project, call(gpu.OpCast, TDec64(5, 2), g.col(dcI8)))
		default:
			p.Project = append(p.Project, g.col(c))
		}
		p.Keys = append(p.Keys, len(p.Project)-1)
	}
	for a := 1 + g.rng.IntN(4); a > 0; a-- {
		arg := g.rng.IntN(len(p.Project))
		at := p.Project[arg].Type
		kinds := []gpu.AggKind{gpu.AggCountStar, gpu.AggCount, gpu.AggMin, gpu.AggMax}
		if at.Kind != gpu.Bool && at.Kind != gpu.Dict && at.Kind != gpu.Date32 {
			kinds = append(kinds, gpu.AggSum, gpu.AggSum)
		}
		k := kinds[g.rng.IntN(len(kinds))]
		var rt gpu.Type
		switch k {
		case gpu.AggCountStar, gpu.AggCount:
			rt = TCount
		case gpu.AggMin, gpu.AggMax:
			rt = N(at)
		case gpu.AggSum:
			if at.Kind.IsFloat() {
				rt = N(TF64)
			} else {
				rt = N(TDec128(38, at.Scale))
			}
		}
		p.Aggs = append(p.Aggs, gpu.Agg{Kind: k, Arg: arg, Type: rt})
	}
	return p
}
