#include "textflag.h"

// Offsets in simdTables (simd.go).
#define CLS 0
#define P01 128
#define P12 256
#define P02 384
#define P13 512
#define P23 640
#define P03 768
#define P3H 896
#define K03 1024
#define K07 1088
#define K1F 1152
#define BITS 1216

// PAIR sets kout's bit j where the class pair (x[j], y[j]) is in the 32×32 bit table held in lo
// and hi: byte (y&3)<<5 | x, bit y>>2. yi is (y&3)<<5 and yb is 1<<(y>>2), made once a block for
// each class that is some pair's second (YB).
#define PAIR(x, yi, yb, lo, hi, kout) \
	VPORQ    x, yi, Z5; \
	VPERMI2B hi, lo, Z5; \
	VPTESTMB yb, Z5, kout

// YB makes PAIR's yi and yb of the classes y.
#define YB(y, yi, yb) \
	VPANDQ  Z25, y, yi; \
	VPSLLW  $5, yi, yi; \
	VPSRLW  $2, y, yb; \
	VPANDQ  Z28, yb, yb; \
	VPSHUFB yb, Z29, yb

// CLASSIFY loads 64 bytes at off(SI) into z as their classes (cls; 0 for a byte of 0x80 or more).
#define CLASSIFY(off, z) \
	VMOVDQU64  off(SI), z; \
	VPMOVB2M   z, K1; \
	KNOTQ      K1, K1; \
	VPERMI2B.Z CLS+64(DI), Z30, K1, z

// func keywordMasks(p *byte, blocks int, t *simdTables, out *uint64)
//
// Registers: Z0–Z3 the four places' classes, Z4 the hash, Z5 a lookup, Z8–Z21 the seven tables,
// Z22–Z24 and Z27, Z31, Z6 the second classes' yi and yb, Z25 Z26 Z28 Z29 Z30 constants.
TEXT ·keywordMasks(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ t+16(FP), DI
	MOVQ out+24(FP), DX
	TESTQ CX, CX
	JZ   done
	VMOVDQU64 CLS(DI), Z30
	VMOVDQU64 K03(DI), Z25
	VMOVDQU64 K1F(DI), Z26
	VMOVDQU64 K07(DI), Z28
	VMOVDQU64 BITS(DI), Z29
	VMOVDQU64 P01(DI), Z8
	VMOVDQU64 P01+64(DI), Z9
	VMOVDQU64 P12(DI), Z10
	VMOVDQU64 P12+64(DI), Z11
	VMOVDQU64 P02(DI), Z12
	VMOVDQU64 P02+64(DI), Z13
	VMOVDQU64 P13(DI), Z14
	VMOVDQU64 P13+64(DI), Z15
	VMOVDQU64 P23(DI), Z16
	VMOVDQU64 P23+64(DI), Z17
	VMOVDQU64 P03(DI), Z18
	VMOVDQU64 P03+64(DI), Z19
	VMOVDQU64 P3H(DI), Z20
	VMOVDQU64 P3H+64(DI), Z21

loop:
	CLASSIFY(0, Z0)
	CLASSIFY(1, Z1)
	CLASSIFY(2, Z2)
	CLASSIFY(3, Z3)
	YB(Z1, Z22, Z27)
	YB(Z2, Z23, Z31)
	YB(Z3, Z24, Z6)
	// The third class with a hash of the first two, (c0 + 7*c1) & 31: a pair test that sees
	// all three bytes at once (c1<<3 stays inside its byte: classes are under 32).
	VPSLLW $3, Z1, Z4
	VPSUBB Z1, Z4, Z4
	VPADDB Z0, Z4, Z4
	VPANDQ Z26, Z4, Z4
	PAIR(Z0, Z22, Z27, Z8, Z9, K2)
	PAIR(Z1, Z23, Z31, Z10, Z11, K3)
	PAIR(Z0, Z23, Z31, Z12, Z13, K4)
	PAIR(Z1, Z24, Z6, Z14, Z15, K5)
	PAIR(Z2, Z24, Z6, Z16, Z17, K6)
	PAIR(Z0, Z24, Z6, Z18, Z19, K7)
	KANDQ K3, K2, K2
	KANDQ K5, K4, K4
	KANDQ K7, K6, K6
	PAIR(Z4, Z23, Z31, Z20, Z21, K3)
	KANDQ K4, K2, K2
	KANDQ K6, K3, K3
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
