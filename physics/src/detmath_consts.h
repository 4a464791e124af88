/*
 * detmath's constants, polynomial coefficients and tables, in one place for
 * the scalar functions (detmath.c) and their four-lane versions (detmath4.h),
 * which must evaluate the same polynomials with the same coefficients to stay
 * bit-identical. Internal to physics: include it from those two files only.
 *
 * The polynomial coefficients are minimax fits (Remez exchange, relative
 * error unless stated) rounded to double; the "fit" figure next to each is
 * its worst error in exact arithmetic on the stated interval. The tables hold
 * correctly rounded values. Hexadecimal literals are used so that no
 * decimal-to-binary conversion can differ between compilers. The DM_ prefix
 * keeps the short names out of the files that include detmath4.h.
 */
#ifndef RS_DETMATH_CONSTS_H
#define RS_DETMATH_CONSTS_H

/* Adding then subtracting 1.5*2^52 rounds |v| < 2^51 to the nearest integer
 * (ties to even) with SSE2/NEON double arithmetic. */
#define DM_ROUND_SHIFT 0x1.8p52

/* ------------------------------------------------------------- constants */

/* pi/2 = PIO2_1 + PIO2_2 + PIO2_3 (+ 1e-37): the first two have 33
 * significant bits, so n*PIO2_1 and n*PIO2_2 are exact for |n| < 2^20. */
#define DM_INV_PIO2 0x1.45f306dc9c883p-1
#define DM_PIO2_1 0x1.921fb544p+0
#define DM_PIO2_2 0x1.0b4611a6p-34
#define DM_PIO2_3 0x1.3198a2e037073p-69

/* Multiples of pi as double-doubles (hi = pi*k rounded, lo = the rest). */
#define DM_PIO4_HI 0x1.921fb54442d18p-1
#define DM_PIO4_LO 0x1.1a62633145c07p-55
#define DM_PIO2_HI 0x1.921fb54442d18p+0
#define DM_PIO2_LO 0x1.1a62633145c07p-54
#define DM_PI3O4_HI 0x1.2d97c7f3321d2p+1
#define DM_PI3O4_LO 0x1.a79394c9e8a0ap-54
#define DM_PI_HI 0x1.921fb54442d18p+1
#define DM_PI_LO 0x1.1a62633145c07p-53

/* ln2/128 = L2N_HI + L2N_LO; L2N_HI has 35 bits so k*L2N_HI is exact for
 * |k| < 2^18, i.e. |x| < 1400. */
#define DM_INV_LN2_128 0x1.71547652b82fep+7
#define DM_L2N_HI 0x1.62e42fef8p-8
#define DM_L2N_LO 0x1.1cf79abc9e3b4p-43

/* ln2 = LN2_HI + LN2_LO; LN2_HI has 42 bits so e*LN2_HI is exact for any
 * binary exponent e. */
#define DM_LN2_HI 0x1.62e42fefa38p-1
#define DM_LN2_LO 0x1.ef35793c7673p-45

/* Largest x with exp(x) <= DBL_MAX, and a point below which exp(x) rounds
 * to 0 (exp(-745.1332...) is half the smallest subnormal). */
#define DM_EXP_OVERFLOW_X 0x1.62e42fefa39efp+9
#define DM_EXP_UNDERFLOW_X (-745.25)

/* Arguments of sin/cos/tan beyond this are not reduced (see detmath.h). */
#define DM_TRIG_LIMIT 0x1p30

/* ------------------------------------------------------------------ tables */

