//go:build !linux

package main

import (
	"fmt"
	"os"
)

// The floor is measured as ccdag maps on linux (MAP_POPULATE); elsewhere there is nothing to compare.
func main() {
	fmt.Fprintln(os.Stderr, "mapfloor: linux only")
	os.Exit(2)
}
