package cuda

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// RIGEL_DUMP_CUDA=DIR writes the source of every kernel module the
// device generates into DIR, as NVRTC compiles it (constants hoisted into
// rg_k): <kind>-<first 8 hex digits of its SHA-256>.cu, once per source,
// so that a person can read what a query ran. The golden files under
// testdata/golden hold the same for the sample pipelines.
var dumpDir = os.Getenv("RIGEL_DUMP_CUDA")

// dumpFailed says once, on stderr, that a dump could not be written; the
// query goes on.
var dumpFailed sync.Once

// dumpSource writes src, a generated module of the given kind, into
// dumpDir when it is set.
func dumpSource(kind, src string) {
	if dumpDir == "" {
		return
	}
	sum := sha256.Sum256([]byte(src))
	name := fmt.Sprintf("%s-%x.cu", strings.ReplaceAll(kind, " ", "-"), sum[:4])
	err := os.MkdirAll(dumpDir, 0o755)
	if err == nil {
		err = os.WriteFile(filepath.Join(dumpDir, name), []byte(src), 0o644)
	}
	if err != nil {
		dumpFailed.Do(func() {
			fmt.Fprintf(os.Stderr, "rigel: RIGEL_DUMP_CUDA: %v (kernels run; their sources are not written)\n", err)
		})
	}
}
