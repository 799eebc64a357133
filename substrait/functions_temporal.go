package substrait

// Interval arithmetic of functions_datetime.yaml (translate/fn_temporal.go).
const FnAddIntervals Func = "add_intervals"

func init() {
	catalogue["functions_datetime"] = append(catalogue["functions_datetime"], FnAddIntervals)
}
