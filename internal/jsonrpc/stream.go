// Package jsonrpc is ccdag's JSON-RPC transport for the language server: the LSP base protocol's
// framing, hardened against what clients and attackers send, and the request lifecycle (reply once,
// $/cancelRequest, recovery from panics, initialize/shutdown/exit gating) in front of a method
// table. It fences go.lsp.dev/jsonrpc2 v0.10.0 and works around its defects
// (docs/decisions.md, the jsonrpc2 pin): the in-band placeholder of big params and the
// synthetic ids it needs never reach a handler, which sees a Request with the params and id the
// client sent.
package jsonrpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/ccdag/ccdag/internal/jsonscan"
)

// Stream is the LSP base protocol (Content-Length framing) over a byte stream, hardened: a body
// that is not valid JSON-RPC gets an error reply (or is dropped, for notifications) and reading goes
// on; ids of any JSON type are answered with the id exactly as sent; params larger than
// bigParams (a 100 MB didOpen) are handed to the handler as raw bytes instead of being scanned
// again by the library's decoder. The library's own stream closes the connection on the first bad
// message and cannot represent ids outside int32.
type Stream struct {
	in  *bufio.Reader
	out io.Writer
	c   io.Closer

	wmu   sync.Mutex // one message at a time on the wire
	trace *tracer

	idSeq atomic.Int64
	ids   sync.Map // synthetic string id -> raw JSON id bytes

	blobs *blobs
	big   map[string]ParamsDecoder // by method

	readAt atomic.Int64  // when the last message was read (unix ns), for the benchmarks
	onBody func(n int64) // told a large body's length before it is read (OnBody)
}

// maxBody bounds one message (1 GiB): a larger Content-Length is refused and its body skipped.
const maxBody = 1 << 30

// bigParams is the size above which params travel beside the message, not through the library.
const bigParams = 64 << 10

// syntheticID marks ids the library cannot represent (numbers outside int32, fractions, null, "").
const syntheticID = "\x00ccdag-id:"

// NewStream returns a Stream over rwc.
func NewStream(rwc io.ReadWriteCloser) *Stream {
	return NewSplitStream(rwc, rwc, rwc)
}

// NewSplitStream returns a Stream reading r and writing w (stdin and stdout); Close closes c.
func NewSplitStream(r io.Reader, w io.Writer, c io.Closer) *Stream {
	if f, ok := w.(*os.File); ok {
		growPipe(f)
	}
	if f, ok := r.(*os.File); ok {
		growPipe(f) // a 200 MB didOpen then arrives in 1 MiB reads, not 64 KiB ones
	}
	return &Stream{in: bufio.NewReaderSize(r, 64<<10), out: w, c: c, blobs: &blobs{m: map[int64]any{}}, big: map[string]ParamsDecoder{}}
}

// A ParamsDecoder decodes the params object at b[i] in place (b is the message's own buffer) and
// returns the value and the index past the params.
type ParamsDecoder func(b []byte, i int) (v any, end int, err error)

// DecodeBig has params of method larger than 64 KiB decoded by fn as the envelope is read, in one
// pass (a 100 MB didOpen is not scanned a second time); the handler finds the value in
// Request.Decoded. Call it before serving.
func (s *Stream) DecodeBig(method string, fn ParamsDecoder) { s.big[method] = fn }

// OnBody has fn told the length of each body of bigBody bytes or more before it is read: a server
// that sets Go's soft memory limit by what it holds raises it for a 200 MB didOpen, which otherwise
// arrives against a limit sized for nothing open (the collector and the scavenger then fight the
// growing buffer: 7 s of system time to read it). Call it before the stream is read.
func (s *Stream) OnBody(fn func(n int64)) { s.onBody = fn }

// bigBody is the body length from which OnBody's fn is told.
const bigBody = 1 << 20

// SetTrace has every message in and out written to w (--trace-file). Call it before serving.
func (s *Stream) SetTrace(w io.Writer) { s.trace = &tracer{w: w} }

// LastRead is when the last message was read.
func (s *Stream) LastRead() time.Time { return time.Unix(0, s.readAt.Load()) }

// Held counts what the stream keeps for messages in flight: synthetic ids awaiting their reply and
// big params awaiting their handler. Both are zero once every message has been handled.
func (s *Stream) Held() (ids, params int) {
	s.ids.Range(func(any, any) bool { ids++; return true })
	s.blobs.mu.Lock()
	params = len(s.blobs.m)
	s.blobs.mu.Unlock()
	return ids, params
}

// Close closes the underlying connection.
func (s *Stream) Close() error { return s.c.Close() }