/* 2^(j/128) = hi + lo, j = 0..127. */
static const struct { double hi, lo; } DM_EXP_TAB[128] = {
    {0x1.0000000000000p+0, 0x0.0p+0},
    {0x1.0163da9fb3335p+0, 0x1.b61299ab8cdb7p-54},
    {0x1.02c9a3e778061p+0, -0x1.19083535b085dp-56},
    {0x1.04315e86e7f85p+0, -0x1.0a31c1977c96ep-54},
    {0x1.059b0d3158574p+0, 0x1.d73e2a475b465p-55},
    {0x1.0706b29ddf6dep+0, -0x1.c91dfe2b13c27p-55},
    {0x1.0874518759bc8p+0, 0x1.186be4bb284ffp-57},
    {0x1.09e3ecac6f383p+0, 0x1.1487818316136p-54},
    {0x1.0b5586cf9890fp+0, 0x1.8a62e4adc610bp-54},
    {0x1.0cc922b7247f7p+0, 0x1.01edc16e24f71p-54},
    {0x1.0e3ec32d3d1a2p+0, 0x1.03a1727c57b53p-59},
    {0x1.0fb66affed31bp+0, -0x1.b9bedc44ebd7bp-57},
    {0x1.11301d0125b51p+0, -0x1.6c51039449b3ap-54},
    {0x1.12abdc06c31ccp+0, -0x1.1b514b36ca5c7p-58},
    {0x1.1429aaea92de0p+0, -0x1.32fbf9af1369ep-54},
    {0x1.15a98c8a58e51p+0, 0x1.2406ab9eeab0ap-55},
    {0x1.172b83c7d517bp+0, -0x1.19041b9d78a76p-55},
    {0x1.18af9388c8deap+0, -0x1.11023d1970f6cp-54},
    {0x1.1a35beb6fcb75p+0, 0x1.e5b4c7b4968e4p-55},
    {0x1.1bbe084045cd4p+0, -0x1.95386352ef607p-54},
    {0x1.1d4873168b9aap+0, 0x1.e016e00a2643cp-54},
    {0x1.1ed5022fcd91dp+0, -0x1.1df98027bb78cp-54},
    {0x1.2063b88628cd6p+0, 0x1.dc775814a8495p-55},
    {0x1.21f49917ddc96p+0, 0x1.2a97e9494a5eep-55},
    {0x1.2387a6e756238p+0, 0x1.9b07eb6c70573p-54},
    {0x1.251ce4fb2a63fp+0, 0x1.ac155bef4f4a4p-55},
    {0x1.26b4565e27cddp+0, 0x1.2bd339940e9d9p-55},
    {0x1.284dfe1f56381p+0, -0x1.a4c3a8c3f0d7ep-54},
    {0x1.29e9df51fdee1p+0, 0x1.612e8afad1255p-55},
    {0x1.2b87fd0dad990p+0, -0x1.10adcd6381aa4p-59},
    {0x1.2d285a6e4030bp+0, 0x1.0024754db41d5p-54},
    {0x1.2ecafa93e2f56p+0, 0x1.1ca0f45d52383p-56},
    {0x1.306fe0a31b715p+0, 0x1.6f46ad23182e4p-55},
    {0x1.32170fc4cd831p+0, 0x1.a9ce78e18047cp-55},
    {0x1.33c08b26416ffp+0, 0x1.32721843659a6p-54},
    {0x1.356c55f929ff1p+0, -0x1.b5cee5c4e4628p-55},
    {0x1.371a7373aa9cbp+0, -0x1.63aeabf42eae2p-54},
    {0x1.38cae6d05d866p+0, -0x1.e958d3c9904bdp-54},
    {0x1.3a7db34e59ff7p+0, -0x1.5e436d661f5e3p-56},
    {0x1.3c32dc313a8e5p+0, -0x1.efff8375d29c3p-54},
    {0x1.3dea64c123422p+0, 0x1.ada0911f09ebcp-55},
    {0x1.3fa4504ac801cp+0, -0x1.7d023f956f9f3p-54},
    {0x1.4160a21f72e2ap+0, -0x1.ef3691c309278p-58},
    {0x1.431f5d950a897p+0, -0x1.1c7dde35f7999p-55},
    {0x1.44e086061892dp+0, 0x1.89b7a04ef80d0p-59},
    {0x1.46a41ed1d0057p+0, 0x1.c944bd1648a76p-54},
    {0x1.486a2b5c13cd0p+0, 0x1.3c1a3b69062f0p-56},
    {0x1.4a32af0d7d3dep+0, 0x1.9cb62f3d1be56p-54},
    {0x1.4bfdad5362a27p+0, 0x1.d4397afec42e2p-56},
    {0x1.4dcb299fddd0dp+0, 0x1.8ecdbbc6a7833p-54},
    {0x1.4f9b2769d2ca7p+0, -0x1.4b309d25957e3p-54},
    {0x1.516daa2cf6642p+0, -0x1.f768569bd93efp-55},
    {0x1.5342b569d4f82p+0, -0x1.07abe1db13cadp-55},
    {0x1.551a4ca5d920fp+0, -0x1.d689cefede59bp-55},
    {0x1.56f4736b527dap+0, 0x1.9bb2c011d93adp-54},
    {0x1.58d12d497c7fdp+0, 0x1.295e15b9a1de8p-55},
    {0x1.5ab07dd485429p+0, 0x1.6324c054647adp-54},
    {0x1.5c9268a5946b7p+0, 0x1.c4b1b816986a2p-60},
    {0x1.5e76f15ad2148p+0, 0x1.ba6f93080e65ep-54},
    {0x1.605e1b976dc09p+0, -0x1.3e2429b56de47p-54},
    {0x1.6247eb03a5585p+0, -0x1.383c17e40b497p-54},
    {0x1.6434634ccc320p+0, -0x1.c483c759d8933p-55},
    {0x1.6623882552225p+0, -0x1.bb60987591c34p-54},
    {0x1.68155d44ca973p+0, 0x1.038ae44f73e65p-57},
    {0x1.6a09e667f3bcdp+0, -0x1.bdd3413b26456p-54},
    {0x1.6c012750bdabfp+0, -0x1.2895667ff0b0dp-56},
    {0x1.6dfb23c651a2fp+0, -0x1.bbe3a683c88abp-57},
    {0x1.6ff7df9519484p+0, -0x1.83c0f25860ef6p-55},
    {0x1.71f75e8ec5f74p+0, -0x1.16e4786887a99p-55},
    {0x1.73f9a48a58174p+0, -0x1.0a8d96c65d53cp-54},
    {0x1.75feb564267c9p+0, -0x1.0245957316dd3p-54},
    {0x1.780694fde5d3fp+0, 0x1.866b80a02162dp-54},
    {0x1.7a11473eb0187p+0, -0x1.41577ee04992fp-55},
    {0x1.7c1ed0130c132p+0, 0x1.f124cd1164dd6p-54},
    {0x1.7e2f336cf4e62p+0, 0x1.05d02ba15797ep-56},
    {0x1.80427543e1a12p+0, -0x1.27c86626d972bp-54},
    {0x1.82589994cce13p+0, -0x1.d4c1dd41532d8p-54},
    {0x1.8471a4623c7adp+0, -0x1.8d684a341cdfbp-55},
    {0x1.868d99b4492edp+0, -0x1.fc6f89bd4f6bap-54},
    {0x1.88ac7d98a6699p+0, 0x1.994c2f37cb53ap-54},
    {0x1.8ace5422aa0dbp+0, 0x1.6e9f156864b27p-54},
    {0x1.8cf3216b5448cp+0, -0x1.0d55e32e9e3aap-56},
    {0x1.8f1ae99157736p+0, 0x1.5cc13a2e3976cp-55},
    {0x1.9145b0b91ffc6p+0, -0x1.dd6792e582524p-54},
    {0x1.93737b0cdc5e5p+0, -0x1.75fc781b57ebcp-57},
    {0x1.95a44cbc8520fp+0, -0x1.64b7c96a5f039p-56},
    {0x1.97d829fde4e50p+0, -0x1.d185b7c1b85d1p-54},
    {0x1.9a0f170ca07bap+0, -0x1.173bd91cee632p-54},
    {0x1.9c49182a3f090p+0, 0x1.c7c46b071f2bep-56},
    {0x1.9e86319e32323p+0, 0x1.824ca78e64c6ep-56},
    {0x1.a0c667b5de565p+0, -0x1.359495d1cd533p-54},
    {0x1.a309bec4a2d33p+0, 0x1.6305c7ddc36abp-54},
    {0x1.a5503b23e255dp+0, -0x1.d2f6edb8d41e1p-54},
    {0x1.a799e1330b358p+0, 0x1.bcb7ecac563c7p-54},
    {0x1.a9e6b5579fdbfp+0, 0x1.0fac90ef7fd31p-54},
    {0x1.ac36bbfd3f37ap+0, -0x1.f9234cae76cd0p-55},
    {0x1.ae89f995ad3adp+0, 0x1.7a1cd345dcc81p-54},
    {0x1.b0e07298db666p+0, -0x1.bdef54c80e425p-54},
    {0x1.b33a2b84f15fbp+0, -0x1.2805e3084d708p-57},
    {0x1.b59728de5593ap+0, -0x1.c71dfbbba6de3p-54},
    {0x1.b7f76f2fb5e47p+0, -0x1.5584f7e54ac3bp-56},
    {0x1.ba5b030a1064ap+0, -0x1.efcd30e54292ep-54},
    {0x1.bcc1e904bc1d2p+0, 0x1.23dd07a2d9e84p-55},
    {0x1.bf2c25bd71e09p+0, -0x1.efdca3f6b9c73p-54},
    {0x1.c199bdd85529cp+0, 0x1.11065895048ddp-55},
    {0x1.c40ab5fffd07ap+0, 0x1.b4537e083c60ap-54},
    {0x1.c67f12e57d14bp+0, 0x1.2884dff483cadp-54},
    {0x1.c8f6d9406e7b5p+0, 0x1.1acbc48805c44p-56},
    {0x1.cb720dcef9069p+0, 0x1.503cbd1e949dbp-56},
    {0x1.cdf0b555dc3fap+0, -0x1.dd83b53829d72p-55},
    {0x1.d072d4a07897cp+0, -0x1.cbc3743797a9cp-54},
    {0x1.d2f87080d89f2p+0, -0x1.d487b719d8578p-54},
    {0x1.d5818dcfba487p+0, 0x1.2ed02d75b3707p-55},
    {0x1.d80e316c98398p+0, -0x1.11ec18beddfe8p-54},
    {0x1.da9e603db3285p+0, 0x1.c2300696db532p-54},
    {0x1.dd321f301b460p+0, 0x1.2da5778f018c3p-54},
    {0x1.dfc97337b9b5fp+0, -0x1.1a5cd4f184b5cp-54},
    {0x1.e264614f5a129p+0, -0x1.7b627817a1496p-54},
    {0x1.e502ee78b3ff6p+0, 0x1.39e8980a9cc8fp-55},
    {0x1.e7a51fbc74c83p+0, 0x1.2d522ca0c8de2p-54},
    {0x1.ea4afa2a490dap+0, -0x1.e9c23179c2893p-54},
    {0x1.ecf482d8e67f1p+0, -0x1.c93f3b411ad8cp-54},
    {0x1.efa1bee615a27p+0, 0x1.dc7f486a4b6b0p-54},
    {0x1.f252b376bba97p+0, 0x1.3a1a5bf0d8e43p-54},
    {0x1.f50765b6e4540p+0, 0x1.9d3e12dd8a18bp-54},
    {0x1.f7bfdad9cbe14p+0, -0x1.dbb12d006350ap-54},
    {0x1.fa7c1819e90d8p+0, 0x1.74853f3a5931ep-55},
    {0x1.fd3c22b8f71f1p+0, 0x1.2eb74966579e7p-57},
};

