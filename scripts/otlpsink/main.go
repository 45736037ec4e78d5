// otlpsink is an OTLP/HTTP endpoint that decodes what it receives, counts the spans and keeps
// nothing: the far end for measuring `ccdag export --otlp` alone (docs/PERFORMANCE.md). It listens
// on the loopback interface only and prints its count when it gets SIGINT/SIGTERM.
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:4319", "listen address (loopback)")
	flag.Parse()
	var spans, requests, bytes atomic.Int64
	http.HandleFunc("/v1/traces", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var req coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		n := 0
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				n += len(ss.Spans)
			}
		}
		spans.Add(int64(n))
		requests.Add(1)
		bytes.Add(int64(len(body)))
		w.Header().Set("Content-Type", "application/x-protobuf")
		b, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Write(b)
	})
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		fmt.Printf("%d requests, %d spans, %d bytes of protobuf\n", requests.Load(), spans.Load(), bytes.Load())
		os.Exit(0)
	}()
	log.Fatal(http.ListenAndServe(*addr, nil))
}
