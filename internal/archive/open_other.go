//go:build !unix

package archive

const (
	noFollow = 0
	noBlock  = 0
)
