// Package catalogtest helps tests of the history cache's users (cli, lsp): it marks what the
// cache holds, so a row answered from the cache shows it.
package catalogtest

import (
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/cache"
	"github.com/ccdag/ccdag/internal/catalog"
)

// OpenCache opens the history cache of $CCDAG_CACHE_DIR (the test binary's own), for the caller
// to close.
func OpenCache(t testing.TB) *cache.Cache {
	t.Helper()
	dir, _ := cache.Dir()
	c, err := cache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// MarkTitles puts mark before the cached title of every session in the cache of $CCDAG_CACHE_DIR
// (each entry's stamp kept) and returns how many rows it marked.
func MarkTitles(t testing.TB, mark string) int {
	t.Helper()
	c := OpenCache(t)
	defer c.Close()
	got, err := c.All()
	if err != nil {
		t.Fatal(err)
	}
	var put []cache.Entry
	for k, e := range got {
		if strings.HasPrefix(k, "tail:") { // a log's version, not a row
			continue
		}
		r, err := catalog.Decode(e.Data)
		if err != nil {
			t.Fatal(err)
		}
		r.Title = mark + " " + r.Title
		e.Data, _ = catalog.Encode(r)
		put = append(put, e)
	}
	if err := c.Put(put, nil); err != nil {
		t.Fatal(err)
	}
	return len(put)
}