/* log_core splits x = 2^e * z with z in [0.708984375, 1.41796875) and cuts
 * that range into 128 intervals of equal bit-pattern width. Per interval:
 * a ~ 1/(interval centre) rounded to 32 bits, so that zhi*a - 1 is exact for
 * a 21-bit zhi, and log(1/a) = hi + lo. The interval around 1 has a = 1, so
 * log(x) near 1 suffers no cancellation. */
static const struct { double a, hi, lo; } DM_LOG_TAB[128] = {
    {0x1.6816816800000p+0, -0x1.5d5bddf555f30p-2, 0x1.6541948cbb8a3p-56},
    {0x1.661ec6a600000p+0, -0x1.57bf753f351fbp-2, 0x1.0979b55f88843p-57},
    {0x1.642c859000000p+0, -0x1.522ae0718a3d8p-2, 0x1.8fbe9b38a6acfp-57},
    {0x1.623fa77000000p+0, -0x1.4c9e09e132c3cp-2, 0x1.123815b147a5fp-58},
    {0x1.6058160600000p+0, -0x1.4718dc288c41bp-2, -0x1.8eac414c572e5p-60},
    {0x1.5e75bb8e00000p+0, -0x1.419b4240468c7p-2, -0x1.0d340038277a9p-57},
    {0x1.5c9882ba00000p+0, -0x1.3c25277593184p-2, 0x1.2aff9e50a8da8p-56},
    {0x1.5ac056b000000p+0, -0x1.36b6776ba1117p-2, 0x1.32510e883858fp-58},
    {0x1.58ed230800000p+0, -0x1.314f1e1cf5ce4p-2, 0x1.3d6a109e5c3ddp-56},
    {0x1.571ed3c600000p+0, -0x1.2bef07d0b1354p-2, 0x1.831e69fd85e7cp-56},
    {0x1.5555555600000p+0, -0x1.269621154db92p-2, -0x1.e0cfadd9db0d5p-56},
    {0x1.5390949000000p+0, -0x1.214456d32b8d4p-2, -0x1.f75d91aeba7f0p-57},
    {0x1.51d07eae00000p+0, -0x1.1bf9963516b95p-2, 0x1.12b3c8424922bp-57},
    {0x1.5015015000000p+0, -0x1.16b5ccba8fb73p-2, -0x1.66fb528b40935p-56},
    {0x1.4e5e0a7200000p+0, -0x1.1178e81f9e47cp-2, 0x1.0ee7e5f01ca87p-57},
    {0x1.4cab887200000p+0, -0x1.0c42d674fe2e3p-2, -0x1.160631d5d117fp-58},
    {0x1.4afd6a0600000p+0, -0x1.0713860765862p-2, -0x1.cd7ce6d4e929fp-56},
    {0x1.49539e3c00000p+0, -0x1.01eae564fc691p-2, 0x1.19cd4bd2927aap-59},
    {0x1.47ae147a00000p+0, -0x1.f991c6c5bb379p-3, -0x1.f5ec066f97d2ap-57},
    {0x1.460cbc8000000p+0, -0x1.ef5ade51cffe6p-3, 0x1.092b2ddc705f6p-58},
    {0x1.446f865600000p+0, -0x1.e530effd51012p-3, -0x1.2261c41f43023p-59},
    {0x1.42d6625e00000p+0, -0x1.db13db1198940p-3, -0x1.a97d0c9f97010p-58},
    {0x1.4141414200000p+0, -0x1.d1037f2b15e7bp-3, -0x1.60085242473dep-57},
    {0x1.3fb013fc00000p+0, -0x1.c6ffbc7560f71p-3, 0x1.8efb42c579f3fp-57},
    {0x1.3e22cbce00000p+0, -0x1.bd087381dd8adp-3, -0x1.dcc4df6a515bep-60},
    {0x1.3c995a4800000p+0, -0x1.b31d85777ce3dp-3, 0x1.635feb386a931p-57},
    {0x1.3b13b13c00000p+0, -0x1.a93ed3cead9e3p-3, -0x1.bc1fa9de97683p-57},
    {0x1.3991c2c200000p+0, -0x1.9f6c407399664p-3, -0x1.350b8605e6a54p-59},
    {0x1.3813813800000p+0, -0x1.95a5adcef017fp-3, -0x1.142a507fb7a3cp-58},
    {0x1.3698df3e00000p+0, -0x1.8beafeb45fe8cp-3, -0x1.55a5436997a46p-58},
    {0x1.3521cfb200000p+0, -0x1.823c16505a3c2p-3, 0x1.128d0e70be9bdp-57},
    {0x1.33ae45b600000p+0, -0x1.7898d857b4c73p-3, -0x1.ef30e6bcfb3b3p-58},
    {0x1.323e34a200000p+0, -0x1.6f0128b2b6abcp-3, 0x1.8e3b2c21e187cp-57},
    {0x1.30d1901400000p+0, -0x1.6574ebef2133ap-3, 0x1.d8638f461f0bfp-60},
    {0x1.2f684bda00000p+0, -0x1.5bf406b4c3db2p-3, 0x1.1f6b44c0df7f2p-61},
    {0x1.2e025c0400000p+0, -0x1.527e5e453b58dp-3, 0x1.779a68239829cp-61},
    {0x1.2c9fb4d800000p+0, -0x1.4913d832bb561p-3, 0x1.0d5804930f136p-58},
    {0x1.2b404ad000000p+0, -0x1.3fb45a59128ccp-3, 0x1.d87f6a354d057p-57},
    {0x1.29e4129e00000p+0, -0x1.365fcaff99016p-3, -0x1.7d289a5b94473p-58},
    {0x1.288b012800000p+0, -0x1.2d1610c4a813ap-3, 0x1.4a0abf25afb92p-58},
    {0x1.27350b8800000p+0, -0x1.23d712a41c202p-3, 0x1.6e39161051d6ap-57},
    {0x1.25e2270800000p+0, -0x1.1aa2b7e1ff72ap-3, 0x1.c6f01d9b2ef7fp-59},
    {0x1.2492492400000p+0, -0x1.1178e81e7e47cp-3, 0x1.0ee3a5f01c93bp-58},
    {0x1.2345678a00000p+0, -0x1.08598b5c33a07p-3, 0x1.dd856d902bef0p-57},
    {0x1.21fb781200000p+0, -0x1.fe89139bfd566p-4, 0x1.aca56215f939bp-58},
    {0x1.20b470c600000p+0, -0x1.ec739829c1120p-4, 0x1.a37ca917810a2p-59},
    {0x1.1f7047dc00000p+0, -0x1.da727637446a2p-4, -0x1.401da71733017p-58},
    {0x1.1e2ef3b400000p+0, -0x1.c885801c04b23p-4, -0x1.a38c9559a6706p-58},
    {0x1.1cf06ada00000p+0, -0x1.b6ac88d895b1cp-4, 0x1.006c2ed1ca5bdp-59},
    {0x1.1bb4a40400000p+0, -0x1.a4e76404dbc38p-4, 0x1.5baac203e439fp-58},
    {0x1.1a7b961200000p+0, -0x1.9335e5da94989p-4, 0x1.47bc85704cc10p-58},
    {0x1.1945380800000p+0, -0x1.8197e2e88e3f0p-4, -0x1.b5d0dffbecd93p-60},
    {0x1.1811811800000p+0, -0x1.700d30adac0e1p-4, 0x1.72666212cdd10p-61},
    {0x1.16e0689400000p+0, -0x1.5e95a4d7391cbp-4, -0x1.f37d25c5c44fbp-58},
    {0x1.15b1e5f800000p+0, -0x1.4d3115dc07eacp-4, -0x1.75d742c784801p-58},
    {0x1.1485f0e000000p+0, -0x1.3bdf5a731ee64p-4, -0x1.79076d3b5a9f5p-59},
    {0x1.135c811400000p+0, -0x1.2aa04a4df17a5p-4, 0x1.d211b8d2f9f80p-58},
    {0x1.12358e7600000p+0, -0x1.1973bd1705567p-4, 0x1.7573c67a6acc5p-59},
    {0x1.1111111200000p+0, -0x1.08598b67e3a07p-4, 0x1.def809902b0e8p-58},
    {0x1.0fef011000000p+0, -0x1.eea31c026b87cp-5, 0x1.3e53c93b7b66ap-59},
    {0x1.0ecf56be00000p+0, -0x1.ccb73cd15b2ccp-5, 0x1.e52bf0500f25fp-59},
    {0x1.0db20a8800000p+0, -0x1.aaef2cf2b10fcp-5, -0x1.962fbb42d8bd6p-61},
    {0x1.0c9714fc00000p+0, -0x1.894aa14ffb343p-5, -0x1.a87697660a2cdp-60},
    {0x1.0b7e6ec200000p+0, -0x1.67c94f228bb58p-5, -0x1.03a056505e465p-59},
    {0x1.0a6810a600000p+0, -0x1.466aed335e3eap-5, 0x1.cec737f4a1857p-59},
    {0x1.0953f39000000p+0, -0x1.252f32f6d183fp-5, 0x1.9483792615919p-59},
    {0x1.0842108400000p+0, -0x1.0415d89a74444p-5, -0x1.c04cf1d75360dp-59},
    {0x1.073260a400000p+0, -0x1.c63d2ea24aaf2p-6, 0x1.cfe38a686c739p-60},
    {0x1.0624dd3000000p+0, -0x1.849252c48cabfp-6, 0x1.d7b2d0619c13cp-60},
    {0x1.05197f7e00000p+0, -0x1.432a927c00cc1p-6, 0x1.8f2e139003434p-60},
    {0x1.0410410400000p+0, -0x1.0205658535847p-6, -0x1.27c0e8416e71ap-60},
    {0x1.03091b5200000p+0, -0x1.82448a3d8a2aap-7, -0x1.04a4e137f09a5p-62},
    {0x1.0204081000000p+0, -0x1.010157488de71p-7, -0x1.45e62d417ce25p-62},
    {0x1.0101010200000p+0, -0x1.0080569388b35p-8, -0x1.d9e5b8cf783dcp-62},
    {0x1.0000000000000p+0, 0x0.0p+0, 0x0.0p+0},
    {0x1.fc07f02000000p-1, 0x1.fe02a69106789p-8, -0x1.d44b7e3713414p-67},
    {0x1.f81f81f800000p-1, 0x1.fc0a8b17c03e4p-7, -0x1.82e92c596428cp-62},
    {0x1.f44659e400000p-1, 0x1.7b91b0925b11bp-6, -0x1.5a83aace3a20cp-60},
    {0x1.f07c1f0800000p-1, 0x1.f829b0df83300p-6, 0x1.3403f04f1eef8p-60},
    {0x1.ecc07b3000000p-1, 0x1.39e87ba1ebd60p-5, -0x1.5bf6937f551b8p-59},
    {0x1.e9131ac000000p-1, 0x1.77458f532dcfcp-5, 0x1.19d3ca87b8d41p-59},
    {0x1.e573ac9000000p-1, 0x1.b42dd713971bfp-5, -0x1.eb8f59c130494p-60},
    {0x1.e1e1e1e200000p-1, 0x1.f0a30bff162a6p-5, 0x1.85f725c5bbacap-59},
    {0x1.de5d6e4000000p-1, 0x1.16536ee637ae1p-4, -0x1.795a3e8c22e2fp-60},
    {0x1.dae6076c00000p-1, 0x1.341d795e3d1d1p-4, -0x1.b5817227becf4p-58},
    {0x1.d77b654c00000p-1, 0x1.51b073ec2183fp-4, 0x1.a4c259a1a8b7ep-58},
    {0x1.d41d41d400000p-1, 0x1.6f0d28af56b4cp-4, -0x1.906b99184b991p-58},
    {0x1.d0cb58f600000p-1, 0x1.8c345d6b39b21p-4, -0x1.46493ab340e50p-61},
    {0x1.cd85689000000p-1, 0x1.a926d3a6ad563p-4, 0x1.943748aa70eb4p-58},
    {0x1.ca4b305600000p-1, 0x1.c5e548f51c743p-4, 0x1.5d649ef8161b0p-60},
    {0x1.c71c71c800000p-1, 0x1.e27076daaf2e6p-4, -0x1.5f578001e0c0dp-60},
    {0x1.c3f8f01c00000p-1, 0x1.fec9131ffeabbp-4, -0x1.573c99981b35dp-58},
    {0x1.c0e0703800000p-1, 0x1.0d77e7cd88e59p-3, 0x1.9a5ec5e9030acp-57},
    {0x1.bdd2b89a00000p-1, 0x1.1b72ad4f867a0p-3, 0x1.488eab472cbc2p-58},
    {0x1.bacf914c00000p-1, 0x1.29552f827f523p-3, 0x1.301871c407dbfp-57},
    {0x1.b7d6c3de00000p-1, 0x1.371fc20038f74p-3, 0x1.de837e2af186dp-58},
    {0x1.b4e81b4e00000p-1, 0x1.44d2b6cf17d1ep-3, 0x1.9f65f543e1fcfp-57},
    {0x1.b203640600000p-1, 0x1.526e5e3dcb438p-3, -0x1.743994a470c2ep-57},
    {0x1.af286bca00000p-1, 0x1.5ff3070af93d4p-3, -0x1.bc5eefafc6f6dp-58},
    {0x1.ac5701ac00000p-1, 0x1.6d60fe733d21dp-3, -0x1.caa3968ecd162p-57},
    {0x1.a98ef60600000p-1, 0x1.7ab890242d909p-3, 0x1.bed2f2d6a0893p-59},
    {0x1.a6d01a6e00000p-1, 0x1.87fa064d3c911p-3, -0x1.bf2337fa08fedp-57},
    {0x1.a41a41a400000p-1, 0x1.9525a9cfc56b4p-3, 0x1.d905c1d4e2e26p-57},
    {0x1.a16d3f9800000p-1, 0x1.a23bc1fc6b563p-3, 0x1.93a21b07a991ap-59},
    {0x1.9ec8e95200000p-1, 0x1.af3c94e32bff3p-3, -0x1.38cedf3641e59p-58},
    {0x1.9c2d14ee00000p-1, 0x1.bc28674448cd6p-3, 0x1.4fdefc4870f75p-58},
    {0x1.9999999a00000p-1, 0x1.c8ff7c77a9a22p-3, -0x1.4f589f843403cp-57},
    {0x1.970e4f8000000p-1, 0x1.d5c216b8fbb91p-3, 0x1.6e843597e4e95p-57},
    {0x1.948b0fce00000p-1, 0x1.e27076dfcf2e6p-3, -0x1.60d34001e035dp-59},
    {0x1.920fb49e00000p-1, 0x1.ef0adcb8f5936p-3, 0x1.48c01d50dbfbap-57},
    {0x1.8f9c18fa00000p-1, 0x1.fb9186d4a3e2bp-3, -0x1.caa4a64f21ad6p-57},
    {0x1.8d3018d400000p-1, 0x1.04025948bd041p-2, -0x1.2883117a504fbp-57},
    {0x1.8acb90f600000p-1, 0x1.0a324e29290e3p-2, 0x1.7dede68061c9ep-56},
    {0x1.886e5f0a00000p-1, 0x1.1058bf9cccad5p-2, 0x1.8a6e52b4cb56cp-58},
    {0x1.8618618600000p-1, 0x1.1675cabafa60ep-2, 0x1.ce73eab883722p-61},
    {0x1.83c977ac00000p-1, 0x1.1c898c14699fbp-2, -0x1.0bf7e2aff2a39p-60},
    {0x1.8181818200000p-1, 0x1.22941fbba7966p-2, -0x1.76e82309628dfp-56},
    {0x1.7f405fd000000p-1, 0x1.2895a13e286a3p-2, 0x1.7ad2cc13f040fp-56},
    {0x1.7d05f41800000p-1, 0x1.2e8e2bad91d31p-2, -0x1.8f4adb95ebdfcp-56},
    {0x1.7ad2208e00000p-1, 0x1.347dd9a9afd55p-2, -0x1.4dd46180919f7p-57},
    {0x1.78a4c81800000p-1, 0x1.3a64c555545eap-2, -0x1.c66d51945f9cfp-57},
    {0x1.767dce4400000p-1, 0x1.404308667a7e4p-2, -0x1.0bb1ae082cf09p-56},
    {0x1.745d174600000p-1, 0x1.4618bc2145ec2p-2, 0x1.f42fecdeccf1ap-56},
    {0x1.724287f400000p-1, 0x1.4be5f958a78a1p-2, -0x1.2584a5b0480f5p-57},
    {0x1.702e05c000000p-1, 0x1.51aad874df82dp-2, 0x1.3a27ac19f5b38p-59},
    {0x1.6e1f76b400000p-1, 0x1.57677174e5a6cp-2, 0x1.526d632836610p-56},
    {0x1.6c16c16c00000p-1, 0x1.5d1bdbf5c09cap-2, 0x1.4236b83dc7fe1p-56},
    {0x1.6a13cd1600000p-1, 0x1.62c82f2964795p-2, 0x1.7bc9bd152ff13p-57},
};

