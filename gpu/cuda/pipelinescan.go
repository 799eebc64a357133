package cuda

import "github.com/rigel-db/rigel/gpu"

// pipelineScan is what Run and the probes look for in a pipeline before
// they lay it out, found in one walk of its nodes (a hot path: every call):
// row functions, which the host evaluates first (rowstrings.go), and
// comparisons and CASEs of Dict values, whose dictionaries may differ
// (dictorder.go).
type pipelineScan struct {
	rowFuncs  bool
	dictMixes []*gpu.Expr
}

func scanPipeline(p *gpu.Pipeline) pipelineScan {
	var s pipelineScan
	for _, e := range pipelineNodes(p) {
		switch {
		case e.Op == gpu.OpStrRow:
			s.rowFuncs = true
		case isComparison(e.Op) && len(e.Args) == 2 && e.Args[0].Type.Kind == gpu.Dict && e.Args[1].Type.Kind == gpu.Dict,
			e.Op == gpu.OpCase && e.Type.Kind == gpu.Dict:
			s.dictMixes = append(s.dictMixes, e)
		}
	}
	return s
}

// hasStrRow reports whether e evaluates a row function.
func hasStrRow(e *gpu.Expr) bool {
	if e == nil {
		return false
	}
	if e.Op == gpu.OpStrRow {
		return true
	}
	for _, a := range e.Args {
		if hasStrRow(a) {
			return true
		}
	}
	return false
}
