package cuda

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rigel-db/rigel/internal/lrufiles"
)

// The on-disk kernel cache: one CUBIN per kernel source (named by
// cacheKey), shared by every process of the user. Generated kernels are
// keyed by their shape, so a long-lived server or a user's many ad-hoc
// queries keep adding files: the cache is bounded in bytes and evicts the
// least recently used first. A hit refreshes its file's modification time
// (one system call, no folder scan); only a write, which follows an NVRTC
// compile of milliseconds, lists the folder and evicts until the cache fits
// again, never the file it just wrote.

const (
	// kernelCacheMaxEnv bounds the cache in bytes (a positive integer).
	kernelCacheMaxEnv = "RIGEL_KERNEL_CACHE_MAX_BYTES"
	// defaultKernelCacheMax: a CUBIN is 10 to 200 KB, so thousands of
	// kernels fit.
	defaultKernelCacheMax = 1 << 30
	// staleTemp is the age past which a temporary file is a write that
	// died (a write takes milliseconds); younger ones may be in progress
	// in another process and are left alone.
	staleTemp = 10 * time.Minute
)

// kernelCache is the cache folder and its bound.
type kernelCache struct {
	dir string
	max int64
}

// openKernelCache reads the folder (RIGEL_KERNEL_CACHE, else the user cache
// folder) and the bound (RIGEL_KERNEL_CACHE_MAX_BYTES, else 1 GiB) from the
// environment.
func openKernelCache() (*kernelCache, error) {
	limit, err := kernelCacheMax(os.Getenv(kernelCacheMaxEnv))
	if err != nil {
		return nil, err
	}
	return &kernelCache{dir: kernelCacheDir(), max: limit}, nil
}

// kernelCacheMax parses the bound; empty means the default.
func kernelCacheMax(s string) (int64, error) {
	if s == "" {
		return defaultKernelCacheMax, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive number of bytes (unset: %d, 1 GiB)", kernelCacheMaxEnv, s, int64(defaultKernelCacheMax))
	}
	return n, nil
}

func (c *kernelCache) path(key string) string { return filepath.Join(c.dir, key+".cubin") }

// get returns the cached CUBIN of key and marks it used now.
func (c *kernelCache) get(key string) ([]byte, bool) {
	p := c.path(key)
	b, err := os.ReadFile(p)
	if err != nil || len(b) == 0 {
		return nil, false
	}
	now := time.Now()
	os.Chtimes(p, now, now) // a read-only cache only loses its order
	return b, true
}

// put stores the CUBIN of key, then evicts what no longer fits. A cache
// that cannot be written only costs a recompile next time: it writes to a
// temporary name and renames, so that readers never see half a file.
func (c *kernelCache) put(key string, cubin []byte) {
	if os.MkdirAll(c.dir, 0o755) != nil {
		return
	}
	f, err := os.CreateTemp(c.dir, "tmp-*")
	if err != nil {
		return
	}
	_, werr := f.Write(cubin)
	cerr := f.Close()
	if werr != nil || cerr != nil || os.Rename(f.Name(), c.path(key)) != nil {
		os.Remove(f.Name())
		return
	}
	c.evict(key + ".cubin")
}

// evict removes the least recently used files of the cache (by
// modification time, stale temporary files included) until it holds at
// most c.max bytes, sparing keep. Files the cache did not name are never
// counted or touched.
func (c *kernelCache) evict(keep string) {
	_, _ = lrufiles.Trim(c.dir, c.max, func(name string, info fs.FileInfo) bool {
		if strings.HasPrefix(name, "tmp-") {
			return time.Since(info.ModTime()) >= staleTemp // another process's write may be under way
		}
		return strings.HasSuffix(name, ".cubin")
	}, keep)
}