/* ------------------------------------------------- sin, cos, tan */

/* sin(r) = r + r^3 (S1 + S2 r^2 + ... + S6 r^10) on [0, pi/4],
 * fit 2^-57.9 relative. */
#define DM_S1 (-0x1.5555555555548p-3)
#define DM_S2 0x1.111111110f730p-7
#define DM_S3 (-0x1.a01a019be9217p-13)
#define DM_S4 0x1.71de35552b533p-19
#define DM_S5 (-0x1.ae5e4b83e58c0p-26)
#define DM_S6 0x1.5d8b55954e14dp-33

/* cos(r) = 1 - r^2/2 + r^4 (C1 + C2 r^2 + ... + C6 r^10) on [0, pi/4],
 * fit 2^-63.9 relative. */
#define DM_C1 0x1.555555555554bp-5
#define DM_C2 (-0x1.6c16c16c15015p-10)
#define DM_C3 0x1.a01a019c8f254p-16
#define DM_C4 (-0x1.27e4f7f19148cp-22)
#define DM_C5 0x1.1ee9dbcefbf7bp-29
#define DM_C6 (-0x1.8fa6848755372p-37)

/* ------------------------------------------------ atan, asin, acos */

/* atan(u) = u + u^3 (A1 + A2 u^2 + ... + A12 u^22) on [0, 1/2],
 * fit 2^-57.8 relative. */
