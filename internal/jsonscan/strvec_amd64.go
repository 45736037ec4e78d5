package jsonscan

import "golang.org/x/sys/cpu"

// hasAVX2: the CPU (and the OS) have AVX2, which stringBlock uses.
var hasAVX2 = cpu.X86.HasAVX2

// stringBlock scans the 64-byte blocks from p while n-off >= 64 and returns the first that holds a
// quote or a backslash: its offset and masks (bit k for p[off+k]: quotes, backslashes, the
// one-letter escapes' letters, 'u'). With none, off is where fewer than 64 bytes are left and the
// masks are 0.
//
//go:noescape
func stringBlock(p *byte, n int) (off int, q, bs, letters, u uint64)
