package cuda

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// cacheFiles lists the names in dir.
func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// age sets a file's modification time to ago before now.
func age(t *testing.T, path string, ago time.Duration) {
	t.Helper()
	at := time.Now().Add(-ago)
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

// Writes past the bound evict the least recently used CUBINs: a hit makes
// an old file recent again, and the file just written stays.
func TestKernelCacheEvictsLeastRecentlyUsed(t *testing.T) {
	c := &kernelCache{dir: t.TempDir(), max: 350}
	blob := bytes.Repeat([]byte{7}, 100)
	for i, k := range []string{"a", "b", "c"} {
		c.put(k, blob)
		age(t, c.path(k), time.Duration(10-i)*time.Hour) // a oldest, then b, c
	}
	if b, ok := c.get("a"); !ok || !bytes.Equal(b, blob) {
		t.Fatalf("get a: %v, %d bytes", ok, len(b))
	}
	c.put("d", blob) // 400 bytes: one must go, b (a was just read)
	if got, want := cacheFiles(t, c.dir), []string{"a.cubin", "c.cubin", "d.cubin"}; !slices.Equal(got, want) {
		t.Fatalf("after the write past the bound: %v, want %v", got, want)
	}
	if _, ok := c.get("b"); ok {
		t.Fatal("the evicted kernel is still found")
	}
}

// A CUBIN larger than the bound evicts everything else but is kept: the
// process that wrote it loads it next.
func TestKernelCacheKeepsTheFileJustWritten(t *testing.T) {
	c := &kernelCache{dir: t.TempDir(), max: 50}
	c.put("small", []byte("x"))
	age(t, c.path("small"), time.Hour)
	c.put("big", bytes.Repeat([]byte{1}, 200))
	if got, want := cacheFiles(t, c.dir), []string{"big.cubin"}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// Eviction counts and removes only the cache's own files: foreign files
// stay, a temporary file being written by another process stays, one left
// by a write that died goes first.
func TestKernelCacheTouchesOnlyItsOwnFiles(t *testing.T) {
	dir := t.TempDir()
	c := &kernelCache{dir: dir, max: 150}
	write := func(name string, n int, ago time.Duration) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, bytes.Repeat([]byte{1}, n), 0o644); err != nil {
			t.Fatal(err)
		}
		age(t, p, ago)
	}
	write("notes.txt", 1000, 48*time.Hour)
	write("tmp-inflight", 100, time.Second)
	write("tmp-dead", 100, 24*time.Hour)
	write("old.cubin", 100, time.Hour)
	c.put("new", bytes.Repeat([]byte{2}, 100))
	// tmp-dead (oldest) and old.cubin go; 100 bytes are left.
	if got, want := cacheFiles(t, dir), []string{"new.cubin", "notes.txt", "tmp-inflight"}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestKernelCacheMaxFromEnvironment(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		bad  bool
	}{
		{"", defaultKernelCacheMax, false},
		{"1048576", 1 << 20, false},
		{" 4096\n", 4096, false},
		{"0", 0, true},
		{"-5", 0, true},
		{"1GiB", 0, true},
	} {
		got, err := kernelCacheMax(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("%q: no error (got %d)", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: got %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	t.Setenv(kernelCacheMaxEnv, "lots")
	if _, err := openKernelCache(); err == nil {
		t.Fatalf("%s=lots opened the cache", kernelCacheMaxEnv)
	}
}
