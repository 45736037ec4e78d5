// Package version holds the build's version, set by the linker (see Makefile).
package version

import "runtime/debug"

// Version is overwritten at link time with `git describe`.
var Version = "dev"

// String returns the version with the Go toolchain and VCS revision, when known.
func String() string {
	s := "ccdag " + Version
	if bi, ok := debug.ReadBuildInfo(); ok {
		s += " (" + bi.GoVersion
		for _, kv := range bi.Settings {
			if kv.Key == "vcs.revision" && len(kv.Value) >= 12 {
				s += ", " + kv.Value[:12]
			}
		}
		s += ")"
	}
	return s
}
