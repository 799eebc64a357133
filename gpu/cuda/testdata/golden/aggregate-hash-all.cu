
#define W 84
extern "C" __global__ void __launch_bounds__(256) rg_agg_init(const Args A) {
  uint64_t *T = (uint64_t *)A.a[35]; const uint64_t ns = A.a[36]; uint32_t *ST = (uint32_t *)A.a[41];
  for (uint64_t s = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; s < ns; s += (uint64_t)gridDim.x * blockDim.x) {
    for (int w = 0; w < W; w++) T[s * W + w] = 0;
    if (ST) ST[s] = 0;
    T[s * W + 1] = 0x7fffffffffffffffull;
    T[s * W + 3] = 0x8000000000000000ull;
    T[s * W + 10] = 0x7fffffffffffffffull;
    T[s * W + 12] = 0x8000000000000000ull;
    T[s * W + 19] = 0x7fffffffffffffffull;
    T[s * W + 21] = 0x8000000000000000ull;
    T[s * W + 28] = 0x7fffffffffffffffull;
    T[s * W + 30] = 0x8000000000000000ull;
    T[s * W + 37] = ~0ull;
    T[s * W + 44] = ~0ull;
    T[s * W + 51] = 0x7fffffffffffffffull;
    T[s * W + 53] = 0x8000000000000000ull;
    T[s * W + 60] = 0x7fffffffffffffffull;
    T[s * W + 62] = 0x8000000000000000ull;
    T[s * W + 70] = ~0ull; T[s * W + 71] = 0x7fffffffffffffffull;
    T[s * W + 74] = 0; T[s * W + 75] = 0x8000000000000000ull;
  }
}

