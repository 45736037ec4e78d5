package lsp

import (
	"fmt"

	json "github.com/goccy/go-json"
	segjson "github.com/segmentio/encoding/json"
	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"

	"github.com/ccdag/ccdag/internal/version"
)

// unmarshal decodes JSON; a decoder panic on hostile input becomes an error.
func unmarshal(b []byte, v any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("cannot decode: %v", p)
		}
	}()
	return json.Unmarshal(b, v)
}

func marshalMessage(m jsonrpc2.Message) ([]byte, error) { return segjson.Marshal(m) }

func serverVersion() string { return version.Version }

// notify sends a notification to the client; a failure (the client is gone) is only logged.
func (srv *server) notify(method string, params any) {
	if err := srv.conn.Notify(srv.ctx, method, params); err != nil {
		srv.log.Debug("notification not sent", zap.String("method", method), zap.Error(err))
	}
}
