
#define W 1
extern "C" __global__ void __launch_bounds__(256) rg_agg_init(const Args A) {
  uint64_t *T = (uint64_t *)A.a[26]; const uint64_t ns = A.a[27]; uint32_t *ST = (uint32_t *)A.a[32];
  for (uint64_t s = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; s < ns; s += (uint64_t)gridDim.x * blockDim.x) {
    for (int w = 0; w < W; w++) T[s * W + w] = 0;
    if (ST) ST[s] = 0;
  }
}

extern "C" __global__ void __launch_bounds__(256, 1) rg_agg(const Args A) {
  const long long n = (long long)A.a[0];
 
  uint64_t *T = (uint64_t *)A.a[26];
  uint32_t cnt0 = 0;
  for (long long ix = blockIdx.x * (long long)blockDim.x + threadIdx.x; ix < n; ix += (long long)gridDim.x * blockDim.x) {
    const long long i = (A.a[36] ? (long long)((const int32_t *)A.a[36])[ix] : ix); (void)i;
    for (int32_t bj = ((const int32_t *)A.a[33])[ix]; bj >= 0; bj = (A.a[35] != 0 && *(const uint32_t *)A.a[35] == 0 ? -1 : ((const int32_t *)A.a[34])[bj])) {
      const bool pass = true;
      if (pass) {
        const int gid = 0;
        if (gid == 0) {
          cnt0++;
        }
      }
    }
  }
  const int lane = threadIdx.x & 31;
  {
    uint64_t *R = T + 0 * W;
    const uint64_t c = rg_warp_total64(cnt0);
    if (lane == 0 && c) atomicAdd((unsigned long long *)&R[0], (unsigned long long)c);
  }
}
