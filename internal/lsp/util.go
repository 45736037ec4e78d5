package lsp

import (
	"go.uber.org/zap"

	"github.com/ccdag/ccdag/internal/jsonrpc"
	"github.com/ccdag/ccdag/internal/version"
)

// unmarshal decodes JSON; a decoder panic on hostile input becomes an error.
var unmarshal = jsonrpc.Unmarshal

func serverVersion() string { return version.Version }

// notify sends a notification to the client; a failure (the client is gone) is only logged.
func (srv *server) notify(method string, params any) {
	if err := srv.conn.Notify(srv.ctx, method, params); err != nil {
		srv.log.Debug("notification not sent", zap.String("method", method), zap.Error(err))
	}
}
