// Package gen writes realistic synthetic session logs for benchmarks, soak and property tests:
// assistant messages split one content block per line, tool results of 200 B – 200 KB, a 1.5 MB
// base64 image line now and then, progress records, non-ASCII text. Output is deterministic per seed.
package gen

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Options shape a generated session.
type Options struct {
	SessionID  string
	Seed       uint64
	ImageEvery int // one image result every N turns (0: default 40)
}

// Writer appends records to a growing log; it remembers the chain's tip so appends continue it.
type Writer struct {
	opt   Options
	rng   *rand.Rand
	buf   []byte
	n     int    // records written
	tip   string // uuid of the last record in the chain
	turns int
	tools int
	words []string
	image string
}

// New returns a writer for one session.
func New(opt Options) *Writer {
	if opt.SessionID == "" {
		opt.SessionID = "0b5e7a1c-5e55-4d0a-9a7e-000000000001"
	}
	if opt.ImageEvery == 0 {
		opt.ImageEvery = 40
	}
	w := &Writer{opt: opt, rng: rand.New(rand.NewPCG(opt.Seed, 7))}
	w.words = strings.Fields("the function returns a value when called with the parsed tree and its cursor moves " +
		"über naïve café résumé 函数 返回 值 テスト ファイル 🚀 ✅ 🔧 error handling retries timeout buffer slice map")
	img := make([]byte, 1_100_000) // ~1.5 MB of base64
	for i := range img {
		img[i] = byte(w.rng.IntN(256))
	}
	w.image = base64.StdEncoding.EncodeToString(img)
	return w
}

func (w *Writer) uuid() string {
	w.n++
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", w.opt.Seed&0xffffffff, w.n>>16&0xffff, w.n>>4&0xfff, w.n&0xfff, w.n)
}

func (w *Writer) text(n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(w.words[w.rng.IntN(len(w.words))])
		if w.rng.IntN(12) == 0 {
			b.WriteString(".\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func q(s string) string { return strconv.Quote(s) } // JSON-compatible for the text we generate

func (w *Writer) head(typ, parent, uuid string) string {
	p := "null"
	if parent != "" {
		p = q(parent)
	}
	return fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"userType":"external","cwd":"/home/dev/project","sessionId":%q,"version":"2.1.50","gitBranch":"main","type":%q,"uuid":%q,"timestamp":"2026-03-04T10:%02d:%02d.%03dZ"`,
		p, w.opt.SessionID, typ, uuid, w.n/60%60, w.n%60, w.n%1000)
}

func (w *Writer) line(s string) {
	w.buf = append(w.buf, s...)
	w.buf = append(w.buf, '\n')
}

// Turn appends one user prompt and the assistant's work on it (thoughts, tool calls, results).
func (w *Writer) Turn() {
	w.turns++
	u := w.uuid()
	w.line(w.head("user", w.tip, u) + `,"message":{"role":"user","content":` + q(w.text(80+w.rng.IntN(400))) + `}}`)
	w.tip = u
	steps := 2 + w.rng.IntN(6)
	for s := 0; s < steps; s++ {
		mid := fmt.Sprintf("msg_%08x%06d", w.opt.Seed, w.n)
		usage := fmt.Sprintf(`"usage":{"input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":%d}`, 5+w.rng.IntN(50), 20000+w.rng.IntN(90000), 1+w.rng.IntN(900))
		a := w.uuid()
		w.line(w.head("assistant", w.tip, a) + `,"message":{"model":"claude-opus-4-5-20251101","id":"` + mid + `","type":"message","role":"assistant","content":[{"type":"thinking","thinking":` + q(w.text(200+w.rng.IntN(1500))) + `,"signature":"c2lnbmF0dXJl"}],` + usage + `},"requestId":"req_` + mid + `"}`)
		w.tip = a
		// one or two (parallel) tool calls, one block per line
		calls := 1 + w.rng.IntN(2)
		var ids, uses []string
		for c := 0; c < calls; c++ {
			w.tools++
			id := fmt.Sprintf("toolu_%08x%08d", w.opt.Seed, w.tools)
			b := w.uuid()
			w.line(w.head("assistant", w.tip, b) + `,"message":{"model":"claude-opus-4-5-20251101","id":"` + mid + `","type":"message","role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"Read","input":{"file_path":"/home/dev/project/src/file` + strconv.Itoa(w.tools) + `.go"}}],` + usage + `},"requestId":"req_` + mid + `"}`)
			w.tip = b
			ids, uses = append(ids, id), append(uses, b)
		}
		for c, id := range ids {
			pr := w.uuid()
			w.line(w.head("progress", uses[c], pr) + `,"data":{"type":"hook_progress","hookEvent":"PostToolUse","hookName":"PostToolUse:Read"},"toolUseID":"` + id + `","parentToolUseID":"` + id + `"}`)
			r := w.uuid()
			var content string
			if w.turns%w.opt.ImageEvery == 0 && c == 0 && s == 0 {
				content = `[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + w.image + `"}}]`
			} else {
				size := 200 + int(w.rng.ExpFloat64()*6000)
				content = q(w.text(min(size, 200_000)))
			}
			w.line(w.head("user", uses[c], r) + `,"message":{"role":"user","content":[{"tool_use_id":"` + id + `","type":"tool_result","content":` + content + `}]},"sourceToolAssistantUUID":"` + uses[c] + `"}`)
			w.tip = r
		}
	}
	t := w.uuid()
	w.line(w.head("assistant", w.tip, t) + `,"message":{"model":"claude-opus-4-5-20251101","id":"msg_end` + strconv.Itoa(w.n) + `","type":"message","role":"assistant","content":[{"type":"text","text":` + q(w.text(100+w.rng.IntN(800))) + `}]},"requestId":"req_end` + strconv.Itoa(w.n) + `"}`)
	w.tip = t
}

