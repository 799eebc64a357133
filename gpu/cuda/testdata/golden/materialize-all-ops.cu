__constant__ unsigned long long rg_k[10];

extern "C" __global__ void __launch_bounds__(256) rg_count(const Args A) {
  const long long n = (long long)A.a[0];
 
  const long long ntiles = (long long)A.a[36];
  uint32_t *mask = (uint32_t *)A.a[119];
  __shared__ uint32_t wcnt[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {
    uint32_t c = 0;
    for (int k = 0; k < 4; k++) {
      const long long i = t * 1024 + k * 256 + threadIdx.x;
      bool ok = false;
      if (i < n) {
        const int c0 = (int)((const uint8_t *)A.a[2])[i];
        const bool cn0 = A.a[3] != 0 && ((const uint8_t *)A.a[3])[i] == 0;
        (void)c0; (void)cn0;
        const long long c2 = (long long)((const int16_t *)A.a[8])[i];
        const bool cn2 = A.a[9] != 0 && ((const uint8_t *)A.a[9])[i] == 0;
        (void)c2; (void)cn2;
        bool v1_d = false, v1_u = false;
        if (!cn0 && !c0) v1_d = true;
        if (cn0) v1_u = true;
        int v2 = 0; bool n2 = false || cn2 || false;
        if (!n2) v2 = c2 > ((long long)rg_k[0]);
        if (!n2 && !v2) v1_d = true;
        if (n2) v1_u = true;
        const int v1 = !v1_d; const bool n1 = !v1_d && v1_u;
        const bool pass = !n1 && v1;
        ok = pass;
      }
      c += ok;
      const unsigned m = __ballot_sync(0xffffffffu, ok);
      if (lane == 0 && i < n) mask[i >> 5] = m;
    }
    c = (uint32_t)rg_warp_sum64(c);
    if (lane == 0) wcnt[warp] = c;
    __syncthreads();
    if (threadIdx.x == 0) { uint32_t s = 0; for (int w = 0; w < 8; w++) s += wcnt[w]; ((uint32_t *)A.a[35])[t] = s; }
    __syncthreads();
  }
}

extern "C" __global__ void __launch_bounds__(256) rg_write(const Args A) {
  const long long n = (long long)A.a[0];
 
  const long long ntiles = (long long)A.a[36];
  uint32_t *mask = (uint32_t *)A.a[119];
  __shared__ uint32_t wcnt[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {
    unsigned long long base = ((const unsigned long long *)A.a[35])[t];
    for (int k = 0; k < 4; k++) {
      const long long i = t * 1024 + k * 256 + threadIdx.x;
      const long long w0 = i - lane;
      const unsigned m = w0 < n ? mask[w0 >> 5] : 0u;
      const bool ok = (m >> lane) & 1u;
      if (lane == 0) wcnt[warp] = __popc(m);
      __syncthreads();
      unsigned before = 0, total = 0;
      for (int w = 0; w < 8; w++) { if (w < warp) before += wcnt[w]; total += wcnt[w]; }
      if (ok) {
        const unsigned long long pos = base + before + __popc(m & ((1u << lane) - 1u));
        const int c0 = (int)((const uint8_t *)A.a[2])[i];
        const bool cn0 = A.a[3] != 0 && ((const uint8_t *)A.a[3])[i] == 0;
        (void)c0; (void)cn0;
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
        long long v1 = 0; bool n1 = false || cn1 || cn1;
        if (!n1) {
          const i128 r = (i128)(long long)c1 + (i128)(long long)c1;
          v1 = (long long)r;
        }
        ((int16_t *)A.a[37])[pos] = (int16_t)v1;
        ((uint8_t *)A.a[38])[pos] = n1 ? 0 : 1;
        long long v2 = 0; bool n2 = false || cn2 || cn2;
        if (!n2) {
          const i128 r = (i128)(long long)c2 - (i128)(long long)c2;
          v2 = (long long)r;
        }
        ((int32_t *)A.a[39])[pos] = (int32_t)v2;
        ((uint8_t *)A.a[40])[pos] = n2 ? 0 : 1;
        long long v3 = 0; bool n3 = false || cn3 || cn3;
        if (!n3) {
          const i128 r = (i128)(long long)c3 * (i128)(long long)c3;
          v3 = (long long)r;
        }
        ((int64_t *)A.a[41])[pos] = (int64_t)v3;
        ((uint8_t *)A.a[42])[pos] = n3 ? 0 : 1;
        long long v4 = 0; bool n4 = false || cn4 || false;
        if (!n4) {
          i128 r; if (rg_add128((i128)c4, (i128)((long long)rg_k[1]), &r)) rg_raise(status, RG_OVERFLOW);
        if (r < I128(0xffffffffffffffffull, 0x8000000000000000ull) || r > I128(0x0ull, 0x7fffffffffffffffull)) rg_raise(status, RG_OVERFLOW);
          v4 = (long long)r;
        }
        ((int64_t *)A.a[43])[pos] = (int64_t)v4;
        ((uint8_t *)A.a[44])[pos] = n4 ? 0 : 1;
        i128 v5 = 0; bool n5 = false || cn8 || cn8;
        if (!n5) {
          const i128 r = (i128)(long long)c8 * (i128)(long long)c8;
          v5 = (i128)r;
        }
        ((i128 *)A.a[45])[pos] = (i128)v5;
        ((uint8_t *)A.a[46])[pos] = n5 ? 0 : 1;
        i128 v6 = 0; bool n6 = false || cn9 || false;
        if (!n6) {
          i128 r; if (rg_add128((i128)c9, (i128)I128(rg_k[2], rg_k[3]), &r)) rg_raise(status, RG_OVERFLOW);
        if (r < I128(0xb4c4b357a5793b85ull, 0xf675ddc000000001ull) || r > I128(0x4b3b4ca85a86c47aull, 0x98a223fffffffffull)) rg_raise(status, RG_OVERFLOW);
          v6 = (i128)r;
        }
        ((i128 *)A.a[47])[pos] = (i128)v6;
        ((uint8_t *)A.a[48])[pos] = n6 ? 0 : 1;
        i128 v7 = 0; bool n7 = false || cn9 || cn9;
        if (!n7) {
          i128 r; if (rg_mul128((i128)c9, (i128)c9, &r)) rg_raise(status, RG_OVERFLOW);
        if (r < I128(0xb4c4b357a5793b85ull, 0xf675ddc000000001ull) || r > I128(0x4b3b4ca85a86c47aull, 0x98a223fffffffffull)) rg_raise(status, RG_OVERFLOW);
          v7 = (i128)r;
        }
        ((i128 *)A.a[49])[pos] = (i128)v7;
        ((uint8_t *)A.a[50])[pos] = n7 ? 0 : 1;
        i128 v8 = 0; bool n8 = false || cn9 || cn9;
        if (!n8) {
          i128 r; if (rg_sub128((i128)c9, (i128)c9, &r)) rg_raise(status, RG_OVERFLOW);
        if (r < I128(0xb4c4b357a5793b85ull, 0xf675ddc000000001ull) || r > I128(0x4b3b4ca85a86c47aull, 0x98a223fffffffffull)) rg_raise(status, RG_OVERFLOW);
          v8 = (i128)r;
        }
        ((i128 *)A.a[51])[pos] = (i128)v8;
        ((uint8_t *)A.a[52])[pos] = n8 ? 0 : 1;
        long long v9 = 0; bool n9 = false || cn4;
        if (!n9) { i128 r; if (rg_sub128(0, (i128)c4, &r)) rg_raise(status, RG_OVERFLOW);
        if (r < I128(0xffffffffffffffffull, 0x8000000000000000ull) || r > I128(0x0ull, 0x7fffffffffffffffull)) rg_raise(status, RG_OVERFLOW);
          v9 = (long long)r; }
        ((int64_t *)A.a[53])[pos] = (int64_t)v9;
        ((uint8_t *)A.a[54])[pos] = n9 ? 0 : 1;
        i128 v10 = 0; bool n10 = false || cn9;
        if (!n10) { i128 r; if (rg_sub128(0, (i128)c9, &r)) rg_raise(status, RG_OVERFLOW);
        if (r < I128(0xb4c4b357a5793b85ull, 0xf675ddc000000001ull) || r > I128(0x4b3b4ca85a86c47aull, 0x98a223fffffffffull)) rg_raise(status, RG_OVERFLOW);
          v10 = (i128)r; }
        ((i128 *)A.a[55])[pos] = (i128)v10;
        ((uint8_t *)A.a[56])[pos] = n10 ? 0 : 1;
        double v11 = 0; bool n11 = false || cn6 || false;
        if (!n11) v11 = (double)c6 / (double)__longlong_as_double((long long)rg_k[4]);
        ((double *)A.a[57])[pos] = (double)v11;
        ((uint8_t *)A.a[58])[pos] = n11 ? 0 : 1;
        float v12 = 0; bool n12 = false || cn5 || cn5;
        if (!n12) v12 = (float)c5 * (float)c5;
        ((float *)A.a[59])[pos] = (float)v12;
        ((uint8_t *)A.a[60])[pos] = n12 ? 0 : 1;
        double v13 = 0; bool n13 = false || cn6;
        if (!n13) v13 = -(double)c6;
        ((double *)A.a[61])[pos] = (double)v13;
        ((uint8_t *)A.a[62])[pos] = n13 ? 0 : 1;
        long long v14 = 0; bool n14 = false || cn4;
        if (!n14) {
          i128 r = (i128)c4;
        if (r < I128(0xffffffffffffffffull, 0xffffffffffffff80ull) || r > I128(0x0ull, 0x7full)) rg_raise(status, RG_OVERFLOW);
          v14 = (long long)r;
        }
        ((int8_t *)A.a[63])[pos] = (int8_t)v14;
        ((uint8_t *)A.a[64])[pos] = n14 ? 0 : 1;
        long long v15 = 0; bool n15 = false || cn8;
        if (!n15) {
          i128 r = (i128)c8;
          if (rg_mul128(r, I128(0x0ull, 0x64ull), &r)) rg_raise(status, RG_OVERFLOW);
        if (r < I128(0xffffffffffffffffull, 0xf21f494c589c0001ull) || r > I128(0x0ull, 0xde0b6b3a763ffffull)) rg_raise(status, RG_OVERFLOW);
          v15 = (long long)r;
        }
        ((int64_t *)A.a[65])[pos] = (int64_t)v15;
        ((uint8_t *)A.a[66])[pos] = n15 ? 0 : 1;
        long long v16 = 0; bool n16 = false || cn8;
        if (!n16) {
          i128 r = (i128)c8;
          r = rg_div_round(r, I128(0x0ull, 0x64ull));
        if (r < I128(0xffffffffffffffffull, 0xfffffffdabf41c01ull) || r > I128(0x0ull, 0x2540be3ffull)) rg_raise(status, RG_OVERFLOW);
          v16 = (long long)r;
        }
        ((int64_t *)A.a[67])[pos] = (int64_t)v16;
        ((uint8_t *)A.a[68])[pos] = n16 ? 0 : 1;
        long long v17 = 0; bool n17 = true;
        {
          const int v18 = !cn8; const bool n18 = false;
          if (!n18 && v18) {
          long long v19 = 0; bool n19 = false || cn8;
          if (!n19) {
            i128 r = (i128)c8;
          if (r < I128(0xffffffffffffffffull, 0xf21f494c589c0001ull) || r > I128(0x0ull, 0xde0b6b3a763ffffull)) rg_raise(status, RG_OVERFLOW);
            v19 = (long long)r;
          }
            v17 = (long long)v19; n17 = n19;
          } else {
            v17 = (long long)((long long)rg_k[5]); n17 = false;
          }
        }
        ((int64_t *)A.a[69])[pos] = (int64_t)v17;
        ((uint8_t *)A.a[70])[pos] = n17 ? 0 : 1;
        long long v20 = 0; bool n20 = false || cn9;
        if (!n20) {
          i128 r = (i128)c9;
          r = rg_div_round(r, I128(0x0ull, 0x2710ull));
        if (r < I128(0xffffffffffffffffull, 0xffffffff80000000ull) || r > I128(0x0ull, 0x7fffffffull)) rg_raise(status, RG_OVERFLOW);
          v20 = (long long)r;
        }
        ((int32_t *)A.a[71])[pos] = (int32_t)v20;
        ((uint8_t *)A.a[72])[pos] = n20 ? 0 : 1;
        double v21 = 0; bool n21 = false || cn8;
        if (!n21) {
          const i128 x = (i128)c8;
          if (x >= -(i128)9007199254740992LL && x <= (i128)9007199254740992LL) v21 = (double)(long long)x / (double)1e2;
          else v21 = (double)rg_dec_to_f64(x, (u128)I128(0x0ull, 0x64ull), false);
        }
        ((double *)A.a[73])[pos] = (double)v21;
        ((uint8_t *)A.a[74])[pos] = n21 ? 0 : 1;
        float v22 = 0; bool n22 = false || cn9;
        if (!n22) {
          const i128 x = (i128)c9;
          if (x >= -(i128)16777216LL && x <= (i128)16777216LL) v22 = (float)(long long)x / (float)1e4;
          else v22 = (float)rg_dec_to_f64(x, (u128)I128(0x0ull, 0x2710ull), true);
        }
        ((float *)A.a[75])[pos] = (float)v22;
        ((uint8_t *)A.a[76])[pos] = n22 ? 0 : 1;
        double v23 = 0; bool n23 = false || cn4;
        if (!n23) {
          const i128 x = (i128)c4;
          if (x >= (i128)(-9223372036854775807LL - 1) && x <= (i128)9223372036854775807LL) v23 = (double)(long long)x;
          else v23 = (double)rg_dec_to_f64(x, (u128)I128(0x0ull, 0x1ull), false);
        }
        ((double *)A.a[77])[pos] = (double)v23;
        ((uint8_t *)A.a[78])[pos] = n23 ? 0 : 1;
        double v24 = 0; bool n24 = false || cn5;
        if (!n24) v24 = (double)c5;
        ((double *)A.a[79])[pos] = (double)v24;
        ((uint8_t *)A.a[80])[pos] = n24 ? 0 : 1;
        float v25 = 0; bool n25 = false || cn6;
        if (!n25) v25 = (float)c6;
        ((float *)A.a[81])[pos] = (float)v25;
        ((uint8_t *)A.a[82])[pos] = n25 ? 0 : 1;
        long long v26 = 0; bool n26 = true;
        {
          int v27 = 0; bool n27 = false || cn4 || false;
          if (!n27) v27 = c4 > ((long long)rg_k[6]);
          if (!n27 && v27) {
            v26 = (long long)c4; n26 = cn4;
          } else {
          {
            const int v28 = cn3; const bool n28 = false;
            if (!n28 && v28) {
              v26 = (long long)((long long)rg_k[7]); n26 = false;
            } else {
              v26 = (long long)((long long)0); n26 = true;
            }
          }
          }
        }
        ((int64_t *)A.a[83])[pos] = (int64_t)v26;
        ((uint8_t *)A.a[84])[pos] = n26 ? 0 : 1;
        long long v29 = 0; bool n29 = true;
        {
          if (!cn0 && c0) {
            v29 = (long long)c10; n29 = cn10;
          } else {
            v29 = (long long)c10; n29 = cn10;
          }
        }
        ((int32_t *)A.a[85])[pos] = (int32_t)v29;
        ((uint8_t *)A.a[86])[pos] = n29 ? 0 : 1;
        const int v30 = !c0; const bool n30 = cn0;
        ((uint8_t *)A.a[87])[pos] = (uint8_t)v30;
        ((uint8_t *)A.a[88])[pos] = n30 ? 0 : 1;
        const int v31 = !cn7; const bool n31 = false;
        ((uint8_t *)A.a[89])[pos] = (uint8_t)v31;
        (void)n31;
        bool v32_d = false, v32_u = false;
        if (!cn0 && c0) v32_d = true;
        if (cn0) v32_u = true;
        int v33 = 0; bool n33 = false || cn10 || false;
        if (!n33) v33 = c10 == ((long long)rg_k[8]);
        if (!n33 && v33) v32_d = true;
        if (n33) v32_u = true;
        int v34 = 0; bool n34 = false || cn5 || cn5;
        if (!n34) v34 = rg_fcmp((double)c5, (double)c5) != 0;
        if (!n34 && v34) v32_d = true;
        if (n34) v32_u = true;
        int v35 = 0; bool n35 = false || cn6 || cn6;
        if (!n35) v35 = rg_fcmp((double)c6, (double)c6) <= 0;
        if (!n35 && v35) v32_d = true;
        if (n35) v32_u = true;
        const int v32 = v32_d; const bool n32 = !v32_d && v32_u;
        ((uint8_t *)A.a[91])[pos] = (uint8_t)v32;
        ((uint8_t *)A.a[92])[pos] = n32 ? 0 : 1;
        int v36 = 0; bool n36 = false || cn7 || false;
        if (!n36) v36 = c7 >= ((long long)rg_k[9]);
        ((uint8_t *)A.a[93])[pos] = (uint8_t)v36;
        ((uint8_t *)A.a[94])[pos] = n36 ? 0 : 1;
        int v37 = 0; bool n37 = false || cn9 || cn9;
        if (!n37) v37 = c9 < c9;
        ((uint8_t *)A.a[95])[pos] = (uint8_t)v37;
        ((uint8_t *)A.a[96])[pos] = n37 ? 0 : 1;
        ((uint8_t *)A.a[97])[pos] = (uint8_t)c0;
        ((uint8_t *)A.a[98])[pos] = cn0 ? 0 : 1;
        ((int8_t *)A.a[99])[pos] = (int8_t)c1;
        ((uint8_t *)A.a[100])[pos] = cn1 ? 0 : 1;
        ((int16_t *)A.a[101])[pos] = (int16_t)c2;
        ((uint8_t *)A.a[102])[pos] = cn2 ? 0 : 1;
        ((int32_t *)A.a[103])[pos] = (int32_t)c3;
        ((uint8_t *)A.a[104])[pos] = cn3 ? 0 : 1;
        ((int64_t *)A.a[105])[pos] = (int64_t)c4;
        ((uint8_t *)A.a[106])[pos] = cn4 ? 0 : 1;
        ((float *)A.a[107])[pos] = (float)c5;
        ((uint8_t *)A.a[108])[pos] = cn5 ? 0 : 1;
        ((double *)A.a[109])[pos] = (double)c6;
        ((uint8_t *)A.a[110])[pos] = cn6 ? 0 : 1;
        ((int32_t *)A.a[111])[pos] = (int32_t)c7;
        ((uint8_t *)A.a[112])[pos] = cn7 ? 0 : 1;
        ((int64_t *)A.a[113])[pos] = (int64_t)c8;
        ((uint8_t *)A.a[114])[pos] = cn8 ? 0 : 1;
        ((i128 *)A.a[115])[pos] = (i128)c9;
        ((uint8_t *)A.a[116])[pos] = cn9 ? 0 : 1;
        ((int32_t *)A.a[117])[pos] = (int32_t)c10;
        ((uint8_t *)A.a[118])[pos] = cn10 ? 0 : 1;
      }
      base += total;
      __syncthreads();
    }
  }
}
