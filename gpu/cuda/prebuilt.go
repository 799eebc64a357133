package cuda

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"
)

// The hand-written modules (kernelfiles.go: the utility, join and sort
// kernels, and the interpreter of program.go) are built into the binary
// for the GPUs most machines have, so that no query, not even a process's
// first, waits for NVRTC to compile them (the interpreter alone takes 3 s
// on the build machine, more than a TPC-H query's whole first run).
// kernels/prebuilt/SUMS holds the SHA-256 of the source each module's
// CUBINs were compiled from: a binary whose source has changed since
// compiles that module at Open instead, and TestPrebuiltModulesAreCurrent
// fails until they are written again:
//
//	make prebuilt
//
// A CUBIN of sm_XY runs on every GPU of compute capability X.Z with Z >= Y.

//go:embed kernels/prebuilt
var prebuiltFS embed.FS

// prebuiltArches are the architectures whose CUBINs are built in.
var prebuiltArches = []string{"sm_80", "sm_90"}

// prebuiltFiles are the modules built in.
func prebuiltFiles() []kernelFile {
	return append([]kernelFile{utilFile, windowFile}, backgroundFiles...)
}

// sourceSum is the hex SHA-256 of a module's source.
func sourceSum(src string) string {
	s := sha256.Sum256([]byte(src))
	return hex.EncodeToString(s[:])
}

// prebuiltSums is SUMS, read once: "file sum" lines.
var prebuiltSums = sync.OnceValue(func() map[string]string {
	b, err := prebuiltFS.ReadFile("kernels/prebuilt/SUMS")
	if err != nil {
		return nil
	}
	sums := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 2 {
			sums[f[0]] = f[1]
		}
	}
	return sums
})

// prebuiltCubin returns the built-in CUBIN of module f that runs on arch
// (sm_XY), when there is one and it was compiled from f's source as it is.
func prebuiltCubin(f kernelFile, arch string) ([]byte, bool) {
	if prebuiltSums()[f.name] != sourceSum(f.src) {
		return nil, false
	}
	major, minor, ok := archVersion(arch)
	if !ok {
		return nil, false
	}
	best := ""
	for _, a := range prebuiltArches {
		ma, mi, _ := archVersion(a)
		if ma == major && mi <= minor && a > best {
			best = a
		}
	}
	if best == "" {
		return nil, false
	}
	b, err := prebuiltFS.ReadFile("kernels/prebuilt/" + prebuiltName(f, best))
	return b, err == nil && len(b) > 0
}

// prebuiltName is the file of module f's CUBIN for arch.
func prebuiltName(f kernelFile, arch string) string {
	return strings.TrimSuffix(f.name, ".cu") + "-" + arch + ".cubin"
}

// withoutPrebuilt is files less those built in for arch: what Open
// compiles in the background (moduleFor loads the others when first
// needed).
func withoutPrebuilt(files []kernelFile, arch string) []kernelFile {
	var out []kernelFile
	for _, f := range files {
		if _, ok := prebuiltCubin(f, arch); !ok {
			out = append(out, f)
		}
	}
	return out
}

// archVersion parses "sm_90" as 9, 0.
func archVersion(arch string) (major, minor int, ok bool) {
	v, found := strings.CutPrefix(arch, "sm_")
	if !found || len(v) < 2 {
		return 0, 0, false
	}
	n, err := strconv.Atoi(v[:len(v)-1])
	m, err2 := strconv.Atoi(v[len(v)-1:])
	if err != nil || err2 != nil {
		return 0, 0, false
	}
	return n, m, true
}