// Read returns the next well-formed message. Malformed ones are answered (when they carry an id)
// and skipped; only a failure of the byte stream itself ends reading.
func (s *Stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		body, n, err := s.readFrame()
		if err != nil {
			return nil, n, err
		}
		if body == nil {
			continue // a frame without a usable length, already reported
		}
		s.readAt.Store(time.Now().UnixNano())
		s.trace.message("recv", body)
		msg, rerr := s.decode(body)
		if rerr != nil {
			s.replyRaw(rerr.id, rerr.code, rerr.msg)
			continue
		}
		if msg == nil {
			continue
		}
		return msg, n, nil
	}
}

// readFrame reads headers and a body. A nil body with a nil error means the frame was unusable
// and has been dealt with.
func (s *Stream) readFrame() ([]byte, int64, error) {
	var total int64
	length := int64(-1)
	sawHeader := false
	for {
		line, err := s.in.ReadSlice('\n')
		total += int64(len(line))
		if err == bufio.ErrBufferFull {
			// a 64 KiB header line is garbage: drop it whole
			for err == bufio.ErrBufferFull {
				line, err = s.in.ReadSlice('\n')
				total += int64(len(line))
			}
			if err != nil {
				return nil, total, err
			}
			continue
		}
		if err != nil {
			if err == io.EOF && total > 0 && !sawHeader {
				return nil, total, io.ErrUnexpectedEOF
			}
			return nil, total, err
		}
		l := strings.TrimSpace(string(line))
		if l == "" {
			if !sawHeader {
				continue // stray blank lines between messages
			}
			break
		}
		sawHeader = true
		// "Content-Length:" anywhere in the line: after a wrong Content-Length the rest of a cut
		// body runs into the next header on one line, and this finds the frame again.
		// ASCII-only lowering keeps byte offsets: strings.ToLower turns an invalid byte into a
		// 3-byte U+FFFD, and the index would no longer point into l (a fuzzer's crash).
		i := strings.LastIndex(asciiLower(l), "content-length:")
		if i < 0 {
			continue // another header, or junk: skip it
		}
		v, perr := strconv.ParseInt(strings.TrimSpace(l[i+len("content-length:"):]), 10, 64)
		if perr != nil || v < 0 {
			length = -2
		} else {
			length = v
		}
	}
	switch {
	case length < 0:
		s.replyRaw(nil, jsonrpc2.ParseError, "missing or invalid Content-Length header")
		return nil, total, nil
	case length > maxBody:
		if _, err := io.CopyN(io.Discard, s.in, length); err != nil {
			return nil, total, err
		}
		s.replyRaw(nil, jsonrpc2.InvalidRequest, fmt.Sprintf("message of %d bytes is larger than %d", length, maxBody))
		return nil, total + length, nil
	case length == 0:
		s.replyRaw(nil, jsonrpc2.ParseError, "empty message body")
		return nil, total, nil
	}
	if s.onBody != nil && length >= bigBody {
		s.onBody(length)
	}
	body, err := readBody(s.in, length)
	if err != nil {
		return nil, total, err
	}
	return body, total + length, nil
}

// copyPiece is how much of a growing body is copied at once.
const copyPiece = 1 << 20

// firstBody is what a body gets before its bytes arrive.
const firstBody = 4 << 20

// readBody reads n bytes into a buffer that grows with what has arrived: it starts at 4 MiB and
// doubles when full, up to n. A Content-Length that lies (a client claiming 900 MB and sending
// 5 MB, or a garbled header) costs about twice what arrived, never its claim; a real 100 MB didOpen
// pays copies adding up to its size once.
func readBody(r io.Reader, n int64) ([]byte, error) {
	buf := make([]byte, min(n, firstBody))
	have := 0
	for {
		m, err := io.ReadFull(r, buf[have:])
		have += m
		if err != nil {
			return nil, err
		}
		if int64(have) == n {
			return buf, nil
		}
		grown := make([]byte, min(n, 2*int64(len(buf))))
		// A piece at a time, yielding between pieces: a copy into fresh pages is slow (a page
		// fault each 4 KiB) and cannot be preempted, and the collector, stopping this goroutine to
		// scan its stack, spun and signalled it meanwhile: a 200 MB didOpen took 5.3 s to read
		// with one copy, 2.3 s so.
		for k := 0; k < have; k += copyPiece {
			copy(grown[k:min(have, k+copyPiece)], buf[k:])
			runtime.Gosched()
		}
		buf = grown
	}
}

// asciiLower lowers A–Z and leaves every other byte as it is, so offsets into the result are
// offsets into s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

type rawError struct {
	id   []byte // raw JSON id, nil for null
	code jsonrpc2.Code
	msg  string
}

