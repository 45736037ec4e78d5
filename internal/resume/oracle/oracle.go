// Package oracle resumes a session with the real Claude Code, offline, and reports what it sent
// (docs/spec.md §13): a mock of the Messages API on 127.0.0.1, a throw-away HOME holding a copy of
// the session, and `claude -p PROBE --resume <sessionId>` run from a folder whose encoded name is
// that project folder. The request carrying PROBE holds the conversation Claude Code loaded.
//
// It serves the tests that hold `ccdag resume` to Claude Code; it writes only under its scratch
// folder (Claude Code appends to the log it resumes: it gets a copy, never the original).
package oracle

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Probe is the prompt the resume sends; the request holding it is the one compared.
const Probe = "CCDAG-ORACLE-PROBE-7f3a"

// Sent is what Claude Code sent the model after loading a session.
type Sent struct {
	ToolUses []string // tool_use ids, in message order
	Results  []string // tool_result ids (tool_use_id), in message order
	Prompts  []string // the texts of the user messages, in order (the probe excluded, reminders kept)
	Messages int      // messages in the request
	// NoResponse: an assistant message "No response requested." closes the history.
	NoResponse bool
	Raw        []byte // the request body
}

// Mock is a stand-in for the Messages API: streamed replies to messages, a count for
// count_tokens, 200 to anything else. It keeps every messages request.
type Mock struct {
	URL  string
	srv  *http.Server
	ln   net.Listener
	mu   sync.Mutex
	reqs [][]byte
}

// NewMock starts a mock on 127.0.0.1.
func NewMock() (*Mock, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	m := &Mock{URL: "http://" + ln.Addr().String(), ln: ln}
	m.srv = &http.Server{Handler: http.HandlerFunc(m.serve), ReadHeaderTimeout: 10 * time.Second}
	go m.srv.Serve(ln)
	return m, nil
}

// Close stops the mock.
func (m *Mock) Close() { m.srv.Close() }

// Requests returns the bodies of the messages requests received so far.
func (m *Mock) Requests() [][]byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([][]byte(nil), m.reqs...)
}

func (m *Mock) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 256<<20))
	path := r.URL.Path
	switch {
	case strings.HasSuffix(path, "/messages/count_tokens"):
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"input_tokens":1000}`)
	case strings.HasSuffix(path, "/messages"):
		m.mu.Lock()
		m.reqs = append(m.reqs, body)
		m.mu.Unlock()
		var req struct {
			Stream bool   `json:"stream"`
			Model  string `json:"model"`
		}
		json.Unmarshal(body, &req)
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":"msg_oracle","type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}}`, req.Model)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		events := []string{
			`message_start`, fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_oracle","type":"message","role":"assistant","model":%q,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}}}`, req.Model),
			`content_block_start`, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			`content_block_delta`, `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}}`,
			`content_block_stop`, `{"type":"content_block_stop","index":0}`,
			`message_delta`, `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":1}}`,
			`message_stop`, `{"type":"message_stop"}`,
		}
		fl, _ := w.(http.Flusher)
		for i := 0; i < len(events); i += 2 {
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", events[i], events[i+1])
			if fl != nil {
				fl.Flush()
			}
		}
	default:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{}`)
	}
}

// Encode is Claude Code's name for a project folder: every character but ASCII letters and digits
// becomes '-'.
func Encode(dir string) string {
	b := []byte(dir)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

// Session is one session to resume: its main log's bytes and its sub-agent files (relative path
// under the project folder → bytes), all copied into the scratch HOME.
type Session struct {
	ID    string
	Main  []byte
	Files map[string][]byte
}

// Dirs returns a scratch folder's HOME, the folder claude runs in, and that folder's project
// folder under HOME (where the session is copied).
func Dirs(scratch string) (home, cwd, proj string) {
	home = filepath.Join(scratch, "home")
	cwd = filepath.Join(scratch, "work", "proj")
	return home, cwd, filepath.Join(home, ".claude", "projects", Encode(cwd))
}

var cwdField = regexp.MustCompile(`"cwd":"(?:[^"\\]|\\.)*"`)

