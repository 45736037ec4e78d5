#include "textflag.h"

// The one-letter escapes' letters (" \ / b f n r t: 0x22 0x5c 0x2f 0x62 0x66 0x6e 0x72 0x74) as a
// set looked up by nibbles: a bit per high nibble (2, 5, 6, 7), the low nibble's table holding the
// bits of the high nibbles it goes with. Each table twice, for the two lanes.
DATA escLo<>+0x00(SB)/8, $0x00040008000d0000
DATA escLo<>+0x08(SB)/8, $0x0104000200000000
DATA escLo<>+0x10(SB)/8, $0x00040008000d0000
DATA escLo<>+0x18(SB)/8, $0x0104000200000000
GLOBL escLo<>(SB), RODATA|NOPTR, $32

DATA escHi<>+0x00(SB)/8, $0x0804020000010000
DATA escHi<>+0x08(SB)/8, $0x0000000000000000
DATA escHi<>+0x10(SB)/8, $0x0804020000010000
DATA escHi<>+0x18(SB)/8, $0x0000000000000000
GLOBL escHi<>(SB), RODATA|NOPTR, $32

// func stringBlock(p *byte, n int) (off int, q, bs, letters, u uint64)  (AVX2)
TEXT ·stringBlock(SB), NOSPLIT, $0-56
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	XORQ DX, DX
	MOVL $0x22, AX
	MOVQ AX, X1
	VPBROADCASTB X1, Y1
	MOVL $0x5c, AX
	MOVQ AX, X2
	VPBROADCASTB X2, Y2

loop:
	LEAQ 64(DX), AX
	CMPQ AX, CX
	JGT  none
	VMOVDQU  (SI)(DX*1), Y3
	VMOVDQU  32(SI)(DX*1), Y4
	VPCMPEQB Y1, Y3, Y5
	VPCMPEQB Y2, Y3, Y6
	VPCMPEQB Y1, Y4, Y7
	VPCMPEQB Y2, Y4, Y8
	VPOR     Y5, Y6, Y9
	VPOR     Y7, Y8, Y10
	VPOR     Y9, Y10, Y9
	VPTEST   Y9, Y9
	JNZ      found
	ADDQ     $64, DX
	JMP      loop

found:
	MOVQ      DX, off+16(FP)
	VPMOVMSKB Y5, AX
	VPMOVMSKB Y7, BX
	SHLQ      $32, BX
	ORQ       BX, AX
	MOVQ      AX, q+24(FP)
	VPMOVMSKB Y6, AX
	VPMOVMSKB Y8, BX
	SHLQ      $32, BX
	ORQ       BX, AX
	MOVQ      AX, bs+32(FP)
	TESTQ     AX, AX
	JZ        noescape

	// The letters: lo[c&15] & hi[c>>4] != 0.
	MOVL         $0x0f, AX
	MOVQ         AX, X11
	VPBROADCASTB X11, Y11
	VMOVDQU      escLo<>(SB), Y12
	VMOVDQU      escHi<>(SB), Y13
	VPXOR        Y14, Y14, Y14
	VPAND        Y11, Y3, Y5
	VPSRLW       $4, Y3, Y6
	VPAND        Y11, Y6, Y6
	VPSHUFB      Y5, Y12, Y5
	VPSHUFB      Y6, Y13, Y6
	VPAND        Y5, Y6, Y5
	VPCMPEQB     Y14, Y5, Y5
	VPMOVMSKB    Y5, AX
	VPAND        Y11, Y4, Y7
	VPSRLW       $4, Y4, Y8
	VPAND        Y11, Y8, Y8
	VPSHUFB      Y7, Y12, Y7
	VPSHUFB      Y8, Y13, Y8
	VPAND        Y7, Y8, Y7
	VPCMPEQB     Y14, Y7, Y7
	VPMOVMSKB    Y7, BX
	SHLQ         $32, BX
	ORQ          BX, AX
	NOTQ         AX
	MOVQ         AX, letters+40(FP)

	// 'u'
	MOVL         $0x75, AX
	MOVQ         AX, X15
	VPBROADCASTB X15, Y15
	VPCMPEQB     Y15, Y3, Y5
	VPCMPEQB     Y15, Y4, Y7
	VPMOVMSKB    Y5, AX
	VPMOVMSKB    Y7, BX
	SHLQ         $32, BX
	ORQ          BX, AX
	MOVQ         AX, u+48(FP)
	VZEROUPPER
	RET

noescape:
	MOVQ $0, letters+40(FP)
	MOVQ $0, u+48(FP)
	VZEROUPPER
	RET

none:
	MOVQ DX, off+16(FP)
	MOVQ $0, q+24(FP)
	MOVQ $0, bs+32(FP)
	MOVQ $0, letters+40(FP)
	MOVQ $0, u+48(FP)
	VZEROUPPER
	RET
