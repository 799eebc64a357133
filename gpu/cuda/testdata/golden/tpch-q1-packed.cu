__constant__ unsigned long long rg_k[3];

#define W 19
extern "C" __global__ void __launch_bounds__(256) rg_agg_init(const Args A) {
  uint64_t *T = (uint64_t *)A.a[23]; const uint64_t ns = A.a[24]; uint32_t *ST = (uint32_t *)A.a[29];
  for (uint64_t s = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; s < ns; s += (uint64_t)gridDim.x * blockDim.x) {
    for (int w = 0; w < W; w++) T[s * W + w] = 0;
    if (ST) ST[s] = 0;
  }
}

extern "C" __global__ void __launch_bounds__(128, 6) rg_agg(const Args A) {
  const long long n = (long long)A.a[0];
 
  uint64_t *T = (uint64_t *)A.a[23];
  __shared__ uint32_t SC[768];
  __shared__ unsigned long long SP[3840];
  for (int g = 0; g < 6; g++) {
    SC[((g) * 1 + 0) * 128 + threadIdx.x] = 0;
    reinterpret_cast<long long &>(SP[((g) * 5 + 0) * 128 + threadIdx.x]) = 0;
    reinterpret_cast<long long &>(SP[((g) * 5 + 1) * 128 + threadIdx.x]) = 0;
    reinterpret_cast<long long &>(SP[((g) * 5 + 2) * 128 + threadIdx.x]) = 0;
    reinterpret_cast<long long &>(SP[((g) * 5 + 3) * 128 + threadIdx.x]) = 0;
    reinterpret_cast<long long &>(SP[((g) * 5 + 4) * 128 + threadIdx.x]) = 0;
  }
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const long long c0 = (long long)(((long long)A.a[4] >> 7) + (long long)((const uint16_t *)A.a[2])[i]);
    const bool cn0 = false;
    (void)c0; (void)cn0;
    int v1 = 0; bool n1 = false || cn0 || false;
    if (!n1) v1 = c0 <= ((long long)rg_k[0]);
    const bool pass = !n1 && v1;
    if (pass) {
      const long long c1 = (long long)(((long long)A.a[7] >> 7) + (long long)((const uint8_t *)A.a[5])[i]);
      const bool cn1 = false;
      (void)c1; (void)cn1;
      const long long c2 = (long long)(((long long)A.a[10] >> 7) + (long long)((const uint8_t *)A.a[8])[i]);
      const bool cn2 = false;
      (void)c2; (void)cn2;
      const long long c3 = (long long)(((long long)A.a[13] >> 7) + (long long)((const uint8_t *)A.a[11])[i]);
      const bool cn3 = false;
      (void)c3; (void)cn3;
      const long long c4 = (long long)(((long long)A.a[16] >> 7) + (long long)((const uint32_t *)A.a[14])[i]);
      const bool cn4 = false;
      (void)c4; (void)cn4;
      const long long c5 = (long long)((long long)A.a[19] >> 7);
      const bool cn5 = false;
      (void)c5; (void)cn5;
      const long long c6 = (long long)(int64_t)rg_unpacked(A.a[20], A.a[22], i);
      const bool cn6 = false;
      (void)c6; (void)cn6;
      long long v3 = 0; bool n3 = false || false || cn5;
      if (!n3) {
        const i128 r = (i128)(long long)((long long)rg_k[1]) - (i128)(long long)c5;
      if (r < I128(0xffffffffffffffffull, 0xfffc72815b398001ull) || r > I128(0x0ull, 0x38d7ea4c67fffull)) rg_raise(status, RG_OVERFLOW);
        v3 = (long long)r;
      }
      long long v2 = 0; bool n2 = false || cn4 || n3;
      if (!n2) {
        const i128 r = (i128)(long long)c4 * (i128)(long long)v3;
      if (r < I128(0xffffffffffffffffull, 0xf21f494c589c0001ull) || r > I128(0x0ull, 0xde0b6b3a763ffffull)) rg_raise(status, RG_OVERFLOW);
        v2 = (long long)r;
      }
      i128 v5 = 0; bool n5 = false || n2;
      if (!n5) {
        i128 r = (i128)v2;
      if (r < I128(0xb4c4b357a5793b85ull, 0xf675ddc000000001ull) || r > I128(0x4b3b4ca85a86c47aull, 0x98a223fffffffffull)) rg_raise(status, RG_OVERFLOW);
        v5 = (i128)r;
      }
      long long v7 = 0; bool n7 = false || false || cn6;
      if (!n7) {
        const i128 r = (i128)(long long)((long long)rg_k[2]) + (i128)(long long)c6;
      if (r < I128(0xffffffffffffffffull, 0xfffc72815b398001ull) || r > I128(0x0ull, 0x38d7ea4c67fffull)) rg_raise(status, RG_OVERFLOW);
        v7 = (long long)r;
      }
      i128 v6 = 0; bool n6 = false || n7;
      if (!n6) {
        i128 r = (i128)v7;
      if (r < I128(0xb4c4b357a5793b85ull, 0xf675ddc000000001ull) || r > I128(0x4b3b4ca85a86c47aull, 0x98a223fffffffffull)) rg_raise(status, RG_OVERFLOW);
        v6 = (i128)r;
      }
      i128 v4 = 0; bool n4 = false || n5 || n6;
      if (!n4) {
        const i128 r = (i128)(long long)v5 * (i128)(long long)v6;
        v4 = (i128)r;
      }
      const int gid = 0 + (int)c1 * 2 + (int)c2 * 1;
      {
        uint32_t &cnt = SC[((gid) * 1 + 0) * 128 + threadIdx.x];
        cnt++;
        long long &P0 = reinterpret_cast<long long &>(SP[((gid) * 5 + 0) * 128 + threadIdx.x]);
        if (!cn3) {
          const long long xl = (long long)c3; {
            const long long s = (long long)((unsigned long long)P0 + (unsigned long long)xl);
            if (((P0 ^ s) & (xl ^ s)) < 0) { rg_atomic_add192_rare(&T[(gid) * W + 1], (i128)P0); P0 = xl; } else P0 = s;
          }
        }
        long long &P1 = reinterpret_cast<long long &>(SP[((gid) * 5 + 1) * 128 + threadIdx.x]);
        if (!cn4) {
          const long long xl = (long long)c4; {
            const long long s = (long long)((unsigned long long)P1 + (unsigned long long)xl);
            if (((P1 ^ s) & (xl ^ s)) < 0) { rg_atomic_add192_rare(&T[(gid) * W + 4], (i128)P1); P1 = xl; } else P1 = s;
          }
        }
        long long &P2 = reinterpret_cast<long long &>(SP[((gid) * 5 + 2) * 128 + threadIdx.x]);
        if (!n2) {
          const long long xl = (long long)v2; {
            const long long s = (long long)((unsigned long long)P2 + (unsigned long long)xl);
            if (((P2 ^ s) & (xl ^ s)) < 0) { rg_atomic_add192_rare(&T[(gid) * W + 7], (i128)P2); P2 = xl; } else P2 = s;
          }
        }
        long long &P3 = reinterpret_cast<long long &>(SP[((gid) * 5 + 3) * 128 + threadIdx.x]);
        if (!n4) {
          const i128 x = (i128)v4; const long long xl = (long long)x;
          if ((i128)xl != x) rg_atomic_add192_rare(&T[(gid) * W + 10], x); else {
            const long long s = (long long)((unsigned long long)P3 + (unsigned long long)xl);
            if (((P3 ^ s) & (xl ^ s)) < 0) { rg_atomic_add192_rare(&T[(gid) * W + 10], (i128)P3); P3 = xl; } else P3 = s;
          }
        }
        long long &P4 = reinterpret_cast<long long &>(SP[((gid) * 5 + 4) * 128 + threadIdx.x]);
        if (!cn5) {
          const long long xl = (long long)c5; {
            const long long s = (long long)((unsigned long long)P4 + (unsigned long long)xl);
            if (((P4 ^ s) & (xl ^ s)) < 0) { rg_atomic_add192_rare(&T[(gid) * W + 13], (i128)P4); P4 = xl; } else P4 = s;
          }
        }
        if (!cn3) {
        }
        if (!cn4) {
        }
        if (!cn5) {
        }
      }
    }
  }
  const int lane = threadIdx.x & 31;
  {
  const uint32_t cnt0 = SC[((0) * 1 + 0) * 128 + threadIdx.x];
  const long long p0_0 = reinterpret_cast<const long long &>(SP[((0) * 5 + 0) * 128 + threadIdx.x]);
  const long long p0_1 = reinterpret_cast<const long long &>(SP[((0) * 5 + 1) * 128 + threadIdx.x]);
  const long long p0_2 = reinterpret_cast<const long long &>(SP[((0) * 5 + 2) * 128 + threadIdx.x]);
  const long long p0_3 = reinterpret_cast<const long long &>(SP[((0) * 5 + 3) * 128 + threadIdx.x]);
  const long long p0_4 = reinterpret_cast<const long long &>(SP[((0) * 5 + 4) * 128 + threadIdx.x]);
  {
    uint64_t *R = T + 0 * W;
    const uint64_t c = rg_warp_total64(cnt0);
    if (lane == 0 && c) atomicAdd((unsigned long long *)&R[0], (unsigned long long)c);
    const uint64_t nn0_0 = rg_warp_total64(cnt0);
    rg_flush_sum128(&R[1], (i128)p0_0);
    const uint64_t nn0_1 = rg_warp_total64(cnt0);
    rg_flush_sum128(&R[4], (i128)p0_1);
    const uint64_t nn0_2 = rg_warp_total64(cnt0);
    rg_flush_sum128(&R[7], (i128)p0_2);
    const uint64_t nn0_3 = rg_warp_total64(cnt0);
    rg_flush_sum128(&R[10], (i128)p0_3);
    const uint64_t nn0_4 = rg_warp_total64(cnt0);
    rg_flush_sum128(&R[13], (i128)p0_4);
    const uint64_t nn0_5 = rg_warp_total64(cnt0);
    if (lane == 0 && nn0_5) atomicAdd((unsigned long long *)&R[16], (unsigned long long)nn0_5);
    const uint64_t nn0_6 = rg_warp_total64(cnt0);
    if (lane == 0 && nn0_6) atomicAdd((unsigned long long *)&R[17], (unsigned long long)nn0_6);
    const uint64_t nn0_7 = rg_warp_total64(cnt0);
    if (lane == 0 && nn0_7) atomicAdd((unsigned long long *)&R[18], (unsigned long long)nn0_7);
  }
  }
  {
  const uint32_t cnt1 = SC[((1) * 1 + 0) * 128 + threadIdx.x];
  const long long p1_0 = reinterpret_cast<const long long &>(SP[((1) * 5 + 0) * 128 + threadIdx.x]);
  const long long p1_1 = reinterpret_cast<const long long &>(SP[((1) * 5 + 1) * 128 + threadIdx.x]);
  const long long p1_2 = reinterpret_cast<const long long &>(SP[((1) * 5 + 2) * 128 + threadIdx.x]);
  const long long p1_3 = reinterpret_cast<const long long &>(SP[((1) * 5 + 3) * 128 + threadIdx.x]);
  const long long p1_4 = reinterpret_cast<const long long &>(SP[((1) * 5 + 4) * 128 + threadIdx.x]);
  {
    uint64_t *R = T + 1 * W;
    const uint64_t c = rg_warp_total64(cnt1);
    if (lane == 0 && c) atomicAdd((unsigned long long *)&R[0], (unsigned long long)c);
    const uint64_t nn1_0 = rg_warp_total64(cnt1);
    rg_flush_sum128(&R[1], (i128)p1_0);
    const uint64_t nn1_1 = rg_warp_total64(cnt1);
    rg_flush_sum128(&R[4], (i128)p1_1);
    const uint64_t nn1_2 = rg_warp_total64(cnt1);
    rg_flush_sum128(&R[7], (i128)p1_2);
    const uint64_t nn1_3 = rg_warp_total64(cnt1);
    rg_flush_sum128(&R[10], (i128)p1_3);
    const uint64_t nn1_4 = rg_warp_total64(cnt1);
    rg_flush_sum128(&R[13], (i128)p1_4);
    const uint64_t nn1_5 = rg_warp_total64(cnt1);
    if (lane == 0 && nn1_5) atomicAdd((unsigned long long *)&R[16], (unsigned long long)nn1_5);
    const uint64_t nn1_6 = rg_warp_total64(cnt1);
    if (lane == 0 && nn1_6) atomicAdd((unsigned long long *)&R[17], (unsigned long long)nn1_6);
    const uint64_t nn1_7 = rg_warp_total64(cnt1);
    if (lane == 0 && nn1_7) atomicAdd((unsigned long long *)&R[18], (unsigned long long)nn1_7);
  }
  }
  {
  const uint32_t cnt2 = SC[((2) * 1 + 0) * 128 + threadIdx.x];
  const long long p2_0 = reinterpret_cast<const long long &>(SP[((2) * 5 + 0) * 128 + threadIdx.x]);
  const long long p2_1 = reinterpret_cast<const long long &>(SP[((2) * 5 + 1) * 128 + threadIdx.x]);
  const long long p2_2 = reinterpret_cast<const long long &>(SP[((2) * 5 + 2) * 128 + threadIdx.x]);
  const long long p2_3 = reinterpret_cast<const long long &>(SP[((2) * 5 + 3) * 128 + threadIdx.x]);
  const long long p2_4 = reinterpret_cast<const long long &>(SP[((2) * 5 + 4) * 128 + threadIdx.x]);
  {
    uint64_t *R = T + 2 * W;
    const uint64_t c = rg_warp_total64(cnt2);
    if (lane == 0 && c) atomicAdd((unsigned long long *)&R[0], (unsigned long long)c);
    const uint64_t nn2_0 = rg_warp_total64(cnt2);
    rg_flush_sum128(&R[1], (i128)p2_0);
    const uint64_t nn2_1 = rg_warp_total64(cnt2);
    rg_flush_sum128(&R[4], (i128)p2_1);
    const uint64_t nn2_2 = rg_warp_total64(cnt2);
    rg_flush_sum128(&R[7], (i128)p2_2);
    const uint64_t nn2_3 = rg_warp_total64(cnt2);
    rg_flush_sum128(&R[10], (i128)p2_3);
    const uint64_t nn2_4 = rg_warp_total64(cnt2);
    rg_flush_sum128(&R[13], (i128)p2_4);
    const uint64_t nn2_5 = rg_warp_total64(cnt2);
    if (lane == 0 && nn2_5) atomicAdd((unsigned long long *)&R[16], (unsigned long long)nn2_5);
    const uint64_t nn2_6 = rg_warp_total64(cnt2);
    if (lane == 0 && nn2_6) atomicAdd((unsigned long long *)&R[17], (unsigned long long)nn2_6);
    const uint64_t nn2_7 = rg_warp_total64(cnt2);
    if (lane == 0 && nn2_7) atomicAdd((unsigned long long *)&R[18], (unsigned long long)nn2_7);
  }
  }
  {
  const uint32_t cnt3 = SC[((3) * 1 + 0) * 128 + threadIdx.x];
  const long long p3_0 = reinterpret_cast<const long long &>(SP[((3) * 5 + 0) * 128 + threadIdx.x]);
  const long long p3_1 = reinterpret_cast<const long long &>(SP[((3) * 5 + 1) * 128 + threadIdx.x]);
  const long long p3_2 = reinterpret_cast<const long long &>(SP[((3) * 5 + 2) * 128 + threadIdx.x]);
  const long long p3_3 = reinterpret_cast<const long long &>(SP[((3) * 5 + 3) * 128 + threadIdx.x]);
  const long long p3_4 = reinterpret_cast<const long long &>(SP[((3) * 5 + 4) * 128 + threadIdx.x]);
  {
    uint64_t *R = T + 3 * W;
    const uint64_t c = rg_warp_total64(cnt3);
    if (lane == 0 && c) atomicAdd((unsigned long long *)&R[0], (unsigned long long)c);
    const uint64_t nn3_0 = rg_warp_total64(cnt3);
    rg_flush_sum128(&R[1], (i128)p3_0);
    const uint64_t nn3_1 = rg_warp_total64(cnt3);
    rg_flush_sum128(&R[4], (i128)p3_1);
    const uint64_t nn3_2 = rg_warp_total64(cnt3);
    rg_flush_sum128(&R[7], (i128)p3_2);
    const uint64_t nn3_3 = rg_warp_total64(cnt3);
    rg_flush_sum128(&R[10], (i128)p3_3);
    const uint64_t nn3_4 = rg_warp_total64(cnt3);
    rg_flush_sum128(&R[13], (i128)p3_4);
    const uint64_t nn3_5 = rg_warp_total64(cnt3);
    if (lane == 0 && nn3_5) atomicAdd((unsigned long long *)&R[16], (unsigned long long)nn3_5);
    const uint64_t nn3_6 = rg_warp_total64(cnt3);
    if (lane == 0 && nn3_6) atomicAdd((unsigned long long *)&R[17], (unsigned long long)nn3_6);
    const uint64_t nn3_7 = rg_warp_total64(cnt3);
    if (lane == 0 && nn3_7) atomicAdd((unsigned long long *)&R[18], (unsigned long long)nn3_7);
  }
  }
  {
  const uint32_t cnt4 = SC[((4) * 1 + 0) * 128 + threadIdx.x];
  const long long p4_0 = reinterpret_cast<const long long &>(SP[((4) * 5 + 0) * 128 + threadIdx.x]);
  const long long p4_1 = reinterpret_cast<const long long &>(SP[((4) * 5 + 1) * 128 + threadIdx.x]);
  const long long p4_2 = reinterpret_cast<const long long &>(SP[((4) * 5 + 2) * 128 + threadIdx.x]);
  const long long p4_3 = reinterpret_cast<const long long &>(SP[((4) * 5 + 3) * 128 + threadIdx.x]);
  const long long p4_4 = reinterpret_cast<const long long &>(SP[((4) * 5 + 4) * 128 + threadIdx.x]);
  {
    uint64_t *R = T + 4 * W;
    const uint64_t c = rg_warp_total64(cnt4);
    if (lane == 0 && c) atomicAdd((unsigned long long *)&R[0], (unsigned long long)c);
    const uint64_t nn4_0 = rg_warp_total64(cnt4);
    rg_flush_sum128(&R[1], (i128)p4_0);
    const uint64_t nn4_1 = rg_warp_total64(cnt4);
    rg_flush_sum128(&R[4], (i128)p4_1);
    const uint64_t nn4_2 = rg_warp_total64(cnt4);
    rg_flush_sum128(&R[7], (i128)p4_2);
    const uint64_t nn4_3 = rg_warp_total64(cnt4);
    rg_flush_sum128(&R[10], (i128)p4_3);
    const uint64_t nn4_4 = rg_warp_total64(cnt4);
    rg_flush_sum128(&R[13], (i128)p4_4);
    const uint64_t nn4_5 = rg_warp_total64(cnt4);
    if (lane == 0 && nn4_5) atomicAdd((unsigned long long *)&R[16], (unsigned long long)nn4_5);
    const uint64_t nn4_6 = rg_warp_total64(cnt4);
    if (lane == 0 && nn4_6) atomicAdd((unsigned long long *)&R[17], (unsigned long long)nn4_6);
    const uint64_t nn4_7 = rg_warp_total64(cnt4);
    if (lane == 0 && nn4_7) atomicAdd((unsigned long long *)&R[18], (unsigned long long)nn4_7);
  }
  }
  {
  const uint32_t cnt5 = SC[((5) * 1 + 0) * 128 + threadIdx.x];
  const long long p5_0 = reinterpret_cast<const long long &>(SP[((5) * 5 + 0) * 128 + threadIdx.x]);
  const long long p5_1 = reinterpret_cast<const long long &>(SP[((5) * 5 + 1) * 128 + threadIdx.x]);
  const long long p5_2 = reinterpret_cast<const long long &>(SP[((5) * 5 + 2) * 128 + threadIdx.x]);
  const long long p5_3 = reinterpret_cast<const long long &>(SP[((5) * 5 + 3) * 128 + threadIdx.x]);
  const long long p5_4 = reinterpret_cast<const long long &>(SP[((5) * 5 + 4) * 128 + threadIdx.x]);
  {
    uint64_t *R = T + 5 * W;
    const uint64_t c = rg_warp_total64(cnt5);
    if (lane == 0 && c) atomicAdd((unsigned long long *)&R[0], (unsigned long long)c);
    const uint64_t nn5_0 = rg_warp_total64(cnt5);
    rg_flush_sum128(&R[1], (i128)p5_0);
    const uint64_t nn5_1 = rg_warp_total64(cnt5);
    rg_flush_sum128(&R[4], (i128)p5_1);
    const uint64_t nn5_2 = rg_warp_total64(cnt5);
    rg_flush_sum128(&R[7], (i128)p5_2);
    const uint64_t nn5_3 = rg_warp_total64(cnt5);
    rg_flush_sum128(&R[10], (i128)p5_3);
    const uint64_t nn5_4 = rg_warp_total64(cnt5);
    rg_flush_sum128(&R[13], (i128)p5_4);
    const uint64_t nn5_5 = rg_warp_total64(cnt5);
    if (lane == 0 && nn5_5) atomicAdd((unsigned long long *)&R[16], (unsigned long long)nn5_5);
    const uint64_t nn5_6 = rg_warp_total64(cnt5);
    if (lane == 0 && nn5_6) atomicAdd((unsigned long long *)&R[17], (unsigned long long)nn5_6);
    const uint64_t nn5_7 = rg_warp_total64(cnt5);
    if (lane == 0 && nn5_7) atomicAdd((unsigned long long *)&R[18], (unsigned long long)nn5_7);
  }
  }
}
