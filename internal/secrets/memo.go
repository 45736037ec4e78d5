package secrets

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"sync"
)

// memo remembers the hits of the long string values a Scanner has scanned, by their raw bytes:
// genuine logs carry the same text many times (a tool's result in `message.content` and again in
// `toolUseResult`, a sub-agent's prompt in its log and its parent's, a file read twice): 28 % of
// the string bytes of the genuine history (docs/PERFORMANCE.md). A value's hits depend on its bytes
// alone (rules, allowlists and `gitleaks:allow` all look inside it), so a repeat takes the first
// one's hits, moved to where it stands.
//
// The key is a 64-bit hash under a random seed, the length and the first and last 8 bytes folded
// in: a wrong answer needs a value of the same length and ends whose hash collides with one of
// the at most 2^16 remembered (2^-48 a value). It holds no text: hashes, positions and rule ids.
type memo struct {
	seed   maphash.Seed
	shards [memoShards]memoShard
}

const (
	memoMin    = 1024    // shorter values cost less to scan than to hash and look up (and hold 7 % of the repeats)
	memoMax    = 1 << 12 // entries a shard holds before it is emptied: a long-lived server's memory stays bounded
	memoShards = 16      // one lock each: the scan runs on every core
)

type memoKey struct {
	h, ends uint64
	n       int
}

type memoShard struct {
	mu sync.Mutex
	m  map[memoKey][]Hit
}

func newMemo() *memo {
	return &memo{seed: maphash.MakeSeed()}
}

// key is body's key; body is at least memoMin bytes.
func (m *memo) key(body []byte) memoKey {
	n := len(body)
	return memoKey{maphash.Bytes(m.seed, body), binary.LittleEndian.Uint64(body) ^ bits.RotateLeft64(binary.LittleEndian.Uint64(body[n-8:]), 32), n}
}

// get appends the remembered hits of the value with key k, moved by base, to out.
func (m *memo) get(k memoKey, base int32, out []Hit) ([]Hit, bool) {
	sh := &m.shards[k.h%memoShards]
	sh.mu.Lock()
	hits, ok := sh.m[k]
	sh.mu.Unlock()
	if !ok {
		return out, false
	}
	for _, h := range hits {
		h.Start += base
		h.End += base
		out = append(out, h)
	}
	return out, true
}

// put remembers the hits of the value with key k, found at offset base.
func (m *memo) put(k memoKey, base int32, found []Hit) {
	var hits []Hit
	if len(found) > 0 {
		hits = make([]Hit, len(found))
		for i, h := range found {
			h.Start -= base
			h.End -= base
			hits[i] = h
		}
	}
	sh := &m.shards[k.h%memoShards]
	sh.mu.Lock()
	if sh.m == nil || len(sh.m) >= memoMax {
		sh.m = make(map[memoKey][]Hit, 64)
	}
	sh.m[k] = hits
	sh.mu.Unlock()
}
