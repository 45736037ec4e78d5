#include "textflag.h"

// Offsets in simdTables (simd.go).
#define CLS 0
#define P01 128
#define P12 640
#define P02 1152
#define P13 1664
#define P23 2176
#define P03 2688
#define P3H 3200
#define K08 3712
#define K10 3776
#define K20 3840
#define K07 3904
#define BITS 3968
#define KF8 4032
#define K3F 4096

// PAIR sets kout's bit j where the class pair (x[j], y[j]) is in the 64×64 bit table at off(DI):
// byte (y>>3)<<6 | x of the table, bit y&7. The table is four chunks of 128 bytes (y>>4), each
// looked up by VPERMT2B with index x | (y&8)<<3, then picked by y's bits 4 and 5.
#define PAIR(x, y, off, kout) \
	VPANDQ    Z25, y, Z5; \
	VPSLLW    $3, Z5, Z5; \
	VPORQ     x, Z5, Z5; \
	VMOVDQU64 off+0(DI), Z10; \
	VPERMT2B  off+64(DI), Z5, Z10; \
	VMOVDQU64 off+128(DI), Z11; \
	VPERMT2B  off+192(DI), Z5, Z11; \
	VMOVDQU64 off+256(DI), Z12; \
	VPERMT2B  off+320(DI), Z5, Z12; \
	VMOVDQU64 off+384(DI), Z13; \
	VPERMT2B  off+448(DI), Z5, Z13; \
	VPTESTMB  Z26, y, K5; \
	VPTESTMB  Z27, y, K6; \
	VPBLENDMB Z11, Z10, K5, Z10; \
	VPBLENDMB Z13, Z12, K5, Z12; \
	VPBLENDMB Z12, Z10, K6, Z10; \
	VPANDQ    Z28, y, Z5; \
	VPSHUFB   Z5, Z29, Z5; \
	VPTESTMB  Z5, Z10, kout

// CLASSIFY loads 64 bytes at off(SI) into z as their classes (cls; 0 for a byte of 0x80 or more).
#define CLASSIFY(off, z) \
	VMOVDQU64  off(SI), z; \
	VPMOVB2M   z, K1; \
	KNOTQ      K1, K1; \
	VPERMI2B.Z CLS+64(DI), Z30, K1, z

// func keywordMasks(p *byte, blocks int, t *simdTables, out *uint64)
TEXT ·keywordMasks(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ t+16(FP), DI
	MOVQ out+24(FP), DX
	TESTQ CX, CX
	JZ   done
	VMOVDQU64 CLS(DI), Z30
	VMOVDQU64 K08(DI), Z25
	VMOVDQU64 K10(DI), Z26
	VMOVDQU64 K20(DI), Z27
	VMOVDQU64 K07(DI), Z28
	VMOVDQU64 BITS(DI), Z29

loop:
	CLASSIFY(0, Z0)
	CLASSIFY(1, Z1)
	CLASSIFY(2, Z2)
	CLASSIFY(3, Z3)
	PAIR(Z0, Z1, P01, K2)
	PAIR(Z1, Z2, P12, K3)
	KANDQ K3, K2, K2
	PAIR(Z0, Z2, P02, K3)
	KANDQ K3, K2, K2
	PAIR(Z1, Z3, P13, K3)
	KANDQ K3, K2, K2
	PAIR(Z2, Z3, P23, K3)
	KANDQ K3, K2, K2
	PAIR(Z0, Z3, P03, K3)
	KANDQ K3, K2, K2
	// The third class with a hash of the first two, (c0 + 7*c1) & 63: a pair test that sees
	// all three bytes at once.
	VPSLLW    $3, Z1, Z4
	VPANDQ    KF8(DI), Z4, Z4
	VPSUBB    Z1, Z4, Z4
	VPADDB    Z0, Z4, Z4
	VPANDQ    K3F(DI), Z4, Z4
	PAIR(Z4, Z2, P3H, K3)
	KANDQ K3, K2, K2
	KMOVQ K2, AX
	MOVQ  AX, (DX)
	ADDQ  $64, SI
	ADDQ  $8, DX
	DECQ  CX
	JNZ   loop
	VZEROUPPER

done:
	RET

// func quoteMasks(p *byte, blocks int, quotes, backslashes *uint64)  (AVX2)
TEXT ·quoteMasks(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ quotes+16(FP), DX
	MOVQ backslashes+24(FP), DI
	TESTQ CX, CX
	JZ   qdone
	MOVL $0x22, AX
	MOVQ AX, X1
	VPBROADCASTB X1, Y1
	MOVL $0x5c, AX
	MOVQ AX, X3
	VPBROADCASTB X3, Y3

qloop:
	VMOVDQU   (SI), Y0
	VMOVDQU   32(SI), Y2
	VPCMPEQB  Y1, Y0, Y4
	VPMOVMSKB Y4, AX
	VPCMPEQB  Y1, Y2, Y5
	VPMOVMSKB Y5, BX
	SHLQ      $32, BX
	ORQ       BX, AX
	MOVQ      AX, (DX)
	VPCMPEQB  Y3, Y0, Y4
	VPMOVMSKB Y4, AX
	VPCMPEQB  Y3, Y2, Y5
	VPMOVMSKB Y5, BX
	SHLQ      $32, BX
	ORQ       BX, AX
	MOVQ      AX, (DI)
	ADDQ      $64, SI
	ADDQ      $8, DX
	ADDQ      $8, DI
	DECQ      CX
	JNZ       qloop
	VZEROUPPER

qdone:
	RET

// func base64Blocks(p *byte, blocks int, t *[96]byte) int  (AVX2)
// How many of the 32-byte blocks from p hold only base64 bytes (A-Z a-z 0-9 + / =), counted up to
// the first that does not. t: the low nibbles' table, the high nibbles' table (a bit per high
// nibble that can go with the low one, each twice for the two lanes), then 0x0f in every byte.
TEXT ·base64Blocks(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ t+16(FP), DI
	XORQ AX, AX
	TESTQ CX, CX
	JZ   bdone
	VMOVDQU (DI), Y4
	VMOVDQU 32(DI), Y5
	VMOVDQU 64(DI), Y6
	VPXOR   Y7, Y7, Y7

bloop:
	VMOVDQU   (SI), Y0
	VPAND     Y6, Y0, Y1
	VPSRLW    $4, Y0, Y2
	VPAND     Y6, Y2, Y2
	VPSHUFB   Y1, Y4, Y1
	VPSHUFB   Y2, Y5, Y2
	VPAND     Y1, Y2, Y1
	VPCMPEQB  Y7, Y1, Y1
	VPMOVMSKB Y1, BX
	TESTL     BX, BX
	JNZ       bend
	ADDQ      $32, SI
	INCQ      AX
	CMPQ      AX, CX
	JLT       bloop

bend:
	VZEROUPPER

bdone:
	MOVQ AX, ret+24(FP)
	RET
