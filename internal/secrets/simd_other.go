//go:build !amd64

package secrets

var simdOK, quotesOK = false, false

func keywordMasks(p *byte, blocks int, t *simdTables, out *uint64) {
	panic("secrets: no vector keyword search on this architecture")
}

func quoteMasks(p *byte, blocks int, quotes, backslashes *uint64) {
	panic("secrets: no vector quote search on this architecture")
}

func base64Blocks(p *byte, blocks int, t *[96]byte) int { return 0 }
