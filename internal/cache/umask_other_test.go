//go:build !unix

package cache

import "testing"

func groupReadableUmask(t *testing.T) { t.Skip("no file modes here") }
