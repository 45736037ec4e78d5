package jsonrpc

import (
	"bytes"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// A Content-Length that claims far more than comes (a broken client) costs what arrives, not the
// claim; a long body that does arrive whole is read exactly.
func TestAbuseLyingContentLength(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	st := NewSplitStream(strings.NewReader("Content-Length: 900000000\r\n\r\n{\"jsonrpc\":\"2.0\""), io.Discard, nopCloser{})
	if _, _, err := st.readFrame(); err == nil {
		t.Fatal("a body cut short read without an error")
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > firstBody+8<<20 {
		t.Errorf("a 900 MB claim with 17 bytes sent allocated %d MB", got>>20)
	}
	// Past the first buffer, the claim still does not count: 5 MB sent of 900 MB claimed.
	sent := "Content-Length: 900000000\r\n\r\n{\"jsonrpc\":\"2.0\",\"x\":\"" + strings.Repeat("a", 5<<20)
	runtime.ReadMemStats(&before)
	st = NewSplitStream(strings.NewReader(sent), io.Discard, nopCloser{})
	if _, _, err := st.readFrame(); err == nil {
		t.Fatal("a body cut short read without an error")
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 3*5<<20+8<<20 {
		t.Errorf("a 900 MB claim with 5 MB sent allocated %d MB: the buffer should grow with what arrives", got>>20)
	}
	// Bodies around and past the first allocation: every byte, in order.
	for _, n := range []int{1, firstBody - 1, firstBody, firstBody + 1, 2*firstBody + 12345} {
		want := make([]byte, n)
		for i := range want {
			want[i] = byte(i*7 + i>>16)
		}
		got, err := readBody(bytes.NewReader(want), int64(n))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("a %d-byte body: err %v, equal %v", n, err, bytes.Equal(got, want))
		}
	}
}

// A body of bigBody bytes or more is announced to OnBody before it is read (the server raises its
// memory budget with it); a small one is not.
func TestOnBodyAnnouncesLargeBodies(t *testing.T) {
	frame := func(n int) string {
		body := `{"jsonrpc":"2.0","method":"x","params":{"p":"` + strings.Repeat("a", n) + `"}}`
		return "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	}
	small, large := frame(10), frame(bigBody)
	st := NewSplitStream(strings.NewReader(small+large), io.Discard, nopCloser{})
	var told []int64
	st.OnBody(func(n int64) { told = append(told, n) })
	for range 2 {
		if _, _, err := st.readFrame(); err != nil {
			t.Fatal(err)
		}
	}
	if want := int64(len(large) - strings.Index(large, "{")); len(told) != 1 || told[0] != want {
		t.Errorf("OnBody told %v, want [%d]", told, want)
	}
}
