package physical

import "testing"

// Every join type says which of its sides it pads with nulls and whether
// it gives its left side's columns only, as the SQL types mean.
func TestJoinTypeSides(t *testing.T) {
	type sides struct{ leftOnly, padsLeft, padsRight bool }
	for typ, want := range map[JoinType]sides{
		JoinInner:  {},
		JoinLeft:   {padsRight: true},
		JoinRight:  {padsLeft: true},
		JoinFull:   {padsLeft: true, padsRight: true},
		JoinSemi:   {leftOnly: true},
		JoinAnti:   {leftOnly: true},
		JoinSingle: {padsRight: true},
	} {
		if got := (sides{typ.LeftOnly(), typ.PadsLeft(), typ.PadsRight()}); got != want {
			t.Errorf("%s join: %+v, want %+v", typ, got, want)
		}
	}
}
