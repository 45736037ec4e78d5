package secrets

import "golang.org/x/sys/cpu"

// simdOK: the CPU (and the OS) have AVX-512 with its byte permutes (VBMI): Ice Lake and later,
// Zen 4 and later. A Scanner without its tables (tests make one) uses the scalar loop alone.
var simdOK = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI

// keywordMasks writes, for each of blocks blocks of 64 places from p, the places that may start a
// keyword (simd.go); p[0 : 64*blocks+3] must be readable.
//
//go:noescape
func keywordMasks(p *byte, blocks int, t *simdTables, out *uint64)

// quotesOK: the CPU has AVX2, which quoteMasks uses.
var quotesOK = cpu.X86.HasAVX2

// quoteMasks writes, for each of blocks blocks of 64 bytes from p, where its quotes and its
// backslashes are.
//
//go:noescape
func quoteMasks(p *byte, blocks int, quotes, backslashes *uint64)

// base64Blocks counts the 32-byte blocks from p that hold only base64 bytes, up to the first that
// does not (blob).
//
//go:noescape
func base64Blocks(p *byte, blocks int, t *[96]byte) int