// decode turns a body into a library message, or into the error to answer it with. A nil message
// and nil error means: ignore it (a response to nothing we asked, or a malformed notification).
func (s *Stream) decode(body []byte) (jsonrpc2.Message, *rawError) {
	var method, id, params []byte
	var hasMethod, hasResult, hasError bool
	i := jsonscan.SkipSpace(body, 0)
	if i < len(body) && body[i] == '[' {
		return nil, &rawError{nil, jsonrpc2.InvalidRequest, "batches are not supported by the language server protocol"}
	}
	var pre any
	end, err := jsonscan.ObjectFields(body, i, func(key []byte, vs int) (int, error) {
		if string(key) == "params" && len(method) > 2 && method[0] == '"' && len(body)-vs > bigParams {
			// The fast path of big params with a decoder of their own (a didOpen: its text is
			// unescaped in place as the envelope is read, in one pass, no scan to find the end of
			// params first).
			if fn := s.big[string(method[1:len(method)-1])]; fn != nil {
				if p, ve, err := fn(body, vs); err == nil {
					pre, params = p, body[vs:vs] // params: present, decoded
					return ve, nil
				}
			}
		}
		ve, err := jsonscan.ValueEnd(body, vs)
		if err != nil {
			return 0, err
		}
		switch string(key) {
		case "method":
			method, hasMethod = body[vs:ve], true
		case "id":
			id = body[vs:ve]
		case "params":
			params = body[vs:ve]
		case "result":
			hasResult = true
		case "error":
			hasError = true
		}
		return ve, nil
	})
	if err == nil && jsonscan.SkipSpace(body, end) != len(body) {
		err = jsonscan.ErrSyntax
	}
	if err != nil {
		// JSON-RPC: when the id cannot be read, the error's id is null.
		return nil, &rawError{nil, jsonrpc2.ParseError, "the message is not valid JSON"}
	}
	if !hasMethod {
		if id == nil || !(hasResult || hasError) {
			return nil, &rawError{nil, jsonrpc2.InvalidRequest, "a message needs a method (request) or a result or error (response)"}
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err != nil {
			return nil, nil // a response we cannot read: nobody to tell
		}
		return msg, nil
	}
	if len(method) < 2 || method[0] != '"' {
		if id != nil {
			return nil, &rawError{id, jsonrpc2.InvalidRequest, "method must be a string"}
		}
		return nil, nil
	}
	idJSON := []byte(nil)
	if id != nil {
		idJSON = s.wireID(id)
	}
	var env bytes.Buffer
	env.Grow(len(method) + len(idJSON) + 64 + min(len(params), bigParams))
	env.WriteString(`{"jsonrpc":"2.0","method":`)
	env.Write(method)
	if idJSON != nil {
		env.WriteString(`,"id":`)
		env.Write(idJSON)
	}
	switch {
	case pre != nil:
		env.WriteString(`,"params":{"` + blobKey + `":`)
		env.WriteString(strconv.FormatInt(s.blobs.put(pre), 10))
		env.WriteString(`}`)
	case params == nil || string(params) == "null":
	case len(params) > bigParams:
		env.WriteString(`,"params":{"` + blobKey + `":`)
		env.WriteString(strconv.FormatInt(s.blobs.put(params), 10))
		env.WriteString(`}`)
	default:
		env.WriteString(`,"params":`)
		env.Write(params)
	}
	env.WriteByte('}')
	msg, derr := jsonrpc2.DecodeMessage(env.Bytes())
	if derr != nil {
		if id != nil {
			return nil, &rawError{id, jsonrpc2.ParseError, "the message could not be decoded: " + derr.Error()}
		}
		return nil, nil
	}
	return msg, nil
}

// wireID returns the id as the library should see it: itself when the library can carry it, else a
// synthetic string id remembered so that the reply goes out with the original bytes.
func (s *Stream) wireID(raw []byte) []byte {
	if raw[0] == '"' {
		if str, err := strconv.Unquote(string(raw)); err == nil && str != "" && !strings.HasPrefix(str, syntheticID) && !bytes.ContainsRune(raw, '\\') {
			return raw
		}
	} else if n, err := strconv.ParseInt(string(raw), 10, 32); err == nil && strconv.FormatInt(n, 10) == string(raw) {
		return raw
	}
	key := syntheticID + strconv.FormatInt(s.idSeq.Add(1), 10)
	s.ids.Store(key, append([]byte(nil), raw...))
	out, _ := json.Marshal(key)
	return out
}

// rawID returns the JSON bytes to write for a library id.
func (s *Stream) rawID(id jsonrpc2.ID) []byte {
	str := fmt.Sprint(id)
	if strings.HasPrefix(str, syntheticID) {
		if raw, ok := s.ids.LoadAndDelete(str); ok {
			return raw.([]byte)
		}
	}
	b, _ := json.Marshal(&id)
	return b
}

// idString returns the JSON of a request id as the client sent it.
func (s *Stream) idString(id jsonrpc2.ID) string {
	str := fmt.Sprint(id)
	if strings.HasPrefix(str, syntheticID) {
		if raw, ok := s.ids.Load(str); ok {
			return string(raw.([]byte))
		}
	}
	b, _ := json.Marshal(&id)
	return string(b)
}

// Write sends one message.
func (s *Stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	var body []byte
	switch m := msg.(type) {
	case *jsonrpc2.Response:
		body = s.marshalResponse(s.rawID(m.ID()), m.Result(), m.Err())
	case json.Marshaler: // the server's calls and notifications: the library's own encoding
		var err error
		if body, err = m.MarshalJSON(); err != nil {
			return 0, fmt.Errorf("marshaling message: %w", err)
		}
	default:
		return 0, fmt.Errorf("cannot write a %T", msg)
	}
	return s.writeBody(body)
}

// writeResult sends the response to call id with a result already encoded: the frame's header, the
// envelope and the result go out as they are, without copying the result into a message first.
func (s *Stream) writeResult(id jsonrpc2.ID, result []byte) (int64, error) {
	if s.trace != nil {
		return s.writeBody(s.marshalResponse(s.rawID(id), result, nil))
	}
	head := make([]byte, 0, 96)
	env := append(append([]byte(`{"jsonrpc":"2.0","id":`), s.rawID(id)...), `,"result":`...)
	head = append(head, "Content-Length: "...)
	head = strconv.AppendInt(head, int64(len(env)+len(result)+1), 10)
	head = append(head, "\r\n\r\n"...)
	head = append(head, env...)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	n, err := s.out.Write(head)
	if err == nil {
		var m int
		m, err = s.out.Write(result)
		n += m
	}
	if err == nil {
		var m int
		m, err = s.out.Write([]byte{'}'})
		n += m
	}
	return int64(n), err
}

func (s *Stream) writeBody(body []byte) (int64, error) {
	s.trace.message("send", body)
	frame := make([]byte, 0, len(body)+32)
	frame = append(frame, "Content-Length: "...)
	frame = strconv.AppendInt(frame, int64(len(body)), 10)
	frame = append(frame, "\r\n\r\n"...)
	frame = append(frame, body...)
	s.wmu.Lock()
	n, err := s.out.Write(frame)
	s.wmu.Unlock()
	return int64(n), err
}

type wireError struct {
	Code    jsonrpc2.Code   `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (s *Stream) marshalResponse(id, result []byte, rerr error) []byte {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	if id == nil {
		b.WriteString("null")
	} else {
		b.Write(id)
	}
	if rerr != nil {
		we := wireError{Code: jsonrpc2.InternalError, Message: rerr.Error()}
		var je *jsonrpc2.Error
		if errors.As(rerr, &je) {
			we.Code, we.Message = je.Code, je.Message
			if je.Data != nil {
				we.Data = json.RawMessage(*je.Data)
			}
		}
		e, _ := json.Marshal(we)
		b.WriteString(`,"error":`)
		b.Write(e)
	} else {
		b.WriteString(`,"result":`)
		if len(result) == 0 {
			b.WriteString("null")
		} else {
			b.Write(result)
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// replyRaw answers a message the library never sees.
func (s *Stream) replyRaw(id []byte, code jsonrpc2.Code, msg string) {
	s.writeBody(s.marshalResponse(id, nil, jsonrpc2.NewError(code, msg)))
}

// blobs holds big params (raw bytes, or a didOpen already decoded) between the stream and their
// handler.
type blobs struct {
	mu  sync.Mutex
	seq int64
	m   map[int64]any
}

const blobKey = "$ccdag.params"

func (b *blobs) put(p any) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seq++
	b.m[b.seq] = p
	return b.seq
}

// take returns the real params of a message: the big params it stands for (raw, or decoded), or
// the message's own. Each big params can be taken once.
func (b *blobs) take(params []byte) ([]byte, any) {
	if b == nil || len(params) > 64 || !bytes.Contains(params, []byte(blobKey)) {
		return params, nil
	}
	var ref map[string]int64
	if json.Unmarshal(params, &ref) != nil {
		return params, nil
	}
	n, ok := ref[blobKey]
	if !ok {
		return params, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	p, ok := b.m[n]
	if !ok {
		return params, nil
	}
	delete(b.m, n)
	if raw, ok := p.([]byte); ok {
		return raw, nil
	}
	return params, p
}
