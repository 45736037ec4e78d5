//go:build !unix

package cli

import (
	"io/fs"
	"os"
)

// hardLinks: not known here.
func hardLinks(fs.FileInfo) uint64 { return 1 }

// keepOwner: files here have no Unix owner to carry over.
func keepOwner(*os.File, fs.FileInfo) error { return nil }

func ownerOf(fs.FileInfo) (int, bool) { return 0, false }
