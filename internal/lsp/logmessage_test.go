package lsp

import (
	"errors"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// The server's log reaches the client as window/logMessage with its level (an editor shows stderr
// as errors: Neovim's :LspLog wrote "[ERROR] … info ccdag language server started"): lines before
// `initialized` wait for it, warnings and errors still go to stderr, and what cannot be sent (no
// client ever, a failed send) goes to stderr.
func TestLogGoesToTheClient(t *testing.T) {
	stderr, seen := observer.New(zapcore.DebugLevel)
	cl := newClientLog(stderr, zapcore.DebugLevel)
	log := zap.New(cl).With(zap.String("session", "s1"))
	log.Info("ccdag language server started")
	log.Debug("a detail")
	if n := seen.Len(); n != 0 {
		t.Fatalf("%d lines on stderr before the client attached, want them held", n)
	}
	type sent struct {
		typ  protocol.MessageType
		text string
	}
	var got []sent
	fail := false
	cl.attach(func(typ protocol.MessageType, text string) error {
		if fail {
			return errors.New("closed")
		}
		got = append(got, sent{typ, text})
		return nil
	})
	log.Info("workspace symbols indexed", zap.Int("files", 4))
	log.Warn("settings not read")
	want := []sent{
		{protocol.MessageTypeInfo, `ccdag: ccdag language server started {"session": "s1"}`},
		{protocol.MessageTypeLog, `ccdag: a detail {"session": "s1"}`},
		{protocol.MessageTypeInfo, `ccdag: workspace symbols indexed {"session": "s1", "files": 4}`},
		{protocol.MessageTypeWarning, `ccdag: settings not read {"session": "s1"}`},
	}
	if len(got) != len(want) {
		t.Fatalf("sent %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("message %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// stderr: the warning only
	if e := seen.TakeAll(); len(e) != 1 || e[0].Message != "settings not read" {
		t.Errorf("stderr after attaching: %+v", e)
	}
	fail = true
	log.Info("connection ended")
	if e := seen.TakeAll(); len(e) != 1 || e[0].Message != "connection ended" {
		t.Errorf("a line that cannot be sent: stderr %+v", e)
	}

	// never attached: Sync writes what was held to stderr
	stderr2, seen2 := observer.New(zapcore.DebugLevel)
	cl2 := newClientLog(stderr2, zapcore.InfoLevel)
	log2 := zap.New(cl2)
	for i := 0; i < clientLogHeld+3; i++ {
		log2.Info("line")
	}
	log2.Debug("below the level")
	if n := seen2.Len(); n != 3 {
		t.Errorf("%d lines on stderr past the %d held, want 3", n, clientLogHeld)
	}
	_ = log2.Sync()
	if n := seen2.Len(); n != clientLogHeld+3 {
		t.Errorf("after Sync %d lines on stderr, want %d", n, clientLogHeld+3)
	}
	for _, e := range seen2.All() {
		if !strings.Contains(e.Message, "line") {
			t.Errorf("stderr: %+v", e)
		}
	}
}