extern "C" __global__ void __launch_bounds__(256, 1) rg_agg(const Args A) {
  const long long n = (long long)A.a[0];
 
  uint64_t *T = (uint64_t *)A.a[35];
  uint64_t *K = (uint64_t *)A.a[37]; uint32_t *fill = (uint32_t *)A.a[38]; uint32_t *ST = (uint32_t *)A.a[41];
  unsigned long long *progress = (unsigned long long *)A.a[38] + 1;
  const uint64_t cap = A.a[39], maxFill = A.a[40];
  const int lane = threadIdx.x & 31;
  const unsigned FULL = 0xffffffffu;
  unsigned long long iters = 0, rowsIn = 0, runsIn = 0, innerRuns = 0, innerHits = 0;
  __shared__ unsigned blockFill;
  if (threadIdx.x == 0) blockFill = 0;
  __syncthreads();
  const unsigned fillStep = (unsigned)max(1ull, cap / 10 / gridDim.x);
  bool recheck = false;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i - lane < n; i += (long long)gridDim.x * blockDim.x) {
    if (recheck && __any_sync(FULL, ((volatile uint32_t *)fill)[0] >= maxFill)) break;
    recheck = false;
    iters++;
    bool row = false;
    uint64_t key[3] = {0};
    long long a0v = 0; bool a0n = true;
    long long a1v = 0; bool a1n = true;
    long long a2v = 0; bool a2n = true;
    bool a3n = true;
    long long a4v = 0; bool a4n = true;
    long long a5v = 0; bool a5n = true;
    long long a6v = 0; bool a6n = true;
    bool a7n = true;
    long long a8v = 0; bool a8n = true;
    long long a9v = 0; bool a9n = true;
    long long a10v = 0; bool a10n = true;
    bool a11n = true;
    long long a12v = 0; bool a12n = true;
    long long a13v = 0; bool a13n = true;
    long long a14v = 0; bool a14n = true;
    bool a15n = true;
    float a16v = 0; bool a16n = true;
    float a17v = 0; bool a17n = true;
    float a18v = 0; bool a18n = true;
    bool a19n = true;
    double a20v = 0; bool a20n = true;
    double a21v = 0; bool a21n = true;
    double a22v = 0; bool a22n = true;
    bool a23n = true;
    long long a24v = 0; bool a24n = true;
    long long a25v = 0; bool a25n = true;
    long long a26v = 0; bool a26n = true;
    bool a27n = true;
    long long a28v = 0; bool a28n = true;
    long long a29v = 0; bool a29n = true;
    long long a30v = 0; bool a30n = true;
    bool a31n = true;
    i128 a32v = 0; bool a32n = true;
    i128 a33v = 0; bool a33n = true;
    i128 a34v = 0; bool a34n = true;
    bool a35n = true;
    if (i < n) {
      const bool pass = true;
      if (pass) {
        row = true;
        const long long c1 = (long long)((const int8_t *)A.a[5])[i];
        const bool cn1 = A.a[6] != 0 && ((const uint8_t *)A.a[6])[i] == 0;
        (void)c1; (void)cn1;
        const long long c2 = (long long)((const int16_t *)A.a[8])[i];
        const bool cn2 = A.a[9] != 0 && ((const uint8_t *)A.a[9])[i] == 0;
        (void)c2; (void)cn2;
        const long long c3 = (long long)((const int32_t *)A.a[11])[i];
        const bool cn3 = A.a[12] != 0 && ((const uint8_t *)A.a[12])[i] == 0;
        (void)c3; (void)cn3;
        const long long c4 = (long long)((const int64_t *)A.a[14])[i];
        const bool cn4 = A.a[15] != 0 && ((const uint8_t *)A.a[15])[i] == 0;
        (void)c4; (void)cn4;
        const float c5 = (float)((const float *)A.a[17])[i];
        const bool cn5 = A.a[18] != 0 && ((const uint8_t *)A.a[18])[i] == 0;
        (void)c5; (void)cn5;
        const double c6 = (double)((const double *)A.a[20])[i];
        const bool cn6 = A.a[21] != 0 && ((const uint8_t *)A.a[21])[i] == 0;
        (void)c6; (void)cn6;
        const long long c7 = (long long)((const int32_t *)A.a[23])[i];
        const bool cn7 = A.a[24] != 0 && ((const uint8_t *)A.a[24])[i] == 0;
        (void)c7; (void)cn7;
        const long long c8 = (long long)((const int64_t *)A.a[26])[i];
        const bool cn8 = A.a[27] != 0 && ((const uint8_t *)A.a[27])[i] == 0;
        (void)c8; (void)cn8;
        const i128 c9 = (i128)((const i128 *)A.a[29])[i];
        const bool cn9 = A.a[30] != 0 && ((const uint8_t *)A.a[30])[i] == 0;
        (void)c9; (void)cn9;
        const long long c10 = (long long)((const int32_t *)A.a[32])[i];
        const bool cn10 = A.a[33] != 0 && ((const uint8_t *)A.a[33])[i] == 0;
        (void)c10; (void)cn10;
        if (cn7) key[2] |= 1ull << 0; else { key[0] = (uint64_t)(long long)c7; }
        if (cn10) key[2] |= 1ull << 1; else { key[1] = (uint64_t)(long long)c10; }
        a0n = cn1; if (!a0n) a0v = (long long)c1;
        a1n = cn1; if (!a1n) a1v = (long long)c1;
        a2n = cn1; if (!a2n) a2v = (long long)c1;
        a3n = cn1;
        a4n = cn2; if (!a4n) a4v = (long long)c2;
        a5n = cn2; if (!a5n) a5v = (long long)c2;
        a6n = cn2; if (!a6n) a6v = (long long)c2;
        a7n = cn2;
        a8n = cn3; if (!a8n) a8v = (long long)c3;
        a9n = cn3; if (!a9n) a9v = (long long)c3;
        a10n = cn3; if (!a10n) a10v = (long long)c3;
        a11n = cn3;
        a12n = cn4; if (!a12n) a12v = (long long)c4;
        a13n = cn4; if (!a13n) a13v = (long long)c4;
        a14n = cn4; if (!a14n) a14v = (long long)c4;
        a15n = cn4;
        a16n = cn5; if (!a16n) a16v = (float)c5;
        a17n = cn5; if (!a17n) a17v = (float)c5;
        a18n = cn5; if (!a18n) a18v = (float)c5;
        a19n = cn5;
        a20n = cn6; if (!a20n) a20v = (double)c6;
        a21n = cn6; if (!a21n) a21v = (double)c6;
        a22n = cn6; if (!a22n) a22v = (double)c6;
        a23n = cn6;
        a24n = cn7; if (!a24n) a24v = (long long)c7;
        a25n = cn7; if (!a25n) a25v = (long long)c7;
        a26n = cn7; if (!a26n) a26v = (long long)c7;
        a27n = cn7;
        a28n = cn8; if (!a28n) a28v = (long long)c8;
        a29n = cn8; if (!a29n) a29v = (long long)c8;
        a30n = cn8; if (!a30n) a30v = (long long)c8;
        a31n = cn8;
        a32n = cn9; if (!a32n) a32v = (i128)c9;
        a33n = cn9; if (!a33n) a33v = (i128)c9;
        a34n = cn9; if (!a34n) a34v = (i128)c9;
        a35n = cn9;
      }
    }
    bool head = !row || lane == 0;
    if (!__shfl_up_sync(FULL, (int)row, 1)) head = true;
    if (__shfl_up_sync(FULL, (unsigned long long)key[0], 1) != key[0]) head = true;
    if (__shfl_up_sync(FULL, (unsigned long long)key[1], 1) != key[1]) head = true;
    if (__shfl_up_sync(FULL, (unsigned long long)key[2], 1) != key[2]) head = true;
    if (__any_sync(FULL, row && !a34n && (i128)(long long)a34v != a34v)) head = true;
    const unsigned heads = __ballot_sync(FULL, head);
    const unsigned upto = lane == 31 ? FULL : ((2u << lane) - 1u);
    const int seg = 31 - __clz(heads & upto);
    const unsigned segMask = upto & ~((1u << seg) - 1u);
    const bool tail = row && (lane == 31 || ((heads >> (lane + 1)) & 1u));
    rowsIn += __popc(__ballot_sync(FULL, row)); runsIn += __popc(__ballot_sync(FULL, tail));
    const bool runs = heads != FULL;
    const unsigned a0c = __popc(__ballot_sync(FULL, row && !a0n) & segMask);
    long long a0s = a0n ? 9223372036854775807LL : (long long)a0v;
    if (runs) for (int d = 1; d < 32; d <<= 1) { const long long x = __shfl_up_sync(FULL, a0s, d); if (lane - d >= seg && x < a0s) a0s = x; }
    const unsigned a1c = __popc(__ballot_sync(FULL, row && !a1n) & segMask);
    long long a1s = a1n ? (-9223372036854775807LL - 1) : (long long)a1v;
    if (runs) for (int d = 1; d < 32; d <<= 1) { const long long x = __shfl_up_sync(FULL, a1s, d); if (lane - d >= seg && x > a1s) a1s = x; }
    const unsigned a2c = __popc(__ballot_sync(FULL, row && !a2n) & segMask);
    i128 a2s = a2n ? (i128)0 : (i128)a2v;
    if (runs) for (int d = 1; d < 32; d <<= 1) {
      const uint64_t lo = __shfl_up_sync(FULL, (unsigned long long)(uint64_t)a2s, d);
      const uint64_t hi = __shfl_up_sync(FULL, (unsigned long long)(uint64_t)((u128)a2s >> 64), d);
      if (lane - d >= seg) a2s = (i128)((u128)a2s + (((u128)hi << 64) | lo));
    }
    const unsigned a3c = __popc(__ballot_sync(FULL, row && !a3n) & segMask);
    const unsigned a4c = __popc(__ballot_sync(FULL, row && !a4n) & segMask);
    long long a4s = a4n ? 9223372036854775807LL : (long long)a4v;
    if (runs) for (int d = 1; d < 32; d <<= 1) { const long long x = __shfl_up_sync(FULL, a4s, d); if (lane - d >= seg && x < a4s) a4s = x; }
    const unsigned a5c = __popc(__ballot_sync(FULL, row && !a5n) & segMask);
    long long a5s = a5n ? (-9223372036854775807LL - 1) : (long long)a5v;
    if (runs) for (int d = 1; d < 32; d <<= 1) { const long long x = __shfl_up_sync(FULL, a5s, d); if (lane - d >= seg && x > a5s) a5s = x; }
    const unsigned a6c = __popc(__ballot_sync(FULL, row && !a6n) & segMask);
    i128 a6s = a6n ? (i128)0 : (i128)a6v;
    if (runs) for (int d = 1; d < 32; d <<= 1) {
      const uint64_t lo = __shfl_up_sync(FULL, (unsigned long long)(uint64_t)a6s, d);
      const uint64_t hi = __shfl_up_sync(FULL, (unsigned long long)(uint64_t)((u128)a6s >> 64), d);
      if (lane - d >= seg) a6s = (i128)((u128)a6s + (((u128)hi << 64) | lo));
    }
    const unsigned a7c = __popc(__ballot_sync(FULL, row && !a7n) & segMask);
    const unsigned a8c = __popc(__ballot_sync(FULL, row && !a8n) & segMask);
    long long a8s = a8n ? 9223372036854775807LL : (long long)a8v;
    if (runs) for (int d = 1; d < 32; d <<= 1) { const long long x = __shfl_up_sync(FULL, a8s, d); if (lane - d >= seg && x < a8s) a8s = x; }
    const unsigned a9c = __popc(__ballot_sync(FULL, row && !a9n) & segMask);
    long long a9s = a9n ? (-9223372036854775807LL - 1) : (long long)a9v;
    if (runs) for (int d = 1; d < 32; d <<= 1) { const long long x = __shfl_up_sync(FULL, a9s, d); if (lane - d >= seg && x > a9s) a9s = x; }
    const unsigned a10c = __popc(__ballot_sync(FULL, row && !a10n) & segMask);
    i128 a10s = a10n ? (i128)0 : (i128)a10v;
    if (runs) for (int d = 1; d < 32; d <<= 1) {
      const uint64_t lo = __shfl_up_sync(FULL, (unsigned long long)(uint64_t)a10s, d);
      const uint64_t hi = __shfl_up_sync(FULL, (unsigned long long)(uint64_t)((u128)a10s >> 64), d);
      if (lane - d >= seg) a10s = (i128)((u128)a10s + (((u128)hi << 64) | lo));
    }
    const unsigned a11c = __popc(__ballot_sync(FULL, row && !a11n) & segMask);
    const unsigned a12c = __popc(__ballot_sync(FULL, row && !a12n) & segMask);
    long long a12s = a12n ? 9223372036854775807LL : (long long)a12v;
    if (runs) for (int d = 1; d < 32; d <<= 1) { const long long x = __shfl_up_sync(FULL, a12s, d); if (lane - d >= seg && x < a12s) a12s = x; }
    const unsigned a13c = __popc(__ballot_sync(FULL, row && !a13n) & segMask);
    long long a13s = a13n ? (-9223372036854775807LL - 1) : (long long)a13v;
    if (runs) for (int d = 1; d < 32; d <<= 1) { const long long x = __shfl_up_sync(FULL, a13s, d); if (lane - d >= seg && x > a13s) a13s = x; }
    const unsigned a14c = __popc(__ballot_sync(FULL, row && !a14n) & segMask);
    i128 a14s = a14n ? (i128)0 : (i128)a14v;
    if (runs) for (int d = 1; d < 32; d <<= 1) {
      const uint64_t lo = __shfl_up_sync(FULL, (unsigned long long)(uint64_t)a14s, d);
      const uint64_t hi = __shfl_up_sync(FULL, (unsigned long long)(uint64_t)((u128)a14s >> 64), d);
      if (lane - d >= seg) a14s = (i128)((u128)a14s + (((u128)hi << 64) | lo));
    }
    const unsigned a15c = __popc(__ballot_sync(FULL, row && !a15n) & segMask);
    const unsigned a16c = __popc(__ballot_sync(FULL, row && !a16n) & segMask);
    unsigned long long a16s = a16n ? ~0ull : (unsigned long long)rg_f64_key((double)a16v);
    if (runs) for (int d = 1; d < 32; d <<= 1) { const unsigned long long x = __shfl_up_sync(FULL, a16s, d); if (lane - d >= seg && x < a16s) a16s = x; }
    const unsigned a17c = __popc(__ballot_sync(FULL, row && !a17n) & segMask);
    unsigned long long a17s = a17n ? 0ull : (unsigned long long)rg_f64_key((double)a17v);
    if (runs) for (int d = 1; d < 32; d <<= 1) { const unsigned long long x = __shfl_up_sync(FULL, a17s, d); if (lane - d >= seg && x > a17s) a17s = x; }
    const unsigned a18c = __popc(__ballot_sync(FULL, row && !a18n) & segMask);
    double a18s = a18n ? 0.0 : (double)a18v;
    if (runs) for (int d = 1; d < 32; d <<= 1) { const double x = __shfl_up_sync(FULL, a18s, d); if (lane - d >= seg) a18s += x; }
    const unsigned a19c = __popc(__ballot_sync(FULL, row && !a19n) & segMask);
    const unsigned a20c = __popc(__ballot_sync(FULL, row && !a20n) & segMask);
    unsigned long long a20s = a20n ? ~0ull : (unsigned long long)rg_f64_key((double)a20v);
    if (runs) for (int d = 1; d < 32; d <<= 1) { const unsigned long long x = __shfl_up_sync(FULL, a20s, d); if (lane - d >= seg && x < a20s) a20s = x; }
    const unsigned a21c = __popc(__ballot_sync(FULL, row && !a21n) & segMask);
    unsigned long long a21s = a21n ? 0ull : (unsigned long long)rg_f64_key((double)a21v);
    if (runs) for (int d = 1; d < 32; d <<= 1) { const unsigned long long x = __shfl_up_sync(FULL, a21s, d); if (lane - d >= seg && x > a21s) a21s = x; }
    const unsigned a22c = __popc(__ballot_sync(FULL, row && !a22n) & segMask);
    double a22s = a22n ? 0.0 : (double)a22v;
    if (runs) for (int d = 1; d < 32; d <<= 1) { const double x = __shfl_up_sync(FULL, a22s, d); if (lane - d >= seg) a22s += x; }
    const unsigned a23c = __popc(__ballot_sync(FULL, row && !a23n) & segMask);
    const unsigned a24c = __popc(__ballot_sync(FULL, row && !a24n) & segMask);
    long long a24s = a24n ? 9223372036854775807LL : (long long)a24v;
    if (runs) for (int d = 1; d < 32; d <<= 1) { const long long x = __shfl_up_sync(FULL, a24s, d); if (lane - d >= seg && x < a24s) a24s = x; }
    const unsigned a25c = __popc(__ballot_sync(FULL, row && !a25n) & segMask);
    long long a25s = a25n ? (-9223372036854775807LL - 1) : (long long)a25v;
    if (runs) for (int d = 1; d < 32; d <<= 1) { const long long x = __shfl_up_sync(FULL, a25s, d); if (lane - d >= seg && x > a25s) a25s = x; }
    const unsigned a26c = __popc(__ballot_sync(FULL, row && !a26n) & segMask);
    i128 a26s = a26n ? (i128)0 : (i128)a26v;
    if (runs) for (int d = 1; d < 32; d <<= 1) {
      const uint64_t lo = __shfl_up_sync(FULL, (unsigned long long)(uint64_t)a26s, d);
      const uint64_t hi = __shfl_up_sync(FULL, (unsigned long long)(uint64_t)((u128)a26s >> 64), d);
      if (lane - d >= seg) a26s = (i128)((u128)a26s + (((u128)hi << 64) | lo));
    }
    const unsigned a27c = __popc(__ballot_sync(FULL, row && !a27n) & segMask);
    const unsigned a28c = __popc(__ballot_sync(FULL, row && !a28n) & segMask);
    long long a28s = a28n ? 9223372036854775807LL : (long long)a28v;
    if (runs) for (int d = 1; d < 32; d <<= 1) { const long long x = __shfl_up_sync(FULL, a28s, d); if (lane - d >= seg && x < a28s) a28s = x; }
    const unsigned a29c = __popc(__ballot_sync(FULL, row && !a29n) & segMask);
    long long a29s = a29n ? (-9223372036854775807LL - 1) : (long long)a29v;
    if (runs) for (int d = 1; d < 32; d <<= 1) { const long long x = __shfl_up_sync(FULL, a29s, d); if (lane - d >= seg && x > a29s) a29s = x; }
    const unsigned a30c = __popc(__ballot_sync(FULL, row && !a30n) & segMask);
    i128 a30s = a30n ? (i128)0 : (i128)a30v;
    if (runs) for (int d = 1; d < 32; d <<= 1) {
      const uint64_t lo = __shfl_up_sync(FULL, (unsigned long long)(uint64_t)a30s, d);
      const uint64_t hi = __shfl_up_sync(FULL, (unsigned long long)(uint64_t)((u128)a30s >> 64), d);
      if (lane - d >= seg) a30s = (i128)((u128)a30s + (((u128)hi << 64) | lo));
    }
    const unsigned a31c = __popc(__ballot_sync(FULL, row && !a31n) & segMask);
    const unsigned a32c = __popc(__ballot_sync(FULL, row && !a32n) & segMask);
    i128 a32s = a32n ? I128(0x7fffffffffffffffull, ~0ull) : (i128)a32v;
    if (runs) for (int d = 1; d < 32; d <<= 1) {
      const uint64_t lo = __shfl_up_sync(FULL, (unsigned long long)(uint64_t)a32s, d);
      const uint64_t hi = __shfl_up_sync(FULL, (unsigned long long)(uint64_t)((u128)a32s >> 64), d);
      const i128 x = I128(hi, lo); if (lane - d >= seg && x < a32s) a32s = x;
    }
    const unsigned a33c = __popc(__ballot_sync(FULL, row && !a33n) & segMask);
    i128 a33s = a33n ? I128(0x8000000000000000ull, 0) : (i128)a33v;
    if (runs) for (int d = 1; d < 32; d <<= 1) {
      const uint64_t lo = __shfl_up_sync(FULL, (unsigned long long)(uint64_t)a33s, d);
      const uint64_t hi = __shfl_up_sync(FULL, (unsigned long long)(uint64_t)((u128)a33s >> 64), d);
      const i128 x = I128(hi, lo); if (lane - d >= seg && x > a33s) a33s = x;
    }
    const unsigned a34c = __popc(__ballot_sync(FULL, row && !a34n) & segMask);
    i128 a34s = a34n ? (i128)0 : (i128)a34v;
    if (runs) for (int d = 1; d < 32; d <<= 1) {
      const uint64_t lo = __shfl_up_sync(FULL, (unsigned long long)(uint64_t)a34s, d);
      const uint64_t hi = __shfl_up_sync(FULL, (unsigned long long)(uint64_t)((u128)a34s >> 64), d);
      if (lane - d >= seg) a34s = (i128)((u128)a34s + (((u128)hi << 64) | lo));
    }
    const unsigned a35c = __popc(__ballot_sync(FULL, row && !a35n) & segMask);
    bool inserted = false;
    if (tail) {
      uint64_t h = 0x243F6A8885A308D3ull;
      h = (h ^ key[0]) * 0x9E3779B97F4A7C15ull; h ^= h >> 31;
      h = (h ^ key[1]) * 0x9E3779B97F4A7C15ull; h ^= h >> 31;
      h = (h ^ key[2]) * 0x9E3779B97F4A7C15ull; h ^= h >> 31;
      h ^= h >> 29; h *= 0xBF58476D1CE4E5B9ull; h ^= h >> 32; h &= cap - 1;
      uint64_t slot = ~0ull, probes = 0;
      for (;;) {
        uint32_t st = rg_ld_acquire(&ST[h]);
        if (st == 0) {
          if (atomicCAS(&ST[h], 0u, 1u) == 0u) {
            K[h * 3 + 0] = key[0];
            K[h * 3 + 1] = key[1];
            K[h * 3 + 2] = key[2];
            rg_st_release(&ST[h], 2u);
            if ((atomicAdd(&blockFill, 1u) + 1u) % fillStep == 0u && atomicAdd(fill, fillStep) + fillStep > maxFill) rg_raise(status, RG_TABLE_FULL);
            inserted = true; slot = h; break;
          }
          st = rg_ld_acquire(&ST[h]);
        }
        while (st == 1) st = rg_ld_acquire(&ST[h]);
        if (((volatile uint64_t *)K)[h * 3 + 0] == key[0] && ((volatile uint64_t *)K)[h * 3 + 1] == key[1] && ((volatile uint64_t *)K)[h * 3 + 2] == key[2]) { slot = h; break; }
        h = (h + 1) & (cap - 1);
        if ((++probes & 31) == 0 && ((volatile uint32_t *)fill)[0] >= maxFill) { rg_raise(status, RG_TABLE_FULL); break; }
        if (probes >= cap) { rg_raise(status, RG_TABLE_FULL); break; }
      }
      if (slot != ~0ull) {
        uint64_t *R = T + slot * W;
        atomicAdd((unsigned long long *)&R[0], (unsigned long long)(lane - seg + 1));
        if (a0c) {
          atomicAdd((unsigned long long *)&R[2], (unsigned long long)a0c);
          atomicMin((long long *)&R[1], a0s);
        }
        if (a1c) {
          atomicAdd((unsigned long long *)&R[4], (unsigned long long)a1c);
          atomicMax((long long *)&R[3], a1s);
        }
        if (a2c) {
          atomicAdd((unsigned long long *)&R[8], (unsigned long long)a2c);
          rg_atomic_add192(&R[5], a2s);
        }
        if (a3c) {
          atomicAdd((unsigned long long *)&R[9], (unsigned long long)a3c);
        }
        if (a4c) {
          atomicAdd((unsigned long long *)&R[11], (unsigned long long)a4c);
          atomicMin((long long *)&R[10], a4s);
        }
        if (a5c) {
          atomicAdd((unsigned long long *)&R[13], (unsigned long long)a5c);
          atomicMax((long long *)&R[12], a5s);
        }
        if (a6c) {
          atomicAdd((unsigned long long *)&R[17], (unsigned long long)a6c);
          rg_atomic_add192(&R[14], a6s);
        }
        if (a7c) {
          atomicAdd((unsigned long long *)&R[18], (unsigned long long)a7c);
        }
        if (a8c) {
          atomicAdd((unsigned long long *)&R[20], (unsigned long long)a8c);
          atomicMin((long long *)&R[19], a8s);
        }
        if (a9c) {
          atomicAdd((unsigned long long *)&R[22], (unsigned long long)a9c);
          atomicMax((long long *)&R[21], a9s);
        }
        if (a10c) {
          atomicAdd((unsigned long long *)&R[26], (unsigned long long)a10c);
          rg_atomic_add192(&R[23], a10s);
        }
        if (a11c) {
          atomicAdd((unsigned long long *)&R[27], (unsigned long long)a11c);
        }
        if (a12c) {
          atomicAdd((unsigned long long *)&R[29], (unsigned long long)a12c);
          atomicMin((long long *)&R[28], a12s);
        }
        if (a13c) {
          atomicAdd((unsigned long long *)&R[31], (unsigned long long)a13c);
          atomicMax((long long *)&R[30], a13s);
        }
        if (a14c) {
          atomicAdd((unsigned long long *)&R[35], (unsigned long long)a14c);
          rg_atomic_add192(&R[32], a14s);
        }
        if (a15c) {
          atomicAdd((unsigned long long *)&R[36], (unsigned long long)a15c);
        }
        if (a16c) {
          atomicAdd((unsigned long long *)&R[38], (unsigned long long)a16c);
          atomicMin((unsigned long long *)&R[37], a16s);
        }
        if (a17c) {
          atomicAdd((unsigned long long *)&R[40], (unsigned long long)a17c);
          atomicMax((unsigned long long *)&R[39], a17s);
        }
        if (a18c) {
          atomicAdd((unsigned long long *)&R[42], (unsigned long long)a18c);
          atomicAdd((double *)&R[41], a18s);
        }
        if (a19c) {
          atomicAdd((unsigned long long *)&R[43], (unsigned long long)a19c);
        }
        if (a20c) {
          atomicAdd((unsigned long long *)&R[45], (unsigned long long)a20c);
          atomicMin((unsigned long long *)&R[44], a20s);
        }
        if (a21c) {
          atomicAdd((unsigned long long *)&R[47], (unsigned long long)a21c);
          atomicMax((unsigned long long *)&R[46], a21s);
        }
        if (a22c) {
          atomicAdd((unsigned long long *)&R[49], (unsigned long long)a22c);
          atomicAdd((double *)&R[48], a22s);
        }
        if (a23c) {
          atomicAdd((unsigned long long *)&R[50], (unsigned long long)a23c);
        }
        if (a24c) {
          atomicAdd((unsigned long long *)&R[52], (unsigned long long)a24c);
          atomicMin((long long *)&R[51], a24s);
        }
        if (a25c) {
          atomicAdd((unsigned long long *)&R[54], (unsigned long long)a25c);
          atomicMax((long long *)&R[53], a25s);
        }
        if (a26c) {
          atomicAdd((unsigned long long *)&R[58], (unsigned long long)a26c);
          rg_atomic_add192(&R[55], a26s);
        }
        if (a27c) {
          atomicAdd((unsigned long long *)&R[59], (unsigned long long)a27c);
        }
        if (a28c) {
          atomicAdd((unsigned long long *)&R[61], (unsigned long long)a28c);
          atomicMin((long long *)&R[60], a28s);
        }
        if (a29c) {
          atomicAdd((unsigned long long *)&R[63], (unsigned long long)a29c);
          atomicMax((long long *)&R[62], a29s);
        }
        if (a30c) {
          atomicAdd((unsigned long long *)&R[67], (unsigned long long)a30c);
          rg_atomic_add192(&R[64], a30s);
        }
        if (a31c) {
          atomicAdd((unsigned long long *)&R[68], (unsigned long long)a31c);
        }
        if (a32c) {
          atomicAdd((unsigned long long *)&R[73], (unsigned long long)a32c);
          rg_atomic_minmax128(&R[70], a32s, false);
        }
        if (a33c) {
          atomicAdd((unsigned long long *)&R[77], (unsigned long long)a33c);
          rg_atomic_minmax128(&R[74], a33s, true);
        }
        if (a34c) {
          atomicAdd((unsigned long long *)&R[81], (unsigned long long)a34c);
          rg_atomic_add192(&R[78], a34s);
        }
        if (a35c) {
          atomicAdd((unsigned long long *)&R[82], (unsigned long long)a35c);
        }
      }
    }
    innerRuns += __popc(__ballot_sync(FULL, tail && seg > 0)); innerHits += __popc(__ballot_sync(FULL, tail && seg > 0 && !inserted));
    recheck = __any_sync(FULL, inserted);
  }
  if (lane == 0 && iters) { atomicAdd(&progress[0], iters * 32ull); atomicAdd(&progress[1], rowsIn); atomicAdd(&progress[2], runsIn); atomicAdd(&progress[3], innerRuns); atomicAdd(&progress[4], innerHits); }
}

