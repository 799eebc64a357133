package gpu

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// How much memory the process may use, for the budgets that keep it from
// being killed: the host device's, and the column cache's loads
// (physical's loadBudget).

// fallbackMemory is assumed where the memory size cannot be read (no
// /proc/meminfo): 4 GiB.
const fallbackMemory = 4 << 30

// ProcessMemory is the memory this process may use: the smaller of the
// machine's (/proc/meminfo) and the cgroup's limit (v2 memory.max, v1
// memory.limit_in_bytes, where set).
func ProcessMemory() int64 {
	total := machineMemory()
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if n, ok := cgroupLimit(f); ok && n < total {
			total = n
		}
	}
	return total
}

// machineMemory reads MemTotal from /proc/meminfo.
func machineMemory() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return fallbackMemory
	}
	if n, ok := memTotal(b); ok {
		return n
	}
	return fallbackMemory
}

// memTotal parses the "MemTotal: 24684092 kB" line of /proc/meminfo.
func memTotal(meminfo []byte) (int64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(meminfo))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && f[0] == "MemTotal:" && f[2] == "kB" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err == nil && kb > 0 && kb < 1<<50 {
				return kb << 10, true
			}
		}
	}
	return 0, false
}

// cgroupLimit reads a cgroup memory limit file: a number of bytes, "max"
// (v2: none), or a huge number (v1: none, which the comparison with the
// machine's memory discards).
func cgroupLimit(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	return parseCgroupLimit(string(b))
}

func parseCgroupLimit(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if s == "max" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// ParseSize reads a byte count: a plain number, or one with a unit
// (KB, MB, GB, TB: powers of 1000; KiB, MiB, GiB, TiB: powers of 1024).
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   int64
	}{
		{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
		{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12}, {"b", 1},
	}
	mult := int64(1)
	lower := strings.ToLower(t)
	for _, u := range units {
		if strings.HasSuffix(lower, u.suffix) {
			mult, t = u.mult, strings.TrimSpace(t[:len(t)-len(u.suffix)])
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f < 0 || f*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("%q is not a size in bytes (e.g. 1073741824, 512MB, 4GB, 1GiB)", s)
	}
	return int64(f * float64(mult)), nil
}
