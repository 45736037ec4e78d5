// Package version holds the build's version, set by the linker (see Makefile).
package version

import "runtime/debug"

// Version is overwritten at link time with `git describe`.
var Version = "dev"

// String returns the version with the Go toolchain and VCS revision, when known.
func String() string {
	bi, ok := debug.ReadBuildInfo()
	mod := ""
	if ok {
		mod = bi.Main.Version
	}
	s := "ccdag " + pick(Version, mod)
	if ok {
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

// pick is the version to show: the one the linker stamped (make, goreleaser), else the module's
// version when `go install github.com/ccdag/ccdag/cmd/ccdag@v1.2.3` built it, else "dev".
func pick(linked, module string) string {
	if linked != "dev" || module == "" || module == "(devel)" {
		return linked
	}
	return module
}