// Short appends one short record continuing the chain, in turns of a prompt, a tool call, its
// result and a reply, each about size bytes: a log of many small records (the per-record work of
// a check, where Turn's long results weigh the per-byte work).
func (w *Writer) Short(size int) {
	u := w.uuid()
	pad := func(line string) string {
		return strings.Replace(line, "@TEXT@", q(w.text(max(8, size-len(line))))[1:], 1)
	}
	switch w.n % 4 {
	case 1:
		w.line(pad(w.head("user", w.tip, u) + `,"message":{"role":"user","content":"@TEXT@}}`))
	case 2:
		w.tools++
		w.line(pad(w.head("assistant", w.tip, u) + `,"message":{"id":"msg_` + strconv.Itoa(w.n) + `","role":"assistant","content":[{"type":"tool_use","id":"toolu_` + strconv.Itoa(w.tools) + `","name":"Bash","input":{"command":"@TEXT@}}]}}`))
	case 3:
		w.line(pad(w.head("user", w.tip, u) + `,"message":{"role":"user","content":[{"tool_use_id":"toolu_` + strconv.Itoa(w.tools) + `","type":"tool_result","content":"@TEXT@}]}}`))
	default:
		w.line(pad(w.head("assistant", w.tip, u) + `,"message":{"id":"msg_` + strconv.Itoa(w.n) + `","role":"assistant","content":[{"type":"text","text":"@TEXT@}]}}`))
	}
	w.tip = u
}

// Bytes returns everything written so far.
func (w *Writer) Bytes() []byte { return w.buf }

// Take returns what was written since the last Take (or New) and forgets it, for appends.
func (w *Writer) Take() []byte {
	b := w.buf
	w.buf = nil
	return b
}

// Session returns a log of at least size bytes.
func Session(size int, seed uint64) []byte {
	w := New(Options{Seed: seed})
	for len(w.buf) < size {
		w.Turn()
	}
	return w.buf
}

// Record returns one more assistant text record continuing the chain (for append benchmarks).
func (w *Writer) Record() []byte {
	t := w.uuid()
	s := w.head("assistant", w.tip, t) + `,"message":{"model":"claude-opus-4-5-20251101","id":"msg_x` + strconv.Itoa(w.n) + `","type":"message","role":"assistant","content":[{"type":"text","text":` + q(w.text(300)) + `}]},"requestId":"req_x` + strconv.Itoa(w.n) + `"}` + "\n"
	w.tip = t
	return []byte(s)
}
