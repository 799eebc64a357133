package gpu

// Refuser is implemented by devices whose kernels cannot run all of the IR
// (the CUDA code generator refuses some operations and aggregates). The
// translator asks it about every operation and aggregate a relation adds
// (translate.Options.Device), so that what the device cannot run becomes a
// subtree for the host engine when the plan is made, not a refusal once
// the device's work before it is paid for (a refusal while running sends
// the whole query to the host engine).
type Refuser interface {
	// RefuseExpr returns an error wrapping ErrUnsupported when the device
	// cannot evaluate e's own operation (the translator asks about its
	// arguments on their own), nil when it can.
	RefuseExpr(e *Expr) error
	// RefuseAgg is RefuseExpr for an aggregate (a.Arg is ignored: arg is
	// the type of its values; AggCountStar has none).
	RefuseAgg(a Agg, arg Type) error
}