extern "C" __global__ void __launch_bounds__(256) rg_agg_used(const Args A) {
  const unsigned long long ns = A.a[0];
  const uint64_t *T = (const uint64_t *)A.a[2];
  const long long ntiles = (long long)A.a[5];
  __shared__ uint32_t wcnt[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {
    uint32_t c = 0;
    for (int k = 0; k < 4; k++) {
      const unsigned long long s = t * 1024 + k * 256 + threadIdx.x;
      c += (s < ns && T[s * 84] > 0);
    }
    c = (uint32_t)rg_warp_sum64(c);
    if (lane == 0) wcnt[warp] = c;
    __syncthreads();
    if (threadIdx.x == 0) { uint32_t s = 0; for (int w = 0; w < 8; w++) s += wcnt[w]; ((uint32_t *)A.a[4])[t] = s; }
    __syncthreads();
  }
}

extern "C" __global__ void __launch_bounds__(256) rg_agg_emit(const Args A) {
  const unsigned long long ns = A.a[0];
  const uint64_t *T = (const uint64_t *)A.a[2];
  const long long ntiles = (long long)A.a[5];
  __shared__ uint32_t wcnt[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {
  const uint64_t *K = (const uint64_t *)A.a[3];
    unsigned long long base = ((const unsigned long long *)A.a[4])[t];
    for (int k = 0; k < 4; k++) {
      const unsigned long long s = t * 1024 + k * 256 + threadIdx.x;
      const bool ok = (s < ns && T[s * 84] > 0);
      const unsigned m = __ballot_sync(0xffffffffu, ok);
      if (lane == 0) wcnt[warp] = __popc(m);
      __syncthreads();
      unsigned before = 0, total = 0;
      for (int w = 0; w < 8; w++) { if (w < warp) before += wcnt[w]; total += wcnt[w]; }
      if (ok) {
        const unsigned long long r = base + before + __popc(m & ((1u << lane) - 1u));
        const uint64_t *R = T + s * 84;
        const uint64_t *KS = K + s * 3;
        {
          const bool nl = ((KS[2] >> 0) & 1ull);
          ((uint8_t *)A.a[7])[r] = nl ? 0 : 1;
          ((uint32_t *)A.a[6])[r] = nl ? (uint32_t)0 : (uint32_t)(KS[0]);
        }
        {
          const bool nl = ((KS[2] >> 1) & 1ull);
          ((uint8_t *)A.a[9])[r] = nl ? 0 : 1;
          ((uint32_t *)A.a[8])[r] = nl ? (uint32_t)0 : (uint32_t)(KS[1]);
        }
        {
          const bool nl = (R[2] == 0);
          ((uint8_t *)A.a[11])[r] = nl ? 0 : 1;
          ((uint8_t *)A.a[10])[r] = nl ? (uint8_t)0 : (uint8_t)(R[1]);
        }
        {
          const bool nl = (R[4] == 0);
          ((uint8_t *)A.a[13])[r] = nl ? 0 : 1;
          ((uint8_t *)A.a[12])[r] = nl ? (uint8_t)0 : (uint8_t)(R[3]);
        }
        if (!(R[8] == 0) && R[7] != (uint64_t)((long long)R[6] >> 63)) rg_raise(status, RG_OVERFLOW);
        {
          const bool nl = (R[8] == 0);
          ((uint8_t *)A.a[15])[r] = nl ? 0 : 1;
          ((i128 *)A.a[14])[r] = nl ? (i128)0 : (i128)(I128(R[6], R[5]));
        }
        {
          const bool nl = false;
          if (nl) rg_raise(status, RG_NULL_NOT_NULLABLE);
          ((uint64_t *)A.a[16])[r] = nl ? (uint64_t)0 : (uint64_t)(R[9]);
        }
        {
          const bool nl = (R[11] == 0);
          ((uint8_t *)A.a[19])[r] = nl ? 0 : 1;
          ((uint16_t *)A.a[18])[r] = nl ? (uint16_t)0 : (uint16_t)(R[10]);
        }
        {
          const bool nl = (R[13] == 0);
          ((uint8_t *)A.a[21])[r] = nl ? 0 : 1;
          ((uint16_t *)A.a[20])[r] = nl ? (uint16_t)0 : (uint16_t)(R[12]);
        }
        if (!(R[17] == 0) && R[16] != (uint64_t)((long long)R[15] >> 63)) rg_raise(status, RG_OVERFLOW);
        {
          const bool nl = (R[17] == 0);
          ((uint8_t *)A.a[23])[r] = nl ? 0 : 1;
          ((i128 *)A.a[22])[r] = nl ? (i128)0 : (i128)(I128(R[15], R[14]));
        }
        {
          const bool nl = false;
          if (nl) rg_raise(status, RG_NULL_NOT_NULLABLE);
          ((uint64_t *)A.a[24])[r] = nl ? (uint64_t)0 : (uint64_t)(R[18]);
        }
        {
          const bool nl = (R[20] == 0);
          ((uint8_t *)A.a[27])[r] = nl ? 0 : 1;
          ((uint32_t *)A.a[26])[r] = nl ? (uint32_t)0 : (uint32_t)(R[19]);
        }
        {
          const bool nl = (R[22] == 0);
          ((uint8_t *)A.a[29])[r] = nl ? 0 : 1;
          ((uint32_t *)A.a[28])[r] = nl ? (uint32_t)0 : (uint32_t)(R[21]);
        }
        if (!(R[26] == 0) && R[25] != (uint64_t)((long long)R[24] >> 63)) rg_raise(status, RG_OVERFLOW);
        {
          const bool nl = (R[26] == 0);
          ((uint8_t *)A.a[31])[r] = nl ? 0 : 1;
          ((i128 *)A.a[30])[r] = nl ? (i128)0 : (i128)(I128(R[24], R[23]));
        }
        {
          const bool nl = false;
          if (nl) rg_raise(status, RG_NULL_NOT_NULLABLE);
          ((uint64_t *)A.a[32])[r] = nl ? (uint64_t)0 : (uint64_t)(R[27]);
        }
        {
          const bool nl = (R[29] == 0);
          ((uint8_t *)A.a[35])[r] = nl ? 0 : 1;
          ((uint64_t *)A.a[34])[r] = nl ? (uint64_t)0 : (uint64_t)(R[28]);
        }
        {
          const bool nl = (R[31] == 0);
          ((uint8_t *)A.a[37])[r] = nl ? 0 : 1;
          ((uint64_t *)A.a[36])[r] = nl ? (uint64_t)0 : (uint64_t)(R[30]);
        }
        if (!(R[35] == 0) && R[34] != (uint64_t)((long long)R[33] >> 63)) rg_raise(status, RG_OVERFLOW);
        {
          const bool nl = (R[35] == 0);
          ((uint8_t *)A.a[39])[r] = nl ? 0 : 1;
          ((i128 *)A.a[38])[r] = nl ? (i128)0 : (i128)(I128(R[33], R[32]));
        }
        {
          const bool nl = false;
          if (nl) rg_raise(status, RG_NULL_NOT_NULLABLE);
          ((uint64_t *)A.a[40])[r] = nl ? (uint64_t)0 : (uint64_t)(R[36]);
        }
        const uint64_t fk18 = R[37];
        {
          const bool nl = (R[38] == 0);
          ((uint8_t *)A.a[43])[r] = nl ? 0 : 1;
          ((uint32_t *)A.a[42])[r] = nl ? (uint32_t)0 : (uint32_t)((uint64_t)(uint32_t)__float_as_int((float)__longlong_as_double((long long)((fk18 >> 63) ? (fk18 & ~(1ull << 63)) : ~fk18))));
        }
        const uint64_t fk19 = R[39];
        {
          const bool nl = (R[40] == 0);
          ((uint8_t *)A.a[45])[r] = nl ? 0 : 1;
          ((uint32_t *)A.a[44])[r] = nl ? (uint32_t)0 : (uint32_t)((uint64_t)(uint32_t)__float_as_int((float)__longlong_as_double((long long)((fk19 >> 63) ? (fk19 & ~(1ull << 63)) : ~fk19))));
        }
        {
          const bool nl = (R[42] == 0);
          ((uint8_t *)A.a[47])[r] = nl ? 0 : 1;
          ((uint64_t *)A.a[46])[r] = nl ? (uint64_t)0 : (uint64_t)(R[41]);
        }
        {
          const bool nl = false;
          if (nl) rg_raise(status, RG_NULL_NOT_NULLABLE);
          ((uint64_t *)A.a[48])[r] = nl ? (uint64_t)0 : (uint64_t)(R[43]);
        }
        const uint64_t fk22 = R[44];
        {
          const bool nl = (R[45] == 0);
          ((uint8_t *)A.a[51])[r] = nl ? 0 : 1;
          ((uint64_t *)A.a[50])[r] = nl ? (uint64_t)0 : (uint64_t)(((fk22 >> 63) ? (fk22 & ~(1ull << 63)) : ~fk22));
        }
        const uint64_t fk23 = R[46];
        {
          const bool nl = (R[47] == 0);
          ((uint8_t *)A.a[53])[r] = nl ? 0 : 1;
          ((uint64_t *)A.a[52])[r] = nl ? (uint64_t)0 : (uint64_t)(((fk23 >> 63) ? (fk23 & ~(1ull << 63)) : ~fk23));
        }
        {
          const bool nl = (R[49] == 0);
          ((uint8_t *)A.a[55])[r] = nl ? 0 : 1;
          ((uint64_t *)A.a[54])[r] = nl ? (uint64_t)0 : (uint64_t)(R[48]);
        }
        {
          const bool nl = false;
          if (nl) rg_raise(status, RG_NULL_NOT_NULLABLE);
          ((uint64_t *)A.a[56])[r] = nl ? (uint64_t)0 : (uint64_t)(R[50]);
        }
        {
          const bool nl = (R[52] == 0);
          ((uint8_t *)A.a[59])[r] = nl ? 0 : 1;
          ((uint32_t *)A.a[58])[r] = nl ? (uint32_t)0 : (uint32_t)(R[51]);
        }
        {
          const bool nl = (R[54] == 0);
          ((uint8_t *)A.a[61])[r] = nl ? 0 : 1;
          ((uint32_t *)A.a[60])[r] = nl ? (uint32_t)0 : (uint32_t)(R[53]);
        }
        if (!(R[58] == 0) && R[57] != (uint64_t)((long long)R[56] >> 63)) rg_raise(status, RG_OVERFLOW);
        {
          const bool nl = (R[58] == 0);
          ((uint8_t *)A.a[63])[r] = nl ? 0 : 1;
          ((i128 *)A.a[62])[r] = nl ? (i128)0 : (i128)(I128(R[56], R[55]));
        }
        {
          const bool nl = false;
          if (nl) rg_raise(status, RG_NULL_NOT_NULLABLE);
          ((uint64_t *)A.a[64])[r] = nl ? (uint64_t)0 : (uint64_t)(R[59]);
        }
        {
          const bool nl = (R[61] == 0);
          ((uint8_t *)A.a[67])[r] = nl ? 0 : 1;
          ((uint64_t *)A.a[66])[r] = nl ? (uint64_t)0 : (uint64_t)(R[60]);
        }
        {
          const bool nl = (R[63] == 0);
          ((uint8_t *)A.a[69])[r] = nl ? 0 : 1;
          ((uint64_t *)A.a[68])[r] = nl ? (uint64_t)0 : (uint64_t)(R[62]);
        }
        if (!(R[67] == 0) && R[66] != (uint64_t)((long long)R[65] >> 63)) rg_raise(status, RG_OVERFLOW);
        {
          const bool nl = (R[67] == 0);
          ((uint8_t *)A.a[71])[r] = nl ? 0 : 1;
          ((i128 *)A.a[70])[r] = nl ? (i128)0 : (i128)(I128(R[65], R[64]));
        }
        {
          const bool nl = false;
          if (nl) rg_raise(status, RG_NULL_NOT_NULLABLE);
          ((uint64_t *)A.a[72])[r] = nl ? (uint64_t)0 : (uint64_t)(R[68]);
        }
        {
          const bool nl = (R[73] == 0);
          ((uint8_t *)A.a[75])[r] = nl ? 0 : 1;
          ((i128 *)A.a[74])[r] = nl ? (i128)0 : (i128)(I128(R[71], R[70]));
        }
        {
          const bool nl = (R[77] == 0);
          ((uint8_t *)A.a[77])[r] = nl ? 0 : 1;
          ((i128 *)A.a[76])[r] = nl ? (i128)0 : (i128)(I128(R[75], R[74]));
        }
        if (!(R[81] == 0) && R[80] != (uint64_t)((long long)R[79] >> 63)) rg_raise(status, RG_OVERFLOW);
        {
          const bool nl = (R[81] == 0);
          ((uint8_t *)A.a[79])[r] = nl ? 0 : 1;
          ((i128 *)A.a[78])[r] = nl ? (i128)0 : (i128)(I128(R[79], R[78]));
        }
        {
          const bool nl = false;
          if (nl) rg_raise(status, RG_NULL_NOT_NULLABLE);
          ((uint64_t *)A.a[80])[r] = nl ? (uint64_t)0 : (uint64_t)(R[82]);
        }
        {
          const bool nl = false;
          if (nl) rg_raise(status, RG_NULL_NOT_NULLABLE);
          ((uint64_t *)A.a[82])[r] = nl ? (uint64_t)0 : (uint64_t)(R[0]);
        }
      }
      base += total;
      __syncthreads();
    }
  }
}
