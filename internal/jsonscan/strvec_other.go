//go:build !amd64

package jsonscan

const hasAVX2 = false

func stringBlock(p *byte, n int) (off int, q, bs, letters, u uint64) {
	panic("jsonscan: no vector string scan on this architecture")
}