#define DM_A1 (-0x1.5555555555516p-2)
#define DM_A2 0x1.999999999113bp-3
#define DM_A3 (-0x1.249249215da9dp-3)
#define DM_A4 0x1.c71c7090d1628p-4
#define DM_A5 (-0x1.745cf4c8ab991p-4)
#define DM_A6 0x1.3b113d9688086p-4
#define DM_A7 (-0x1.10f31d53b1de9p-4)
#define DM_A8 0x1.dfe95eb4f5e0ap-5
#define DM_A9 (-0x1.a397f26997ccfp-5)
#define DM_A10 0x1.56f477ddbaac7p-5
#define DM_A11 (-0x1.c17b854b22d42p-6)
#define DM_A12 0x1.4b7de689060d6p-7

static const double DM_ATAN_C[12] = {DM_A1, DM_A2, DM_A3, DM_A4, DM_A5,  DM_A6,
                                     DM_A7, DM_A8, DM_A9, DM_A10, DM_A11, DM_A12};

/* asin(x) = x + x^3 (B1 + B2 x^2 + ... + B13 x^24) on [0, 1/2],
 * fit 2^-59.9 relative. */
#define DM_B1 0x1.5555555555577p-3
#define DM_B2 0x1.333333332e131p-4
#define DM_B3 0x1.6db6db721267fp-5
#define DM_B4 0x1.f1c71a94f2de2p-6
#define DM_B5 0x1.6e8bdee0436f4p-6
#define DM_B6 0x1.1c49f05c73abbp-6
#define DM_B7 0x1.ca1f8d7e45316p-7
#define DM_B8 0x1.7585891771cf5p-7
#define DM_B9 0x1.613c8ff9e5208p-7
#define DM_B10 0x1.e5f552cef3cdcp-9
#define DM_B11 0x1.639c80d09b0f8p-6
#define DM_B12 (-0x1.57fd8c9d3facap-6)
#define DM_B13 0x1.0b46c0e39a510p-5

