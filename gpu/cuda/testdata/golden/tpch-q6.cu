__constant__ unsigned long long rg_k[5];

#define W 4
extern "C" __global__ void __launch_bounds__(256) rg_agg_init(const Args A) {
  uint64_t *T = (uint64_t *)A.a[14]; const uint64_t ns = A.a[15]; uint32_t *ST = (uint32_t *)A.a[20];
  for (uint64_t s = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; s < ns; s += (uint64_t)gridDim.x * blockDim.x) {
    for (int w = 0; w < W; w++) T[s * W + w] = 0;
    if (ST) ST[s] = 0;
  }
}

extern "C" __global__ void __launch_bounds__(256, 1) rg_agg(const Args A) {
  const long long n = (long long)A.a[0];
 
  uint64_t *T = (uint64_t *)A.a[14];
  uint32_t cnt0 = 0;
  long long p0_0 = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const long long c0 = (long long)((const int32_t *)A.a[2])[i];
    const bool cn0 = false;
    (void)c0; (void)cn0;
    const long long c1 = (long long)((const int64_t *)A.a[5])[i];
    const bool cn1 = false;
    (void)c1; (void)cn1;
    const long long c2 = (long long)((const int64_t *)A.a[8])[i];
    const bool cn2 = false;
    (void)c2; (void)cn2;
    bool v1_d = false, v1_u = false;
    int v2 = 0; bool n2 = false || cn0 || false;
    if (!n2) v2 = c0 >= ((long long)rg_k[0]);
    if (!n2 && !v2) v1_d = true;
    if (n2) v1_u = true;
    int v3 = 0; bool n3 = false || cn0 || false;
    if (!n3) v3 = c0 < ((long long)rg_k[1]);
    if (!n3 && !v3) v1_d = true;
    if (n3) v1_u = true;
    int v4 = 0; bool n4 = false || cn1 || false;
    if (!n4) v4 = c1 >= ((long long)rg_k[2]);
    if (!n4 && !v4) v1_d = true;
    if (n4) v1_u = true;
    int v5 = 0; bool n5 = false || cn1 || false;
    if (!n5) v5 = c1 <= ((long long)rg_k[3]);
    if (!n5 && !v5) v1_d = true;
    if (n5) v1_u = true;
    int v6 = 0; bool n6 = false || cn2 || false;
    if (!n6) v6 = c2 < ((long long)rg_k[4]);
    if (!n6 && !v6) v1_d = true;
    if (n6) v1_u = true;
    const int v1 = !v1_d; const bool n1 = !v1_d && v1_u;
    const bool pass = !n1 && v1;
    if (pass) {
      const long long c3 = (long long)((const int64_t *)A.a[11])[i];
      const bool cn3 = false;
      (void)c3; (void)cn3;
      i128 v7 = 0; bool n7 = false || cn3 || cn1;
      if (!n7) {
        const i128 r = (i128)(long long)c3 * (i128)(long long)c1;
        v7 = (i128)r;
      }
      const int gid = 0;
      if (gid == 0) {
        cnt0++;
        if (!n7) {
          const i128 x = (i128)v7; const long long xl = (long long)x;
          if ((i128)xl != x) rg_atomic_add192_rare(&T[(0) * W + 1], x); else {
            const long long s = (long long)((unsigned long long)p0_0 + (unsigned long long)xl);
            if (((p0_0 ^ s) & (xl ^ s)) < 0) { rg_atomic_add192_rare(&T[(0) * W + 1], (i128)p0_0); p0_0 = xl; } else p0_0 = s;
          }
        }
      }
    }
  }
  const int lane = threadIdx.x & 31;
  {
    uint64_t *R = T + 0 * W;
    const uint64_t c = rg_warp_total64(cnt0);
    if (lane == 0 && c) atomicAdd((unsigned long long *)&R[0], (unsigned long long)c);
    const uint64_t nn0_0 = rg_warp_total64(cnt0);
    rg_flush_sum128(&R[1], (i128)p0_0);
  }
}
