package cuda

import "github.com/rigel-db/rigel/gpu"

// pipelineScan is what Run and the probes look for in a pipeline before
// they lay it out, found in one walk of its nodes (a hot path: every call):
// row functions, which the host evaluates first (rowstrings.go), and
// comparisons of two Dict values, which may need places (dictorder.go).
type pipelineScan struct {
	rowFuncs     bool
	dictCompares []*gpu.Expr
}

func scanPipeline(p *gpu.Pipeline) pipelineScan {
	var s pipelineScan
	for _, e := range pipelineNodes(p) {
		switch {
		case e.Op == gpu.OpStrRow:
			s.rowFuncs = true
		case isComparison(e.Op) && len(e.Args) == 2 && e.Args[0].Type.Kind == gpu.Dict && e.Args[1].Type.Kind == gpu.Dict:
			s.dictCompares = append(s.dictCompares, e)
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
