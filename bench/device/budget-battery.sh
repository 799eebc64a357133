#!/usr/bin/env bash
# The device battery (cuda.test, the spill and restore test among it), then the conformance tests of chunked
# plans on the GPU: the leak check over streamed TPC-H (RIGEL_LEAK_QUERIES, default 66) and TPC-H SF0.1
# resident and loaded in segments, each answer DuckDB's.
cd "$(dirname "$0")"
for f in *.xz; do xz -d -f -T0 "$f"; done
chmod +x rigel tpchgen-cli cuda.test conformance.test
# From the package's folder: the golden sources are read from testdata/ there.
(cd ../gpu/cuda && "$OLDPWD/cuda.test" -test.count=1 -test.v -test.run "${BATTERY:-.}") > "$OUT/battery.log" 2>&1; echo "battery rc=$? $(tail -1 "$OUT/battery.log") at $SECONDS s"
grep -E "^\s*--- FAIL" "$OUT/battery.log" | head -20
grep -E "^--- .*TestSpillRestore|^--- .*TestGeneratedSources" "$OUT/battery.log" | head -3
data=$PWD/../.device-data; mkdir -p "$data"
export RIGEL_TPCHGEN=$PWD/tpchgen-cli RIGEL_DATA_DIR=$data RIGEL_LEAK_QUERIES=${RIGEL_LEAK_QUERIES:-66}
./conformance.test -test.count=1 -test.v -test.run "${CONFORMANCE:-TestCudaNoLeakStreamed|TestTPCHCuda\$|TestTPCHCudaInSegments}" > "$OUT/conformance.log" 2>&1
echo "conformance rc=$? at $SECONDS s"
grep -E "^(--- |ok|FAIL|PASS)|live on the device" "$OUT/conformance.log" | head -20
