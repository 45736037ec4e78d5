//go:build !unix

package archive

import "os"

// lock: no lock here; two runs into one destination at once are not guarded against.
func lock(*os.Root) (func(), error) { return func() {}, nil }
