package physical

import (
	"fmt"
	"sort"
	"testing"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
)

// A build side far larger than the probe side makes the join build on the
// probe side (candidates): every join type must give the same rows as the
// definition, with null keys and keys without a match on both sides.
func TestJoinBuildsOnTheSmallerSide(t *testing.T) {
	ni64 := i64.WithNullable(true)
	key := func(i int) gpu.Value {
		if i%11 == 10 {
			return gpu.Value{Null: true}
		}
		return gpu.Value{I64: int64(i % 7)}
	}
	var small, big [][]gpu.Value
	for i := 0; i < 3; i++ { // keys 0, 1, 2
		small = append(small, []gpu.Value{key(i), {I64: int64(100 + i)}})
	}
	small = append(small, []gpu.Value{{Null: true}, {I64: 199}}, []gpu.Value{{I64: 50}, {I64: 150}})
	for i := 0; i < swapBuildRatio*len(small)+40; i++ {
		big = append(big, []gpu.Value{key(i + 1), {I64: int64(i)}})
	}
	cell := func(v gpu.Value) string {
		if v.Null {
			return "NULL"
		}
		return fmt.Sprint(v.I64)
	}
	match := func(a, b []gpu.Value) bool { return !a[0].Null && !b[0].Null && a[0].I64 == b[0].I64 }
	for _, jt := range []JoinType{JoinInner, JoinLeft, JoinRight, JoinFull, JoinSemi, JoinAnti} {
		t.Run(jt.String(), func(t *testing.T) {
			var want []string
			seenR := make([]bool, len(big))
			for _, l := range small {
				any := false
				for k, r := range big {
					if match(l, r) {
						any = true
						seenR[k] = true
						if jt != JoinSemi && jt != JoinAnti {
							want = append(want, fmt.Sprint([]string{cell(l[0]), cell(l[1]), cell(r[0]), cell(r[1])}))
						}
					}
				}
				switch {
				case jt == JoinSemi && any, jt == JoinAnti && !any:
					want = append(want, fmt.Sprint([]string{cell(l[0]), cell(l[1])}))
				case !any && (jt == JoinLeft || jt == JoinFull):
					want = append(want, fmt.Sprint([]string{cell(l[0]), cell(l[1]), "NULL", "NULL"}))
				}
			}
			if jt == JoinRight || jt == JoinFull {
				for k, r := range big {
					if !seenR[k] {
						want = append(want, fmt.Sprint([]string{"NULL", "NULL", cell(r[0]), cell(r[1])}))
					}
				}
			}
			j := &Join{
				Left:  &Values{Types: []gpu.Type{ni64, i64}, Rows: small},
				Right: &Values{Types: []gpu.Type{ni64, i64}, Rows: big},
				Type:  jt, LeftKeys: []int{0}, RightKeys: []int{0},
			}
			got := runRows(t, host.New(), j)
			sort.Strings(want)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("got %d rows %v\nwant %d rows %v", len(got), got, len(want), want)
			}
		})
	}
}
