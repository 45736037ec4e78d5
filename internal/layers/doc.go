// Package layers holds the test that keeps ARCHITECTURE.md's layering true: every package of
// internal/ sits on a floor, and none imports a package on its floor or above it (no back arrow,
// so no cycle), except the few imports within a floor that ARCHITECTURE.md names.
package layers