static const double DM_ASIN_C[12] = {DM_B1, DM_B2, DM_B3, DM_B4, DM_B5,  DM_B6,
                                     DM_B7, DM_B8, DM_B9, DM_B10, DM_B11, DM_B12};

/* --------------------------------------------------- exp, log, tanh */

/* exp(r) = 1 + r + r^2 (E2 + E3 r + E4 r^2 + E5 r^3) for |r| <= ln2/256,
 * fit 2^-65.3. */
#define DM_E2 0x1.ffffffffffdb8p-2
#define DM_E3 0x1.555555555576bp-3
#define DM_E4 0x1.55555cf9103edp-5
#define DM_E5 0x1.11110f0922144p-7

/* log1p(r) = r + r^2 (L2 + L3 r + ... + L7 r^5) for r in [-0.0039, 0.0040],
 * fit 2^-72.9 absolute. */
#define DM_L2 (-0x1.0000000000001p-1)
#define DM_L3 0x1.5555555555556p-2
#define DM_L4 (-0x1.fffffffea1a83p-3)
#define DM_L5 0x1.99999998b8138p-3
#define DM_L6 (-0x1.555776f11f538p-3)
#define DM_L7 0x1.24947254a6acap-3

/* Bit pattern of the lower end of the significand range used by log_core. */
#define DM_LOG_OFF 0x3fe6b00000000000ull

/* tanh(x) = x + x^3 (T1 + T2 x^2 + T3 x^4 + T4 x^6) on [0, 1/25],
 * fit 2^-62.1 relative. */
#define DM_T1 (-0x1.555555555550cp-2)
#define DM_T2 0x1.1111111037edap-3
#define DM_T3 (-0x1.ba1b88be7141dp-5)
#define DM_T4 0x1.65be40ea45200p-6

#endif

