package cuda

import "testing"

// TestNVRTCCompilesJoinKernels compiles kernels/join.cu for sm_90 without a
// GPU, warnings included (compileClean fails on any).
func TestNVRTCCompilesJoinKernels(t *testing.T) {
	skipNoNVRTC(t)
	compileClean(t, "rigel_join.cu", preludeSrc+joinFindSrc+joinSrc)
}
