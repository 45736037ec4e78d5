//go:build !unix

package archive

const (
	noFollow = 0
	noBlock  = 0
)

// chmodReadOnlyFD: Windows changes a file's attributes only through a handle opened for writing,
// which a read-only file refuses: its mode is changed by name (os.Root: inside DEST).
const chmodReadOnlyFD = false