// Place copies s into scratch's project folder and returns the main log's path. Every record's
// `cwd` becomes the folder claude runs in: Claude Code finds no conversation to resume in a log
// whose records name another working folder. Nothing else of a line changes.
func Place(scratch string, s Session) (string, error) {
	_, cwd, proj := Dirs(scratch)
	for _, d := range []string{cwd, proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", err
		}
	}
	q, _ := json.Marshal(cwd)
	repl := append([]byte(`"cwd":`), q...)
	main := filepath.Join(proj, s.ID+".jsonl")
	if err := os.WriteFile(main, cwdField.ReplaceAllLiteral(s.Main, repl), 0o644); err != nil {
		return "", err
	}
	for rel, b := range s.Files {
		p := filepath.Join(proj, filepath.FromSlash(rel))
		if !strings.HasPrefix(p, proj+string(filepath.Separator)) {
			return "", fmt.Errorf("oracle: %q leaves the project folder", rel)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, cwdField.ReplaceAllLiteral(b, repl), 0o644); err != nil {
			return "", err
		}
	}
	return main, nil
}

// Resume runs the claude command bin (a binary, or node and a cli.js) on the session id placed in
// scratch (Place), against a mock API, and returns what it sent with the probe.
func Resume(ctx context.Context, bin []string, scratch, id string) (*Sent, error) {
	m, err := NewMock()
	if err != nil {
		return nil, err
	}
	defer m.Close()
	home, cwd, _ := Dirs(scratch)
	args := append(append([]string{}, bin[1:]...), "-p", Probe, "--resume", id, "--model", "claude-sonnet-4-6[1m]")
	cmd := exec.CommandContext(ctx, bin[0], args...)
	cmd.Dir = cwd
	cmd.Env = Env(home, m.URL)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
	for _, body := range m.Requests() {
		if bytes.Contains(body, []byte(Probe)) {
			return Parse(body)
		}
	}
	msg := strings.TrimSpace(out.String())
	if len(msg) > 2000 {
		msg = msg[:2000] + "…"
	}
	if runErr != nil {
		return nil, fmt.Errorf("oracle: claude sent no request with the probe (%v): %s", runErr, msg)
	}
	return nil, fmt.Errorf("oracle: claude sent no request with the probe (%d requests): %s", len(m.Requests()), msg)
}

// ErrNoProbe says the request holds no message with the probe.
var ErrNoProbe = errors.New("oracle: no probe in the request")

// Env is the environment Claude Code runs in: offline, uncompacted, no telemetry, no updates.
func Env(home, url string) []string {
	env := []string{
		"HOME=" + home,
		"PATH=" + os.Getenv("PATH"),
		"ANTHROPIC_BASE_URL=" + url,
		"ANTHROPIC_API_KEY=sk-ant-test",
		"DISABLE_TELEMETRY=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_AUTO_COMPACT=1",
		"DISABLE_COMPACT=1",
		"DISABLE_ERROR_REPORTING=1",
		"NO_PROXY=127.0.0.1,localhost",
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"TMPDIR=" + filepath.Join(home, "tmp"),
	}
	os.MkdirAll(filepath.Join(home, "tmp"), 0o755)
	return env
}

// Parse reads a messages request: its tool_use ids, tool_result ids and user texts.
func Parse(body []byte) (*Sent, error) {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("oracle: request: %w", err)
	}
	s := &Sent{Raw: body, Messages: len(req.Messages)}
	probe := false
	for _, msg := range req.Messages {
		var text string
		var blocks []struct {
			Type      string `json:"type"`
			ID        string `json:"id"`
			ToolUseID string `json:"tool_use_id"`
			Text      string `json:"text"`
		}
		if json.Unmarshal(msg.Content, &text) != nil {
			if err := json.Unmarshal(msg.Content, &blocks); err != nil {
				return nil, fmt.Errorf("oracle: message content: %w", err)
			}
		}
		var texts []string
		if text != "" {
			texts = append(texts, text)
		}
		for _, b := range blocks {
			switch b.Type {
			case "tool_use":
				s.ToolUses = append(s.ToolUses, b.ID)
			case "tool_result":
				s.Results = append(s.Results, b.ToolUseID)
			case "text":
				texts = append(texts, b.Text)
				if msg.Role == "assistant" && b.Text == "No response requested." {
					s.NoResponse = true
				}
			}
		}
		if msg.Role != "user" {
			continue
		}
		// The probe's message may hold the end of the history too: Claude Code merges consecutive
		// user messages. The new turn's own texts are the probe and reminders (<system-reminder>).
		for _, t := range texts {
			if strings.Contains(t, Probe) {
				probe = true
				continue
			}
			s.Prompts = append(s.Prompts, t)
		}
	}
	if !probe {
		return nil, ErrNoProbe
	}
	return s, nil
}
