
extern "C" __global__ void __launch_bounds__(256) rg_write(const Args A) {
  const long long n = (long long)A.a[0];
  for (long long pos = (long long)blockIdx.x * blockDim.x + threadIdx.x; pos < n; pos += (long long)gridDim.x * blockDim.x) {
    const long long i = pos;
        const long long c0 = (long long)((const int64_t *)A.a[2])[i];
        const bool cn0 = false;
        (void)c0; (void)cn0;
        ((int64_t *)A.a[7])[pos] = (int64_t)c0;
        (void)cn0;
  }
}
