package gpu

import "testing"

func TestMemorySizeSources(t *testing.T) {
	n, ok := memTotal([]byte("MemFree:  100 kB\nMemTotal:       24684092 kB\n"))
	if !ok || n != 24684092<<10 {
		t.Fatalf("MemTotal: %d, %v", n, ok)
	}
	if _, ok := memTotal([]byte("MemTotal: lots\n")); ok {
		t.Fatal("a garbled MemTotal parsed")
	}
	for in, want := range map[string]int64{"max\n": 0, "1073741824\n": 1 << 30, "9223372036854771712": 9223372036854771712, "": 0, "-1": 0, "12x": 0} {
		n, ok := parseCgroupLimit(in)
		if ok != (want > 0) || n != want {
			t.Errorf("cgroup limit %q: %d, %v", in, n, ok)
		}
	}
}
