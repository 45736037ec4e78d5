//go:build linux

// Command mapfloor maps a file as ccdag does (read-only, every page populated) and counts its
// newlines and quotes: the least any reader of every byte pays, printed beside `ccdag check` by
// scripts/perf-history.sh (docs/PERFORMANCE.md, issue 12's single-file target).
package main

import (
	"bytes"
	"fmt"
	"os"
	"syscall"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: mapfloor FILE")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		fmt.Fprintln(os.Stderr, "mapfloor: cannot size", os.Args[1], err)
		os.Exit(1)
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED|syscall.MAP_POPULATE)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(bytes.Count(b, []byte{'\n'}), bytes.Count(b, []byte{'"'}))
}
