package cuda

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrebuiltModulesAreCurrent checks that the built-in CUBINs of the
// hand-written modules were compiled from their sources as they are
// (prebuilt.go); with RIGEL_WRITE_PREBUILT=1 (make prebuilt) it compiles
// and writes them.
func TestPrebuiltModulesAreCurrent(t *testing.T) {
	dir := filepath.Join("kernels", "prebuilt")
	if os.Getenv("RIGEL_WRITE_PREBUILT") == "1" {
		skipNoNVRTC(t)
		old, _ := filepath.Glob(filepath.Join(dir, "*.cubin"))
		for _, f := range old {
			os.Remove(f)
		}
		var sums strings.Builder
		for _, f := range prebuiltFiles() {
			for _, arch := range prebuiltArches {
				cubin, log, err := nvrtcCompile(f.src, f.name, arch, levelFull)
				if err != nil {
					t.Fatalf("%s for %s: %v\n%s", f.name, arch, err, log)
				}
				if err := os.WriteFile(filepath.Join(dir, prebuiltName(f, arch)), cubin, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			fmt.Fprintf(&sums, "%s %s\n", f.name, sourceSum(f.src))
		}
		if err := os.WriteFile(filepath.Join(dir, "SUMS"), []byte(sums.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return // this binary embeds the files as they were: check them in the next run
	}
	for _, f := range prebuiltFiles() {
		for _, arch := range prebuiltArches {
			if _, ok := prebuiltCubin(f, arch); !ok {
				t.Fatalf("the built-in %s for %s is missing or was compiled from another source than it has now: run make prebuilt", f.name, arch)
			}
		}
		if _, ok := prebuiltCubin(f, "sm_86"); !ok {
			t.Errorf("%s: an sm_86 GPU should take the sm_80 CUBIN", f.name)
		}
		if _, ok := prebuiltCubin(f, "sm_100"); ok {
			t.Errorf("%s: an sm_100 GPU has no built-in CUBIN; it compiles the source", f.name)
		}
	}
}
