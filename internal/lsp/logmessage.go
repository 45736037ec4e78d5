package lsp

import (
	"sync"

	"go.lsp.dev/protocol"
	"go.uber.org/zap/zapcore"
)

// clientLog routes the server's log to the client once it is attached: an editor shows its
// server's stderr as errors (Neovim's :LspLog writes every stderr line as [ERROR]), so an info
// line there reads as a failure. Lines logged to stderr (no --log-file) go, after `initialized`,
// as window/logMessage with their level's type (Error, Warning, Info, Log for debug); before it
// they wait (at most clientLogHeld of them, then the oldest go to stderr), and warnings and errors
// also go to stderr at once, as they did. A message that cannot be sent goes to stderr.
type clientLog struct {
	zapcore.LevelEnabler
	stderr zapcore.Core    // where lines went before, and go when there is no client
	enc    zapcore.Encoder // a line's text: the console encoding without time and level
	fields []zapcore.Field

	st *clientLogState
}

const clientLogHeld = 64

type clientLogState struct {
	mu   sync.Mutex
	send func(typ protocol.MessageType, text string) error // set when the client is attached
	held []heldEntry
}

type heldEntry struct {
	ent    zapcore.Entry
	fields []zapcore.Field // the entry's own, for core
	text   string          // as sent
	core   zapcore.Core
}

func newClientLog(stderr zapcore.Core, level zapcore.LevelEnabler) *clientLog {
	enc := zapcore.NewConsoleEncoder(zapcore.EncoderConfig{MessageKey: "msg", NameKey: "logger", ConsoleSeparator: " "})
	return &clientLog{LevelEnabler: level, stderr: stderr, enc: enc, st: &clientLogState{}}
}

// attach sends what was held, and every later line, through send.
func (c *clientLog) attach(send func(typ protocol.MessageType, text string) error) {
	c.st.mu.Lock()
	c.st.send = send
	held := c.st.held
	c.st.held = nil
	c.st.mu.Unlock()
	for _, h := range held {
		if err := send(messageType(h.ent.Level), h.text); err != nil {
			_ = h.core.Write(h.ent, h.fields)
		}
	}
}

func messageType(l zapcore.Level) protocol.MessageType {
	switch {
	case l >= zapcore.ErrorLevel:
		return protocol.MessageTypeError
	case l == zapcore.WarnLevel:
		return protocol.MessageTypeWarning
	case l == zapcore.InfoLevel:
		return protocol.MessageTypeInfo
	}
	return protocol.MessageTypeLog
}

func (c *clientLog) text(ent zapcore.Entry, fields []zapcore.Field) string {
	b, err := c.enc.EncodeEntry(ent, append(append([]zapcore.Field{}, c.fields...), fields...))
	if err != nil {
		return ent.Message
	}
	defer b.Free()
	s := b.String()
	for len(s) > 0 && s[len(s)-1] == '\n' {
		s = s[:len(s)-1]
	}
	return "ccdag: " + s
}

func (c *clientLog) With(fields []zapcore.Field) zapcore.Core {
	return &clientLog{LevelEnabler: c.LevelEnabler, stderr: c.stderr.With(fields), enc: c.enc,
		fields: append(append([]zapcore.Field{}, c.fields...), fields...), st: c.st}
}

func (c *clientLog) Check(ent zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(ent.Level) {
		return ce.AddCore(ent, c)
	}
	return ce
}

func (c *clientLog) Write(ent zapcore.Entry, fields []zapcore.Field) error {
	c.st.mu.Lock()
	send := c.st.send
	if send == nil && ent.Level < zapcore.WarnLevel {
		if len(c.st.held) == clientLogHeld {
			old := c.st.held[0]
			c.st.held = c.st.held[1:]
			defer func() { _ = old.core.Write(old.ent, old.fields) }()
		}
		c.st.held = append(c.st.held, heldEntry{ent, append([]zapcore.Field{}, fields...), c.text(ent, fields), c.stderr})
		c.st.mu.Unlock()
		return nil
	}
	c.st.mu.Unlock()
	if send == nil || ent.Level >= zapcore.WarnLevel {
		if err := c.stderr.Write(ent, fields); err != nil || send == nil {
			return err
		}
	}
	if err := send(messageType(ent.Level), c.text(ent, fields)); err != nil && ent.Level < zapcore.WarnLevel {
		return c.stderr.Write(ent, fields)
	}
	return nil
}

// Sync writes to stderr what is still held (the client never attached), then syncs it.
func (c *clientLog) Sync() error {
	c.st.mu.Lock()
	held := c.st.held
	c.st.held = nil
	c.st.mu.Unlock()
	for _, h := range held {
		_ = h.core.Write(h.ent, h.fields)
	}
	return c.stderr.Sync()
}
